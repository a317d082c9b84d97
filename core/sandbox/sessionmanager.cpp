#include "sandbox/sessionmanager.h"

#include "sandbox/agentchannel.h"
#include "sandbox/enginecommand.h"
#include "sandbox/reviewcopy.h"
#include "sandbox/workspaceapproval.h"
#include "sandbox/workspaceguard.h"
#include "support/logging.h"

#include <QDir>
#include <QFile>
#include <QMetaMethod>
#include <QUuid>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace zeus {

namespace {

QString shortId(const QString& id) {
    return id.left(12);
}

// After this many crashes of its agent a container's commands run with plain exec.
constexpr int kMaxAgentFailures = 3;

QString lastLine(const QByteArray& output) {
    const QList<QByteArray> lines = output.trimmed().split('\n');
    return lines.isEmpty() ? QString() : QString::fromUtf8(lines.last().trimmed());
}

}  // namespace

SessionManager::SessionManager(std::unique_ptr<ContainerRuntime> runtime, SandboxConfig config, QObject* parent)
    : QObject(parent),
      m_runtime(std::move(runtime)),
      m_config(std::move(config)),
      m_reviews(m_config.reviewDirectory.isEmpty() ? ReviewStore::defaultDirectory() : m_config.reviewDirectory) {
    Q_ASSERT(m_runtime);
    // One at a time: a copy, a listing, a stop and a resume of one container must never overlap.
    m_reviewPool.setMaxThreadCount(1);
    qRegisterMetaType<zeus::ExecResult>();
    qRegisterMetaType<zeus::OutputStream>();
    qRegisterMetaType<zeus::SessionState>();
    qRegisterMetaType<zeus::SessionLogEntry>();
    if (m_config.ownerId.isEmpty()) {
        m_config.ownerId = QStringLiteral("unset");
    }
}

SessionManager::~SessionManager() {
    m_reviewPool.waitForDone();
}

SessionManager::Session* SessionManager::findSession(const QString& sessionId) const {
    const auto it = m_sessions.find(sessionId);
    return it == m_sessions.end() ? nullptr : it->second.get();
}

SessionManager::Session& SessionManager::sessionFor(const QString& sessionId) {
    if (Session* existing = findSession(sessionId)) {
        return *existing;
    }
    auto session = std::make_unique<Session>();
    session->id = sessionId;
    session->idleTimer.setSingleShot(true);
    connect(&session->idleTimer, &QTimer::timeout, this, [this, sessionId] {
        if (Session* s = findSession(sessionId); s && s->calls.isEmpty() && s->phase == ContainerPhase::Ready) {
            removeContainer(*s, QStringLiteral("Idle for %1 s: container removed.").arg(m_config.idleTimeoutMs / 1000),
                            SessionState::Stopped);
        }
    });
    Session& ref = *session;
    m_sessions.emplace(sessionId, std::move(session));
    return ref;
}

QStringList SessionManager::sessionIds() const {
    QStringList ids;
    for (const auto& entry : m_sessions) {
        ids << entry.first;
    }
    return ids;
}

SessionState SessionManager::sessionState(const QString& sessionId) const {
    const Session* session = findSession(sessionId);
    return session ? session->state : SessionState::Stopped;
}

QString SessionManager::containerId(const QString& sessionId) const {
    const Session* session = findSession(sessionId);
    return session ? session->containerId : QString();
}

QList<SessionLogEntry> SessionManager::sessionLog(const QString& sessionId) const {
    const Session* session = findSession(sessionId);
    return session ? session->log.entries() : QList<SessionLogEntry>();
}

void SessionManager::refuse(const ExecRequest& request, ExecError code, const QString& message) {
    const ExecResult result = ExecResult::failure(request, code, message);
    qCInfo(lcExec) << "call" << request.callId << "refused:" << execErrorName(code);
    QTimer::singleShot(0, this, [this, result] { Q_EMIT callFinished(result); });
}

