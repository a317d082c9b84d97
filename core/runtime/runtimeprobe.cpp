#include "runtime/runtimeprobe.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <utility>

namespace zeus {

namespace {

QString excerpt(const QByteArray& bytes, int limit) {
    if (bytes.size() <= limit) {
        return QString::fromUtf8(bytes);
    }
    return QString::fromUtf8(bytes.left(limit)) + QStringLiteral("\n[... %1 more bytes]").arg(bytes.size() - limit);
}

}  // namespace

ProbeStep ProbeStep::fromProcessResult(const ProcessResult& result, int excerptLimit) {
    ProbeStep step;
    step.argv = result.argv();
    step.resolvedPath = result.resolvedPath;
    step.started = result.started;
    step.timedOut = result.timedOut;
    step.crashed = result.crashed;
    step.exitCode = result.exitCode;
    step.durationMs = result.durationMs;
    step.standardOutput = excerpt(result.standardOutput, excerptLimit);
    step.standardError = excerpt(result.standardError, excerptLimit);
    step.errorString = result.errorString;
    return step;
}

QJsonObject ProbeStep::toJson() const {
    QJsonObject object;
    object.insert(QStringLiteral("argv"), QJsonArray::fromStringList(argv));
    object.insert(QStringLiteral("path"), resolvedPath.isEmpty() ? QJsonValue() : QJsonValue(resolvedPath));
    object.insert(QStringLiteral("started"), started);
    object.insert(QStringLiteral("timed_out"), timedOut);
    object.insert(QStringLiteral("crashed"), crashed);
    object.insert(QStringLiteral("exit_code"), started && !crashed ? QJsonValue(exitCode) : QJsonValue());
    object.insert(QStringLiteral("duration_ms"), durationMs);
    object.insert(QStringLiteral("stdout"), standardOutput);
    object.insert(QStringLiteral("stderr"), standardError);
    if (!errorString.isEmpty()) {
        object.insert(QStringLiteral("error"), errorString);
    }
    return object;
}

QString RuntimeProbe::stateToString(State state) {
    switch (state) {
        case State::Ready:
            return QStringLiteral("ready");
        case State::NotInstalled:
            return QStringLiteral("not_installed");
        case State::NotRunning:
            return QStringLiteral("not_running");
        case State::PermissionDenied:
            return QStringLiteral("permission_denied");
        case State::TimedOut:
            return QStringLiteral("timed_out");
        case State::Unsupported:
            return QStringLiteral("unsupported");
        case State::Unparseable:
            return QStringLiteral("unparseable");
    }
    return {};
}

std::optional<RuntimeProbe::State> RuntimeProbe::stateFromString(QStringView name) {
    for (const State state : allStates()) {
        if (name == stateToString(state)) {
            return state;
        }
    }
    return std::nullopt;
}

QString RuntimeProbe::stateLabel(State state) {
    switch (state) {
        case State::Ready:
            return QCoreApplication::translate("zeus::RuntimeProbe", "Ready");
        case State::NotInstalled:
            return QCoreApplication::translate("zeus::RuntimeProbe", "Not installed");
        case State::NotRunning:
            return QCoreApplication::translate("zeus::RuntimeProbe", "Installed but not running");
        case State::PermissionDenied:
            return QCoreApplication::translate("zeus::RuntimeProbe", "Permission denied");
        case State::TimedOut:
            return QCoreApplication::translate("zeus::RuntimeProbe", "Probe timed out");
        case State::Unsupported:
            return QCoreApplication::translate("zeus::RuntimeProbe", "Too old");
        case State::Unparseable:
            return QCoreApplication::translate("zeus::RuntimeProbe", "Unreadable answer");
    }
    return {};
}

QList<RuntimeProbe::State> RuntimeProbe::allStates() {
    return {State::Ready,    State::NotInstalled, State::NotRunning, State::PermissionDenied,
            State::TimedOut, State::Unsupported,  State::Unparseable};
}

QStringList RuntimeProbe::unenforcedLimits() const {
    QStringList dropped;
    const std::pair<const std::optional<bool>*, QLatin1String> flags[] = {
        {&limits.memory, QLatin1String("--memory")},
        {&limits.pids, QLatin1String("--pids-limit")},
        {&limits.cpus, QLatin1String("--cpus")},
    };
    for (const auto& [known, flag] : flags) {
        if (known->has_value() && !known->value()) {
            dropped << flag;
        }
    }
    return dropped;
}

}  // namespace zeus
