#include "sandboxhost.h"

#include "appsettings.h"
#include "backend/tooldispatcher.h"
#include "monitor/containermonitor.h"
#include "runtime/runtimekind.h"
#include "sandbox/sessionmanager.h"
#include "secrets/interceptca.h"
#include "support/logging.h"

#include <algorithm>
#include <utility>

namespace zeus {

SandboxHost::SandboxHost(AppSettings* settings, SandboxOverrides overrides, QObject* parent)
    : QObject(parent), m_settings(settings), m_overrides(std::move(overrides)) {
    m_rebuildTimer.setSingleShot(true);
    m_rebuildTimer.setInterval(0);
    connect(&m_rebuildTimer, &QTimer::timeout, this, &SandboxHost::rebuildIfIdle);
    // The settings a container is created from. The runtime preference is not among them: it changes the
    // detection, which arrives through setDetection().
    connect(m_settings, &AppSettings::imageChanged, this, &SandboxHost::requestRebuild);
    connect(m_settings, &AppSettings::hardeningChanged, this, &SandboxHost::requestRebuild);
    connect(m_settings, &AppSettings::idleTimeoutMinutesChanged, this, &SandboxHost::requestRebuild);
    // Network rules apply to the live sessions at once: "Allow" must work without a restart (SPEC §8).
    connect(m_settings, &AppSettings::networkPolicyChanged, this, [this] {
        if (m_manager) {
            const SandboxConfig config = SandboxSetup::configFrom(*m_settings, m_overrides);
            m_manager->setEgressPolicy(config.egress, config.folderAllow);
        }
    });
    connect(m_settings, &AppSettings::workspaceModesChanged, this, [this] {
        if (m_manager) {
            m_manager->setWorkspaceModes(m_settings->workspaceModes());
        }
    });
    const auto folderAccessChanged = [this] {
        if (m_manager) {
            const SandboxConfig config = SandboxSetup::configFrom(*m_settings, m_overrides);
            m_manager->setFolderAccess(config.folderGitWrites, config.folderExposeHost);
        }
    };
    // Settings → Secrets "Use only with…" (SPEC §9): the live containers follow at once (SessionManager).
    connect(&m_settings->secrets(), &SecretIndex::bindingsChanged, this, [this] {
        if (m_manager) {
            m_manager->setSecretBindings(SandboxSetup::configFrom(*m_settings, m_overrides).secretBindings);
        }
    });
    if (m_overrides.interceptCa) {
        connect(m_overrides.interceptCa.get(), &InterceptCa::ready, this, [this](const InterceptCa::Result& result) {
            if (m_manager && result.status == InterceptCa::Status::Ok) {
                m_manager->interceptCaLoaded();
            }
        });
    }
    connect(m_settings, &AppSettings::gitWritesChanged, this, folderAccessChanged);
    connect(m_settings, &AppSettings::exposedHostPortsChanged, this, folderAccessChanged);
}

SandboxHost::~SandboxHost() {
    if (m_monitor) {
        m_monitor->stop();
    }
}

void SandboxHost::setDispatcher(ToolDispatcher* dispatcher) {
    m_dispatcher = dispatcher;
    if (m_dispatcher) {
        m_dispatcher->setRuntimeReport(effectiveReport());
        m_dispatcher->setSessionManager(servingManager());
    }
}

void SandboxHost::addDispatcher(ToolDispatcher* dispatcher) {
    if (!dispatcher || dispatchers().contains(dispatcher)) {
        return;
    }
    m_addedDispatchers.append(dispatcher);
    dispatcher->setRuntimeReport(effectiveReport());
    dispatcher->setSessionManager(servingManager());
}

void SandboxHost::removeDispatcher(ToolDispatcher* dispatcher) {
    if (m_addedDispatchers.removeAll(dispatcher) > 0 && dispatcher) {
        dispatcher->setSessionManager(nullptr);
    }
}

QList<ToolDispatcher*> SandboxHost::dispatchers() const {
    QList<ToolDispatcher*> all;
    if (m_dispatcher) {
        all.append(m_dispatcher.data());
    }
    for (const QPointer<ToolDispatcher>& added : m_addedDispatchers) {
        if (added) {
            all.append(added.data());
        }
    }
    return all;
}

SessionManager* SandboxHost::servingManager() const {
    return m_detection && m_detection->isUsable() && m_readinessProblem.isEmpty() ? m_manager.get() : nullptr;
}

void SandboxHost::setStatsPollingEnabled(bool enabled) {
    m_statsPolling = enabled;
    if (m_monitor) {
        m_monitor->setStatsPollingEnabled(enabled);
    }
}

SandboxSetup SandboxHost::setupFor(const DetectionResult& detection) const {
    return SandboxSetup::from(detection, *m_settings, m_overrides);
}

void SandboxHost::setDetection(const DetectionResult& detection) {
    m_detection = detection;
    m_report = SandboxSetup::runtimeReport(detection);
    for (ToolDispatcher* dispatcher : dispatchers()) {
        dispatcher->setRuntimeReport(effectiveReport());
    }
    if (m_state == State::ShuttingDown || m_state == State::Stopped) {
        return;
    }
    if (!detection.isUsable()) {
        // Calls are refused with no_runtime until it is back; the manager stays to clean up what it started.
        serve(nullptr);
    } else if (!m_manager) {
        rebuild();  // the first one at once: the backend may call as soon as it is connected
    } else {
        if (runtimeChanged()) {
            m_swapPending = true;
        }
        serve(m_manager.get());
        if (m_swapPending) {
            m_rebuildTimer.start();
        }
    }
    updateState();
}

void SandboxHost::setReadinessProblem(const QString& problem) {
    if (problem == m_readinessProblem) {
        return;
    }
    m_readinessProblem = problem;
    if (!problem.isEmpty()) {
        qCWarning(lcApp).noquote() << "the sandbox is not ready:" << problem;
    }
    for (ToolDispatcher* dispatcher : dispatchers()) {
        dispatcher->setRuntimeReport(effectiveReport());
    }
    if (m_state != State::ShuttingDown && m_state != State::Stopped && m_detection && m_detection->isUsable()) {
        serve(m_manager.get());
    }
    updateState();
}

RuntimeReport SandboxHost::effectiveReport() const {
    RuntimeReport report = m_report;
    if (!m_readinessProblem.isEmpty() && report.ready) {
        report.ready = false;
        report.reason = m_readinessProblem;
    }
    return report;
}

void SandboxHost::requestRebuild() {
    if (!m_manager) {
        return;  // the first manager is built with the settings of its time
    }
    m_swapPending = true;
    m_rebuildTimer.start();  // restarting an active zero timer keeps it one rebuild
    updateState();
}

void SandboxHost::rebuildIfIdle() {
    if (!m_swapPending || !m_detection || !m_detection->isUsable() || m_state == State::ShuttingDown
        || m_state == State::Stopped) {
        return;
    }
    if (!isIdle()) {
        return;  // tried again when a call ends or a session stops
    }
    rebuild();
}

bool SandboxHost::isIdle() const {
    if (!m_manager) {
        return true;
    }
    if (m_manager->runningCalls() > 0) {
        return false;
    }
    const QStringList ids = m_manager->sessionIds();
    return std::none_of(ids.cbegin(), ids.cend(), [this](const QString& id) {
        const SessionState state = m_manager->sessionState(id);
        return state == SessionState::Running || state == SessionState::Starting;
    });
}

bool SandboxHost::runtimeChanged() const {
    if (!m_manager || !m_detection || !m_detection->chosen) {
        return false;
    }
    // The same CLI pointed at another machine (a new context) is another runtime too: the config differs.
    const RuntimeProbe* probe = m_detection->chosenProbe();
    const bool remote = probe && probe->location.isRemote();
    return m_manager->runtime().kind() != *m_detection->chosen || m_manager->config().engineRemote != remote;
}

void SandboxHost::serve(SessionManager* manager) {
    // The manager is kept while a readiness problem stands; it only stops taking calls.
    for (ToolDispatcher* dispatcher : dispatchers()) {
        dispatcher->setSessionManager(m_readinessProblem.isEmpty() ? manager : nullptr);
    }
}

void SandboxHost::rebuild() {
    SandboxSetup setup = setupFor(*m_detection);
    if (!setup.runtime) {
        return;
    }
    if (m_manager) {
        serve(nullptr);
        SessionManager* old = m_manager.release();
        old->disconnect(this);
        connect(old, &SessionManager::shutdownFinished, old, &QObject::deleteLater);
        old->shutdown();
    }
    if (m_monitor) {
        m_monitor->stop();
        m_monitor.reset();
    }
    m_swapPending = false;
    qCInfo(lcApp).noquote() << "runtime" << runtimeKindToString(setup.runtime->kind()) << "("
                            << setup.runtime->program() << "), image" << setup.config.image << ","
                            << hardeningProfileName(setup.config.profile) << "profile";
    m_manager = std::make_unique<SessionManager>(std::move(setup.runtime), setup.config, m_reviewWorker);
    ++m_rebuilds;
    connect(m_manager.get(), &SessionManager::callFinished, this, [this] {
        if (m_swapPending) {
            m_rebuildTimer.start();
        }
    });
    connect(m_manager.get(), &SessionManager::sessionStateChanged, this,
            [this](const QString& sessionId, SessionState state, const QString& containerId) {
                if (m_monitor && !containerId.isEmpty()) {
                    m_monitor->trackContainer(containerId, sessionId);
                }
                if (m_swapPending && state == SessionState::Stopped) {
                    m_rebuildTimer.start();
                }
            });
    serve(m_manager.get());
    m_manager->sweepOrphans();
    if (m_monitorEnabled) {
        m_monitor = std::make_unique<ContainerMonitor>(m_manager->runtime(), m_manager->config().ownerId);
        m_monitor->setStatsPollingEnabled(m_statsPolling);
        m_monitor->start();
    }
    updateState();
    Q_EMIT rebuilt(m_manager.get(), m_monitor.get());
}

void SandboxHost::shutdown() {
    if (m_state == State::ShuttingDown || m_state == State::Stopped) {
        return;
    }
    m_rebuildTimer.stop();
    m_state = State::ShuttingDown;
    Q_EMIT stateChanged(m_state);
    if (m_monitor) {
        m_monitor->stop();
    }
    const auto finished = [this] {
        m_state = State::Stopped;
        Q_EMIT stateChanged(m_state);
        Q_EMIT shutdownFinished();
    };
    if (m_manager) {
        connect(m_manager.get(), &SessionManager::shutdownFinished, this, finished);
        m_manager->shutdown();
    } else {
        QTimer::singleShot(0, this, finished);
    }
}

void SandboxHost::updateState() {
    if (m_state == State::ShuttingDown || m_state == State::Stopped) {
        return;
    }
    State state = State::NoRuntime;
    if (m_detection && m_detection->isUsable() && m_manager) {
        state = !m_readinessProblem.isEmpty() ? State::NotReady : m_swapPending ? State::SwapPending : State::Ready;
    }
    if (state != m_state) {
        m_state = state;
        Q_EMIT stateChanged(m_state);
    }
}

}  // namespace zeus
