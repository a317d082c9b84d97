#pragma once

#include "sandbox/commandexecution.h"
#include "sandbox/containerstart.h"
#include "sandbox/egress/egressproxy.h"
#include "sandbox/egress/secretplaceholders.h"
#include "sandbox/mountpins.h"
#include "sandbox/publishedports.h"
#include "sandbox/sandboxconfig.h"
#include "sandbox/sessionlog.h"
#include "secrets/redactor.h"
#include "support/sessionstate.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <optional>

namespace zeus {

class AgentChannel;
class AgentLane;
class ContainerRuntime;
class EngineCalls;
class EngineCommand;
class ReviewContainers;

// One backend session (SPEC §3, §4): its container and everything that lives with it.
//
// Owns: the container's phase and id (and a failed one still to be removed), the pins of its mounts, the calls that
// run in it or wait for it, the sandbox agent's channel with the egress proxy behind it, the secrets its commands
// were given (redacted from all of its output and its log), its log and its idle timer. It makes its container on
// the first call (ContainerStart), hands each call to the agent or to plain exec, and removes the container when
// told, when idle, or when it vanished. Its engine calls run in the manager's EngineCalls, so a container made for
// a session that is gone is still removed.
// Must never: decide a limit or which session is evicted (the SessionManager does), run a call outside its container,
// outlive its manager, or block.
class SandboxSession : public QObject {
    Q_OBJECT

public:
    // Where the session's container is.
    enum class Phase {
        None,      // no container: the next call makes one
        Checking,  // idle for a while: inspected before the next call runs (it may have been removed from outside)
        Creating,  // `run`, the mount check or the review copy is under way: calls wait
        Ready,     // running: calls start at once
    };
    Q_ENUM(Phase)

    SandboxSession(QString id, const SandboxConfig& config, EngineCalls& engine, ReviewContainers& reviews,
                   QObject* parent = nullptr);
    ~SandboxSession() override;

    const QString& id() const { return m_id; }
    // The approved folder its container mounts (empty once the session ended).
    const QString& workspace() const { return m_workspace; }
    void setWorkspace(const QString& workspace) { m_workspace = workspace; }
    SessionState state() const { return m_state; }
    Phase phase() const { return m_phase; }
    const QString& containerId() const { return m_containerId; }
    // The last container holds a review copy (SPEC §10).
    bool reviewCopy() const { return m_review; }
    QList<SessionLogEntry> log() const { return m_log.entries(); }
    int callCount() const { return int(m_calls.size()); }
    // Ready with nothing running or waiting: its container may be evicted.
    bool isIdle() const;
    // Has a container (or one being made) or calls: made under the rules in force when it started.
    bool isLive() const { return m_phase != Phase::None || !m_calls.isEmpty(); }
    // Its container was given the certificate bundle before the interception CA of host-bound secrets was loaded,
    // which is loaded now: the app would end TLS to a bound host with a CA its commands do not trust.
    bool lacksInterceptCa() const;
    // Stopped or failed with nothing left running: only its log is kept.
    bool isEnded() const;
    const QElapsedTimer& lastUsed() const { return m_lastUsed; }
    // When it last stopped or failed, on the manager's clock (the oldest ended sessions are forgotten first).
    quint64 endedAt() const { return m_endedAt; }
    void setEndedAt(quint64 tick) { m_endedAt = tick; }
    // SessionManager::execPath().
    QString execPath() const;

    // Takes a call: it gets the session's secrets to redact (and its own secrets go to the calls running), then
    // starts in the container, or waits for it to be made or checked.
    void enqueue(CommandExecution* execution);
    // A call is being cancelled: it no longer waits for the container or the agent.
    void unqueue(CommandExecution* execution);
    // A call finished: its log line, and what its end says about the container (lost, idle).
    void callEnded(CommandExecution* execution, const ExecResult& result);
    // Abandons its calls and removes its container.
    void end();
    // Removes the container (a review copy is retired instead) and says why in the log.
    void removeContainer(const QString& reason, SessionState newState);
    // Abandons everything for the app's shutdown. Returns the containers to remove; a review copy's is retired
    // here, held in EngineCalls until it is.
    QStringList shutDown();

    // Egress (SPEC §8): the policy its requests are judged by now.
    EgressPolicy egressPolicy() const { return egressPolicyFor(m_config, m_workspace, m_sessionAllow); }
    static EgressPolicy egressPolicyFor(const SandboxConfig& config, const QString& workspace,
                                        const QStringList& sessionAllow);
    // The config's rules changed: the running proxy judges by the new ones.
    void refreshEgressPolicy();
    void allowHostForSession(const QString& rule);
    void allowHostOnce(const QString& host, int port);

