#include "engine/containerruntime.h"

#include "engine/appleruntime.h"
#include "engine/containereventparser.h"
#include "engine/dockerruntime.h"
#include "engine/imagebuilder.h"
#include "engine/podmanruntime.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>

namespace zeus {

bool ContainerRuntime::isSafeImageReference(const QString& reference) {
    if (reference.isEmpty() || reference.startsWith(QLatin1Char('-'))) {
        return false;
    }
    return std::none_of(reference.cbegin(), reference.cend(), [](QChar c) {
        return c.isSpace() || c.category() == QChar::Other_Control || c.category() == QChar::Other_Format;
    });
}

QString ContainerRuntime::unsupportedReason(const ContainerSpec& /*spec*/) const {
    return {};
}

QStringList ContainerRuntime::stopArguments(const QStringList& containers) const {
    return QStringList{QStringLiteral("stop"), QStringLiteral("-t"), QStringLiteral("2")} + containers;
}

QStringList ContainerRuntime::startArguments(const QString& container) const {
    return {QStringLiteral("start"), container};
}

QStringList ContainerRuntime::execAsRootArguments(const QString& /*container*/, const QStringList& /*command*/) const {
    return {};
}

EngineFailure ContainerRuntime::imageCheckFailure(const QByteArray& output) const {
    // Docker "No such image", Podman "image not known", Apple "not found: ..." or "failed to
    // find image". Only an answer that names the image as missing counts.
    static const QRegularExpression missing(
        QStringLiteral("no such image|image not known|image not found|not found: |failed to find image"),
        QRegularExpression::CaseInsensitiveOption);
    return QString::fromUtf8(output).contains(missing) ? EngineFailure::ImageMissing : EngineFailure::Other;
}

EngineFailure ContainerRuntime::containerCallFailure(const QByteArray& output) const {
    // Docker "No such container", Podman "no such container", Apple "notFound: container not found".
    const QByteArray text = output.toLower();
    return text.contains("no such") || text.contains("not found") ? EngineFailure::NoSuchContainer
                                                                  : EngineFailure::Other;
}

namespace {

QString firstLine(const QByteArray& text) {
    const QString trimmed = QString::fromUtf8(text).trimmed();
    const qsizetype newline = trimmed.indexOf(QLatin1Char('\n'));
    return newline < 0 ? trimmed : trimmed.left(newline).trimmed();
}

void readLabels(const QJsonValue& value, QMap<QString, QString>& labels) {
    const QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        labels.insert(it.key(), it.value().toString());
    }
}

}  // namespace

QString ContainerRuntime::errorLine(const QByteArray& standardError) {
    // Docker (and Podman's docker-compatible wrappers) end a refused `run` with a pointer to --help.
    static const QRegularExpression helpHint(QStringLiteral("^Run '.* --help' for more information\\.?$"));
    const QList<QByteArray> lines = standardError.split('\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        const QString line = QString::fromUtf8(it->trimmed());
        if (!line.isEmpty() && !helpHint.match(line).hasMatch()) {
            return line.left(500);
        }
    }
    return {};
}

QStringList ContainerRuntime::logsArguments(const QString& container, int lines) const {
    if (lines <= 0) {
        return {QStringLiteral("logs"), container};
    }
    return {QStringLiteral("logs"), QStringLiteral("--tail"), QString::number(lines), container};
}

QStringList ContainerRuntime::imageInspectArguments(const QString& image) const {
    return {QStringLiteral("image"), QStringLiteral("inspect"), image};
}

QStringList ContainerRuntime::runOnceArguments(const QString& image, const QStringList& command) const {
    return QStringList{QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("--network"),
                       QStringLiteral("none"), image}
           + command;
}

ImageInspection ContainerRuntime::parseImageInspect(const QString& image, const ProcessResult& result) const {
    ImageInspection inspection;
    inspection.image = image;
    if (!result.started || result.timedOut || result.crashed) {
        inspection.error = result.timedOut ? QStringLiteral("timed out")
                           : result.crashed
                               ? QStringLiteral("crashed: %1").arg(result.errorString)
                               : QStringLiteral("could not start %1: %2").arg(result.program, result.errorString);
        return inspection;
    }
    const QJsonDocument document = QJsonDocument::fromJson(result.standardOutput.trimmed());
    const QJsonArray array = document.isArray()    ? document.array()
                             : document.isObject() ? QJsonArray{document.object()}
                                                   : QJsonArray();
    const QString errorText = firstLine(result.standardError);
    if (result.exitCode != 0 || array.isEmpty()) {
        // Docker: exit 1 "No such image"; Podman: exit 125 "image not known"; Apple: "notFound"; all with "[]" or
        // nothing on stdout. An engine that is down also prints "[]", so only the words say "missing".
        const bool missing = imageCheckFailure(result.standardError) == EngineFailure::ImageMissing
                             || (result.exitCode == 0 && document.isArray());
        inspection.outcome = missing ? ImageInspection::Outcome::Missing : ImageInspection::Outcome::Failed;
        inspection.error = errorText.isEmpty() ? QStringLiteral("exit code %1").arg(result.exitCode) : errorText;
        return inspection;
    }
    const QJsonObject object = array.first().toObject();
    inspection.outcome = ImageInspection::Outcome::Present;
    // Docker and Podman: Id, Created, Comment, Config.Labels (Podman also Labels at the top).
    inspection.id = object.value(QLatin1String("Id")).toString();
    inspection.created = object.value(QLatin1String("Created")).toString();
    inspection.comment = object.value(QLatin1String("Comment")).toString();
    readLabels(object.value(QLatin1String("Config")).toObject().value(QLatin1String("Labels")), inspection.labels);
    readLabels(object.value(QLatin1String("Labels")), inspection.labels);
    // Apple: id (or index.digest) and each variant's OCI config with its labels.
    if (inspection.id.isEmpty()) {
        inspection.id = object.value(QLatin1String("id")).toString();
    }
    if (inspection.id.isEmpty()) {
        inspection.id = object.value(QLatin1String("index")).toObject().value(QLatin1String("digest")).toString();
    }
    for (const QJsonValue variant : object.value(QLatin1String("variants")).toArray()) {
        const QJsonObject config = variant.toObject().value(QLatin1String("config")).toObject();
        readLabels(config.value(QLatin1String("config")).toObject().value(QLatin1String("Labels")), inspection.labels);
        if (inspection.created.isEmpty()) {
            inspection.created = config.value(QLatin1String("created")).toString();
        }
    }
    return inspection;
}

