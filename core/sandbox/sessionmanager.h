#pragma once

#include "engine/containerruntime.h"
#include "review/reviewstore.h"
#include "sandbox/callscheduler.h"
#include "sandbox/commandexecution.h"
#include "sandbox/egress/egressproxy.h"
#include "sandbox/enginecalls.h"
#include "sandbox/enginewatch.h"
#include "sandbox/review/reviewcontainers.h"
#include "sandbox/sandboxconfig.h"
#include "sandbox/sandboxsession.h"
#include "sandbox/sessionlog.h"
#include "sandbox/workspaceapproval.h"
#include "support/sessionstate.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <functional>
#include <map>
#include <memory>

namespace zeus {

class EngineCommand;

// Runs commands in per-session containers (SPEC §3, §4).
//
// Owns: the sessions by id (each a SandboxSession, which owns its container, agent, egress proxy, secrets, log and
// idle timer), the running CommandExecutions by call id, the admission of a call, the per-session and global
// concurrency limits (over a limit a call waits in the CallScheduler, which starts it as slots free; only past its
// bounds is one refused with `busy`), the container cap with its eviction of the least recently used idle session,
// the forgetting of ended sessions, the orphan sweep of this install's containers (OrphanSweep) and the shutdown; the
// engine calls that outlive a session (EngineCalls) and the review containers (ReviewContainers). It forwards what
// its sessions and its scheduler say as its own signals. Must never: run a command outside a container, mount anything
// but the guarded workspace, let the backend choose flags, user, mounts or working dir, or block.
class SessionManager : public QObject {
    Q_OBJECT

public:
    // `reviews`: the core service's shared review worker; without one (a single command, a test) the manager makes
    // its own on the config's review directory.
    SessionManager(std::unique_ptr<ContainerRuntime> runtime, SandboxConfig config,
                   std::shared_ptr<ReviewWorker> reviews = {}, QObject* parent = nullptr);
    ~SessionManager() override;

    const SandboxConfig& config() const { return m_config; }
    const ContainerRuntime& runtime() const { return *m_runtime; }

    // Removes containers with this install's owner label that no live session owns.
    // orphanSweepFinished() follows.
    void sweepOrphans();
    // Starts a call, or queues it (callQueued) when its session or all sessions run as many calls as they may, or
    // no container is free; a queued call starts (callRunning) in its turn, and its timeout starts then. output()
    // streams, callFinished() reports exactly once (also for a refusal, then from the event loop).
    void execute(const ExecRequest& incoming);
    // Stops a running call, or takes a queued one out (status cancelled). False when no such call runs or waits.
    bool cancel(const QString& callId);
    // Flow control for a reader that cannot keep up (the backend socket): pauses or resumes
    // reading a call's output. Ignored for calls that are not running.
    void setOutputPaused(const QString& callId, bool paused);
    // Cancels the session's calls (queued ones too) and removes its container.
    void endSession(const QString& sessionId);
    // Ends every session whose container mounts `workspace` (an approval was revoked); returns how many.
    int endSessionsIn(const QString& workspace);
    // Cancels everything and removes every container; shutdownFinished() follows.
    void shutdown();

    QStringList sessionIds() const;
    SessionState sessionState(const QString& sessionId) const {
        const SandboxSession* session = findSession(sessionId);
        return session ? session->state() : SessionState::Stopped;
    }
    QString containerId(const QString& sessionId) const {
        const SandboxSession* session = findSession(sessionId);
        return session ? session->containerId() : QString();
    }
    // The approved folder the session's container mounts; empty for an unknown session.
    QString sessionWorkspace(const QString& sessionId) const {
        const SandboxSession* session = findSession(sessionId);
        return session ? session->workspace() : QString();
    }
    QList<SessionLogEntry> sessionLog(const QString& sessionId) const {
        const SandboxSession* session = findSession(sessionId);
        return session ? session->log() : QList<SessionLogEntry>();
    }
    // How the session's commands reach its container, for the sessions table and diagnostics:
    // "agent 0.1.0", "agent (starting)", "exec (forced)", "exec: <why the agent is not used>", or empty
    // while the session has no container.
    QString execPath(const QString& sessionId) const {
        const SandboxSession* session = findSession(sessionId);
        return session ? session->execPath() : QString();
    }
    int runningCalls() const { return int(m_calls.size()); }
    // Calls waiting in the queue, in all or of one session.
    int queuedCalls() const { return m_scheduler.size(); }
    int queuedCalls(const QString& sessionId) const { return m_scheduler.size(sessionId); }
    // Containers alive or being made now (never more than config().maxContainers).
    int liveContainers() const;
    // Whether the engine answers now (calls wait while it does not).
    EngineWatch::State engineState() const { return m_engineWatch.state(); }
    // The highest number of running calls, waiting calls and live containers since the manager was made: how close
    // the load came to the bounds (diagnostics, SPEC §3).
    struct Peaks {
        int running = 0;
        int queued = 0;
        int containers = 0;
    };
    const Peaks& peaks() const { return m_peaks; }
    // Ended sessions kept for their logs (the views show them); older ones are forgotten, so memory does not grow
    // with the number of session ids a backend makes up.
    static constexpr int kKeptEndedSessions = 32;

