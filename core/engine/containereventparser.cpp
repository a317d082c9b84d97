#include "engine/containereventparser.h"

#include "engine/containerspec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QRegularExpression>

#include <cmath>
#include <cstring>
#include <initializer_list>

namespace zeus {

namespace {

// A field under any of its known names: exact spellings first, then case-insensitively,
// because both engines have renamed fields between versions (status -> Action, id -> ID).
QJsonValue field(const QJsonObject& object, std::initializer_list<QLatin1String> names) {
    for (const QLatin1String& name : names) {
        const auto it = object.constFind(name);
        if (it != object.constEnd() && !it->isNull() && !it->isUndefined()) {
            return *it;
        }
    }
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        for (const QLatin1String& name : names) {
            if (it.key().compare(name, Qt::CaseInsensitive) == 0 && !it->isNull()) {
                return *it;
            }
        }
    }
    return {};
}

QString stringField(const QJsonObject& object, std::initializer_list<QLatin1String> names) {
    const QJsonValue value = field(object, names);
    if (value.isString()) {
        return value.toString();
    }
    if (value.isDouble()) {
        return QString::number(value.toInteger());
    }
    return {};
}

// An exit code given as a number (podman) or a string (docker attributes).
std::optional<int> intValue(const QJsonValue& value) {
    if (value.isDouble()) {
        const double number = value.toDouble();
        if (std::isfinite(number) && number >= -1 && number <= 255 && number == std::floor(number)) {
            return static_cast<int>(number);
        }
        return std::nullopt;
    }
    if (value.isString()) {
        bool ok = false;
        const int number = value.toString().trimmed().toInt(&ok);
        if (ok && number >= -1 && number <= 255) {
            return number;
        }
    }
    return std::nullopt;
}

// RFC 3339 with up to nanoseconds and any offset (podman prints local time); Qt reads
// milliseconds at most, so the extra digits are cut before parsing.
QDateTime parseTimeString(const QString& text) {
    static const QRegularExpression fraction(QStringLiteral("(\\.\\d{1,3})\\d*"));
    QString trimmed = text.trimmed();
    trimmed.replace(fraction, QStringLiteral("\\1"));
    QDateTime time = QDateTime::fromString(trimmed, Qt::ISODateWithMs);
    return time.isValid() ? time.toUTC() : QDateTime();
}

QDateTime eventTime(const QJsonObject& object) {
    const QJsonValue nanos = field(object, {QLatin1String("timeNano")});
    if (nanos.isDouble()) {
        const qint64 value = nanos.toInteger(-1);
        if (value > 0) {
            return QDateTime::fromMSecsSinceEpoch(value / 1000000, Qt::UTC);
        }
    }
    const QJsonValue time = field(object, {QLatin1String("time"), QLatin1String("Time")});
    if (time.isDouble() && time.toDouble() > 0) {
        return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(time.toDouble() * 1000), Qt::UTC);
    }
    if (time.isString()) {
        return parseTimeString(time.toString());
    }
    return {};
}

void readLabels(const QJsonObject& labels, ContainerEvent& event) {
    event.ownerId = labels.value(labels::owner()).toString();
    event.sessionId = labels.value(labels::session()).toString();
}

ContainerStats statsFrom(const QJsonObject& object) {
    ContainerStats stats;
    stats.containerId = stringField(
        object, {QLatin1String("ID"), QLatin1String("id"), QLatin1String("Container"), QLatin1String("ContainerID")});
    const QJsonValue cpu = field(object, {QLatin1String("CPUPerc"), QLatin1String("cpu_percent"), QLatin1String("CPU"),
                                          QLatin1String("CPUPercent")});
    stats.cpuPercent = cpu.isDouble() ? cpu.toDouble() : ContainerEventParser::parsePercent(cpu.toString());
    const QJsonValue usage = field(object, {QLatin1String("MemUsage"), QLatin1String("mem_usage")});
    if (usage.isDouble()) {
        // Podman's API shape: numbers of bytes, the limit in its own field.
        stats.memoryBytes = usage.toInteger(-1);
        const QJsonValue limit = field(object, {QLatin1String("MemLimit"), QLatin1String("mem_limit")});
        stats.memoryLimitBytes = limit.isDouble() ? limit.toInteger(-1) : -1;
    } else {
        // "544KiB / 23.54GiB"
        const QString text = usage.toString();
        const qsizetype slash = text.indexOf(QLatin1Char('/'));
        stats.memoryBytes =
            ContainerEventParser::parseByteSize(slash < 0 ? QStringView(text) : QStringView(text).left(slash));
        stats.memoryLimitBytes = slash < 0 ? -1 : ContainerEventParser::parseByteSize(QStringView(text).mid(slash + 1));
    }
    return stats;
}

}  // namespace