void SessionManager::execute(const ExecRequest& incoming) {
    ExecRequest request = incoming;
    if (m_shuttingDown) {
        refuse(request, ExecError::ContainerFailed, QStringLiteral("Zeus Desktop is shutting down."));
        return;
    }
    if (m_calls.contains(request.callId)) {
        refuse(request, ExecError::Busy, QStringLiteral("A call with this id is already running."));
        return;
    }
    const WorkspaceGuard::Result guard = WorkspaceGuard::check(request.workspace);
    if (!guard.accepted()) {
        refuse(request, ExecError::WorkspaceInvalid,
               guard.message + QStringLiteral(" (rule: ") + WorkspaceGuard::ruleName(guard.rule) + QLatin1Char(')'));
        return;
    }
    // The folder is mounted by the string it was approved as; one that resolves elsewhere now (a component was
    // swapped for a symlink) is not the folder the user approved (SPEC §3 "Approvals are exact strings").
    const QString approved = QDir::cleanPath(request.workspace);
    const Qt::CaseSensitivity cs =
        WorkspaceGuard::hostEnvironment().caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    if (guard.canonicalPath.compare(approved, cs) != 0) {
        refuse(request, ExecError::WorkspaceInvalid,
               QStringLiteral("The folder %1 changed since it was approved: it now resolves to %2. Approve it again "
                              "in Zeus Desktop.")
                   .arg(approved, guard.canonicalPath));
        return;
    }
    request.workspace = approved;
    if (m_calls.size() >= m_config.maxCallsTotal) {
        refuse(request, ExecError::Busy,
               QStringLiteral("%1 commands are already running; try again when one has finished.")
                   .arg(m_config.maxCallsTotal));
        return;
    }
    const Session* existing = findSession(request.sessionId);
    if ((!existing || existing->phase == ContainerPhase::None) && !makeRoomForContainer(existing)) {
        refuse(request, ExecError::Busy,
               QStringLiteral("%1 sandbox containers are running and none is idle; try again when one has finished.")
                   .arg(m_config.maxContainers));
        return;
    }
    Session& session = sessionFor(request.sessionId);
    if (session.calls.size() >= m_config.maxCallsPerSession) {
        refuse(request, ExecError::Busy,
               QStringLiteral("This session already runs %1 commands; try again when one has finished.")
                   .arg(m_config.maxCallsPerSession));
        return;
    }
    if (!session.workspace.isEmpty() && session.workspace != request.workspace) {
        if (!session.calls.isEmpty()) {
            refuse(request, ExecError::Busy, QStringLiteral("This session is running commands in another folder."));
            return;
        }
        if (session.phase != ContainerPhase::None) {
            removeContainer(session, QStringLiteral("Working directory changed to %1.").arg(request.workspace),
                            SessionState::Stopped);
        }
    }
    session.workspace = request.workspace;

    auto* execution =
        new CommandExecution(request, *m_runtime, m_config.outputCapBytes,
                             m_config.effectiveTimeoutSeconds(request.timeoutSeconds), m_config.killGraceMs, this);
    execution->setImage(m_config.image);
    addSessionSecrets(session, request.secrets);
    execution->addRedaction(session.secrets.secrets());
    connect(execution, &CommandExecution::output, this,
            [this](const QString& callId, OutputStream stream, const QByteArray& live, const QByteArray& kept) {
                Q_EMIT outputUtf8(callId, stream, live);
                // Decoding costs as much as the rest of the backend path: only for a listener.
                static const QMetaMethod decoded = QMetaMethod::fromSignal(&SessionManager::output);
                if (!kept.isEmpty() && isSignalConnected(decoded)) {
                    Q_EMIT output(callId, stream, QString::fromUtf8(kept));
                }
            });
    connect(execution, &CommandExecution::finished, this,
            [this, execution](const ExecResult& result) { onCallFinished(execution, result); });
    m_calls.insert(request.callId, execution);
    session.calls.append(execution);
    session.idleTimer.stop();
    qCInfo(lcExec) << "call" << request.callId << "in session" << request.sessionId;

    if (session.phase == ContainerPhase::Ready) {
        if (session.lastUsed.isValid() && session.lastUsed.elapsed() > m_config.staleCheckAfterMs) {
            // Idle for a while: it may have been removed from outside. Check before use.
            session.waiting.append(execution);
            session.phase = ContainerPhase::Checking;
            const QString sessionId = session.id;
            runEngine(m_runtime->inspectArguments(session.containerId), m_config.engineCallTimeoutMs,
                      [this, sessionId](EngineCommand& process) {
                          Session* s = findSession(sessionId);
                          if (!s || s->phase != ContainerPhase::Checking) {
                              return;
                          }
                          const auto info = process.succeeded() ? m_runtime->parseInspect(process.standardOutput())
                                                                : std::optional<ContainerInfo>();
                          if (info && info->running) {
                              s->phase = ContainerPhase::Ready;
                              startWaiting(*s);
                              return;
                          }
                          logEvent(*s,
                                   QStringLiteral("Container %1 is gone (%2); starting a new one.")
                                       .arg(shortId(s->containerId), info ? info->state : QStringLiteral("not found")));
                          s->staleContainerId = s->containerId;
                          s->containerId.clear();
                          s->phase = ContainerPhase::None;
                          createContainer(*s);
                      });
            return;
        }
        session.lastUsed.restart();
        dispatch(session, execution);
        return;
    }
    session.waiting.append(execution);
    if (session.phase == ContainerPhase::None) {
        createContainer(session);
    }
}

int SessionManager::liveContainers() const {
    int live = 0;
    for (const auto& entry : m_sessions) {
        live += entry.second->phase != ContainerPhase::None ? 1 : 0;
    }
    return live;
}

bool SessionManager::makeRoomForContainer(const Session* forSession) {
    if (liveContainers() < m_config.maxContainers) {
        return true;
    }
    Session* victim = nullptr;
    for (const auto& entry : m_sessions) {
        Session* s = entry.second.get();
        const bool idle = s->phase == ContainerPhase::Ready && s->calls.isEmpty() && s->waiting.isEmpty();
        if (s == forSession || !idle) {
            continue;
        }
        if (!victim || !s->lastUsed.isValid()
            || (victim->lastUsed.isValid() && s->lastUsed.elapsed() > victim->lastUsed.elapsed())) {
            victim = s;
        }
    }
    if (!victim) {
        return false;
    }
    // Its background jobs end with it; the session itself may come back (a new container on its next call).
    removeContainer(*victim,
                    QStringLiteral("Container removed to make room: at most %1 run at once, and this session was idle "
                                   "the longest.")
                        .arg(m_config.maxContainers),
                    SessionState::Stopped);
    return true;
}

int SessionManager::endSessionsIn(const QString& workspace) {
    QStringList ids;
    for (const auto& entry : m_sessions) {
        const Session& s = *entry.second;
        if (s.workspace == workspace && (s.phase != ContainerPhase::None || !s.calls.isEmpty())) {
            ids << s.id;
        }
    }
    for (const QString& id : std::as_const(ids)) {
        if (Session* s = findSession(id)) {
            logEvent(*s, QStringLiteral("The approval of %1 was revoked.").arg(workspace));
        }
        endSession(id);
    }
    return int(ids.size());
}

void SessionManager::forgetEndedSessions() {
    m_forgetScheduled = false;
    std::vector<Session*> ended;
    for (const auto& entry : m_sessions) {
        Session* s = entry.second.get();
        if (s->phase == ContainerPhase::None && s->calls.isEmpty() && s->waiting.isEmpty() && !s->agent
            && (s->state == SessionState::Stopped || s->state == SessionState::Failed)) {
            ended.push_back(s);
        }
    }
    if (ended.size() <= size_t(kKeptEndedSessions)) {
        return;
    }
    std::sort(ended.begin(), ended.end(), [](const Session* a, const Session* b) { return a->endedAt < b->endedAt; });
    const size_t forget = ended.size() - size_t(kKeptEndedSessions);
    QStringList ids;
    for (size_t i = 0; i < forget; ++i) {
        ids << ended[i]->id;
    }
    for (const QString& id : std::as_const(ids)) {
        m_sessions.erase(id);
    }
    qCDebug(lcSession) << "forgot" << ids.size() << "ended sessions";
}

