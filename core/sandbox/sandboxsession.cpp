#include "sandbox/sandboxsession.h"

#include "engine/containerruntime.h"
#include "sandbox/agent/agentchannel.h"
#include "sandbox/agent/agentlane.h"
#include "sandbox/agent/enginecommand.h"
#include "sandbox/enginecalls.h"
#include "sandbox/exposedports.h"
#include "sandbox/hostcertificates.h"
#include "sandbox/review/reviewcontainers.h"
#include "secrets/interceptca.h"
#include "support/logging.h"

#include <QDateTime>

#include <algorithm>
#include <utility>

namespace zeus {

namespace {

// After this many crashes of its agent a container's commands run with plain exec.
constexpr int kMaxAgentFailures = 3;

}  // namespace

SandboxSession::SandboxSession(QString id, const SandboxConfig& config, EngineCalls& engine, ReviewContainers& reviews,
                               QObject* parent)
    : QObject(parent),
      m_id(std::move(id)),
      m_config(config),
      m_engine(engine),
      m_reviews(reviews),
      m_ports(new PublishedPorts(this)) {
    connect(m_ports, &PublishedPorts::containerRefused, this, [this](quint16 port, quint32 error) {
        logEvent(QStringLiteral("Published port: nothing accepts connections on port %1 in the container (errno %2).")
                     .arg(port)
                     .arg(error));
    });
    m_idleTimer.setSingleShot(true);
    connect(&m_idleTimer, &QTimer::timeout, this, [this] {
        if (m_calls.isEmpty() && m_phase == Phase::Ready) {
            removeContainer(QStringLiteral("Idle for %1 s: container removed.").arg(m_config.idleTimeoutMs / 1000),
                            SessionState::Stopped);
        }
    });
}

SandboxSession::~SandboxSession() {
    m_ports->closeAll();  // its connections ride on the agents
    // Its agents go first: their egress proxies redact with m_secrets, which goes before the children would.
    const QList<AgentChannel*> agents = findChildren<AgentChannel*>(Qt::FindDirectChildrenOnly);
    qDeleteAll(agents);
}

const ContainerRuntime& SandboxSession::runtime() const {
    return m_engine.runtime();
}

bool SandboxSession::isIdle() const {
    return m_phase == Phase::Ready && m_calls.isEmpty() && m_waiting.isEmpty();
}

bool SandboxSession::isEnded() const {
    return m_phase == Phase::None && m_calls.isEmpty() && m_waiting.isEmpty() && !m_agent
           && (m_state == SessionState::Stopped || m_state == SessionState::Failed);
}

void SandboxSession::enqueue(CommandExecution* execution) {
    addSecrets(execution->request().secrets);
    execution->addRedaction(m_secrets.secrets());
    bindSecrets(execution);
    m_calls.append(execution);
    m_idleTimer.stop();
    if (m_phase == Phase::Ready) {
        // Idle for a while: it may have been removed from outside. Check before use, unless its agent is connected:
        // a process in the container, whose channel ends with it (agent failed: then this checks), so a live channel
        // is a live container, and a call after a pause (as an agent's next tool call comes) pays no `inspect`.
        const bool agentLive = m_agent && m_agent->state() == AgentChannel::State::Ready;
        if (!agentLive && m_lastUsed.isValid() && m_lastUsed.elapsed() > m_config.staleCheckAfterMs) {
            m_waiting.append(execution);
            checkContainer();
            return;
        }
        m_lastUsed.restart();
        dispatch(execution);
        return;
    }
    m_waiting.append(execution);
    if (m_phase == Phase::None) {
        createContainer();
    }
}

void SandboxSession::unqueue(CommandExecution* execution) {
    m_waiting.removeAll(execution);
    m_agentWaiting.removeAll(execution);
}

void SandboxSession::checkContainer() {
    m_phase = Phase::Checking;
    m_engine.run(runtime().inspectArguments(m_containerId),
                 [self = QPointer<SandboxSession>(this)](EngineCommand& process) {
                     if (self && self->m_phase == Phase::Checking) {
                         self->onContainerChecked(process);
                     }
                 });
}

void SandboxSession::onContainerChecked(EngineCommand& process) {
    const auto info =
        process.succeeded() ? runtime().parseInspect(process.standardOutput()) : std::optional<ContainerInfo>();
    if (info && info->running) {
        m_phase = Phase::Ready;
        startWaiting();
        return;
    }
    logEvent(QStringLiteral("Container %1 is gone (%2); starting a new one.")
                 .arg(shortId(m_containerId), info ? info->state : QStringLiteral("not found")));
    m_staleContainerId = m_containerId;
    m_containerId.clear();
    m_phase = Phase::None;
    createContainer();
}

void SandboxSession::createContainer() {
    closeAgent();
    m_bundleHasInterceptCa.reset();
    m_agentFallback.clear();
    m_agentFailures = 0;
    m_phase = Phase::Creating;
    setState(SessionState::Starting);
    m_start.begin();
}

void SandboxSession::markReady() {
    m_hostCertificates = false;
    const HostCertificates::Bundle& bundle = HostCertificates::system();
    if (!m_config.wantsHostCertificates() || bundle.count == 0) {
        becomeReady();
        return;
    }
    // Before any command runs: a command told to read a bundle that is not there yet would fail its TLS.
    const QString containerId = m_containerId;
    // The interception CA of host-bound secrets is trusted inside the sandbox only, never by this computer.
    const bool interception = m_config.interceptsSecrets();
    m_bundleHasInterceptCa = interception;
    m_engine.runWithInput(
        runtime().execWithStdinArguments(containerId, HostCertificates::installCommand()),
        interception ? bundle.pem + m_config.interceptCa->certificatePem() : bundle.pem,
        [self = QPointer<SandboxSession>(this), containerId, count = bundle.count](EngineCommand& process) {
            if (!self || self->m_phase != Phase::Creating || self->m_containerId != containerId) {
                return;  // ended meanwhile
            }
            if (process.succeeded()) {
                self->m_hostCertificates = true;
                self->logEvent(QStringLiteral("This computer's %1 trusted root certificates are in %2: HTTPS from "
                                              "the sandbox trusts what this computer trusts.")
                                   .arg(count)
                                   .arg(containerCaBundlePath()));
            } else {
                self->logEvent(QStringLiteral("This computer's trusted certificates could not be written into the "
                                              "container (%1): commands use the image's own.")
                                   .arg(process.diagnostic()));
            }
            self->becomeReady();
        });
}

bool SandboxSession::lacksInterceptCa() const {
    return m_bundleHasInterceptCa.has_value() && !*m_bundleHasInterceptCa && m_config.interceptsSecrets();
}

void SandboxSession::becomeReady() {
    m_phase = Phase::Ready;
    m_lastUsed.restart();
    logEvent(QStringLiteral("Container %1 started (%2, %3 profile) with %4 at /workspace.")
                 .arg(shortId(m_containerId), m_config.image, hardeningProfileName(m_config.profile),
                      m_review ? QStringLiteral("a review copy of ") + m_workspace : m_workspace));
    const bool repository = std::any_of(m_mountPins.cbegin(), m_mountPins.cend(), [](const auto& pin) {
        return pin.target == containerWorkspace() + QStringLiteral("/.git");
    });
    if (repository) {
        logEvent(m_config.gitWritesFor(m_workspace)
                     ? QStringLiteral("The sandbox may write this repository's metadata (.git): the host's git may "
                                      "run code the agent writes there.")
                     : QStringLiteral("The repository's metadata (.git) is read-only in the sandbox: git log, diff "
                                      "and status work; git add, commit and checkout fail. Review mode lets the "
                                      "agent commit and brings its commits home as refs/zeus/<session>/…"));
    }
    setState(SessionState::Running);
    for (const PortSpec& spec : m_config.publish) {
        QString error;
        if (!publishPort(spec, &error)) {
            logEvent(QStringLiteral("Port %1 not published: %2.").arg(spec.text(), error));
        }
    }
    if (!m_config.exposeHostFor(m_workspace).isEmpty() && !m_agent && m_config.execMode != ExecMode::Exec
        && m_agentFallback.isEmpty()) {
        startAgent();  // the exposed host ports need its listeners now, not at the next command
    }
    startWaiting();
}

void SandboxSession::createFailed(ExecError code, const QString& message) {
    if (m_phase != Phase::Creating) {
        return;
    }
    m_phase = Phase::None;
    logEvent(message);
    setState(SessionState::Failed);
    const QList<QPointer<CommandExecution>> waiting = std::exchange(m_waiting, {});
    for (const auto& execution : waiting) {
        if (execution) {
            execution->fail(code, message);
        }
    }
}

void SandboxSession::startWaiting() {
    const QList<QPointer<CommandExecution>> waiting = std::exchange(m_waiting, {});
    m_lastUsed.restart();
    for (const auto& execution : waiting) {
        if (execution) {
            dispatch(execution);
        }
    }
}

void SandboxSession::dispatch(CommandExecution* execution) {
    if (m_hostCertificates) {
        execution->setEnvironment(HostCertificates::environment());
    }
    if (m_config.execMode == ExecMode::Exec || !m_agentFallback.isEmpty()) {
        announceExecPath();  // forced exec is said with the container's first command, like the agent
        execution->start(m_containerId);
        return;
    }
    if (m_agent && m_agent->state() == AgentChannel::State::Ready) {
        execution->start(m_containerId, m_agent);
        return;
    }
    m_agentWaiting.append(execution);
    if (!m_agent) {
        startAgent();
    }
}

void SandboxSession::startAgent() {
    auto* agent = new AgentChannel(runtime(), m_containerId, m_config.agentContainerPath(), this);
    m_agent = agent;
    connect(agent, &AgentChannel::ready, this, [this, agent] { onAgentReady(agent); });
    connect(agent, &AgentChannel::failed, this, [this, agent](const QString& reason) { onAgentFailed(agent, reason); });
    agent->setLane(m_lane);
    connect(agent, &AgentChannel::laneReport, this, [this](const QString& text) { logEvent(text); });
    connect(agent, &AgentChannel::logLine, this,
            [this](const QString& line) { qCInfo(lcSession) << "session" << m_id << "agent:" << line; });
    announceExecPath();
    agent->start();
}

void SandboxSession::onAgentReady(AgentChannel* agent) {
    if (m_agent != agent) {
        return;
    }
    logEvent(QStringLiteral("Sandbox agent %1 ready: commands run through it.").arg(agent->version()));
    m_ports->setAgent(agent);
    startEgress(agent);
    startExposed(agent);
    announceExecPath();
    runAgentWaiting();
}

void SandboxSession::onAgentFailed(AgentChannel* agent, const QString& reason) {
    const bool wasReady = !agent->version().isEmpty();
    agent->deleteLater();
    if (m_agent != agent) {
        return;
    }
    m_agent.clear();
    if (!wasReady) {
        m_agentFallback = reason;
        logEvent(QStringLiteral("The sandbox agent is not available (%1): commands run with plain exec.").arg(reason));
    } else if (++m_agentFailures >= kMaxAgentFailures) {
        m_agentFallback = QStringLiteral("the agent stopped %1 times").arg(m_agentFailures);
        logEvent(QStringLiteral("The sandbox agent stopped (%1), %2 times in this container: commands run with plain "
                                "exec from now on.")
                     .arg(reason)
                     .arg(m_agentFailures));
    } else {
        logEvent(QStringLiteral("The sandbox agent stopped (%1); it restarts for the next command.").arg(reason));
    }
    announceExecPath();
    runAgentWaiting();
    if (!m_agentFallback.isEmpty()) {
        m_ports->setUnavailable();
    } else if (!m_agent && (!m_ports->isEmpty() || !m_config.exposeHostFor(m_workspace).isEmpty())
               && m_phase == Phase::Ready) {
        startAgent();  // published and exposed ports need it now, not at the next command
    }
}

void SandboxSession::runAgentWaiting() {
    const QList<QPointer<CommandExecution>> waiting = std::exchange(m_agentWaiting, {});
    for (const auto& execution : waiting) {
        if (execution) {
            dispatch(execution);
        }
    }
}

void SandboxSession::closeAgent() {
    m_ports->closeAll();  // the container goes: what it served is gone
    if (AgentChannel* agent = m_agent) {
        m_agent.clear();
        agent->close();  // its failed() on the exit deletes it; the container's removal ends it anyway
        QTimer::singleShot(m_config.engineCallTimeoutMs, agent, &QObject::deleteLater);
    }
    m_agentWaiting.clear();
}

void SandboxSession::startEgress(AgentChannel* agent) {
    if (m_config.effectiveNetworkMode() != NetworkMode::Allowlist) {
        return;
    }
    // A child of the channel: it goes with the agent, and a restarted agent gets a new one.
    auto* proxy = new EgressProxy(m_id, agent, egressPolicy(), agent);
    m_egress = proxy;
    proxy->setRedaction([this](const QString& text) { return m_secrets.redactedIgnoringCase(text); });
    if (!m_config.secretBindings.isEmpty()) {
        static const QList<QSslCertificate> roots = QSslCertificate::fromData(HostCertificates::system().pem);
        proxy->setSecretInterception({&m_placeholders, m_config.interceptCa.get(), roots});
    }
    connect(proxy, &EgressProxy::decided, this, [this](const EgressEvent& event) {
        if (!event.allowed) {
            logEvent((event.secretNotBound ? QStringLiteral("Network: a request to %1:%2 refused: %3 (nothing of it "
                                                            "was sent).")
                                           : QStringLiteral("Network: %1:%2 denied (%3)."))
                         .arg(event.host)
                         .arg(event.port)
                         .arg(event.rule));
        }
        Q_EMIT egressDecided(event);
    });
    // Once per agent: support reads here that downloads take the kernel's way (docs/agent-protocol.md).
    connect(
        proxy, &EgressProxy::handedOver, this,
        [this](const QString& host, int port) {
            logEvent(QStringLiteral("Network: the agent handed its connection for %1:%2 over on its lane; from now on "
                                    "what allowed sites send goes from socket to socket, without passing the app.")
                         .arg(host)
                         .arg(port));
        },
        Qt::SingleShotConnection);
    connect(proxy, &EgressProxy::listenFailed, this, [this](quint16, const QString& reason) {
        logEvent(QStringLiteral("Network: %1; connections through the proxy will fail.").arg(reason));
    });
    proxy->start();
}

void SandboxSession::startExposed(AgentChannel* agent) {
    // Made even with nothing to expose: a tunnel of an exposed port this session never asked for is then refused
    // aloud rather than dropped. A child of the channel, like the egress proxy.
    auto* exposed = new ExposedPorts(m_id, agent, m_config.exposeHostFor(m_workspace), agent);
    connect(exposed, &ExposedPorts::decided, this, [this](const EgressEvent& event) {
        if (!event.allowed) {
            logEvent(QStringLiteral("Network: %1:%2 denied (%3).").arg(event.host).arg(event.port).arg(event.rule));
        }
        Q_EMIT egressDecided(event);
    });
    connect(exposed, &ExposedPorts::listenFailed, this, [this](quint16, const QString& reason) {
        logEvent(QStringLiteral("Exposed host port: %1; it is not reachable in the container.").arg(reason));
    });
    exposed->start();
    for (const ExposeSpec& spec : m_config.exposeHostFor(m_workspace)) {
        logEvent(QStringLiteral("This computer's 127.0.0.1:%1 is reachable in the container at 127.0.0.1:%2.")
                     .arg(spec.hostPort)
                     .arg(spec.containerPort));
    }
}

std::optional<PublishedPorts::Port> SandboxSession::publishPort(const PortSpec& spec, QString* error) {
    if (m_config.execMode == ExecMode::Exec || !m_agentFallback.isEmpty()) {
        *error = QStringLiteral("ports need the sandbox agent (%1)")
                     .arg(m_config.execMode == ExecMode::Exec ? QStringLiteral("exec mode") : m_agentFallback);
        return std::nullopt;
    }
    if (m_phase != Phase::Ready) {
        *error = QStringLiteral("the session has no running container");
        return std::nullopt;
    }
    const std::optional<PublishedPorts::Port> port = m_ports->open(spec, error);
    if (port) {
        logEvent(QStringLiteral("Port %1 of the container is published at %2 (this computer only).")
                     .arg(port->containerPort)
                     .arg(port->url().toString()));
        if (!m_agent) {
            startAgent();
        }
    }
    return port;
}

EgressPolicy SandboxSession::egressPolicyFor(const SandboxConfig& config, const QString& workspace,
                                             const QStringList& sessionAllow) {
    EgressPolicy policy = config.egress;
    policy.mode = config.effectiveNetworkMode();
    for (const QString& text : config.folderAllow.value(workspace)) {
        if (auto rule = HostRule::parse(text)) {
            rule->text = QStringLiteral("folder: %1").arg(text);
            policy.allow.append(*rule);
        }
    }
    for (const QString& text : sessionAllow) {
        if (auto rule = HostRule::parse(text)) {
            rule->text = QStringLiteral("session: %1").arg(text);
            policy.allow.append(*rule);
        }
    }
    return policy;
}

void SandboxSession::refreshEgressPolicy() {
    if (m_egress) {
        m_egress->setPolicy(egressPolicy());
    }
}

void SandboxSession::allowHostForSession(const QString& rule) {
    if (!HostRule::parse(rule)) {
        return;
    }
    m_sessionAllow.append(rule);
    logEvent(QStringLiteral("Network: %1 allowed for this session.").arg(rule));
    refreshEgressPolicy();
}

void SandboxSession::allowHostOnce(const QString& host, int port) {
    if (m_egress) {
        m_egress->allowOnce(host, port);
        logEvent(QStringLiteral("Network: %1:%2 allowed once.").arg(host).arg(port));
    }
}

QString SandboxSession::execPath() const {
    if (m_phase != Phase::Ready) {
        return {};
    }
    if (m_config.execMode == ExecMode::Exec) {
        return QStringLiteral("exec (forced)");
    }
    if (!m_agentFallback.isEmpty()) {
        return QStringLiteral("exec: ") + m_agentFallback;
    }
    if (m_agent && m_agent->state() == AgentChannel::State::Ready) {
        return QStringLiteral("agent ") + m_agent->version();
    }
    return QStringLiteral("agent (starting)");
}

void SandboxSession::announceExecPath() {
    const QString path = execPath();
    if (path == m_announcedExecPath) {
        return;
    }
    m_announcedExecPath = path;
    // An allowlist session reaches the network only through the agent's listeners (SPEC §8): without them every
    // connection fails, so that is said once, where the user looks, instead of a silent failure later.
    if (path.startsWith(QLatin1String("exec")) && m_config.effectiveNetworkMode() == NetworkMode::Allowlist) {
        logEvent(m_config.execMode == ExecMode::Exec
                     ? QStringLiteral("No network: the sandbox agent is not used (exec mode), and the allowlist "
                                      "reaches the container only through it.")
                     : QStringLiteral("No network: the sandbox agent is not available (%1), and the allowlist "
                                      "reaches the container only through it.")
                           .arg(m_agentFallback));
    }
    if (path.startsWith(QLatin1String("exec")) && !m_config.exposeHostFor(m_workspace).isEmpty()) {
        logEvent(QStringLiteral("expose-host needs the sandbox agent (%1): no host port is reachable in the "
                                "container.")
                     .arg(m_config.execMode == ExecMode::Exec ? QStringLiteral("exec mode") : m_agentFallback));
    }
    Q_EMIT execPathChanged(m_id, path);
}

void SandboxSession::callEnded(CommandExecution* execution, const ExecResult& result) {
    m_calls.removeAll(execution);
    unqueue(execution);
    if (result.containerLost && m_phase == Phase::Ready) {
        closeAgent();
        logEvent(
            QStringLiteral("Container %1 stopped unexpectedly: %2").arg(shortId(m_containerId), result.errorMessage));
        m_staleContainerId = m_containerId;
        m_containerId.clear();
        m_phase = Phase::None;
        setState(SessionState::Failed);
    }
    SessionLogEntry entry;
    entry.kind = SessionLogEntry::Kind::Command;
    entry.time = result.started;
    entry.callId = result.callId;
    entry.command = m_secrets.redacted(execution->request().command);
    entry.durationMs = result.durationMs;
    entry.exitCode = result.exitCode;
    entry.status = result.status;
    entry.bytes = result.stdoutBytes + result.stderrBytes;
    entry.truncated = result.truncated;
    entry.message =
        m_secrets.redacted(result.errorCode == ExecError::None
                               ? result.errorMessage
                               : execErrorName(result.errorCode) + QStringLiteral(": ") + result.errorMessage);
    m_log.append(entry);
    Q_EMIT logEntryAdded(m_id, entry);
    explainReadOnlyGit(result);
    if (m_calls.isEmpty() && m_phase == Phase::Ready && !m_shutDown) {
        m_idleTimer.start(m_config.idleTimeoutMs);
    }
}

void SandboxSession::explainReadOnlyGit(const ExecResult& result) {
    // git's own error names the file it could not write; the log says why once per failing call, and where to go.
    if (m_review || result.exitCode.value_or(0) == 0 || m_config.gitWritesFor(m_workspace)
        || !result.output.contains(QLatin1String("Read-only file system"))
        || !result.output.contains(QLatin1String(".git/"))) {
        return;
    }
    logEvent(
        QStringLiteral("git could not write .git: the repository's metadata is read-only in direct mode, so "
                       "nothing the agent writes there can make the host's git run code. Use review mode for "
                       "this folder to let the agent commit (docs/security.md)."));
}

void SandboxSession::abandonCalls(const QString& message) {
    const QList<QPointer<CommandExecution>> calls = m_calls;
    for (const auto& execution : calls) {
        if (execution) {
            execution->abandon(message);
        }
    }
    m_waiting.clear();
}

void SandboxSession::end() {
    m_idleTimer.stop();
    abandonCalls(QStringLiteral("The session ended."));
    removeContainer(QStringLiteral("Session ended."), SessionState::Stopped);
    m_workspace.clear();
}

QStringList SandboxSession::releaseContainers(bool held) {
    QStringList ids;
    if (!m_containerId.isEmpty()) {
        if (!m_review) {
            ids << m_containerId;
        } else if (m_phase != Phase::Creating) {
            // A review copy is stopped, never removed, while it holds changes (SPEC §10). One still being copied
            // in is left to the copy, which retires it once it is done.
            std::function<void()> finished;
            if (held) {
                m_engine.hold();
                finished = [calls = &m_engine] { calls->release(); };
            }
            retireReview(m_workspace, m_containerId, std::move(finished));
        }
    }
    if (!m_staleContainerId.isEmpty() && !m_reviews.isReviewContainer(m_staleContainerId)) {
        ids << m_staleContainerId;
    }
    m_containerId.clear();
    m_staleContainerId.clear();
    m_phase = Phase::None;
    return ids;
}

void SandboxSession::removeContainer(const QString& reason, SessionState newState) {
    closeAgent();
    const QStringList ids = releaseContainers(false);
    if (!ids.isEmpty()) {
        m_engine.run(runtime().removeArguments(ids), [ids](EngineCommand& process) {
            if (!process.succeeded()) {
                qCWarning(lcSession) << "removing" << ids << "failed:" << process.diagnostic();
            }
        });
    }
    logEvent(reason);
    setState(newState);
    announceExecPath();
}

QStringList SandboxSession::shutDown() {
    m_shutDown = true;
    m_idleTimer.stop();
    abandonCalls(QStringLiteral("Zeus Desktop is shutting down."));
    closeAgent();
    // Listed first: with changes a review container is stopped and kept, without it goes (as at a session's end).
    QStringList ids = releaseContainers(true);
    setState(SessionState::Stopped);
    return ids;
}

void SandboxSession::retireReview(const QString& workspace, const QString& containerId,
                                  std::function<void()> finished) {
    m_reviews.retire(
        m_id, workspace, containerId,
        [self = QPointer<SandboxSession>(this), containerId](const ReviewContainers::Retired& retired) {
            if (!self) {
                return;
            }
            if (!retired.ok) {
                self->logEvent(QStringLiteral("The review container %1 could not be stopped: %2")
                                   .arg(shortId(containerId), retired.error));
            } else if (retired.changes == 0) {
                self->logEvent(
                    QStringLiteral("Review container %1 removed: nothing changed in it.").arg(shortId(containerId)));
            } else {
                self->logEvent(QStringLiteral("Review container %1 stopped and kept: %2 to review.")
                                   .arg(shortId(containerId),
                                        retired.changes < 0 ? QStringLiteral("its changes")
                                                            : QStringLiteral("%1 changed files").arg(retired.changes)));
            }
        },
        std::move(finished));
}

void SandboxSession::addSecrets(const QList<SecretValue>& secrets) {
    QList<SecretValue> added;
    for (const SecretValue& secret : secrets) {
        if (m_secrets.add(secret)) {
            added.append(secret);
        }
    }
    if (added.isEmpty()) {
        return;
    }
    // The calls already running in this session may print what a newer one was given (through a shared file).
    for (const QPointer<CommandExecution>& call : std::as_const(m_calls)) {
        if (call) {
            call->addRedaction(added);
        }
    }
}

void SandboxSession::bindSecrets(CommandExecution* execution) {
    for (const SecretValue& secret : execution->request().secrets) {
        const auto binding = m_config.secretBindings.constFind(secret.name);
        if (binding == m_config.secretBindings.cend()) {
            continue;
        }
        const bool first = m_placeholders.entry(secret.name) == nullptr;
        const QByteArray placeholder = m_placeholders.bind(*binding, secret.value);
        execution->usePlaceholder(secret.name, placeholder);
        if (!first) {
            continue;
        }
        const QString hosts = binding->ruleTexts().join(QStringLiteral(", "));
        logEvent(
            m_config.interceptsSecrets()
                ? QStringLiteral("Secret %1 is bound to %2: commands get a placeholder, and the app puts the value "
                                 "into requests to those hosts only.")
                      .arg(secret.name, hosts)
                : QStringLiteral("Secret %1 is bound to %2: commands get a placeholder, which nothing replaces "
                                 "in this session (%3).")
                      .arg(secret.name, hosts,
                           m_config.effectiveNetworkMode() == NetworkMode::Allowlist
                               ? QStringLiteral("the interception CA is not loaded")
                               : QStringLiteral("only the allowlist network goes through the app's proxy")));
    }
}

void SandboxSession::setState(SessionState state) {
    if (m_state == state) {
        return;
    }
    m_state = state;
    qCInfo(lcSession) << "session" << m_id << sessionStateName(state) << shortId(m_containerId);
    Q_EMIT stateChanged(m_id, state, m_containerId);
}

void SandboxSession::logEvent(const QString& message) {
    SessionLogEntry entry;
    entry.kind = SessionLogEntry::Kind::Event;
    entry.time = QDateTime::currentDateTimeUtc();
    entry.message = m_secrets.redacted(message);
    m_log.append(entry);
    qCInfo(lcSession) << "session" << m_id << entry.message;
    Q_EMIT logEntryAdded(m_id, entry);
}

}  // namespace zeus