QStringList ContainerEventParser::eventActions(RuntimeKind kind) {
    switch (kind) {
        case RuntimeKind::Docker:
            return {QStringLiteral("create"), QStringLiteral("start"),   QStringLiteral("restart"),
                    QStringLiteral("pause"),  QStringLiteral("unpause"), QStringLiteral("oom"),
                    QStringLiteral("die"),    QStringLiteral("destroy")};
        case RuntimeKind::Podman:
            return {QStringLiteral("create"), QStringLiteral("start"),   QStringLiteral("restart"),
                    QStringLiteral("pause"),  QStringLiteral("unpause"), QStringLiteral("died"),
                    QStringLiteral("remove")};
        case RuntimeKind::Apple:
            break;
    }
    return {};
}

QStringList ContainerEventParser::eventsArguments(RuntimeKind kind, const QString& ownerId, const QDateTime& since) {
    if (kind == RuntimeKind::Apple) {
        return {};
    }
    QStringList arguments{QStringLiteral("events"), QStringLiteral("--filter"), QStringLiteral("type=container"),
                          QStringLiteral("--filter"),
                          QStringLiteral("label=") + labels::owner() + QLatin1Char('=') + ownerId};
    // Several values of one filter key are OR'ed by both engines.
    const QStringList actions = eventActions(kind);
    for (const QString& action : actions) {
        arguments << QStringLiteral("--filter") << QStringLiteral("event=") + action;
    }
    if (since.isValid()) {
        // RFC 3339 in UTC is read the same way by docker and podman.
        arguments << QStringLiteral("--since") << since.toUTC().toString(Qt::ISODate);
    }
    arguments << QStringLiteral("--format");
    arguments << (kind == RuntimeKind::Docker ? QStringLiteral("{{json .}}") : QStringLiteral("json"));
    return arguments;
}

std::optional<ContainerEvent> ContainerEventParser::parseEventLine(const QByteArray& line) {
    const QByteArray trimmed = line.trimmed();
    if (trimmed.isEmpty() || !trimmed.startsWith('{')) {
        return std::nullopt;
    }
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(trimmed, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        return std::nullopt;
    }
    const QJsonObject object = document.object();
    const QString type = stringField(object, {QLatin1String("Type"), QLatin1String("type")});
    if (!type.isEmpty() && type.compare(QLatin1String("container"), Qt::CaseInsensitive) != 0) {
        return std::nullopt;
    }

    // Docker: Actor{ID, Attributes}; Podman: ID and Attributes at the top.
    const QJsonObject actor = field(object, {QLatin1String("Actor")}).toObject();
    const bool dockerShape = !actor.isEmpty();
    const QJsonObject attributes = dockerShape ? field(actor, {QLatin1String("Attributes")}).toObject()
                                               : field(object, {QLatin1String("Attributes")}).toObject();

    ContainerEvent event;
    event.containerId = dockerShape ? stringField(actor, {QLatin1String("ID")}) : QString();
    if (event.containerId.isEmpty()) {
        event.containerId = stringField(object, {QLatin1String("ID"), QLatin1String("id")});
    }
    event.action = stringField(object, {QLatin1String("Action"), QLatin1String("status"), QLatin1String("Status")})
                       .trimmed()
                       .toLower();
    if (event.containerId.isEmpty() || event.action.isEmpty()) {
        return std::nullopt;
    }
    readLabels(attributes, event);
    event.state = stateForAction(event.action);
    event.time = eventTime(object);

    if (event.state == ContainerEvent::State::Exited) {
        std::optional<int> code = intValue(field(attributes, {QLatin1String("exitCode")}));
        if (!code) {
            code = intValue(field(object, {QLatin1String("ContainerExitCode")}));
        }
        // Podman's shape (Status and Attributes at the top), not Docker's old lowercase one.
        const bool podmanShape =
            !dockerShape && (object.contains(QLatin1String("Status")) || object.contains(QLatin1String("Attributes")));
        if (!code && podmanShape) {
            code = 0;  // podman omits ContainerExitCode when it is 0
        }
        event.exitCode = code.value_or(-1);
    }
    return event;
}

