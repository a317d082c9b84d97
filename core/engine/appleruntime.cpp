#include "engine/appleruntime.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace zeus {

namespace {

ContainerInfo parseContainerObject(const QJsonObject& object) {
    ContainerInfo info;
    const QJsonObject configuration = object.value(QLatin1String("configuration")).toObject();
    // 1.0.0+: top-level "id" and status {state}; 0.x: configuration.id and status as a string.
    info.id = object.value(QLatin1String("id")).toString();
    if (info.id.isEmpty()) {
        info.id = configuration.value(QLatin1String("id")).toString();
    }
    info.name = info.id;
    const QJsonValue status = object.value(QLatin1String("status"));
    info.state = status.isObject() ? status.toObject().value(QLatin1String("state")).toString() : status.toString();
    info.running = info.state == QLatin1String("running");
    const QJsonObject labelObject = configuration.value(QLatin1String("labels")).toObject();
    for (auto it = labelObject.begin(); it != labelObject.end(); ++it) {
        info.labels.insert(it.key(), it.value().toString());
    }
    return info;
}

}  // namespace

bool AppleRuntime::atLeast(int major, int minor) const {
    return m_version.isNull() || m_version >= QVersionNumber(major, minor);
}

QString AppleRuntime::memoryArgument(const QString& memory) {
    static const QRegularExpression re(QStringLiteral("^(\\d+)([kKmMgGtT]?)[bB]?$"));
    const QRegularExpressionMatch match = re.match(memory.trimmed());
    if (!match.hasMatch()) {
        return memory;
    }
    const double value = match.captured(1).toDouble();
    const QChar unit = match.captured(2).isEmpty() ? QLatin1Char('b') : match.captured(2).at(0).toLower();
    double mib = value / (1024.0 * 1024.0);
    if (unit == QLatin1Char('k')) {
        mib = value / 1024.0;
    } else if (unit == QLatin1Char('m')) {
        mib = value;
    } else if (unit == QLatin1Char('g')) {
        mib = value * 1024.0;
    } else if (unit == QLatin1Char('t')) {
        mib = value * 1024.0 * 1024.0;
    }
    return mib < 200.0 ? QStringLiteral("200M") : memory;
}

QString AppleRuntime::unsupportedReason(const ContainerSpec& spec) const {
    if (spec.reviewCopy) {
        // Preparing the copy's /workspace needs an exec as the container's root, which this adapter does not make.
        return QStringLiteral(
            "Review mode is not available with Apple Containerization yet: use direct mode, or "
            "Docker or Podman.");
    }
    // Apple's --mount parser splits on every comma and cannot quote.
    if (spec.workspace.contains(QLatin1Char(','))) {
        return QStringLiteral("Apple Containerization cannot mount a folder whose path contains a comma: %1")
            .arg(spec.workspace);
    }
    if (!atLeast(0, 12)) {
        return QStringLiteral("container CLI %1 cannot drop capabilities (--cap-drop needs 0.12.0 or later)")
            .arg(m_version.toString());
    }
    if (spec.effectiveNetwork() == QLatin1String("none") && !atLeast(0, 6)) {
        return QStringLiteral("container CLI %1 cannot disable the network (needs 0.6.0 or later)")
            .arg(m_version.toString());
    }
    return {};
}