void SessionManager::createContainer(Session& session) {
    closeAgent(session);
    session.agentFallback.clear();
    session.agentFailures = 0;
    session.phase = ContainerPhase::Creating;
    setState(session, SessionState::Starting);
    const QString modeRefusal = m_config.workspaceModeRefusal(session.workspace);
    if (!modeRefusal.isEmpty()) {
        // Before anything reaches the engine: no container is made for a folder this config may not mount.
        const QString id = session.id;
        QTimer::singleShot(0, this,
                           [this, id, modeRefusal] { onCreateFailed(id, ExecError::WorkspaceInvalid, modeRefusal); });
        return;
    }
    ContainerSpec spec = m_config.containerSpec(
        QStringLiteral("zeus-") + QUuid::createUuid().toString(QUuid::Id128).left(12), session.workspace, session.id);
    session.review = m_config.workspaceModeFor(session.workspace) == WorkspaceMode::Review;
    spec.reviewCopy = session.review;
    if (!session.review) {
        spec.overlays = gitProtectionOverlays(session.workspace, m_config.gitWritesFor(session.workspace));
    }
    const QString sessionId = session.id;
    const QString unsupported =
        ContainerRuntime::isSafeImageReference(spec.image)
            ? m_runtime->unsupportedReason(spec)
            : QStringLiteral("The sandbox image setting \"%1\" is not an image reference.").arg(spec.image);
    if (!unsupported.isEmpty()) {
        QTimer::singleShot(0, this, [this, sessionId, unsupported] {
            onCreateFailed(sessionId, ExecError::ContainerFailed, unsupported);
        });
        return;
    }
    if (!session.staleContainerId.isEmpty()) {
        if (!isReviewContainer(session.staleContainerId)) {
            runEngine(m_runtime->removeArguments({session.staleContainerId}), m_config.engineCallTimeoutMs,
                      [](EngineCommand&) {});
        }
        session.staleContainerId.clear();
    }
    session.mountPins.clear();
    if (session.review) {
        createReviewContainer(session, spec);
        return;
    }
#if defined(Q_OS_LINUX)
    // Taken just before `run`: a source swapped between this and the engine's mount shows as another inode, and
    // a symbolic link anywhere on the way to a source refuses the container before it exists.
    QString pinError;
    session.mountPins = MountPins::pin(spec, &pinError);
    if (session.mountPins.isEmpty()) {
        const QString message =
            QStringLiteral("A mount of the sandbox cannot be made safely: %1. Nothing was started.").arg(pinError);
        QTimer::singleShot(
            0, this, [this, sessionId, message] { onCreateFailed(sessionId, ExecError::WorkspaceInvalid, message); });
        return;
    }
#endif
    ++m_creating;
    const QString name = spec.name;
    runEngine(m_runtime->runArguments(spec), m_config.engineCallTimeoutMs,
              [this, sessionId, name](EngineCommand& process) { onContainerCreated(sessionId, name, &process); });
}

void SessionManager::verifyMount(const QString& sessionId, const QString& containerId) {
    // One fixed script (no backend text); the targets are its arguments. The kernel's boot id tells an engine on
    // this kernel from one in a VM, where device and inode numbers of a shared folder mean nothing on the host.
    const Session* session = findSession(sessionId);
    if (!session) {
        return;
    }
    runEngine(m_runtime->execArguments(containerId, MountPins::checkCommand(session->mountPins)),
              m_config.engineCallTimeoutMs, [this, sessionId, containerId](EngineCommand& process) {
                  Session* s = findSession(sessionId);
                  if (!s || s->phase != ContainerPhase::Creating || s->containerId != containerId) {
                      return;  // ended meanwhile: its removal took the container
                  }
                  if (!process.succeeded()) {
                      onMountCheckFailed(sessionId, containerId, process.diagnostic());
                      return;
                  }
                  const MountPins::Verdict verdict =
                      MountPins::verify(s->mountPins, process.standardOutput(), MountPins::hostBootId());
                  switch (verdict.outcome) {
                      case MountPins::Verdict::Outcome::Match:
                          markReady(*s);
                          return;
                      case MountPins::Verdict::Outcome::OtherKernel:
                          // A VM engine: nothing to compare with. Said once per container, the mounts stand.
                          logEvent(*s, QStringLiteral("The engine runs in a virtual machine: the device/inode check "
                                                      "of the container's mounts does not apply (docs/security.md)."));
                          markReady(*s);
                          return;
                      case MountPins::Verdict::Outcome::Mismatch:
                      case MountPins::Verdict::Outcome::Unusable:
                          removeUnverified(*s, ExecError::WorkspaceInvalid, verdict.problem);
                          return;
                  }
              });
}

void SessionManager::onMountCheckFailed(const QString& sessionId, const QString& containerId, const QString& why) {
    // The check could not run. A container that is not running (it died at start) can run nothing: its first
    // exec fails and says why, with the container's log, as without the check. Anything else fails closed.
    runEngine(m_runtime->inspectArguments(containerId), m_config.engineCallTimeoutMs,
              [this, sessionId, containerId, why](EngineCommand& inspect) {
                  Session* s = findSession(sessionId);
                  if (!s || s->phase != ContainerPhase::Creating || s->containerId != containerId) {
                      return;
                  }
                  const QList<ContainerInfo> seen = inspect.succeeded()
                                                        ? m_runtime->parseInspectAll(inspect.standardOutput())
                                                        : QList<ContainerInfo>();
                  if (seen.size() == 1 && !seen.first().running) {
                      markReady(*s);
                      return;
                  }
                  removeUnverified(*s, ExecError::ContainerFailed,
                                   QStringLiteral("the container's mounts could not be checked: %1").arg(why));
              });
}

void SessionManager::removeUnverified(Session& session, ExecError code, const QString& problem) {
    qCWarning(lcSession).noquote() << "session" << session.id << problem;
    // Counted like every removal: a shutdown right after the failed call (--exec) waits for it, so a container
    // with a foreign mount is never left running.
    ++m_removalsPending;
    runEngine(m_runtime->removeArguments({session.containerId}), m_config.engineCallTimeoutMs, [this](EngineCommand&) {
        --m_removalsPending;
        maybeFinishShutdown();
    });
    session.containerId.clear();
    onCreateFailed(session.id, code, QStringLiteral("Container removed: %1.").arg(problem));
}

void SessionManager::markReady(Session& session) {
    session.phase = ContainerPhase::Ready;
    session.lastUsed.restart();
    logEvent(session,
             QStringLiteral("Container %1 started (%2, %3 profile) with %4 at /workspace.")
                 .arg(shortId(session.containerId), m_config.image, hardeningProfileName(m_config.profile),
                      session.review ? QStringLiteral("a review copy of ") + session.workspace : session.workspace));
    const bool repository = std::any_of(session.mountPins.cbegin(), session.mountPins.cend(), [](const auto& pin) {
        return pin.target == containerWorkspace() + QStringLiteral("/.git");
    });
    if (repository) {
        logEvent(session, m_config.gitWritesFor(session.workspace)
                              ? QStringLiteral("The sandbox may write this repository's metadata (.git): the host's "
                                               "git may run code the agent writes there.")
                              : QStringLiteral("The repository's metadata (.git) is read-only in the sandbox: git "
                                               "log, diff and status work; git add, commit and checkout fail. Review "
                                               "mode lets the agent commit and brings its commits home as "
                                               "refs/zeus/<session>/…"));
    }
    setState(session, SessionState::Running);
    startWaiting(session);
}

