#pragma once

#include "engine/containerruntime.h"
#include "review/reviewstore.h"
#include "sandbox/commandexecution.h"
#include "sandbox/egress/egressproxy.h"
#include "sandbox/mountpins.h"
#include "sandbox/sandboxconfig.h"
#include "sandbox/sessionlog.h"
#include "sandbox/workspaceapproval.h"
#include "support/sessionstate.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>

namespace zeus {

class AgentChannel;
class EngineCommand;

// Runs commands in per-session containers (SPEC §3, §4).
//
// Owns: one container per session id (created on the first command with `run -d`,
// reused while it runs, recreated when it vanished or died, removed on session end, on
// shutdown and after the idle timeout; one whose `run` failed is removed by its name at once), the running
// CommandExecutions, the per-session and global concurrency limits (over a limit a call is refused with `busy`), the
// orphan sweep of this install's containers, and each session's log. Must never: run a command outside a container,
// mount anything but the guarded workspace, let the backend choose flags, user, mounts or working dir, or block.
class SessionManager : public QObject {
    Q_OBJECT

public:
    SessionManager(std::unique_ptr<ContainerRuntime> runtime, SandboxConfig config, QObject* parent = nullptr);
    ~SessionManager() override;

    const SandboxConfig& config() const { return m_config; }
    const ContainerRuntime& runtime() const { return *m_runtime; }

    // Removes containers with this install's owner label that no live session owns.
    // orphanSweepFinished() follows.
    void sweepOrphans();
    // Starts a call; output() streams, callFinished() reports exactly once (also for a
    // refusal, then from the event loop).
    void execute(const ExecRequest& incoming);
    // Stops a running call (status cancelled). False when no such call runs.
    bool cancel(const QString& callId);
    // Flow control for a reader that cannot keep up (the backend socket): pauses or resumes
    // reading a call's output. Ignored for calls that are not running.
    void setOutputPaused(const QString& callId, bool paused);
    // Cancels the session's calls and removes its container.
    void endSession(const QString& sessionId);
    // Ends every session whose container mounts `workspace` (an approval was revoked); returns how many.
    int endSessionsIn(const QString& workspace);
    // Cancels everything and removes every container; shutdownFinished() follows.
    void shutdown();

    QStringList sessionIds() const;
    SessionState sessionState(const QString& sessionId) const;
    QString containerId(const QString& sessionId) const;
    // The approved folder the session's container mounts; empty for an unknown session.
    QString sessionWorkspace(const QString& sessionId) const;
    QList<SessionLogEntry> sessionLog(const QString& sessionId) const;
    // How the session's commands reach its container, for the sessions table and diagnostics:
    // "agent 0.1.0", "agent (starting)", "exec (forced)", "exec: <why the agent is not used>", or empty
    // while the session has no container.
    QString execPath(const QString& sessionId) const;
    int runningCalls() const { return int(m_calls.size()); }
    // Containers alive or being made now (never more than config().maxContainers).
    int liveContainers() const;
    // Ended sessions kept for their logs (the views show them); older ones are forgotten, so memory does not grow
    // with the number of session ids a backend makes up.
    static constexpr int kKeptEndedSessions = 32;

    // Egress (SPEC §8). A new policy for every session from now on (live ones too: their tunnels keep going).
    void setEgressPolicy(const EgressPolicy& policy, const QHash<QString, QStringList>& folderAllow);
    // The per-folder workspace modes (SPEC §10) from the settings; they apply to the next container of a folder.
    void setWorkspaceModes(const QHash<QString, WorkspaceMode>& byFolder);
    // The folders whose sandbox may write `.git` (SPEC §3). A live container made under the other rule ends (its
    // session comes back with a new container on its next call): turning it off must take effect at once.
    void setGitWriteFolders(const QSet<QString>& folders);
    // "Allow for this session": the rule is added to this session's policy only.
    void allowHostForSession(const QString& sessionId, const QString& rule);
    // "Allow once": the next request of this session for host:port passes.
    void allowHostOnce(const QString& sessionId, const QString& host, int port);
    // The policy a session's requests are judged by now (the config's when the session has none of its own).
    EgressPolicy egressPolicy(const QString& sessionId) const;

Q_SIGNALS:
    // The kept output (within the output cap) as it arrives, decoded, for the local views. Only decoded when
    // something is connected.
    void output(const QString& callId, zeus::OutputStream stream, const QString& text);
    // All of the output as it arrives, also past the cap, as valid UTF-8: the backend's tool_output stream.
    // A consumer that cannot keep up slows the command down with setOutputPaused().
    void outputUtf8(const QString& callId, zeus::OutputStream stream, const QByteArray& utf8);
    void callFinished(const zeus::ExecResult& result);
    void sessionStateChanged(const QString& sessionId, zeus::SessionState state, const QString& containerId);
    void sessionLogEntryAdded(const QString& sessionId, const zeus::SessionLogEntry& entry);
    // execPath() changed (agent ready, fell back, restarted).
    void sessionExecPathChanged(const QString& sessionId, const QString& execPath);
    // Every decision of a session's egress proxy (allowed and denied), for the policy log and network_event.
    void egressDecided(const zeus::EgressEvent& event);
    void orphanSweepFinished(int removed);
    void shutdownFinished();
    // Review mode (SPEC §10): a session's copy was taken (its record is in the store), and a container with changes
    // to review was stopped, kept for review (changeCount < 0: not known, the listing failed).
    void reviewCopyTaken(const QString& sessionId, const QString& workspace);
    void reviewCopyKept(const QString& sessionId, const QString& workspace, int changeCount);

private:
    enum class ContainerPhase { None, Checking, Creating, Ready };
    struct Session {
        QString id;
        QString workspace;
        SessionState state = SessionState::Stopped;
        ContainerPhase phase = ContainerPhase::None;
        QString containerId;
        QString staleContainerId;                        // a failed container still to be removed
        QList<QPointer<CommandExecution>> calls;         // running or waiting for the container
        QList<QPointer<CommandExecution>> waiting;       // waiting for the container
        QPointer<AgentChannel> agent;                    // the container's agent, while it starts or runs
        QList<QPointer<CommandExecution>> agentWaiting;  // waiting for the agent's hello
        QString agentFallback;         // why this container's commands run with plain exec; empty: through the agent
        int agentFailures = 0;         // agent crashes in this container
        QString announcedExecPath;     // the execPath() last announced (sessionExecPathChanged), said once each
        QPointer<EgressProxy> egress;  // allowlist: the proxy behind the agent's listeners, while the agent runs
        QStringList sessionAllow;      // "Allow for this session" rules, added to the config's policy
        QTimer idleTimer;
        QElapsedTimer lastUsed;
        // Every bind mount's source pinned before `run` (Linux): checked in the container after it (MountPins).
        QList<MountPins::Pin> mountPins;
        bool review = false;  // the container holds a review copy (SPEC §10): stopped, never removed, by the app
        quint64 endedAt = 0;  // when it last stopped or failed (m_clock), for forgetting the oldest first
        SessionLog log;
        // Every secret a command of this session was given (SPEC §9): redacted from the output of all its commands,
        // also those started before or after, and from its log. Forgotten with the session.
        Redactor secrets;
    };

