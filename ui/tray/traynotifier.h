#pragma once

#include "approval/approvalquestion.h"
#include "backend/protocolmessages.h"
#include "sandbox/egress/egressproxy.h"
#include "support/ratelimiter.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

namespace zeus {

class TrayIcon;

// What the tray says on its own (notifications) and what a click on one opens: the notification policy of the
// tray app in one place.
//
// - notify(): always shown; notifyLimited(): once a minute per key, so a retry loop cannot flood the desktop.
// - A network denial and a review copy kept with changes are notices with a page: a click within kClickWindowMs of
//   the newest of them emits deniedNoticeClicked() or reviewNoticeClicked(); older ones open nothing.
//
// Owns the limiter and the memory of the newest clickable notice. It never opens a page itself: the composition
// root connects the signals to the panels.
class TrayNotifier : public QObject {
    Q_OBJECT
public:
    static constexpr qint64 kClickWindowMs = 15000;

    explicit TrayNotifier(TrayIcon* tray, QObject* parent = nullptr);

    void notify(const QString& title, const QString& message, bool warning = false);
    void notifyLimited(const QString& key, const QString& title, const QString& message, bool warning = false);
    // "Blocked: host:port", once a minute per session, host and port.
    void notifyDenied(const EgressEvent& event);
    // "N file(s) changed in <folder>" for a review copy a session kept (nothing when there are no changes).
    void notifyReviewCopy(const QString& sessionId, const QString& workspace, int changeCount);
    // A backend call refused for its folder: gone ("Folder no longer exists") or never approved ("Folder not
    // approved", where to approve one); once a minute per message, since a backend may retry in a loop. Other
    // results say nothing here.
    void notifyCallError(const ToolResultMessage& result);
    // "Command waiting for approval", once a minute per folder (the dialog queues every question).
    void notifyApprovalQuestion(const ApprovalQuestion& question);

    // What a click on the newest notice opens, as the tray reports a click (public for tests).
    void handleClick();

Q_SIGNALS:
    // A notice went to the tray (for the log and for tests).
    void shown(const QString& title, const QString& message, bool warning);
    void deniedNoticeClicked(const zeus::EgressEvent& event);
    void reviewNoticeClicked(const QString& sessionId);

private:
    QPointer<TrayIcon> m_tray;
    RateLimiter m_limiter;
    EgressEvent m_lastDenied;
    QElapsedTimer m_lastDeniedShown;
    QString m_lastReview;
    QElapsedTimer m_lastReviewShown;
    quint64 m_serial = 0;  // counts the clickable notices shown
    quint64 m_deniedSerial = 0;
    quint64 m_reviewSerial = 0;
};

}  // namespace zeus
