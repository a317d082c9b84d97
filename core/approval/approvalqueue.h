#pragma once

#include "approval/approvalquestion.h"

#include <QHash>
#include <QList>
#include <QObject>

class QTimer;

namespace zeus {

// The calls waiting for the user's approval, in the order they were asked (SPEC §11). The dispatcher asks; the UI
// (the approval dialog) shows the queue and answers; nothing else does. Every question ends exactly once: answered
// by the user, denied when its deadline passes (120 s by default), or withdrawn by the asker (the call was
// cancelled or its session ended) -- answered() is emitted for the first two, questionRemoved() for all three.
// Without anyone to ask (headless, or before the UI is up: setInteractive(false)) a question is denied at once.
// It must never decide by itself beyond the deadline, nor keep a question after it ended.
class ApprovalQueue : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 120 * 1000;

    explicit ApprovalQueue(QObject* parent = nullptr);
    ~ApprovalQueue() override;

    // Whether someone (the UI) answers questions; false: every question is denied at once (by Nobody).
    void setInteractive(bool interactive) { m_interactive = interactive; }
    bool isInteractive() const { return m_interactive; }
    // How long a question waits for an answer (tests use a short one).
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int timeoutMs() const { return m_timeoutMs; }

    // Puts a question in line (its askedAt and deadline are set here). A question for a call already waiting is
    // ignored. answered() may come before this returns (nobody to ask).
    void ask(ApprovalQuestion question);
    // The UI's answer; ignored for a call that is not waiting (answered, timed out or withdrawn meanwhile).
    void answer(const QString& callId, const ApprovalAnswer& answer);
    // The asker no longer needs an answer: the question leaves the queue without answered().
    void withdraw(const QString& callId);

    QList<ApprovalQuestion> pending() const { return m_pending; }
    bool isWaiting(const QString& callId) const;

Q_SIGNALS:
    void questionAdded(const zeus::ApprovalQuestion& question);
    void questionRemoved(const QString& callId);
    void answered(const QString& callId, const zeus::ApprovalAnswer& answer);

private:
    // Removes the question and its timer; true when it was waiting.
    bool remove(const QString& callId);

    QList<ApprovalQuestion> m_pending;
    QHash<QString, QTimer*> m_timers;
    bool m_interactive = false;
    int m_timeoutMs = kDefaultTimeoutMs;
};

}  // namespace zeus