void SessionManager::onContainerCreated(const QString& sessionId, const QString& name, EngineCommand* process) {
    --m_creating;
    Session* session = findSession(sessionId);
    const QString id = lastLine(process->standardOutput());
    const bool created = process->succeeded() && !id.isEmpty();
    if (!session || session->phase != ContainerPhase::Creating) {
        // The session ended (or the app is quitting) while its container was created:
        // remove it, and let a shutdown finish only once it is gone.
        ++m_removalsPending;
        runEngine(m_runtime->removeArguments({created ? id : name}), m_config.engineCallTimeoutMs,
                  [this](EngineCommand&) {
                      --m_removalsPending;
                      maybeFinishShutdown();
                  });
        maybeFinishShutdown();
        return;
    }
    if (created) {
        session->containerId = id;
        if (session->review) {
            copyIntoContainer(sessionId, id, name);  // still Creating until the copy is in
            return;
        }
        // Apple's containers always run in a VM, where a shared folder's device and inode say nothing about the
        // host's: the check would cost an exec per container and could never compare (docs/security.md).
        // A remote engine's device and inode numbers belong to another machine's file systems: nothing to compare.
        if (!session->mountPins.isEmpty() && m_runtime->kind() != RuntimeKind::Apple && !m_config.engineRemote) {
            verifyMount(sessionId, id);  // still Creating until /workspace is known to be the approved folder
            return;
        }
        markReady(*session);
        return;
    }
    if (process->failedToStart()) {
        onCreateFailed(sessionId, ExecError::NoRuntime,
                       QStringLiteral("The %1 command could not be started: %2")
                           .arg(m_runtime->program(), process->errorString()));
        return;
    }
    // `run` may have created the container and then failed to start it (or timed out after creating it): remove
    // it at once, by the name it was given, whatever the error, so no failed call leaves a container behind. Only
    // then is the failure reported (a missing container is no error here).
    QString diagnostic = ContainerRuntime::errorLine(process->standardError());
    if (diagnostic.isEmpty()) {
        diagnostic = process->diagnostic();
    }
    runEngine(m_runtime->removeArguments({name}), m_config.engineCallTimeoutMs,
              [this, sessionId, diagnostic](EngineCommand&) { reportCreateFailure(sessionId, diagnostic); });
}

void SessionManager::reportCreateFailure(const QString& sessionId, const QString& diagnostic) {
    // Tell a missing image apart from any other failure: it has its own, actionable message.
    runEngine(m_runtime->imageExistsArguments(m_config.image), m_config.engineCallTimeoutMs,
              [this, sessionId, diagnostic](EngineCommand& check) {
                  if (!check.succeeded() && !check.failedToStart()
                      && m_runtime->imageCheckFailure(check.standardError() + check.standardOutput())
                             == EngineFailure::ImageMissing) {
                      onCreateFailed(sessionId, ExecError::ImageMissing,
                                     QStringLiteral("The sandbox image %1 is not installed. Build it with: %2")
                                         .arg(m_config.image, m_runtime->buildImageCommand(m_config.image)));
                  } else {
                      onCreateFailed(sessionId, ExecError::ContainerFailed,
                                     QStringLiteral("The container could not be started: %1").arg(diagnostic));
                  }
              });
}

void SessionManager::onCreateFailed(const QString& sessionId, ExecError code, const QString& message) {
    Session* session = findSession(sessionId);
    if (!session || session->phase != ContainerPhase::Creating) {
        return;
    }
    session->phase = ContainerPhase::None;
    logEvent(*session, message);
    setState(*session, SessionState::Failed);
    const QList<QPointer<CommandExecution>> waiting = session->waiting;
    session->waiting.clear();
    for (const auto& execution : waiting) {
        if (execution) {
            execution->fail(code, message);
        }
    }
}

void SessionManager::startWaiting(Session& session) {
    const QList<QPointer<CommandExecution>> waiting = session.waiting;
    session.waiting.clear();
    session.lastUsed.restart();
    for (const auto& execution : waiting) {
        if (execution) {
            dispatch(session, execution);
        }
    }
}

void SessionManager::dispatch(Session& session, CommandExecution* execution) {
    if (m_config.execMode == ExecMode::Exec || !session.agentFallback.isEmpty()) {
        announceExecPath(session);  // forced exec is said with the container's first command, like the agent
        execution->start(session.containerId);
        return;
    }
    if (session.agent && session.agent->state() == AgentChannel::State::Ready) {
        execution->start(session.containerId, session.agent);
        return;
    }
    session.agentWaiting.append(execution);
    if (!session.agent) {
        startAgent(session);
    }
}

void SessionManager::startAgent(Session& session) {
    auto* agent = new AgentChannel(*m_runtime, session.containerId, m_config.agentContainerPath(), this);
    session.agent = agent;
    const QString sessionId = session.id;
    const auto runWaiting = [this](Session& s) {
        const QList<QPointer<CommandExecution>> waiting = std::exchange(s.agentWaiting, {});
        for (const auto& execution : waiting) {
            if (execution) {
                dispatch(s, execution);
            }
        }
    };
    connect(agent, &AgentChannel::ready, this, [this, sessionId, agent, runWaiting] {
        Session* s = findSession(sessionId);
        if (!s || s->agent != agent) {
            return;
        }
        logEvent(*s, QStringLiteral("Sandbox agent %1 ready: commands run through it.").arg(agent->version()));
        startEgress(*s, agent);
        announceExecPath(*s);
        runWaiting(*s);
    });
    connect(agent, &AgentChannel::failed, this, [this, sessionId, agent, runWaiting](const QString& reason) {
        const bool wasReady = !agent->version().isEmpty();
        agent->deleteLater();
        Session* s = findSession(sessionId);
        if (!s || s->agent != agent) {
            return;
        }
        s->agent.clear();
        if (!wasReady) {
            s->agentFallback = reason;
            logEvent(
                *s,
                QStringLiteral("The sandbox agent is not available (%1): commands run with plain exec.").arg(reason));
        } else if (++s->agentFailures >= kMaxAgentFailures) {
            s->agentFallback = QStringLiteral("the agent stopped %1 times").arg(s->agentFailures);
            logEvent(*s, QStringLiteral("The sandbox agent stopped (%1), %2 times in this container: commands run "
                                        "with plain exec from now on.")
                             .arg(reason)
                             .arg(s->agentFailures));
        } else {
            logEvent(*s,
                     QStringLiteral("The sandbox agent stopped (%1); it restarts for the next command.").arg(reason));
        }
        announceExecPath(*s);
        runWaiting(*s);
    });
    connect(agent, &AgentChannel::logLine, this,
            [sessionId](const QString& line) { qCInfo(lcSession) << "session" << sessionId << "agent:" << line; });
    announceExecPath(session);
    agent->start();
}