QStringList ContainerEventParser::statsArguments(RuntimeKind kind, const QStringList& containerIds) {
    if (kind == RuntimeKind::Apple) {
        return {};
    }
    QStringList arguments{QStringLiteral("stats"), QStringLiteral("--no-stream"), QStringLiteral("--format")};
    arguments << (kind == RuntimeKind::Docker ? QStringLiteral("{{json .}}") : QStringLiteral("json"));
    arguments << containerIds;
    return arguments;
}

QList<ContainerStats> ContainerEventParser::parseStats(const QByteArray& output) {
    QList<ContainerStats> result;
    const auto add = [&result](const QJsonValue& value) {
        const QJsonObject object = value.toObject();
        if (object.isEmpty()) {
            return;
        }
        ContainerStats stats = statsFrom(object);
        if (!stats.containerId.isEmpty()) {
            result.append(stats);
        }
    };
    QJsonParseError error{};
    const QJsonDocument whole = QJsonDocument::fromJson(output, &error);
    if (error.error == QJsonParseError::NoError && whole.isArray()) {
        const QJsonArray array = whole.array();
        for (const QJsonValue value : array) {
            add(value);
        }
        return result;
    }
    // JSON lines; a warning or a broken line between records is skipped.
    const QList<QByteArray> lines = output.split('\n');
    for (const QByteArray& line : lines) {
        const QJsonDocument document = QJsonDocument::fromJson(line.trimmed());
        if (document.isObject()) {
            add(document.object());
        } else if (document.isArray()) {
            const QJsonArray array = document.array();
            for (const QJsonValue value : array) {
                add(value);
            }
        }
    }
    return result;
}

QList<ContainerInfo> ContainerEventParser::parseInspect(const QByteArray& output) {
    QList<ContainerInfo> result;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(output, &error);
    if (error.error != QJsonParseError::NoError) {
        return result;
    }
    const QJsonArray array = document.isArray() ? document.array() : QJsonArray{document.object()};
    for (const QJsonValue value : array) {
        const QJsonObject object = value.toObject();
        ContainerInfo info;
        info.id = stringField(object, {QLatin1String("Id"), QLatin1String("ID")});
        if (info.id.isEmpty()) {
            continue;
        }
        const QJsonObject state = field(object, {QLatin1String("State")}).toObject();
        if (state.isEmpty()) {
            continue;  // not Docker's or Podman's shape (Apple's has status.state)
        }
        info.name = stringField(object, {QLatin1String("Name")});
        if (info.name.startsWith(QLatin1Char('/'))) {
            info.name.remove(0, 1);  // Docker's names start with a slash
        }
        const QJsonObject config = field(object, {QLatin1String("Config")}).toObject();
        const QJsonObject labelObject = field(config, {QLatin1String("Labels")}).toObject();
        for (auto it = labelObject.begin(); it != labelObject.end(); ++it) {
            info.labels.insert(it.key(), it.value().toString());
        }
        info.state = stringField(state, {QLatin1String("Status")});
        info.running = state.value(QLatin1String("Running")).toBool();
        info.startedAt = parseTimeString(stringField(state, {QLatin1String("StartedAt")}));
        if (stateForStatus(info.state) == ContainerEvent::State::Exited) {
            info.exitCode = intValue(field(state, {QLatin1String("ExitCode")})).value_or(-1);
            info.time = parseTimeString(stringField(state, {QLatin1String("FinishedAt")}));
        } else {
            info.time = parseTimeString(stringField(state, {QLatin1String("StartedAt")}));
        }
        result.append(info);
    }
    return result;
}

