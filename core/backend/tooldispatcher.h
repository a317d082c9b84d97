#pragma once

#include "approval/approvalpolicy.h"
#include "approval/approvalquestion.h"
#include "backend/backendconnection.h"
#include "backend/commandapprovalgate.h"
#include "backend/protocol.h"
#include "backend/protocolmessages.h"
#include "backend/resultstore.h"
#include "backend/secretgate.h"
#include "backend/workspacegate.h"
#include "sandbox/commandexecution.h"
#include "sandbox/workspaceapproval.h"
#include "secrets/secretbroker.h"
#include "support/sessionstate.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>

#include <memory>

namespace zeus {

class ApprovalQueue;
class ResultJournal;
struct EgressEvent;
class SessionManager;

// Serves the backend's tool calls (SPEC §5): the object between BackendConnection and SessionManager.
//
// A tool_call passes its gates in order before it runs: WorkspaceGate (the folder), the runtime, SecretGate
// (args.secrets), CommandApprovalGate (SPEC §11). Each gate is its own class and decides only its own question; a gate
// that held a call back (secrets granted, command approved) hands it to onToolCall again, which checks everything anew.
// The dispatcher keeps the order, the calls that run and the result pump.
//
// It owns the dispatch rules: a tool_call runs only in a working directory the user approved
// (else workspace_not_approved; an approved folder that no longer exists: workspace_invalid) and only when a runtime is
// usable (else no_runtime with SPEC §2's text); a call_id runs at most once (running: ignored; finished: its result is
// sent again); output is streamed as tool_output with a per-call seq; every call ends in exactly one tool_result that
// is kept in a ResultStore until the backend acks it and re-sent after a reconnect (listed in hello.pending). It sends
// hello on every (re)connection and session_state on every change. A message that cannot be handled gets an `error`
// reply; the connection lives on. tool_output produced while disconnected is dropped (its seq numbers are still used,
// so the backend sees the gap); the tool_result carries the combined output, so nothing of the result is lost. Results
// go out in finishing order through one queue of call ids (m_unsent): a result is handed to the socket only when the
// connection has room for it under its cap (BackendConnection::hasRoomFor), so results never close the connection, and
// after a reconnect the whole store is re-sent without a memory spike. A repeated tool_call for a finished call
// re-sends its result at most once while a copy is still waiting (SPEC §5 "Bounded outbound queue"). Flow control: when
// more than pauseAboveBytes wait in the socket's write queue, it pauses reading the output of its running calls (their
// commands block on their next write) and resumes them once the queue is below resumeBelowBytes, so memory stays flat
// however fast a command writes. Never paused while disconnected. It must never run a command outside the
// SessionManager, let the backend pick a folder the user did not approve, or keep more results than its store allows.
class ToolDispatcher : public QObject {
    Q_OBJECT

public:
    explicit ToolDispatcher(BackendConnection* connection, QObject* parent = nullptr);
    ~ToolDispatcher() override;

    // The sessions that run the commands; null when no runtime is usable (every call gets no_runtime).
    // Only calls this dispatcher started are reported to the backend (the local console shares the manager).
    void setSessionManager(SessionManager* manager);
    // What hello says about this client (name, version, os, arch, device_id) and the runtime; the workspaces and
    // pending fields are filled in by the dispatcher.
    void setClientInfo(const HelloMessage& info);
    void setRuntimeReport(const RuntimeReport& runtime) { m_client.runtime = runtime; }
    // The folders the user approved, as the strings stored when they were approved (SPEC §3 "Approvals are exact
    // strings"). A working_directory is matched against them lexically before anything touches the file system;
    // the matched string is what the container mounts. hello lists the active ones.
    void setApprovedWorkspaces(const QStringList& workspaces);
    QStringList approvedWorkspaces() const { return m_workspaces.approved(); }
    // The approved folders that resolve to themselves now (what hello.workspaces says).
    QStringList activeWorkspaces() const { return m_workspaces.active(); }
    // The file system seam of the approval checks (tests count and steer what is resolved).
    void setPathResolver(const WorkspaceApproval::Resolver& resolver) { m_workspaces.setResolver(resolver); }
    void setResultLimits(const ResultStore::Limits& limits);
    // Who decides a call's args.secrets (SPEC §9); null: every call that asks for one gets secret_unknown.
    // hello.secrets lists its known names.
    void setSecretBroker(SecretBroker* broker) { m_secrets.setBroker(broker); }
    // Keeps the unacknowledged results, and which calls run, in a journal at `path` (SPEC §5 "Results survive
    // the app"): loads what an earlier run left there -- its results are kept and re-sent as after a reconnect,
    // and the calls it left running end as interrupted (error, container_failed) -- and records from then on.
    // Call once, before connecting. Damage in the file is logged and skipped.
    void setJournalPath(const QString& path);