void SessionManager::startEgress(Session& session, AgentChannel* agent) {
    if (m_config.effectiveNetworkMode() != NetworkMode::Allowlist) {
        return;
    }
    // A child of the channel: it goes with the agent, and a restarted agent gets a new one.
    auto* proxy = new EgressProxy(session.id, agent, egressPolicy(session.id), agent);
    session.egress = proxy;
    const QString sessionId = session.id;
    proxy->setRedaction([this, sessionId](const QString& text) {
        const Session* s = findSession(sessionId);
        return s != nullptr ? s->secrets.redactedIgnoringCase(text) : text;
    });
    connect(proxy, &EgressProxy::decided, this, [this, sessionId](const EgressEvent& event) {
        if (Session* s = findSession(sessionId); s != nullptr && !event.allowed) {
            logEvent(*s, QStringLiteral("Network: %1:%2 denied (%3).").arg(event.host).arg(event.port).arg(event.rule));
        }
        Q_EMIT egressDecided(event);
    });
    connect(proxy, &EgressProxy::listenFailed, this, [this, sessionId](quint16, const QString& reason) {
        if (Session* s = findSession(sessionId)) {
            logEvent(*s, QStringLiteral("Network: %1; connections through the proxy will fail.").arg(reason));
        }
    });
    proxy->start();
}

QString SessionManager::sessionWorkspace(const QString& sessionId) const {
    const Session* s = findSession(sessionId);
    return s != nullptr ? s->workspace : QString();
}

EgressPolicy SessionManager::egressPolicy(const QString& sessionId) const {
    EgressPolicy policy = m_config.egress;
    policy.mode = m_config.effectiveNetworkMode();
    if (const Session* s = findSession(sessionId)) {
        for (const QString& text : m_config.folderAllow.value(s->workspace)) {
            if (auto rule = HostRule::parse(text)) {
                rule->text = QStringLiteral("folder: %1").arg(text);
                policy.allow.append(*rule);
            }
        }
        for (const QString& text : s->sessionAllow) {
            if (auto rule = HostRule::parse(text)) {
                rule->text = QStringLiteral("session: %1").arg(text);
                policy.allow.append(*rule);
            }
        }
    }
    return policy;
}

void SessionManager::setWorkspaceModes(const QHash<QString, WorkspaceMode>& byFolder) {
    const SandboxConfig before = m_config;
    m_config.folderWorkspaceModes = byFolder;
    // A container made under the other mode must not outlive the change: a folder switched to review must stop
    // taking writes through its mount at once. Its session may come back (a new container on its next call).
    endLiveSessions([this, &before](const Session& s) {
        const WorkspaceMode now = m_config.workspaceModeFor(s.workspace);
        return before.workspaceModeFor(s.workspace) == now
                   ? QString()
                   : QStringLiteral("The workspace mode of %1 changed to %2.").arg(s.workspace, workspaceModeName(now));
    });
}

void SessionManager::setGitWriteFolders(const QSet<QString>& folders) {
    const SandboxConfig before = m_config;
    m_config.folderGitWrites = folders;
    endLiveSessions([this, &before](const Session& s) {
        const bool now = m_config.gitWritesFor(s.workspace);
        if (s.review || before.gitWritesFor(s.workspace) == now) {
            return QString();
        }
        return now ? QStringLiteral("The sandbox of %1 may now write the repository's metadata.").arg(s.workspace)
                   : QStringLiteral("The repository's metadata of %1 is read-only again.").arg(s.workspace);
    });
}

void SessionManager::endLiveSessions(const std::function<QString(const Session&)>& reason) {
    QList<std::pair<QString, QString>> ending;  // id, why
    for (const auto& entry : m_sessions) {
        const Session& s = *entry.second;
        if (s.phase == ContainerPhase::None && s.calls.isEmpty()) {
            continue;  // nothing made under the old rule: the next container follows the new one
        }
        const QString why = reason(s);
        if (!why.isEmpty()) {
            ending.append({s.id, why});
        }
    }
    for (const auto& [id, why] : std::as_const(ending)) {
        if (Session* s = findSession(id)) {
            logEvent(*s, why);
        }
        endSession(id);
    }
}

void SessionManager::setEgressPolicy(const EgressPolicy& policy, const QHash<QString, QStringList>& folderAllow) {
    m_config.egress = policy;
    m_config.folderAllow = folderAllow;
    for (const auto& [id, session] : m_sessions) {
        if (session->egress) {
            session->egress->setPolicy(egressPolicy(id));
        }
    }
}

void SessionManager::allowHostForSession(const QString& sessionId, const QString& rule) {
    Session* s = findSession(sessionId);
    if (s == nullptr || !HostRule::parse(rule)) {
        return;
    }
    s->sessionAllow.append(rule);
    logEvent(*s, QStringLiteral("Network: %1 allowed for this session.").arg(rule));
    if (s->egress) {
        s->egress->setPolicy(egressPolicy(sessionId));
    }
}

void SessionManager::allowHostOnce(const QString& sessionId, const QString& host, int port) {
    Session* s = findSession(sessionId);
    if (s != nullptr && s->egress) {
        s->egress->allowOnce(host, port);
        logEvent(*s, QStringLiteral("Network: %1:%2 allowed once.").arg(host).arg(port));
    }
}

void SessionManager::closeAgent(Session& session) const {
    if (AgentChannel* agent = session.agent) {
        session.agent.clear();
        agent->close();  // its failed() on the exit deletes it; the container's removal ends it anyway
        QTimer::singleShot(m_config.engineCallTimeoutMs, agent, &QObject::deleteLater);
    }
    session.agentWaiting.clear();
}

QString SessionManager::execPath(const QString& sessionId) const {
    const Session* session = findSession(sessionId);
    if (!session || session->phase != ContainerPhase::Ready) {
        return {};
    }
    if (m_config.execMode == ExecMode::Exec) {
        return QStringLiteral("exec (forced)");
    }
    if (!session->agentFallback.isEmpty()) {
        return QStringLiteral("exec: ") + session->agentFallback;
    }
    if (session->agent && session->agent->state() == AgentChannel::State::Ready) {
        return QStringLiteral("agent ") + session->agent->version();
    }
    return QStringLiteral("agent (starting)");
}