ContainerEvent::State ContainerEventParser::stateForAction(QStringView action) {
    using State = ContainerEvent::State;
    const QString word = action.trimmed().toString().toLower();
    if (word == QLatin1String("create")) {
        return State::Created;
    }
    if (word == QLatin1String("start") || word == QLatin1String("restart") || word == QLatin1String("unpause")) {
        return State::Running;
    }
    if (word == QLatin1String("pause")) {
        return State::Paused;
    }
    if (word == QLatin1String("oom")) {
        return State::OutOfMemory;
    }
    if (word == QLatin1String("die") || word == QLatin1String("died") || word == QLatin1String("exited")) {
        return State::Exited;
    }
    if (word == QLatin1String("destroy") || word == QLatin1String("remove")) {
        return State::Removed;
    }
    return State::Unknown;
}

ContainerEvent::State ContainerEventParser::stateForStatus(QStringView status) {
    using State = ContainerEvent::State;
    const QString word = status.trimmed().toString().toLower();
    if (word == QLatin1String("running") || word == QLatin1String("restarting")) {
        return State::Running;
    }
    if (word == QLatin1String("created") || word == QLatin1String("configured")
        || word == QLatin1String("initialized")) {
        return State::Created;
    }
    if (word == QLatin1String("paused")) {
        return State::Paused;
    }
    if (word == QLatin1String("exited") || word == QLatin1String("stopped") || word == QLatin1String("dead")) {
        return State::Exited;
    }
    if (word == QLatin1String("removing")) {
        return State::Removed;
    }
    return State::Unknown;
}

qint64 ContainerEventParser::parseByteSize(QStringView text) {
    static const QRegularExpression pattern(
        QStringLiteral("^\\s*([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+)\\s*([A-Za-z]*)\\s*$"));
    const QRegularExpressionMatch match = pattern.match(text.toString());
    if (!match.hasMatch()) {
        return -1;
    }
    bool ok = false;
    const double number = match.captured(1).toDouble(&ok);
    if (!ok) {
        return -1;
    }
    const QString unit = match.captured(2).toLower();
    // go-units: BytesSize prints binary units (KiB), HumanSize decimal ones (kB).
    static const char* const prefixes = "kmgtpe";
    double factor = 0;
    if (unit.isEmpty() || unit == QLatin1String("b")) {
        factor = 1;
    } else {
        const char* where = std::strchr(prefixes, unit.at(0).toLatin1());
        const QStringView rest = QStringView(unit).mid(1);
        if (where != nullptr && *where != '\0') {
            const int power = static_cast<int>(where - prefixes) + 1;
            if (rest == QLatin1String("ib")) {
                factor = std::pow(1024.0, power);
            } else if (rest.isEmpty() || rest == QLatin1String("b")) {
                factor = std::pow(1000.0, power);
            }
        }
    }
    const double bytes = number * factor;
    if (factor == 0 || !std::isfinite(bytes) || bytes > 9.0e18) {
        return -1;
    }
    return static_cast<qint64>(std::llround(bytes));
}

double ContainerEventParser::parsePercent(QStringView text) {
    QStringView trimmed = text.trimmed();
    if (trimmed.endsWith(QLatin1Char('%'))) {
        trimmed.chop(1);
        trimmed = trimmed.trimmed();
    }
    bool ok = false;
    const double value = trimmed.toDouble(&ok);
    return ok && std::isfinite(value) && value >= 0 ? value : -1;
}

bool ContainerEventParser::sameContainer(QStringView a, QStringView b) {
    if (a.size() < 12 || b.size() < 12) {
        return false;
    }
    return a.size() <= b.size() ? b.startsWith(a, Qt::CaseInsensitive) : a.startsWith(b, Qt::CaseInsensitive);
}

}  // namespace zeus