    // Session ids that start with this belong to this computer (the dashboard's local console is
    // "local-console"): the backend cannot run in, end or hear about them (issue: a backend joining the console's
    // session could read what the user types, spoof its output or end it). Separate namespaces, so neither side
    // can reach the other's sessions by choosing an id.
    static QString localSessionPrefix() { return QStringLiteral("local-"); }
    static bool isLocalSessionId(const QString& sessionId);
    // The namespace of the MCP clients the tray app serves (GuiMcpHost): their session ids and call ids.
    static QString mcpSessionPrefix() { return QStringLiteral("local-mcp-"); }
    // Whose ids this dispatcher takes. Empty (the backend's, the default): no session_id or call_id may start with
    // localSessionPrefix(), so a backend can neither join a session of this computer nor take a call id one of its
    // calls uses (the dispatchers share the SessionManager and tell their calls apart by id). Set (the tray's MCP
    // door, mcpSessionPrefix()): every session_id and call_id must start with it, so the door reaches neither the
    // backend's sessions nor the console's. A refused id gets an `error` and touches nothing.
    void setIdNamespace(const QString& prefix) { m_idNamespace = prefix; }
    QString idNamespace() const { return m_idNamespace; }

    // The protocol code of an execution error (tool_result.error.code); every ExecError has one.
    static ProtocolErrorCode protocolErrorFor(ExecError error);

    // The hello this client would send now.
    HelloMessage hello() const;
    const ResultStore& results() const { return m_results; }
    QStringList runningCallIds() const { return m_running.keys(); }
    int runningCalls() const { return int(m_running.size()); }
    // tool_output chunks dropped because the backend was not connected (for diagnostics and tests).
    qint64 droppedOutputChunks() const { return m_droppedChunks; }
    // Repeated tool_calls whose result was not queued again because a copy was still waiting.
    qint64 repeatsAbsorbed() const { return m_repeatsAbsorbed; }

    struct FlowControl {
        qint64 pauseAboveBytes = 4 * 1024 * 1024;
        qint64 resumeBelowBytes = 1024 * 1024;
    };
    void setFlowControl(const FlowControl& flow) { m_flow = flow; }
    FlowControl flowControl() const { return m_flow; }
    // Whether output reading is paused now, and how often it was (for diagnostics and tests).
    bool isOutputPaused() const { return m_outputPaused; }
    qint64 outputPauses() const { return m_pauses; }

    // Command approval (SPEC §11, docs/command-approval.md), checked after the workspace and before the call reaches
    // the sessions: the policy of each approved folder (any spelling; looked up after resolving symlinks), and this
    // run's command-line rules added to every folder's, its mode (when given) over every folder's.
    void setApprovalPolicies(const QHash<QString, ApprovalPolicy>& byFolder) { m_commands.setPolicies(byFolder); }
    void setApprovalOverrides(const ApprovalPolicy& rules, std::optional<ApprovalMode> mode) {
        m_commands.setOverrides(rules, mode);
    }
    ApprovalPolicy approvalPolicyFor(const QString& folder) const { return m_commands.policyFor(folder); }
    // Where questions go (the UI answers them); without one, what would be asked is denied at once.
    void setApprovalQueue(ApprovalQueue* queue) { m_commands.setQueue(queue); }
    // The latest approval decisions, oldest first (bounded): for diagnostics.
    QList<ApprovalRecord> approvalHistory() const { return m_commands.history(); }
    QStringList waitingCallIds() const { return m_commands.waitingCallIds(); }

    // Cancels every running call of this dispatcher (their results follow as cancelled).
    void cancelAll();