    Session& sessionFor(const QString& sessionId);
    Session* findSession(const QString& sessionId) const;
    void refuse(const ExecRequest& request, ExecError code, const QString& message);
    void ensureContainer(Session& session);
    void createContainer(Session& session);
    void onContainerCreated(const QString& sessionId, const QString& name, EngineCommand* process);
    // Checks that each mount of the new container is its pinned source; removes the container if not, or if the
    // check itself fails.
    void verifyMount(const QString& sessionId, const QString& containerId);
    void onMountCheckFailed(const QString& sessionId, const QString& containerId, const QString& why);
    // Removes a container whose mounts are not known to be its pinned sources and fails the session's calls.
    void removeUnverified(Session& session, ExecError code, const QString& problem);
    void markReady(Session& session);
    void reportCreateFailure(const QString& sessionId, const QString& diagnostic);
    void onCreateFailed(const QString& sessionId, ExecError code, const QString& message);
    void startWaiting(Session& session);
    void dispatch(Session& session, CommandExecution* execution);
    void startAgent(Session& session);
    void closeAgent(Session& session) const;
    void startEgress(Session& session, AgentChannel* agent);
    void announceExecPath(Session& session);
    void onCallFinished(CommandExecution* execution, const ExecResult& result);
    // Ends every session with a container or calls for which `reason` gives a reason (logged first): a container
    // made under a rule that changed must not outlive the change.
    void endLiveSessions(const std::function<QString(const Session&)>& reason);
    // A call that failed on the read-only .git of direct mode gets a log line that says why (SPEC §3).
    void explainReadOnlyGit(Session& session, const ExecResult& result);
    void removeContainer(Session& session, const QString& reason, SessionState newState);
    void setState(Session& session, SessionState state);
    void logEvent(Session& session, const QString& message);
    static void addSessionSecrets(Session& session, const QList<SecretValue>& secrets);
    void runEngine(const QStringList& arguments, int timeoutMs, std::function<void(EngineCommand&)> done);
    void maybeFinishShutdown();
    // Room for one more container: evicts the least recently used idle one when at the cap. False: none is idle.
    bool makeRoomForContainer(const Session* forSession);
    void forgetEndedSessions();
    // Review mode: resume the session's stopped copy, or make a container and copy the folder in.
    void createReviewContainer(Session& session, const ContainerSpec& spec);
    void copyIntoContainer(const QString& sessionId, const QString& containerId, const QString& name);
    // Instead of `rm`: a review container is listed; with changes it is stopped and kept, without it goes.
    void retireReviewContainer(const QString& sessionId, const QString& workspace, const QString& containerId,
                               std::function<void()> done = {});
    bool isReviewContainer(const QString& containerId) const;

    std::unique_ptr<ContainerRuntime> m_runtime;
    SandboxConfig m_config;
    ReviewStore m_reviews;
    QThreadPool m_reviewPool;  // copies and listings of review containers: blocking file and engine I/O
    std::map<QString, std::unique_ptr<Session>> m_sessions;
    QHash<QString, QPointer<CommandExecution>> m_calls;
    int m_creating = 0;         // `run -d` calls in flight
    int m_removalsPending = 0;  // shutdown's `rm -f` calls in flight
    bool m_shuttingDown = false;
    bool m_shutdownEmitted = false;
    quint64 m_clock = 0;
    bool m_forgetScheduled = false;
};

}  // namespace zeus