    // Egress (SPEC §8). A new policy for every session from now on (live ones too: their tunnels keep going).
    void setEgressPolicy(const EgressPolicy& policy, const QHash<QString, QStringList>& folderAllow);
    // The per-folder workspace modes (SPEC §10) from the settings; they apply to the next container of a folder.
    void setWorkspaceModes(const QHash<QString, WorkspaceMode>& byFolder);
    // What each folder's sandbox may reach beyond the folder: whether it may write `.git` (SPEC §3), and the host
    // services exposed to it (SPEC §8 "Ports"). A live container made under another rule ends (its session comes
    // back with a new container on its next call): taking either away must take effect at once.
    void setFolderAccess(const QSet<QString>& gitWrites, const QHash<QString, QList<ExposeSpec>>& exposeHost);
    // The secrets bound to hosts (SPEC §9, Settings → Secrets "Use only with…"). A live container whose bindings
    // differ ends (its session comes back under the new ones on its next call): a secret bound now must not go
    // into the environment of a command of a session made before, and an unbound one is handed out again only
    // to a new container.
    void setSecretBindings(const QHash<QString, SecretBinding>& bindings);
    // The interception CA of host-bound secrets is loaded now (the keychain answered after the first sessions
    // started): a live session whose container was given a bundle without it ends, so that its next call gets a
    // container that trusts it; the others go on.
    void interceptCaLoaded();
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
    // A call waits in its session's queue at `position` (1-based), and later starts: callRunning (only for a call
    // that was queued). call_state `queued` and `running` (SPEC §5).
    void callQueued(const QString& callId, int position);
    void callRunning(const QString& callId);
    // How many calls of the session wait in its queue now (for the sessions table).
    void queuedCallsChanged(const QString& sessionId, int queued);
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
    SandboxSession* findSession(const QString& sessionId) const;
    SandboxSession& sessionFor(const QString& sessionId);
    void onSessionStateChanged(SandboxSession& session, SessionState state, const QString& containerId);
    void refuse(const ExecRequest& request, ExecError code, const QString& message);
    // The checks every call passes before it runs or waits: not shutting down, a new call id, the folder as it was
    // approved (request.workspace becomes its clean path), one folder at a time per session. False: refused.
    bool admit(ExecRequest& request);
    // Whether a call of this session may start now: under both running limits, and with a container or room for
    // one (an idle one to evict counts).
    bool mayStart(const QString& sessionId) const;
    bool hasRoomForContainer(const SandboxSession* forSession) const;
    // Its container may go to make room for another session's.
    bool isEvictable(const SandboxSession& session) const;
    // Starts an admitted call in its session (which moves to the call's folder first).
    void run(const ExecRequest& request, bool wasQueued);
    CallScheduler::Hooks schedulerHooks();
    // What holds a waiting call of the session besides a slot: the engine is away, or no container can be made.
    std::optional<CallScheduler::Block> blockedBy(const QString& sessionId) const;
    void onEngineStateChanged(EngineWatch::State state, EngineWatch::State before);
    // A call ended without leaving the queue (cancelled, its session ended, shutdown).
    void onQueuedCallFinished(const ExecResult& result);
    void logUnrun(const QString& sessionId, const QString& callId, const QString& why);
    CommandExecution* newExecution(const ExecRequest& request);
    void onCallFinished(CommandExecution* execution, const ExecResult& result);
    // Ends every session with a container or calls for which `reason` gives a reason (logged first): a container
    // made under a rule that changed must not outlive the change.
    void endLiveSessions(const std::function<QString(const SandboxSession&)>& reason);
    void maybeFinishShutdown();
    // Room for one more container: evicts the least recently used idle one when at the cap. False: none is idle.
    bool makeRoomForContainer(const SandboxSession* forSession);
    void forgetEndedSessions();

    std::unique_ptr<ContainerRuntime> m_runtime;
    SandboxConfig m_config;
    EngineCalls m_engine;
    ReviewContainers m_reviews;
    // Calls past the running limits (SPEC §3 "Bounded, and queued rather than refused").
    CallScheduler m_scheduler;
    // Whether the engine answers: while it does not, calls wait for it (SPEC §3) instead of failing one by one.
    EngineWatch m_engineWatch;
    static constexpr int kEnginePollMs = 2000;
    // After m_engine and m_reviews: a session uses both until it goes.
    std::map<QString, std::unique_ptr<SandboxSession>> m_sessions;
    QHash<QString, QPointer<CommandExecution>> m_calls;
    bool m_shuttingDown = false;
    bool m_shutdownEmitted = false;
    quint64 m_clock = 0;
    bool m_forgetScheduled = false;
    Peaks m_peaks;
    void notePeaks();
};

}  // namespace zeus