QString ContainerRuntime::buildImageCommand(const QString& image) const {
    return buildImageCommand(image, ImageBuilder::locateDockerDirectory());
}

QString ContainerRuntime::buildImageCommand(const QString& image, const QString& dockerDirectory) const {
    if (dockerDirectory.isEmpty()) {
        // No Dockerfile here (a build tree, a partial install): the app's own mode finds it where it is installed.
        return QStringLiteral("zeus-desktop --build-image --runtime ") + runtimeKindToString(kind())
               + QStringLiteral(" --image ") + image;
    }
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:@%+=,-]+$"));
    const QString folder = QDir::toNativeSeparators(dockerDirectory);
    const QString program = m_program.isEmpty() ? runtimeProgram(kind()) : m_program;
    return program + QStringLiteral(" build -t ") + image + QLatin1Char(' ')
           + (plain.match(folder).hasMatch() ? folder : QLatin1Char('"') + folder + QLatin1Char('"'));
}

QList<QPair<QString, QString>> ContainerRuntime::labelsFor(const ContainerSpec& spec) {
    return {
        {labels::app(), QStringLiteral("1")},
        {labels::owner(), spec.ownerId},
        {labels::session(), spec.sessionId},
        {labels::workspace(), spec.workspace},
    };
}

std::unique_ptr<ContainerRuntime> ContainerRuntime::create(RuntimeKind kind, const QString& program) {
    std::unique_ptr<ContainerRuntime> runtime;
    switch (kind) {
        case RuntimeKind::Docker:
            runtime = std::make_unique<DockerRuntime>();
            break;
        case RuntimeKind::Podman:
            runtime = std::make_unique<PodmanRuntime>();
            break;
        case RuntimeKind::Apple:
            runtime = std::make_unique<AppleRuntime>();
            break;
    }
    if (!program.isEmpty()) {
        runtime->setProgram(program);
    }
    return runtime;
}

std::unique_ptr<ContainerRuntime> ContainerRuntime::clone() const {
    switch (kind()) {
        case RuntimeKind::Docker:
            return std::make_unique<DockerRuntime>(static_cast<const DockerRuntime&>(*this));
        case RuntimeKind::Podman:
            return std::make_unique<PodmanRuntime>(static_cast<const PodmanRuntime&>(*this));
        case RuntimeKind::Apple:
            return std::make_unique<AppleRuntime>(static_cast<const AppleRuntime&>(*this));
    }
    return nullptr;
}

std::optional<ContainerInfo> ContainerRuntime::parseInspect(const QByteArray& output) const {
    const QList<ContainerInfo> containers = parseInspectAll(output);
    if (containers.isEmpty()) {
        return std::nullopt;
    }
    return containers.first();
}

QList<ContainerEvent> ContainerRuntime::parseInspectStates(const QByteArray& output) const {
    QList<ContainerEvent> events;
    const QList<ContainerInfo> containers = parseInspectAll(output);
    for (const ContainerInfo& info : containers) {
        ContainerEvent event;
        event.containerId = info.id;
        event.action = QStringLiteral("inspect");
        event.sessionId = info.labels.value(labels::session());
        event.ownerId = info.labels.value(labels::owner());
        event.state = ContainerEventParser::stateForStatus(info.state);
        if (event.state == ContainerEvent::State::Unknown && info.running) {
            event.state = ContainerEvent::State::Running;
        }
        if (event.state == ContainerEvent::State::Exited) {
            event.exitCode = info.exitCode;
        }
        event.time = info.time;
        events.append(event);
    }
    return events;
}

QStringList ContainerRuntime::eventsArguments(const QString& ownerId, const QDateTime& since) const {
    Q_UNUSED(ownerId)
    Q_UNUSED(since)
    return {};
}

std::optional<ContainerEvent> ContainerRuntime::parseEvent(const QByteArray& line) const {
    Q_UNUSED(line)
    return std::nullopt;
}

QStringList ContainerRuntime::statsArguments(const QStringList& containerIds) const {
    Q_UNUSED(containerIds)
    return {};
}

QList<ContainerStats> ContainerRuntime::parseStats(const QByteArray& output) const {
    Q_UNUSED(output)
    return {};
}

bool ContainerRuntime::sameContainer(QStringView a, QStringView b) {
    return ContainerEventParser::sameContainer(a, b);
}

}  // namespace zeus
