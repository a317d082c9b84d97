#include "tray/traystatus.h"

#include "dashboard/runtimepanel.h"

#include <zeus/buildinfo.h>

#include <QStringList>

namespace zeus {

void TrayStatus::Input::setDetection(const DetectionResult& result) {
    runtimeChecked = true;
    runtimeUsable = result.isUsable();
    runtimeName = RuntimePanel::headline(result);
    if (const RuntimeProbe* probe = result.chosenProbe()) {
        const QString version = probe->serverVersion.isEmpty() ? probe->clientVersion : probe->serverVersion;
        runtimeName = QString(runtimeDisplayName(probe->kind) + QLatin1Char(' ') + version).trimmed();
    }
    runtimeProblem = result.reason;
}

namespace {

// Tooltips are short on some platforms (Windows keeps 127 characters); a long path keeps
// its start and its end.
QString elidedPath(const QString& path, int maxChars = 48) {
    if (path.size() <= maxChars) {
        return path;
    }
    const int keep = (maxChars - 1) / 2;
    return path.left(keep) + QChar(0x2026) + path.right(maxChars - 1 - keep);
}

}  // namespace

QString TrayStatus::iconFor(State state) {
    switch (state) {
        case State::Ready:
            return QStringLiteral(":/icons/tray/ready.svg");
        case State::Busy:
            return QStringLiteral(":/icons/tray/busy.svg");
        case State::Disconnected:
            return QStringLiteral(":/icons/tray/disconnected.svg");
        case State::NoRuntime:
            return QStringLiteral(":/icons/tray/no-runtime.svg");
        case State::Error:
            return QStringLiteral(":/icons/tray/error.svg");
    }
    return QStringLiteral(":/icons/tray/error.svg");
}

QString TrayStatus::stateText(State state) {
    switch (state) {
        case State::Ready:
            return tr("Ready");
        case State::Busy:
            return tr("Working");
        case State::Disconnected:
            return tr("Not connected");
        case State::NoRuntime:
            return tr("No container runtime");
        case State::Error:
            return tr("Error");
    }
    return {};
}

TrayStatus TrayStatus::from(const Input& input, const QDateTime& now) {
    TrayStatus status;
    // The order says what needs the user first: without a runtime nothing can run at all;
    // an error needs action (a runtime without an agent it can use runs nothing either); without a connection no
    // work arrives; then work in progress.
    if (input.runtimeChecked && !input.runtimeUsable) {
        status.state = State::NoRuntime;
    } else if ((input.runtimeChecked && !input.readinessProblem.isEmpty()) || input.connection == Connection::AuthFailed
               || input.connection == Connection::Error || !input.lastError.isEmpty()) {
        status.state = State::Error;
    } else if (input.connection != Connection::Connected) {
        status.state = State::Disconnected;
    } else if (input.runningCommands > 0) {
        status.state = State::Busy;
    } else {
        status.state = State::Ready;
    }
    status.iconName = iconFor(status.state);
    status.title = tr("%1: %2").arg(QStringLiteral(ZEUS_APP_NAME), stateText(status.state));

    QStringList lines{status.title};
    if (!input.runtimeChecked) {
        lines << tr("Runtime: checking…");
    } else if (input.runtimeUsable && !input.readinessProblem.isEmpty()) {
        lines << tr("Runtime: %1, not ready: no sandbox agent").arg(input.runtimeName);
    } else if (input.runtimeUsable) {
        lines << tr("Runtime: %1").arg(input.runtimeName);
    } else {
        lines << tr("Runtime: none usable")
                     + (input.runtimeProblem.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(input.runtimeProblem));
    }

    QString connection = tr("Connection: %1").arg(BackendConnection::stateName(input.connection));
    if (input.connection == Connection::Reconnecting && input.nextReconnect.isValid()) {
        const qint64 seconds = std::max<qint64>(0, now.secsTo(input.nextReconnect));
        connection += QLatin1Char(' ') + tr("(next attempt in %1 s)").arg(seconds);
    } else if ((input.connection == Connection::Error || input.connection == Connection::AuthFailed)
               && !input.connectionError.isEmpty()) {
        connection += QStringLiteral(" (%1)").arg(input.connectionError);
    }
    lines << connection;

    if (!input.workspace.isEmpty()) {
        lines << tr("Working directory: %1").arg(elidedPath(input.workspace));
    } else if (!input.missingWorkspace.isEmpty()) {
        lines << tr("Working directory: %1 no longer exists").arg(elidedPath(input.missingWorkspace));
    } else {
        lines << tr("Working directory: none chosen");
    }
    if (input.runningSessions > 0 || input.runningCommands > 0) {
        const QString sessions =
            input.runningSessions == 1 ? tr("1 session running") : tr("%1 sessions running").arg(input.runningSessions);
        const QString commands =
            input.runningCommands == 1 ? tr("1 command running") : tr("%1 commands running").arg(input.runningCommands);
        lines << tr("%1, %2").arg(sessions, commands);
    } else {
        lines << tr("No sessions running");
    }
    if (!input.lastError.isEmpty()) {
        lines << tr("Last error: %1").arg(input.lastError);
    }
    status.tooltip = lines.join(QLatin1Char('\n'));
    return status;
}

TrayStatus::Banner TrayStatus::bannerFor(const Input& input) {
    // Same order as the tray: no runtime first, then what keeps work from arriving.
    if (input.runtimeChecked && !input.runtimeUsable) {
        return {DashboardBanner::NoRuntime, input.runtimeProblem};
    }
    if (input.runtimeChecked && !input.readinessProblem.isEmpty()) {
        // The problem is a sentence that starts in lower case (headless prints it after "zeus-desktop: ").
        QString detail = input.readinessProblem;
        detail[0] = detail.at(0).toUpper();
        return {DashboardBanner::NotReady, detail};
    }
    if (input.tokenChecked && (input.signInMissing || input.connection == Connection::AuthFailed)) {
        return {DashboardBanner::SignIn, input.connection == Connection::AuthFailed
                                             ? tr("The backend refused the sign-in token. Enter a new one in Settings.")
                                             : QString()};
    }
    if (input.workspace.isEmpty()) {
        return {DashboardBanner::ChooseFolder,
                input.missingWorkspace.isEmpty()
                    ? QString()
                    : tr("The approved folder %1 no longer exists.").arg(input.missingWorkspace)};
    }
    return {DashboardBanner::None, QString()};
}

TrayStatus::ConsoleReadiness TrayStatus::consoleFor(const Input& input) {
    if (!input.runtimeChecked) {
        return {QString(), tr("Checking for a container runtime…")};
    }
    if (!input.runtimeUsable) {
        return {QString(), input.runtimeProblem};
    }
    if (!input.readinessProblem.isEmpty()) {
        return {QString(), input.readinessProblem};
    }
    if (input.workspace.isEmpty() && !input.missingWorkspace.isEmpty()) {
        return {QString(), tr("The approved folder %1 no longer exists; restore it or choose another one on the "
                              "Overview page.")
                               .arg(input.missingWorkspace)};
    }
    if (input.workspace.isEmpty()) {
        return {QString(), tr("Choose and approve a working directory on the Overview page first.")};
    }
    return {input.workspace, QString()};
}

}  // namespace zeus
