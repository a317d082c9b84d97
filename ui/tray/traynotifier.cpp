#include "tray/traynotifier.h"

#include "tray/trayicon.h"

#include <QDir>
#include <QSystemTrayIcon>

namespace zeus {

TrayNotifier::TrayNotifier(TrayIcon* tray, QObject* parent) : QObject(parent), m_tray(tray) {
    if (m_tray && m_tray->trayIcon()) {
        connect(m_tray->trayIcon(), &QSystemTrayIcon::messageClicked, this, &TrayNotifier::handleClick);
    }
}

void TrayNotifier::notify(const QString& title, const QString& message, bool warning) {
    if (m_tray) {
        m_tray->notify(title, message, warning);
    }
    Q_EMIT shown(title, message, warning);
}

void TrayNotifier::notifyLimited(const QString& key, const QString& title, const QString& message, bool warning) {
    if (m_limiter.allow(key)) {
        notify(title, message, warning);
    }
}

void TrayNotifier::notifyDenied(const EgressEvent& event) {
    // One notification per host and session a minute: a retry loop must not flood the desktop.
    const QString key = QStringLiteral("denied ") + event.sessionId + QLatin1Char(' ') + event.host + QLatin1Char(':')
                        + QString::number(event.port);
    if (event.allowed || !m_limiter.allow(key)) {
        return;
    }
    m_lastDenied = event;
    m_lastDeniedShown.start();
    m_deniedSerial = ++m_serial;
    notify(tr("Blocked: %1:%2").arg(event.host).arg(event.port),
           tr("A command in session %1 tried to reach %2:%3, which the network allowlist does not allow (%4). "
              "Click to allow it once, for this session, or always for this folder.")
               .arg(event.sessionId, event.host)
               .arg(event.port)
               .arg(event.rule),
           true);
}

void TrayNotifier::notifyReviewCopy(const QString& sessionId, const QString& workspace, int changeCount) {
    if (changeCount == 0) {
        return;
    }
    m_lastReview = sessionId;
    m_lastReviewShown.start();
    m_reviewSerial = ++m_serial;
    const QString folder = QDir(workspace).dirName();
    notify(changeCount > 0 ? tr("%n file(s) changed in %1", nullptr, changeCount).arg(folder)
                           : tr("Changes to review in %1").arg(folder),
           tr("Session %1 worked on a copy of %2. Click to review its changes and apply the ones you want.")
               .arg(sessionId, QDir::toNativeSeparators(workspace)));
}

void TrayNotifier::notifyCallError(const ToolResultMessage& result) {
    if (result.status != ExecStatus::Error) {
        return;
    }
    if (result.errorCode == ProtocolErrorCode::WorkspaceInvalid) {
        notifyLimited(QStringLiteral("gone ") + result.errorMessage, tr("Folder no longer exists"), result.errorMessage,
                      true);
    } else if (result.errorCode == ProtocolErrorCode::WorkspaceNotApproved) {
        notifyLimited(
            QStringLiteral("unapproved ") + result.errorMessage, tr("Folder not approved"),
            tr("%1\nApprove the folder in the dashboard if the agent should work there.").arg(result.errorMessage),
            true);
    }
}

void TrayNotifier::notifyApprovalQuestion(const ApprovalQuestion& question) {
    notifyLimited(QStringLiteral("approval ") + question.folder, tr("Command waiting for approval"),
                  tr("%1\nin %2").arg(question.command.simplified().left(200), question.folder), false);
}

// A click opens the page of the newest notice that has one, for kClickWindowMs after it was shown.
void TrayNotifier::handleClick() {
    // Which came last by order, not by clock: two notices can be shown within one millisecond.
    const bool reviewIsNewer = m_reviewSerial > m_deniedSerial;
    const QElapsedTimer& shown = reviewIsNewer ? m_lastReviewShown : m_lastDeniedShown;
    if (!shown.isValid() || shown.elapsed() >= kClickWindowMs) {
        return;
    }
    if (reviewIsNewer) {
        Q_EMIT reviewNoticeClicked(m_lastReview);
    } else {
        Q_EMIT deniedNoticeClicked(m_lastDenied);
    }
}

}  // namespace zeus
