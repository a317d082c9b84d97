#include "sandbox/sessionmanager.h"

#include "sandbox/agent/enginecommand.h"
#include "sandbox/orphansweep.h"
#include "sandbox/workspaceguard.h"
#include "support/logging.h"

#include <QDir>
#include <QMetaMethod>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace zeus {

namespace {

std::shared_ptr<ReviewWorker> ownReviewWorker(const SandboxConfig& config) {
    return std::make_shared<ReviewWorker>(
        ReviewStore(config.reviewDirectory.isEmpty() ? ReviewStore::defaultDirectory() : config.reviewDirectory));
}

}  // namespace

SessionManager::SessionManager(std::unique_ptr<ContainerRuntime> runtime, SandboxConfig config,
                               std::shared_ptr<ReviewWorker> reviews, QObject* parent)
    : QObject(parent),
      m_runtime(std::move(runtime)),
      m_config(std::move(config)),
      m_engine(*m_runtime, m_config.engineCallTimeoutMs, this),
      m_reviews(*m_runtime, reviews ? std::move(reviews) : ownReviewWorker(m_config), this),
      m_scheduler(m_config.maxQueuedPerSession, m_config.maxQueuedTotal, schedulerHooks(), this),
      m_engineWatch(m_engine, m_runtime->listArguments(m_config.ownerId), kEnginePollMs, this) {
    Q_ASSERT(m_runtime);
    qRegisterMetaType<zeus::ExecResult>();
    qRegisterMetaType<zeus::OutputStream>();
    qRegisterMetaType<zeus::SessionState>();
    qRegisterMetaType<zeus::SessionLogEntry>();
    if (m_config.ownerId.isEmpty()) {
        m_config.ownerId = QStringLiteral("unset");
    }
    connect(&m_engine, &EngineCalls::released, this, &SessionManager::maybeFinishShutdown);
    connect(&m_reviews, &ReviewContainers::copyTaken, this, &SessionManager::reviewCopyTaken);
    connect(&m_reviews, &ReviewContainers::copyKept, this, &SessionManager::reviewCopyKept);
    connect(&m_scheduler, &CallScheduler::callQueued, this, &SessionManager::callQueued);
    connect(&m_scheduler, &CallScheduler::queuedCallsChanged, this, &SessionManager::queuedCallsChanged);
    connect(&m_scheduler, &CallScheduler::callFinished, this, &SessionManager::onQueuedCallFinished);
    connect(&m_engineWatch, &EngineWatch::stateChanged, this, &SessionManager::onEngineStateChanged);
}

CallScheduler::Hooks SessionManager::schedulerHooks() {
    return {[this](const QString& sessionId) { return mayStart(sessionId); },
            [this](const QString& sessionId) { return blockedBy(sessionId); },
            [this](const ExecRequest& request) { run(request, true); },
            [this](const ExecRequest& request, ExecError code, const QString& why) {
                logUnrun(request.sessionId, request.callId, why);
                refuse(request, code, why);
            }};
}

std::optional<CallScheduler::Block> SessionManager::blockedBy(const QString& sessionId) const {
    if (!m_engineWatch.isUp()) {
        const QString cause = m_engineWatch.cause().isEmpty() ? QStringLiteral("no answer") : m_engineWatch.cause();
        return CallScheduler::Block{m_config.engineWaitMs, ExecError::ContainerFailed,
                                    QStringLiteral("The container engine did not answer within %1 s (%2): the call "
                                                   "did not run.")
                                        .arg(m_config.engineWaitMs / 1000)
                                        .arg(cause)};
    }
    const SandboxSession* session = findSession(sessionId);
    if ((session && session->phase() != SandboxSession::Phase::None) || hasRoomForContainer(session)) {
        return std::nullopt;
    }
    return CallScheduler::Block{m_config.containerWaitMs, ExecError::Busy,
                                QStringLiteral("%1 sandbox containers are running and none became idle within %2 s "
                                               "(the container bound); try again when one has finished.")
                                    .arg(m_config.maxContainers)
                                    .arg(m_config.containerWaitMs / 1000)};
}