void SessionManager::announceExecPath(Session& session) {
    const QString path = execPath(session.id);
    if (path == session.announcedExecPath) {
        return;
    }
    session.announcedExecPath = path;
    // An allowlist session reaches the network only through the agent's listeners (SPEC §8): without them every
    // connection fails, so that is said once, where the user looks, instead of a silent failure later.
    if (path.startsWith(QLatin1String("exec")) && m_config.effectiveNetworkMode() == NetworkMode::Allowlist) {
        logEvent(session, m_config.execMode == ExecMode::Exec
                              ? QStringLiteral("No network: the sandbox agent is not used (exec mode), and the "
                                               "allowlist reaches the container only through it.")
                              : QStringLiteral("No network: the sandbox agent is not available (%1), and the "
                                               "allowlist reaches the container only through it.")
                                    .arg(session.agentFallback));
    }
    Q_EMIT sessionExecPathChanged(session.id, path);
}

void SessionManager::onCallFinished(CommandExecution* execution, const ExecResult& result) {
    m_calls.remove(result.callId);
    Session* session = findSession(result.sessionId);
    if (session) {
        session->calls.removeAll(execution);
        session->waiting.removeAll(execution);
        session->agentWaiting.removeAll(execution);
        if (result.containerLost && session->phase == ContainerPhase::Ready) {
            closeAgent(*session);
            logEvent(*session, QStringLiteral("Container %1 stopped unexpectedly: %2")
                                   .arg(shortId(session->containerId), result.errorMessage));
            session->staleContainerId = session->containerId;
            session->containerId.clear();
            session->phase = ContainerPhase::None;
            setState(*session, SessionState::Failed);
        }
        SessionLogEntry entry;
        entry.kind = SessionLogEntry::Kind::Command;
        entry.time = result.started;
        entry.callId = result.callId;
        entry.command = session->secrets.redacted(execution->request().command);
        entry.durationMs = result.durationMs;
        entry.exitCode = result.exitCode;
        entry.status = result.status;
        entry.bytes = result.stdoutBytes + result.stderrBytes;
        entry.truncated = result.truncated;
        entry.message = session->secrets.redacted(result.errorCode == ExecError::None
                                                      ? result.errorMessage
                                                      : execErrorName(result.errorCode) + QStringLiteral(": ")
                                                            + result.errorMessage);
        session->log.append(entry);
        Q_EMIT sessionLogEntryAdded(session->id, entry);
        explainReadOnlyGit(*session, result);
        if (session->calls.isEmpty() && session->phase == ContainerPhase::Ready && !m_shuttingDown) {
            session->idleTimer.start(m_config.idleTimeoutMs);
        }
    }
    Q_EMIT callFinished(result);
    execution->deleteLater();
}

void SessionManager::explainReadOnlyGit(Session& session, const ExecResult& result) {
    // git's own error names the file it could not write; the log says why once per failing call, and where to go.
    if (session.review || result.exitCode.value_or(0) == 0 || m_config.gitWritesFor(session.workspace)
        || !result.output.contains(QLatin1String("Read-only file system"))
        || !result.output.contains(QLatin1String(".git/"))) {
        return;
    }
    logEvent(session, QStringLiteral("git could not write .git: the repository's metadata is read-only in direct "
                                     "mode, so nothing the agent writes there can make the host's git run code. Use "
                                     "review mode for this folder to let the agent commit (docs/security.md)."));
}

bool SessionManager::cancel(const QString& callId) {
    const QPointer<CommandExecution> execution = m_calls.value(callId);
    if (!execution) {
        return false;
    }
    if (Session* session = findSession(execution->request().sessionId)) {
        session->waiting.removeAll(execution);
        session->agentWaiting.removeAll(execution);
    }
    execution->cancel();
    return true;
}

void SessionManager::setOutputPaused(const QString& callId, bool paused) {
    if (const QPointer<CommandExecution> execution = m_calls.value(callId)) {
        execution->setOutputPaused(paused);
    }
}

void SessionManager::endSession(const QString& sessionId) {
    Session* session = findSession(sessionId);
    if (!session) {
        return;
    }
    session->idleTimer.stop();
    const QList<QPointer<CommandExecution>> calls = session->calls;
    for (const auto& execution : calls) {
        if (execution) {
            execution->abandon(QStringLiteral("The session ended."));
        }
    }
    session->waiting.clear();
    removeContainer(*session, QStringLiteral("Session ended."), SessionState::Stopped);
    session->workspace.clear();
}

void SessionManager::removeContainer(Session& session, const QString& reason, SessionState newState) {
    closeAgent(session);
    QStringList ids;
    if (!session.containerId.isEmpty()) {
        if (!session.review) {
            ids << session.containerId;
        } else if (session.phase != ContainerPhase::Creating) {
            // A review copy is stopped, never removed, while it holds changes (SPEC §10). One still being copied
            // in is left to the copy, which retires it once it is done.
            retireReviewContainer(session.id, session.workspace, session.containerId);
        }
    }
    if (!session.staleContainerId.isEmpty() && !isReviewContainer(session.staleContainerId)) {
        ids << session.staleContainerId;
    }
    if (!ids.isEmpty()) {
        runEngine(m_runtime->removeArguments(ids), m_config.engineCallTimeoutMs, [ids](EngineCommand& process) {
            if (!process.succeeded()) {
                qCWarning(lcSession) << "removing" << ids << "failed:" << process.diagnostic();
            }
        });
    }
    session.containerId.clear();
    session.staleContainerId.clear();
    session.phase = ContainerPhase::None;
    logEvent(session, reason);
    setState(session, newState);
    announceExecPath(session);
}

void SessionManager::shutdown() {
    m_shuttingDown = true;
    QStringList ids;
    for (auto& entry : m_sessions) {
        Session& session = *entry.second;
        session.idleTimer.stop();
        const QList<QPointer<CommandExecution>> calls = session.calls;
        for (const auto& execution : calls) {
            if (execution) {
                execution->abandon(QStringLiteral("Zeus Desktop is shutting down."));
            }
        }
        session.waiting.clear();
        closeAgent(session);
        if (!session.containerId.isEmpty()) {
            if (!session.review) {
                ids << session.containerId;
            } else if (session.phase != ContainerPhase::Creating) {
                // Listed first: with changes it is stopped and kept, without it goes (as at a session's end).
                ++m_removalsPending;
                retireReviewContainer(session.id, session.workspace, session.containerId, [this] {
                    --m_removalsPending;
                    maybeFinishShutdown();
                });
            }
        }
        if (!session.staleContainerId.isEmpty() && !isReviewContainer(session.staleContainerId)) {
            ids << session.staleContainerId;
        }
        session.containerId.clear();
        session.staleContainerId.clear();
        session.phase = ContainerPhase::None;
        setState(session, SessionState::Stopped);
    }
    if (!ids.isEmpty()) {
        ++m_removalsPending;
        runEngine(m_runtime->removeArguments(ids), m_config.engineCallTimeoutMs, [this](EngineCommand& process) {
            if (!process.succeeded()) {
                qCWarning(lcSession) << "removing containers at shutdown failed:" << process.diagnostic();
            }
            --m_removalsPending;
            maybeFinishShutdown();
        });
    }
    // Containers still being created are removed when their `run` returns (onContainerCreated).
    QTimer::singleShot(0, this, &SessionManager::maybeFinishShutdown);
}