    // Published ports (SPEC §8 "Ports"): 127.0.0.1:HOST_PORT on this computer carried by the agent to the
    // container's 127.0.0.1:CONTAINER_PORT. Needs a running container and the agent; nullopt and *error otherwise.
    // They close when the container goes; the config's `publish` ports open again with each new container.
    std::optional<PublishedPorts::Port> publishPort(const PortSpec& spec, QString* error);
    const PublishedPorts& publishedPorts() const { return *m_ports; }

    // An event in the session's log (redacted).
    void logEvent(const QString& message);

    static QString shortId(const QString& containerId) { return containerId.left(12); }

Q_SIGNALS:
    void stateChanged(const QString& sessionId, zeus::SessionState state, const QString& containerId);
    void logEntryAdded(const QString& sessionId, const zeus::SessionLogEntry& entry);
    void execPathChanged(const QString& sessionId, const QString& execPath);
    void egressDecided(const zeus::EgressEvent& event);

private:
    friend class ContainerStart;

    const ContainerRuntime& runtime() const;
    void checkContainer();
    void onContainerChecked(EngineCommand& process);
    void createContainer();
    // The container runs and its mounts are checked: the host's certificates go in (when wanted), then
    // becomeReady() starts the waiting calls.
    void markReady();
    void becomeReady();
    void createFailed(ExecError code, const QString& message);
    void startWaiting();
    void dispatch(CommandExecution* execution);
    void startAgent();
    void onAgentReady(AgentChannel* agent);
    void onAgentFailed(AgentChannel* agent, const QString& reason);
    void runAgentWaiting();
    void closeAgent();
    void startEgress(AgentChannel* agent);
    void startExposed(AgentChannel* agent);
    void announceExecPath();
    void abandonCalls(const QString& message);
    // Clears the container ids (phase None) and returns those to remove; a review copy's container is retired
    // (`held`: in EngineCalls until it is).
    QStringList releaseContainers(bool held);
    void retireReview(const QString& workspace, const QString& containerId, std::function<void()> finished);
    // A call that failed on the read-only .git of direct mode gets a log line that says why (SPEC §3).
    void explainReadOnlyGit(const ExecResult& result);
    void addSecrets(const QList<SecretValue>& secrets);
    // SPEC §9 "Host-bound secrets": the call's bound secrets become this session's placeholders in its environment.
    void bindSecrets(CommandExecution* execution);
    void setState(SessionState state);

    const QString m_id;
    const SandboxConfig& m_config;  // the manager's, as it changes
    EngineCalls& m_engine;
    ReviewContainers& m_reviews;
    QString m_workspace;
    SessionState m_state = SessionState::Stopped;
    Phase m_phase = Phase::None;
    QString m_containerId;
    QString m_staleContainerId;                   // a failed container still to be removed
    QList<QPointer<CommandExecution>> m_calls;    // running or waiting for the container
    QList<QPointer<CommandExecution>> m_waiting;  // waiting for the container
    QPointer<AgentChannel> m_agent;               // the container's agent, while it starts or runs
    QPointer<AgentLane> m_lane;  // the lane mounted into the container (a child), or null: frames on the exec pipe
    QList<QPointer<CommandExecution>> m_agentWaiting;  // waiting for the agent's hello
    QString m_agentFallback;         // why this container's commands run with plain exec; empty: through the agent
    int m_agentFailures = 0;         // agent crashes in this container
    QString m_announcedExecPath;     // the execPath() last announced (execPathChanged), said once each
    QPointer<EgressProxy> m_egress;  // allowlist: the proxy behind the agent's listeners, while the agent runs
    QStringList m_sessionAllow;      // "Allow for this session" rules, added to the config's policy
    QTimer m_idleTimer;
    QElapsedTimer m_lastUsed;
    // Every bind mount's source pinned before `run` (Linux): checked in the container after it (MountPins).
    QList<MountPins::Pin> m_mountPins;
    bool m_review = false;            // the container holds a review copy: stopped, never removed, by the app
    bool m_hostCertificates = false;  // this container holds the host's certificate bundle: commands are told
    // Whether the bundle written into this container holds the interception CA of host-bound secrets; unset
    // until it is written (the container is being made).
    std::optional<bool> m_bundleHasInterceptCa;
    bool m_shutDown = false;  // the app is shutting down: no idle timer, nothing new
    quint64 m_endedAt = 0;
    SessionLog m_log;
    // Every secret a command of this session was given (SPEC §9): redacted from the output of all its commands,
    // also those started before or after, and from its log. Forgotten with the session.
    Redactor m_secrets;
    // The placeholders of its host-bound secrets, with their values for its egress proxy (SPEC §9): the same for
    // every command of the session, forgotten with it. Declared before the agents' proxies that point to it go.
    SecretPlaceholders m_placeholders;
    ContainerStart m_start{*this};
    PublishedPorts* m_ports;  // a child; its connections are closed before the agents they ride on go
};

}  // namespace zeus