void SessionManager::onEngineStateChanged(EngineWatch::State state, EngineWatch::State before) {
    // Waiting calls wait for the engine while it is away (at most engineWaitMs), and only for a slot again after.
    m_scheduler.armWaits();
    if (state != EngineWatch::State::Up) {
        return;
    }
    if (before == EngineWatch::State::Down) {
        sweepOrphans();  // the containers of the sessions that failed with the engine must not outlive it
    }
    m_scheduler.startQueued();
}

void SessionManager::onQueuedCallFinished(const ExecResult& result) {
    logUnrun(result.sessionId, result.callId,
             result.errorMessage.isEmpty() ? QStringLiteral("cancelled.") : result.errorMessage);
    Q_EMIT callFinished(result);
}

void SessionManager::logUnrun(const QString& sessionId, const QString& callId, const QString& why) {
    // The session's log says what became of a call it never ran, as it does for the calls it ran.
    if (SandboxSession* session = findSession(sessionId)) {
        session->logEvent(QStringLiteral("Call %1 did not run: %2").arg(callId, why));
    }
}
SessionManager::~SessionManager() = default;

SandboxSession* SessionManager::findSession(const QString& sessionId) const {
    const auto it = m_sessions.find(sessionId);
    return it == m_sessions.end() ? nullptr : it->second.get();
}

SandboxSession& SessionManager::sessionFor(const QString& sessionId) {
    if (SandboxSession* existing = findSession(sessionId)) {
        return *existing;
    }
    auto owned = std::make_unique<SandboxSession>(sessionId, m_config, m_engine, m_reviews, this);
    SandboxSession* session = owned.get();
    connect(session, &SandboxSession::stateChanged, this,
            [this, session](const QString&, SessionState state, const QString& containerId) {
                onSessionStateChanged(*session, state, containerId);
            });
    connect(session, &SandboxSession::logEntryAdded, this, &SessionManager::sessionLogEntryAdded);
    connect(session, &SandboxSession::execPathChanged, this, &SessionManager::sessionExecPathChanged);
    connect(session, &SandboxSession::egressDecided, this, &SessionManager::egressDecided);
    m_sessions.emplace(sessionId, std::move(owned));
    return *session;
}

void SessionManager::onSessionStateChanged(SandboxSession& session, SessionState state, const QString& containerId) {
    if (state == SessionState::Stopped || state == SessionState::Failed) {
        session.setEndedAt(++m_clock);
        if (!m_forgetScheduled) {
            m_forgetScheduled = true;  // later: the caller may still hold the session
            QTimer::singleShot(0, this, &SessionManager::forgetEndedSessions);
        }
        m_scheduler.scheduleStartQueued();  // its container is gone: room for a waiting session's
    }
    Q_EMIT sessionStateChanged(session.id(), state, containerId);
}

QStringList SessionManager::sessionIds() const {
    QStringList ids;
    for (const auto& entry : m_sessions) {
        ids << entry.first;
    }
    return ids;
}

void SessionManager::refuse(const ExecRequest& request, ExecError code, const QString& message) {
    const ExecResult result = ExecResult::failure(request, code, message);
    qCInfo(lcExec) << "call" << request.callId << "refused:" << execErrorName(code);
    QTimer::singleShot(0, this, [this, result] { Q_EMIT callFinished(result); });
}

void SessionManager::execute(const ExecRequest& incoming) {
    ExecRequest request = incoming;
    if (!admit(request)) {
        return;
    }
    // Calls of one session start in the order they came: behind its queue, whatever the slots say now.
    if (m_scheduler.size(request.sessionId) > 0 || !mayStart(request.sessionId)) {
        if (m_scheduler.enqueue(request)) {
            notePeaks();
        }
        return;
    }
    run(request, false);
}

bool SessionManager::admit(ExecRequest& request) {
    if (m_shuttingDown) {
        refuse(request, ExecError::ContainerFailed, QStringLiteral("Zeus Desktop is shutting down."));
        return false;
    }
    if (m_calls.contains(request.callId) || m_scheduler.queue().contains(request.callId)) {
        refuse(request, ExecError::Busy, QStringLiteral("A call with this id is already running."));
        return false;
    }
    const QString refusal = WorkspaceGuard::mountRefusal(request.workspace);
    if (!refusal.isEmpty()) {
        refuse(request, ExecError::WorkspaceInvalid, refusal);
        return false;
    }
    request.workspace = QDir::cleanPath(request.workspace);
    // One folder at a time: the folder of what runs, or else of what waits (all of a session's queue is in it).
    const SandboxSession* session = findSession(request.sessionId);
    const ExecRequest* waiting = m_scheduler.queue().head(request.sessionId);
    const QString busyIn = session && session->callCount() > 0 ? session->workspace()
                           : waiting                           ? waiting->workspace
                                                               : QString();
    if (!busyIn.isEmpty() && busyIn != request.workspace) {
        refuse(request, ExecError::Busy, QStringLiteral("This session is running commands in another folder."));
        return false;
    }
    return true;
}