void SessionManager::maybeFinishShutdown() {
    if (m_shuttingDown && !m_shutdownEmitted && m_creating == 0 && m_removalsPending == 0) {
        m_shutdownEmitted = true;
        Q_EMIT shutdownFinished();
    }
}

void SessionManager::sweepOrphans() {
    runEngine(m_runtime->listArguments(m_config.ownerId), m_config.engineCallTimeoutMs, [this](EngineCommand& list) {
        if (!list.succeeded()) {
            qCWarning(lcSession) << "listing containers failed:" << list.diagnostic();
            Q_EMIT orphanSweepFinished(0);
            return;
        }
        QStringList live;
        for (const auto& entry : m_sessions) {
            live << entry.second->containerId;
        }
        QStringList orphans;
        QStringList toStop;  // review copies no session runs (the app was killed): stopped, kept
        const QList<ContainerInfo> containers = m_runtime->parseList(list.standardOutput());
        for (const ContainerInfo& info : containers) {
            if (info.labels.value(labels::owner()) != m_config.ownerId) {
                continue;  // Apple's list cannot filter by label
            }
            const bool owned = std::any_of(live.cbegin(), live.cend(), [&info](const QString& id) {
                return !id.isEmpty() && (id.startsWith(info.id) || info.id.startsWith(id));
            });
            if (owned) {
                continue;
            }
            if (isReviewContainer(info.id)) {
                if (info.running) {
                    toStop << info.id;
                }
                continue;
            }
            orphans << info.id;
        }
        if (!toStop.isEmpty()) {
            qCInfo(lcSession) << "stopping" << toStop.size() << "review containers no session runs";
            runEngine(m_runtime->stopArguments(toStop), m_config.engineCallTimeoutMs, [](EngineCommand& stop) {
                if (!stop.succeeded()) {
                    qCWarning(lcSession) << "stopping review containers failed:" << stop.diagnostic();
                }
            });
        }
        if (orphans.isEmpty()) {
            Q_EMIT orphanSweepFinished(0);
            return;
        }
        qCInfo(lcSession) << "removing" << orphans.size() << "orphaned containers";
        const int count = int(orphans.size());
        runEngine(m_runtime->removeArguments(orphans), m_config.engineCallTimeoutMs,
                  [this, count](EngineCommand& removal) {
                      if (!removal.succeeded()) {
                          qCWarning(lcSession) << "removing orphans failed:" << removal.diagnostic();
                      }
                      Q_EMIT orphanSweepFinished(removal.succeeded() ? count : 0);
                  });
    });
}

bool SessionManager::isReviewContainer(const QString& containerId) const {
    if (containerId.isEmpty()) {
        return false;
    }
    const QList<ReviewRecord> records = m_reviews.records();
    return std::any_of(records.cbegin(), records.cend(), [&containerId](const ReviewRecord& r) {
        return ContainerRuntime::sameContainer(r.containerId, containerId) || r.containerId.startsWith(containerId)
               || containerId.startsWith(r.containerId);
    });
}

void SessionManager::createReviewContainer(Session& session, const ContainerSpec& spec) {
    const QString sessionId = session.id;
    const std::optional<ReviewRecord> record = m_reviews.record(sessionId);
    if (record && record->workspace != session.workspace) {
        const QString message = QStringLiteral(
                                    "This session has changes to review in %1: apply or discard them (Changes in the "
                                    "dashboard, or zeus-desktop --changes) before it works in %2.")
                                    .arg(record->workspace, session.workspace);
        QTimer::singleShot(0, this,
                           [this, sessionId, message] { onCreateFailed(sessionId, ExecError::Busy, message); });
        return;
    }
    const auto runNew = [this, sessionId, spec] {
        Session* s = findSession(sessionId);
        if (!s || s->phase != ContainerPhase::Creating) {
            return;
        }
        ++m_creating;
        const QString name = spec.name;
        runEngine(m_runtime->runArguments(spec), m_config.engineCallTimeoutMs,
                  [this, sessionId, name](EngineCommand& process) { onContainerCreated(sessionId, name, &process); });
    };
    if (!record) {
        runNew();
        return;
    }
    // The session's copy from before (an idle timeout, a restart of the app): started again, the changes not
    // applied yet still in it. In the review pool, after any stop of it that is still under way.
    const ContainerRuntime* runtime = m_runtime.get();
    const QString containerId = record->containerId;
    const QString workspace = session.workspace;
    ++m_creating;
    m_reviewPool.start([this, runtime, sessionId, containerId, workspace, runNew] {
        const ReviewCopy copy(*runtime, containerId);
        QString error;
        const bool started = copy.start(&error);
        const bool gone = !started && runtime->containerCallFailure(error.toUtf8()) == EngineFailure::NoSuchContainer;
        QMetaObject::invokeMethod(
            this,
            [this, sessionId, containerId, workspace, started, gone, error, runNew] {
                --m_creating;
                Session* s = findSession(sessionId);
                if (!s || s->phase != ContainerPhase::Creating || m_shuttingDown) {
                    if (started) {
                        retireReviewContainer(sessionId, workspace, containerId);
                    }
                    maybeFinishShutdown();
                    return;
                }
                if (started) {
                    s->containerId = containerId;
                    logEvent(*s, QStringLiteral("Review copy in container %1 resumed: the changes not applied yet are "
                                                "still in it.")
                                     .arg(shortId(containerId)));
                    markReady(*s);
                    return;
                }
                if (gone) {
                    logEvent(*s, QStringLiteral("The review copy's container %1 no longer exists (removed outside Zeus "
                                                "Desktop): its changes are lost; a new copy is taken.")
                                     .arg(shortId(containerId)));
                    m_reviews.remove(sessionId);
                    runNew();
                    return;
                }
                onCreateFailed(sessionId, ExecError::ContainerFailed,
                               QStringLiteral("The review copy's container %1 could not be started: %2")
                                   .arg(shortId(containerId), error));
            },
            Qt::QueuedConnection);
    });
}