QStringList AppleRuntime::runArguments(const ContainerSpec& spec) const {
    QStringList args = {QStringLiteral("run"), QStringLiteral("-d")};
    if (!spec.name.isEmpty()) {
        args << QStringLiteral("--name") << spec.name;
    }
    for (const auto& label : labelsFor(spec)) {
        args << QStringLiteral("--label") << label.first + QLatin1Char('=') + label.second;
    }
    if (atLeast(0, 10)) {
        args << QStringLiteral("--init");
    }
    if (atLeast(0, 12)) {
        args << QStringLiteral("--cap-drop") << QStringLiteral("ALL");
    }
    args << QStringLiteral("--cpus") << spec.cpus << QStringLiteral("--memory") << memoryArgument(spec.memory);
    if (spec.uid >= 0) {
        args << QStringLiteral("--user") << QString::number(spec.uid) + QLatin1Char(':') + QString::number(spec.gid);
    }
    if (spec.profile == HardeningProfile::Hardened && atLeast(0, 8)) {
        args << QStringLiteral("--read-only") << QStringLiteral("--tmpfs") << QStringLiteral("/tmp");
    }
    // --tmpfs takes only a path here (no mode); the VM's tmpfs is writable.
    args << QStringLiteral("--tmpfs") << containerHome() << QStringLiteral("--env")
         << QStringLiteral("HOME=") + containerHome();
    if (spec.runtimeDir) {
        args << QStringLiteral("--tmpfs") << containerRuntimeDir();
    }
    for (const QString& entry : spec.environment) {
        args << QStringLiteral("--env") << entry;
    }
    const QString network = spec.effectiveNetwork();
    if (!network.isEmpty()) {
        args << QStringLiteral("--network") << network;
    }
    args << QStringLiteral("--mount")
         << QStringLiteral("type=bind,source=") + spec.workspace + QStringLiteral(",target=") + containerWorkspace();
    for (const WorkspaceOverlay& overlay : spec.overlays) {
        if (!overlay.directory) {
            continue;  // the CLI binds directories only (docs/security.md says what that leaves open)
        }
        const QString relative = QLatin1Char('/') + overlay.path;
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=") + spec.workspace + relative + QStringLiteral(",target=")
                    + containerWorkspace() + relative + (overlay.readOnly ? QStringLiteral(",readonly") : QString());
    }
    args << QStringLiteral("--workdir") << containerWorkspace() << spec.image << QStringLiteral("sleep")
         << QStringLiteral("infinity");
    return args;
}

QStringList AppleRuntime::execArguments(const QString& container, const QStringList& command) const {
    return QStringList{QStringLiteral("exec"), container} + command;
}

QStringList AppleRuntime::execWithStdinArguments(const QString& container, const QStringList& command) const {
    return QStringList{QStringLiteral("exec"), QStringLiteral("-i"), container} + command;
}

QStringList AppleRuntime::execWithStdinArguments(const QString& container, const QStringList& command,
                                                 const QStringList& inheritedNames) const {
    // `container exec --env NAME`, like docker's, takes a value-less variable from the CLI's environment.
    QStringList args{QStringLiteral("exec"), QStringLiteral("-i")};
    for (const QString& name : inheritedNames) {
        args << QStringLiteral("--env") << name;
    }
    return args << container << command;
}

QStringList AppleRuntime::logsArguments(const QString& container, int lines) const {
    if (lines <= 0) {
        return {QStringLiteral("logs"), container};
    }
    return {QStringLiteral("logs"), QStringLiteral("-n"), QString::number(lines), container};
}

QStringList AppleRuntime::removeArguments(const QStringList& containers) const {
    return QStringList{QStringLiteral("delete"), QStringLiteral("--force")} + containers;
}

QStringList AppleRuntime::listArguments(const QString& /*ownerId*/) const {
    return {QStringLiteral("list"), QStringLiteral("--all"), QStringLiteral("--format"), QStringLiteral("json")};
}

QList<ContainerInfo> AppleRuntime::parseList(const QByteArray& output) const {
    QList<ContainerInfo> containers;
    const QJsonArray array = QJsonDocument::fromJson(output).array();
    for (const QJsonValue value : array) {
        const ContainerInfo info = parseContainerObject(value.toObject());
        if (!info.id.isEmpty()) {
            containers.append(info);
        }
    }
    return containers;
}

QStringList AppleRuntime::inspectArguments(const QString& container) const {
    return {QStringLiteral("inspect"), container};
}

QList<ContainerInfo> AppleRuntime::parseInspectAll(const QByteArray& output) const {
    // Inspect prints what list prints. Up to 0.12.x a missing id gives "[]" with exit 0.
    return parseList(output);
}

QStringList AppleRuntime::imageExistsArguments(const QString& image) const {
    return {QStringLiteral("image"), QStringLiteral("inspect"), image};
}

}  // namespace zeus