bool SessionManager::mayStart(const QString& sessionId) const {
    if (!m_engineWatch.isUp() || m_calls.size() >= m_config.maxCallsTotal) {
        return false;
    }
    const SandboxSession* session = findSession(sessionId);
    if (session && session->callCount() >= m_config.maxCallsPerSession) {
        return false;
    }
    const bool needsContainer = !session || session->phase() == SandboxSession::Phase::None;
    return !needsContainer || hasRoomForContainer(session);
}

void SessionManager::run(const ExecRequest& request, bool wasQueued) {
    const SandboxSession* existing = findSession(request.sessionId);
    if (!existing || existing->phase() == SandboxSession::Phase::None) {
        const bool room = makeRoomForContainer(existing);
        Q_ASSERT(room);  // mayStart() said so
        Q_UNUSED(room)
    }
    SandboxSession& session = sessionFor(request.sessionId);
    if (!session.workspace().isEmpty() && session.workspace() != request.workspace
        && session.phase() != SandboxSession::Phase::None) {
        session.removeContainer(QStringLiteral("Working directory changed to %1.").arg(request.workspace),
                                SessionState::Stopped);
    }
    session.setWorkspace(request.workspace);
    CommandExecution* execution = newExecution(request);
    m_calls.insert(request.callId, execution);
    notePeaks();
    qCInfo(lcExec) << "call" << request.callId << "in session" << request.sessionId;
    if (wasQueued) {
        Q_EMIT callRunning(request.callId);  // before its first output
    }
    session.enqueue(execution);
}

CommandExecution* SessionManager::newExecution(const ExecRequest& request) {
    auto* execution =
        new CommandExecution(request, *m_runtime, m_config.outputCapBytes,
                             m_config.effectiveTimeoutSeconds(request.timeoutSeconds), m_config.killGraceMs, this);
    execution->setImage(m_config.image);
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
    return execution;
}

void SessionManager::onCallFinished(CommandExecution* execution, const ExecResult& result) {
    m_calls.remove(result.callId);
    if (result.errorCode == ExecError::ContainerFailed && !m_shuttingDown) {
        m_engineWatch.suspect();  // an engine that went away fails calls this way: its waiting calls then wait
    }
    if (SandboxSession* session = findSession(result.sessionId)) {
        session->callEnded(execution, result);
    }
    Q_EMIT callFinished(result);
    execution->deleteLater();
    m_scheduler.startQueued();  // its slot (and maybe its now idle container) goes to the next waiting call
}

void SessionManager::notePeaks() {
    m_peaks.running = std::max(m_peaks.running, int(m_calls.size()));
    m_peaks.queued = std::max(m_peaks.queued, m_scheduler.size());
    m_peaks.containers = std::max(m_peaks.containers, liveContainers());
}

int SessionManager::liveContainers() const {
    return int(std::count_if(m_sessions.cbegin(), m_sessions.cend(),
                             [](const auto& entry) { return entry.second->phase() != SandboxSession::Phase::None; }));
}

bool SessionManager::isEvictable(const SandboxSession& session) const {
    // Idle, and no call of it waits for a slot: its container is about to be used again.
    return session.isIdle() && m_scheduler.size(session.id()) == 0;
}

bool SessionManager::hasRoomForContainer(const SandboxSession* forSession) const {
    if (liveContainers() < m_config.maxContainers) {
        return true;
    }
    return std::any_of(m_sessions.cbegin(), m_sessions.cend(), [this, forSession](const auto& entry) {
        return entry.second.get() != forSession && isEvictable(*entry.second);
    });
}

