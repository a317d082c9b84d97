#pragma once

#include "approval/approvalpolicy.h"
#include "approval/approvalquestion.h"
#include "backend/protocolmessages.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>

#include <optional>

namespace zeus {

class ApprovalQueue;
class WorkspaceGate;

// The command approval gate of a tool_call (SPEC §11, docs/command-approval.md), passed after the workspace gate and
// before the call reaches the sessions. It owns the approval policies (each approved folder's, with this run's
// command-line rules and mode over them), the calls waiting for the user's answer, and the bounded history of the
// decisions. A call the policy allows passes at once; one it denies, or the user (or the timeout, or nobody, when
// headless) denies, ends as approval_denied through refused(); one the user allows is handed back through released()
// to go through every gate again, and passes this one once. It never runs a call itself, and never lets a call pass
// that its folder's policy would ask about without an answer.
class CommandApprovalGate : public QObject {
    Q_OBJECT

public:
    // `workspaces` names the approval a waiting call runs in when its answer comes; it must outlive this gate.
    explicit CommandApprovalGate(const WorkspaceGate& workspaces, QObject* parent = nullptr);
    ~CommandApprovalGate() override;

    // The policy of each approved folder (any spelling; looked up after resolving symlinks), and this run's
    // command-line rules added to every folder's, its mode (when given) over every folder's.
    void setPolicies(const QHash<QString, ApprovalPolicy>& byFolder);
    void setOverrides(const ApprovalPolicy& rules, std::optional<ApprovalMode> mode);
    ApprovalPolicy policyFor(const QString& folder) const;
    // Where questions go (the UI answers them); without one, what would be asked is denied at once.
    void setQueue(ApprovalQueue* queue);
    // The latest decisions, oldest first (bounded): for diagnostics.
    QList<ApprovalRecord> history() const { return m_history; }
    QStringList waitingCallIds() const { return m_waiting.keys(); }
    bool isWaiting(const QString& callId) const { return m_waiting.contains(callId); }
    // The user allowed it and it is going through the gates again now (released() is being handled).
    bool isReleased(const QString& callId) const { return m_released.contains(callId); }

    // True when the call may run now; otherwise it was refused or waits for the user.
    bool passes(const ToolCallMessage& call, const QString& folder);
    // A waiting call ends without running (cancel, session_end, shutdown): withdrawn from the queue, cancelled().
    void endWaiting(const QString& callId, const QString& why);
    void endWaitingInSession(const QString& sessionId, const QString& why);
    void endAllWaiting(const QString& why);

Q_SIGNALS:
    // The user answered Run once or Always allow: the call goes through every gate again (the folder may be gone).
    void released(const zeus::ToolCallMessage& call);
    // The call asks the user now (call_state waiting_approval).
    void waitingForUser(const QString& callId);
    // The call ends without running: denied (approval_denied), or cancelled while it waited.
    void refused(const QString& callId, zeus::ProtocolErrorCode code, const QString& message);
    void cancelled(const QString& callId);
    // Every decision that was not mode auto's plain allow (session log, diagnostics).
    void decided(const zeus::ApprovalRecord& record);
    // Allow rules of `folder` that let a call run (their "last matched" time), and one the user added.
    void rulesMatched(const QString& folder, const QStringList& rules);
    void ruleAdded(const QString& folder, const QString& prefix);

private:
    void onAnswered(const QString& callId, const ApprovalAnswer& answer);
    void recordDecision(const ToolCallMessage& call, const QString& folder, ApprovalDecision::Verdict verdict,
                        const QString& by, const QString& rule, const QString& reason);

    const WorkspaceGate& m_workspaces;
    QHash<QString, ApprovalPolicy> m_policies;  // by canonical folder
    ApprovalPolicy m_overrides;
    std::optional<ApprovalMode> m_modeOverride;
    QPointer<ApprovalQueue> m_queue;
    QHash<QString, ToolCallMessage> m_waiting;  // calls whose question is in m_queue
    QSet<QString> m_released;                   // answered Run once / Always allow: the next pass runs them
    QList<ApprovalRecord> m_history;
};

}  // namespace zeus