    // The result a call gets when the dispatcher refuses it before it runs (pure).
    static ToolResultMessage refusal(const QString& callId, ProtocolErrorCode code, const QString& message);
    // The protocol form of an execution result (pure).
    static ToolResultMessage toResultMessage(const ExecResult& exec);

Q_SIGNALS:
    // workspace: the approved folder the call runs in, the approval's own string, as the container mounts it.
    void callStarted(const QString& callId, const QString& sessionId, const QString& command, const QString& workspace);
    void callFinished(const zeus::ToolResultMessage& result);
    // Every call this dispatcher started has finished (after cancelAll(), or whenever the last one ends).
    void idle();
    void resultAcknowledged(const QString& callId);
    // Every approval decision that was not mode auto's plain allow (session log, diagnostics).
    void approvalDecided(const zeus::ApprovalRecord& record);
    // Allow rules of `folder` that let a call run (their "last matched" time), and one the user added.
    void approvalRulesMatched(const QString& folder, const QStringList& rules);
    void approvalRuleAdded(const QString& folder, const QString& prefix);

private:
    struct RunningCall {
        QString sessionId;
        qint64 nextSeq = 0;
    };

    void onConnected();
    void onMessage(const IncomingMessage& message);
    void onToolCall(const ToolCallMessage& call);
    void onCancel(const CancelMessage& cancel);
    void onSessionEnd(const SessionEndMessage& end);
    void onAck(const AckMessage& ack);
    void onOutput(const QString& callId, OutputStream stream, const QByteArray& utf8);
    void onPendingWriteBytes(qint64 pendingBytes);
    void setOutputPaused(bool paused);
    void onExecFinished(const ExecResult& exec);
    void onSessionStateChanged(const QString& sessionId, SessionState state, const QString& containerId);
    void onEgressDecided(const EgressEvent& event);
    // SPEC §3: a call past the running limits waits in its session's queue; the backend hears where, and when it
    // starts. Only for this dispatcher's calls (the local console shares the manager).
    void onCallQueued(const QString& callId, int position) {
        if (m_running.contains(callId)) {
            send(Protocol::makeCallState(callId, CallState::Queued, position));
        }
    }
    void onCallRunning(const QString& callId) {
        if (m_running.contains(callId)) {
            send(Protocol::makeCallState(callId, CallState::Running));
        }
    }
    void finish(const ToolResultMessage& result);
    void forget(const QString& callId);
    void compactJournal();
    // Puts a kept result in line to be sent (once) and sends what the connection has room for.
    void queueResult(const QString& callId);
    void pumpResults();
    // A gate ended the call before it ran.
    void onRefused(const QString& callId, ProtocolErrorCode code, const QString& message);
    void onCancelledBeforeRun(const QString& callId);
    bool send(const QJsonObject& message);
    bool sendFrame(QByteArray frame);
    // Why `id` (a session_id or call_id, named by `field`) is outside this dispatcher's namespace, or empty.
    QString namespaceProblem(const char* field, const QString& id) const;

    QPointer<BackendConnection> m_connection;
    QPointer<SessionManager> m_manager;
    HelloMessage m_client;
    WorkspaceGate m_workspaces;
    ResultStore m_results;
    std::unique_ptr<ResultJournal> m_journal;
    QHash<QString, RunningCall> m_running;
    QSet<QString> m_backendSessions;  // sessions the backend started calls in: the only ones reported to it
    qint64 m_droppedChunks = 0;
    QStringList m_unsent;    // kept results to send, in order; none repeats
    QByteArray m_nextFrame;  // m_unsent's first (m_nextFrameId), serialised once while it waits for room
    QString m_nextFrameId;
    QHash<QString, BackendConnection::WriteMark> m_inFlight;  // copies handed to the socket, maybe still queued
    qint64 m_repeatsAbsorbed = 0;
    FlowControl m_flow;
    bool m_outputPaused = false;
    qint64 m_pauses = 0;
    CommandApprovalGate m_commands{m_workspaces};  // after m_workspaces, which it reads
    SecretGate m_secrets;
    QString m_idNamespace;  // empty: the backend's (anything but this computer's own)
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ToolResultMessage)