bool SessionManager::makeRoomForContainer(const SandboxSession* forSession) {
    if (liveContainers() < m_config.maxContainers) {
        return true;
    }
    SandboxSession* victim = nullptr;
    for (const auto& entry : m_sessions) {
        SandboxSession* s = entry.second.get();
        if (s == forSession || !isEvictable(*s)) {
            continue;
        }
        if (!victim || !s->lastUsed().isValid()
            || (victim->lastUsed().isValid() && s->lastUsed().elapsed() > victim->lastUsed().elapsed())) {
            victim = s;
        }
    }
    if (!victim) {
        return false;
    }
    // Its background jobs end with it; the session itself may come back (a new container on its next call).
    victim->removeContainer(QStringLiteral("Container removed to make room: at most %1 run at once, and this session "
                                           "was idle the longest.")
                                .arg(m_config.maxContainers),
                            SessionState::Stopped);
    return true;
}

void SessionManager::forgetEndedSessions() {
    m_forgetScheduled = false;
    std::vector<const SandboxSession*> ended;
    for (const auto& entry : m_sessions) {
        if (entry.second->isEnded()) {
            ended.push_back(entry.second.get());
        }
    }
    if (ended.size() <= size_t(kKeptEndedSessions)) {
        return;
    }
    std::sort(ended.begin(), ended.end(),
              [](const SandboxSession* a, const SandboxSession* b) { return a->endedAt() < b->endedAt(); });
    const size_t forget = ended.size() - size_t(kKeptEndedSessions);
    for (size_t i = 0; i < forget; ++i) {
        const QString id = ended[i]->id();  // a copy: the session goes with its entry
        m_sessions.erase(id);
    }
    qCDebug(lcSession) << "forgot" << forget << "ended sessions";
}

int SessionManager::endSessionsIn(const QString& workspace) {
    QStringList ids;
    for (const auto& entry : m_sessions) {
        if (entry.second->workspace() == workspace && entry.second->isLive()) {
            ids << entry.first;
        }
    }
    for (const QString& id : m_scheduler.queue().sessions()) {
        if (!ids.contains(id) && m_scheduler.queue().head(id)->workspace == workspace) {
            ids << id;  // only waiting (no container yet): its calls must not start in the revoked folder
        }
    }
    for (const QString& id : std::as_const(ids)) {
        if (SandboxSession* s = findSession(id)) {
            s->logEvent(QStringLiteral("The approval of %1 was revoked.").arg(workspace));
        }
        endSession(id);
    }
    return int(ids.size());
}

void SessionManager::endSession(const QString& sessionId) {
    // Its queued calls first: none may start in the container being removed.
    m_scheduler.endSession(sessionId, QStringLiteral("The session ended."));
    if (SandboxSession* session = findSession(sessionId)) {
        session->end();
    }
}

void SessionManager::endLiveSessions(const std::function<QString(const SandboxSession&)>& reason) {
    QList<std::pair<QString, QString>> ending;  // id, why
    for (const auto& entry : m_sessions) {
        const SandboxSession& s = *entry.second;
        if (!s.isLive()) {
            continue;  // nothing made under the old rule: the next container follows the new one
        }
        const QString why = reason(s);
        if (!why.isEmpty()) {
            ending.append({s.id(), why});
        }
    }
    for (const auto& [id, why] : std::as_const(ending)) {
        if (SandboxSession* s = findSession(id)) {
            s->logEvent(why);
        }
        endSession(id);
    }
}

void SessionManager::setWorkspaceModes(const QHash<QString, WorkspaceMode>& byFolder) {
    const SandboxConfig before = m_config;
    m_config.folderWorkspaceModes = byFolder;
    // A container made under the other mode must not outlive the change: a folder switched to review must stop
    // taking writes through its mount at once. Its session may come back (a new container on its next call).
    endLiveSessions([this, &before](const SandboxSession& s) {
        const WorkspaceMode now = m_config.workspaceModeFor(s.workspace());
        return before.workspaceModeFor(s.workspace()) == now ? QString()
                                                             : QStringLiteral("The workspace mode of %1 changed to %2.")
                                                                   .arg(s.workspace(), workspaceModeName(now));
    });
}