void SessionManager::copyIntoContainer(const QString& sessionId, const QString& containerId, const QString& name) {
    Session* session = findSession(sessionId);
    if (!session) {
        return;
    }
    const QString workspace = session->workspace;
    logEvent(*session, QStringLiteral("Copying %1 into container %2 for review: nothing is written to the folder "
                                      "until changes are applied.")
                           .arg(workspace, shortId(containerId)));
    const ContainerRuntime* runtime = m_runtime.get();
    const qint64 cap = m_config.reviewSizeCap;
    const int timeoutMs = std::max(m_config.engineCallTimeoutMs, 600000);
    m_reviewPool.start([this, runtime, sessionId, containerId, name, workspace, cap, timeoutMs] {
        ReviewCopy copy(*runtime, containerId);
        copy.setTimeoutMs(timeoutMs);
        auto result = std::make_shared<ReviewCopy::CopyResult>(copy.copyIn(workspace, cap));
        if (result->ok) {
            ReviewRecord record;
            record.sessionId = sessionId;
            record.workspace = workspace;
            record.containerId = containerId;
            record.containerName = name;
            record.engine = runtimeKindToString(runtime->kind());
            record.engineProgram = runtime->program();
            record.created = QDateTime::currentDateTimeUtc();
            // What the folder's branches point at: the commits the agent makes on top are what Apply brings home.
            record.gitBaseTips = copy.gitTips();
            QString error;
            if (!m_reviews.save(record, result->baseline, &error)) {
                result->ok = false;
                result->error = QStringLiteral("The review copy could not be recorded: %1").arg(error);
            }
        }
        if (!result->ok) {
            QString ignored;
            copy.remove(&ignored);  // never a partial copy: the container goes with it
        }
        QMetaObject::invokeMethod(
            this,
            [this, sessionId, containerId, workspace, result] {
                Session* s = findSession(sessionId);
                const bool current = s && s->phase == ContainerPhase::Creating && s->containerId == containerId;
                if (!result->ok) {
                    if (current) {
                        s->containerId.clear();
                        onCreateFailed(sessionId,
                                       result->folderProblem ? ExecError::WorkspaceInvalid : ExecError::ContainerFailed,
                                       result->error);
                    }
                    return;
                }
                Q_EMIT reviewCopyTaken(sessionId, workspace);
                if (!current || m_shuttingDown) {
                    retireReviewContainer(sessionId, workspace, containerId);
                    return;
                }
                logEvent(*s, QStringLiteral("Copied %1 files (%2 bytes) of %3 into the container for review.")
                                 .arg(result->baseline.entries.size())
                                 .arg(result->baseline.totalFileBytes())
                                 .arg(workspace));
                markReady(*s);
            },
            Qt::QueuedConnection);
    });
}

void SessionManager::retireReviewContainer(const QString& sessionId, const QString& workspace,
                                           const QString& containerId, std::function<void()> whenDone) {
    const ContainerRuntime* runtime = m_runtime.get();
    m_reviewPool.start([this, runtime, sessionId, workspace, containerId, finished = std::move(whenDone)] {
        const ReviewCopy copy(*runtime, containerId);
        int count = -1;
        WorkspaceManifest baseline;
        const std::optional<ReviewRecord> record = m_reviews.record(sessionId);
        const bool recorded = record && record->containerId == containerId;
        if (recorded && m_reviews.loadBaseline(sessionId, baseline)) {
            const ReviewCopy::ChangesResult changes = copy.changes(baseline);
            if (changes.ok) {
                count = ChangeSet::peopleCount(changes.changes);
            }
        }
        QString error;
        bool done = false;
        if (count == 0 || (!recorded && !isReviewContainer(containerId))) {
            // Nothing to review (or a copy that was never recorded): the container goes.
            done = copy.remove(&error);
            if (done && recorded) {
                m_reviews.remove(sessionId);
            }
            count = 0;
        } else {
            done = copy.stop(&error);
        }
        QMetaObject::invokeMethod(
            this,
            [this, sessionId, workspace, containerId, count, done, error, finished] {
                if (Session* s = findSession(sessionId)) {
                    if (!done) {
                        logEvent(*s, QStringLiteral("The review container %1 could not be stopped: %2")
                                         .arg(shortId(containerId), error));
                    } else if (count == 0) {
                        logEvent(*s, QStringLiteral("Review container %1 removed: nothing changed in it.")
                                         .arg(shortId(containerId)));
                    } else {
                        logEvent(*s, QStringLiteral("Review container %1 stopped and kept: %2 to review.")
                                         .arg(shortId(containerId),
                                              count < 0 ? QStringLiteral("its changes")
                                                        : QStringLiteral("%1 changed files").arg(count)));
                    }
                }
                if (count != 0) {
                    Q_EMIT reviewCopyKept(sessionId, workspace, count);
                }
                if (finished) {
                    finished();
                }
            },
            Qt::QueuedConnection);
    });
}

void SessionManager::setState(Session& session, SessionState state) {
    if (session.state == state) {
        return;
    }
    session.state = state;
    if (state == SessionState::Stopped || state == SessionState::Failed) {
        session.endedAt = ++m_clock;
        if (!m_forgetScheduled) {
            m_forgetScheduled = true;  // later: the caller may still hold the session
            QTimer::singleShot(0, this, &SessionManager::forgetEndedSessions);
        }
    }
    qCInfo(lcSession) << "session" << session.id << sessionStateName(state) << shortId(session.containerId);
    Q_EMIT sessionStateChanged(session.id, state, session.containerId);
}

void SessionManager::logEvent(Session& session, const QString& message) {
    SessionLogEntry entry;
    entry.kind = SessionLogEntry::Kind::Event;
    entry.time = QDateTime::currentDateTimeUtc();
    entry.message = session.secrets.redacted(message);
    session.log.append(entry);
    qCInfo(lcSession) << "session" << session.id << entry.message;
    Q_EMIT sessionLogEntryAdded(session.id, entry);
}

void SessionManager::addSessionSecrets(Session& session, const QList<SecretValue>& secrets) {
    QList<SecretValue> added;
    for (const SecretValue& secret : secrets) {
        if (session.secrets.add(secret)) {
            added.append(secret);
        }
    }
    if (added.isEmpty()) {
        return;
    }
    // The calls already running in this session may print what a newer one was given (through a shared file).
    for (const QPointer<CommandExecution>& call : std::as_const(session.calls)) {
        if (call) {
            call->addRedaction(added);
        }
    }
}

void SessionManager::runEngine(const QStringList& arguments, int timeoutMs, std::function<void(EngineCommand&)> done) {
    auto* process = new EngineCommand(m_runtime->program(), arguments, timeoutMs, this);
    connect(process, &EngineCommand::finished, this, [process, done = std::move(done)] {
        done(*process);
        process->deleteLater();
    });
    process->start();
}

}  // namespace zeus