void SessionManager::setFolderAccess(const QSet<QString>& gitWrites,
                                     const QHash<QString, QList<ExposeSpec>>& exposeHost) {
    const SandboxConfig before = m_config;
    m_config.folderGitWrites = gitWrites;
    m_config.folderExposeHost = exposeHost;
    endLiveSessions([this, &before](const SandboxSession& s) {
        return m_config.folderAccessChange(before, s.workspace(), s.reviewCopy());
    });
}

void SessionManager::setSecretBindings(const QHash<QString, SecretBinding>& bindings) {
    const auto spelled = [](const QHash<QString, SecretBinding>& all) {
        QHash<QString, QStringList> out;
        for (auto it = all.cbegin(); it != all.cend(); ++it) {
            out.insert(it.key(), it->ruleTexts());
        }
        return out;
    };
    if (spelled(bindings) == spelled(m_config.secretBindings)) {
        return;
    }
    m_config.secretBindings = bindings;
    endLiveSessions([](const SandboxSession&) {
        return QStringLiteral("The secrets bound to hosts changed: the next call gets a new container under them.");
    });
}

void SessionManager::interceptCaLoaded() {
    endLiveSessions([](const SandboxSession& s) {
        return s.lacksInterceptCa() ? QStringLiteral(
                   "The interception CA of host-bound secrets is loaded now: the next call gets a "
                   "new container that trusts it.")
                                    : QString();
    });
}

void SessionManager::setEgressPolicy(const EgressPolicy& policy, const QHash<QString, QStringList>& folderAllow) {
    m_config.egress = policy;
    m_config.folderAllow = folderAllow;
    for (const auto& entry : m_sessions) {
        entry.second->refreshEgressPolicy();
    }
}

void SessionManager::allowHostForSession(const QString& sessionId, const QString& rule) {
    if (SandboxSession* s = findSession(sessionId)) {
        s->allowHostForSession(rule);
    }
}

void SessionManager::allowHostOnce(const QString& sessionId, const QString& host, int port) {
    if (SandboxSession* s = findSession(sessionId)) {
        s->allowHostOnce(host, port);
    }
}

EgressPolicy SessionManager::egressPolicy(const QString& sessionId) const {
    const SandboxSession* s = findSession(sessionId);
    return s ? s->egressPolicy() : SandboxSession::egressPolicyFor(m_config, QString(), {});
}

bool SessionManager::cancel(const QString& callId) {
    if (m_scheduler.cancel(callId)) {
        return true;
    }
    const QPointer<CommandExecution> execution = m_calls.value(callId);
    if (!execution) {
        return false;
    }
    if (SandboxSession* session = findSession(execution->request().sessionId)) {
        session->unqueue(execution);
    }
    execution->cancel();
    return true;
}

void SessionManager::setOutputPaused(const QString& callId, bool paused) {
    if (const QPointer<CommandExecution> execution = m_calls.value(callId)) {
        execution->setOutputPaused(paused);
    }
}

void SessionManager::shutdown() {
    m_shuttingDown = true;
    m_scheduler.shutdown(QStringLiteral("Zeus Desktop is shutting down."));
    QStringList ids;
    for (const auto& entry : m_sessions) {
        ids << entry.second->shutDown();
    }
    if (!ids.isEmpty()) {
        m_engine.runHeld(m_runtime->removeArguments(ids), [](EngineCommand& process) {
            if (!process.succeeded()) {
                qCWarning(lcSession) << "removing containers at shutdown failed:" << process.diagnostic();
            }
        });
    }
    // Containers still being created are removed when their `run` returns (ContainerStart).
    QTimer::singleShot(0, this, &SessionManager::maybeFinishShutdown);
}

void SessionManager::maybeFinishShutdown() {
    if (m_shuttingDown && !m_shutdownEmitted && m_engine.held() == 0) {
        m_shutdownEmitted = true;
        Q_EMIT shutdownFinished();
    }
}

void SessionManager::sweepOrphans() {
    OrphanSweep::run(
        m_engine, *m_runtime, m_config.ownerId, m_reviews,
        [this] {
            OrphanSweep::Owners owners;
            for (const auto& entry : m_sessions) {
                owners.containerIds << entry.second->containerId();
                if (entry.second->phase() == SandboxSession::Phase::Creating) {
                    owners.creatingSessions << entry.first;
                }
            }
            return owners;
        },
        [this](int removed) { Q_EMIT orphanSweepFinished(removed); });
}

}  // namespace zeus
