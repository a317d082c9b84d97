// The tray app (SPEC §6): one instance per user, a tray icon whose state comes from
// TrayStatus, the dashboard, settings, and the same detection -> sandbox -> backend wiring
// as headless mode. Objects live in GuiService; this file only connects them.
#include "appsettings.h"
#include "apptranslator.h"
#include "autostartloginitem.h"
#include "backend/backendconnection.h"
#include "backend/backendtoken.h"
#include "backend/backendurl.h"
#include "backend/credentialstore.h"
#include "backend/tooldispatcher.h"
#include "dashboard/connectionpanel.h"
#include "dashboard/dashboardwindow.h"
#include "dashboard/localconsole.h"
#include "dashboard/runtimepanel.h"
#include "dashboard/workspacepanel.h"
#include "diagnosticsreport.h"
#include "modes.h"
#include "monitor/containermonitor.h"
#include "runtime/runtimedetector.h"
#include "sandbox/sessionmanager.h"
#include "sandboxfactory.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "settings/keychaintokenstore.h"
#include "settings/settingsdialog.h"
#include "singleinstance.h"
#include "support/logging.h"
#include "tray/trayicon.h"
#include "tray/traystatus.h"

#include <zeus/buildinfo.h>

#include <QApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QPointer>
#include <QSet>
#include <QSocketNotifier>
#include <QSysInfo>
#include <QTextStream>
#include <QTimer>
#include <QUrl>
#include <QUuid>

#include <algorithm>
#include <memory>
#include <variant>

#ifdef Q_OS_UNIX
#include <csignal>
#include <fcntl.h>
#include <unistd.h>
#endif

namespace zeus {

namespace {

constexpr int kShutdownDeadlineMs = 15000;

#ifdef Q_OS_UNIX
// SIGTERM (logout, system shutdown) and SIGINT quit like the Quit menu entry, so the
// containers are removed. The handler only writes to a pipe; the event loop does the work.
int g_quitPipe[2] = {-1, -1};

extern "C" void onQuitSignal(int signal) {
    const char byte = char(signal);
    const ssize_t written = ::write(g_quitPipe[1], &byte, 1);
    (void)written;
}

bool installQuitSignals() {
    if (::pipe(g_quitPipe) != 0) {
        return false;
    }
    for (int fd : g_quitPipe) {
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    struct sigaction action = {};
    action.sa_handler = onQuitSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return ::sigaction(SIGTERM, &action, nullptr) == 0 && ::sigaction(SIGINT, &action, nullptr) == 0;
}
#endif
constexpr int kRecentErrorLimit = 50;

// Everything the tray app owns, in construction order.
class GuiService : public QObject {
    Q_OBJECT
public:
    explicit GuiService(const AppOptions& options)
        : m_options(options), m_backendOverride(options.backend.trimmed()), m_tokens(&m_credentials) {}
    ~GuiService() override {
        // The manager outlives the dashboard (declaration order); nothing it says at its end
        // may reach widgets that are gone.
        if (m_manager) {
            QObject::disconnect(m_manager.get(), nullptr, this, nullptr);
        }
        if (m_monitor) {
            QObject::disconnect(m_monitor.get(), nullptr, this, nullptr);
            m_monitor->stop();
        }
    }

    void start();
    void beginShutdown();
    void activate() { m_dashboard->bringToFront(); }

private:
    void onDetection(const DetectionResult& detection);
    void createManager();
    void readToken();
    void onTokenRead(const QString& url, const CredentialStore::Result& result);
    void connectBackend();
    void openSettings();
    void runConsoleCommand(const QString& command);
    void updateStatus();
    void updateBanner();
    void updateConsole();
    void recordError(const QString& error);
    void applyWorkspaceOverride();
    DiagnosticsReport buildReport() const;
    // --backend for this run, else the setting.
    QString backendUrl() const { return m_backendOverride.isEmpty() ? m_settings.backendUrl() : m_backendOverride; }
    // What the connection sends: the stored token, or the placeholder for a local backend.
    QString effectiveToken() const { return BackendToken::effective(QUrl(backendUrl()), m_token); }
    // The user's approvals plus the command line's --workspace of this run.
    QStringList approvedWorkspaces() const;

    AppOptions m_options;
    AppSettings m_settings;
    QString m_backendOverride;  // --backend, validated in runGuiMode(); never written to the settings
    RuntimeDetector m_detector;
    CredentialStore m_credentials;
    BackendConnection m_connection;
    ToolDispatcher m_dispatcher{&m_connection};
    KeychainTokenStore m_tokens;
    std::unique_ptr<SessionManager> m_manager;
    std::unique_ptr<ContainerMonitor> m_monitor;  // live state and stats of the manager's containers
    std::unique_ptr<DashboardWindow> m_dashboard;
    std::unique_ptr<TrayIcon> m_tray;
    QPointer<SettingsDialog> m_settingsDialog;
    AutostartLoginItem m_loginItem;

    QString m_token;  // in memory only, for the connection (and so diagnostics can redact it)
    bool m_tokenChecked = false;
    bool m_detectedOnce = false;
    bool m_userDisconnected = false;
    bool m_configDirty = false;
    bool m_shuttingDown = false;
    bool m_warnedNoRuntime = false;
    QStringList m_recentErrors;
    QHash<QString, QString> m_callWorkspaces;  // backend call id -> working directory
    QSet<QString> m_startedWithoutFolder;      // calls started before their message reached us
    QTimer m_shutdownDeadline;
};

void GuiService::start() {
    const QString runtimeName = m_options.runtime.isEmpty() ? m_settings.runtimePreference() : m_options.runtime;
    m_detector.setPreference(runtimePreferenceFromString(runtimeName).value_or(RuntimePreference::Auto));

    HelloMessage client;
    client.clientName = QStringLiteral(ZEUS_APP_NAME);
    client.clientVersion = QStringLiteral(ZEUS_VERSION);
    client.os = QSysInfo::prettyProductName();
    client.arch = QSysInfo::currentCpuArchitecture();
    client.deviceId = m_settings.deviceId();
    m_dispatcher.setClientInfo(client);

    m_dashboard =
        std::make_unique<DashboardWindow>(&m_settings, &m_detector, &m_connection, [this] { return buildReport(); });
    applyWorkspaceOverride();
    m_dashboard->connectionPanel()->setBackendUrlOverride(m_backendOverride);
    m_dispatcher.setApprovedWorkspaces(approvedWorkspaces());
    m_tray = std::make_unique<TrayIcon>(&m_settings);
    m_tray->setRunApprovedFolder(m_dashboard->workspacePanel()->runApprovedWorkspace());
    const bool haveTray = TrayIcon::isAvailable();
    // Without a tray the dashboard is a normal window and closing it quits.
    QApplication::setQuitOnLastWindowClosed(false);
    m_dashboard->setClosingQuits(!haveTray);

    // Dashboard and tray requests.
    connect(m_dashboard.get(), &DashboardWindow::settingsRequested, this, &GuiService::openSettings);
    connect(m_dashboard.get(), &DashboardWindow::quitRequested, this, &GuiService::beginShutdown);
    connect(m_tray.get(), &TrayIcon::openDashboardRequested, this, &GuiService::activate);
    connect(m_tray.get(), &TrayIcon::chooseFolderRequested, this, [this] {
        activate();
        m_dashboard->showPage(DashboardWindow::Page::Overview);
        m_dashboard->workspacePanel()->openFolderDialog();
    });
    connect(m_tray.get(), &TrayIcon::recentFolderChosen, this, [this](const QString& folder) {
        m_dashboard->workspacePanel()->chooseFolder(folder);
        if (m_dashboard->workspacePanel()->currentWorkspace().isEmpty()) {
            // Not approved (or refused): show why, and the Approve button.
            activate();
            m_dashboard->showPage(DashboardWindow::Page::Overview);
        }
    });
    connect(m_tray.get(), &TrayIcon::connectRequested, this, [this] {
        m_userDisconnected = false;
        connectBackend();
    });
    connect(m_tray.get(), &TrayIcon::disconnectRequested, this, [this] {
        m_userDisconnected = true;
        m_connection.stop();
    });
    connect(m_tray.get(), &TrayIcon::diagnosticsRequested, this, [this] {
        activate();
        m_dashboard->showPage(DashboardWindow::Page::Diagnostics);
    });
    connect(m_tray.get(), &TrayIcon::settingsRequested, this, &GuiService::openSettings);
    connect(m_tray.get(), &TrayIcon::quitRequested, this, &GuiService::beginShutdown);

    ConnectionPanel* connectionPanel = m_dashboard->connectionPanel();
    connect(connectionPanel, &ConnectionPanel::connectRequested, this, [this] {
        m_userDisconnected = false;
        connectBackend();
    });
    connect(connectionPanel, &ConnectionPanel::disconnectRequested, this, [this] {
        m_userDisconnected = true;
        m_connection.stop();
    });
    connect(connectionPanel, &ConnectionPanel::signInRequested, this, &GuiService::openSettings);
    connect(m_dashboard->diagnosticsPanel(), &DiagnosticsPanel::recheckRequested, &m_detector,
            &RuntimeDetector::recheck);
    connect(m_dashboard.get(), &DashboardWindow::sessionsPageVisibleChanged, this, [this](bool visible) {
        if (m_monitor) {
            m_monitor->setStatsPollingEnabled(visible);
        }
    });
    connect(m_dashboard->workspacePanel(), &WorkspacePanel::currentWorkspaceChanged, this, [this] {
        updateConsole();
        updateStatus();
        updateBanner();
    });

    // Sessions and the console.
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    LocalConsole* console = m_dashboard->console();
    connect(sessions, &SessionsPanel::stopRequested, this, [this](const QString& sessionId) {
        if (m_manager) {
            m_manager->endSession(sessionId);
        }
    });
    connect(console, &LocalConsole::runRequested, this, &GuiService::runConsoleCommand);
    connect(console, &LocalConsole::stopRequested, this, [this](const QString& callId) {
        if (m_manager) {
            m_manager->cancel(callId);
        }
    });
    // The dispatcher connected to messageReceived first, so a call it starts is usually in the
    // table before this sees the message: the folder is then added to the row here.
    connect(&m_connection, &BackendConnection::messageReceived, this, [this, sessions](const IncomingMessage& message) {
        if (const auto* call = std::get_if<ToolCallMessage>(&message)) {
            const QString folder = ToolDispatcher::canonicalFolder(call->workingDirectory);
            if (m_startedWithoutFolder.remove(call->callId)) {
                sessions->model()->noteCall(call->sessionId, folder);
            } else {
                m_callWorkspaces.insert(call->callId, folder);
            }
        }
    });
    connect(&m_dispatcher, &ToolDispatcher::callStarted, this,
            [this, sessions](const QString& callId, const QString& sessionId, const QString& command) {
                const QString folder = m_callWorkspaces.take(callId);
                if (folder.isEmpty()) {
                    m_startedWithoutFolder.insert(callId);
                }
                sessions->noteCall(callId, sessionId, command, folder);
                updateStatus();
            });
    connect(&m_dispatcher, &ToolDispatcher::callFinished, this, [this](const ToolResultMessage& result) {
        if (result.status == ExecStatus::Error) {
            recordError(result.errorMessage);
            if (result.errorCode == ProtocolErrorCode::WorkspaceNotApproved) {
                // The backend asked for a folder the user has not approved: say where to approve one.
                m_tray->notify(tr("Folder not approved"),
                               tr("%1\nApprove the folder in the dashboard if the agent should work there.")
                                   .arg(result.errorMessage),
                               true);
            }
        }
        updateStatus();
    });

    // Settings that change what runs.
    connect(&m_settings, &AppSettings::approvedWorkspacesChanged, this, [this] {
        m_dispatcher.setApprovedWorkspaces(approvedWorkspaces());
        updateConsole();
        updateStatus();
    });
    connect(&m_settings, &AppSettings::backendUrlChanged, this, [this] {
        // A URL chosen in Settings now wins over the command line's.
        m_backendOverride.clear();
        m_dashboard->connectionPanel()->setBackendUrlOverride(QString());
        m_token.clear();
        m_connection.stop();
        readToken();
    });
    connect(&m_settings, &AppSettings::runtimePreferenceChanged, this, [this](const QString& value) {
        m_detector.setPreference(runtimePreferenceFromString(value).value_or(RuntimePreference::Auto));
        m_detector.recheck();
    });
    const auto sandboxChanged = [this] {
        m_configDirty = true;
        createManager();
    };
    connect(&m_settings, &AppSettings::imageChanged, this, sandboxChanged);
    connect(&m_settings, &AppSettings::hardeningChanged, this, sandboxChanged);
    connect(&m_settings, &AppSettings::idleTimeoutMinutesChanged, this, sandboxChanged);

    // Keychain: a token saved or removed in Settings takes effect at once.
    connect(&m_credentials, &CredentialStore::readFinished, this, &GuiService::onTokenRead);
    connect(&m_credentials, &CredentialStore::writeFinished, this,
            [this](const QString&, const CredentialStore::Result& result) {
                if (result.status == CredentialStore::Status::Ok) {
                    m_userDisconnected = false;
                    readToken();
                }
            });
    connect(&m_credentials, &CredentialStore::deleteFinished, this, [this] {
        m_token.clear();
        m_connection.setToken(QString());
        updateBanner();
    });

    connect(&m_detector, &RuntimeDetector::detectionFinished, this, &GuiService::onDetection);
    connect(&m_connection, &BackendConnection::stateChanged, this, [this](BackendConnection::State state) {
        m_tray->setConnectionActive(
            state != BackendConnection::State::Disconnected && state != BackendConnection::State::SignedOut
            && state != BackendConnection::State::AuthFailed && state != BackendConnection::State::Error);
        if (state == BackendConnection::State::AuthFailed) {
            recordError(m_connection.lastError());
            m_tray->notify(tr("Sign-in rejected"),
                           tr("The backend refused the sign-in token. Enter a new one in Settings."), true);
        }
        updateStatus();
        updateBanner();
    });

    m_tray->show();
    updateConsole();
    updateStatus();
    if (!haveTray) {
        qCInfo(lcApp) << "no system tray: the dashboard is a normal window";
        m_dashboard->bringToFront();
    } else {
        // A fixed marker: the GUI benchmark measures launch to this line.
        qCInfo(lcApp) << "tray ready";
    }
    if (!m_options.workspace.isEmpty() && m_dashboard->workspacePanel()->runApprovedWorkspace().isEmpty()) {
        // The command line named a folder the guard refused: the refusal is on the Overview page.
        activate();
        m_dashboard->showPage(DashboardWindow::Page::Overview);
    }
    QTimer::singleShot(0, &m_detector, [this] { m_detector.detect(); });
    readToken();
}

void GuiService::onDetection(const DetectionResult& detection) {
    m_dispatcher.setRuntimeReport(SandboxFactory::runtimeReport(detection));
    if (detection.isUsable()) {
        if (!m_manager) {
            createManager();
        } else if (m_manager->runtime().kind() != *detection.chosen) {
            // Another runtime now (a new preference): swap the manager once it is idle.
            m_configDirty = true;
            createManager();
        } else {
            m_dispatcher.setSessionManager(m_manager.get());
        }
    } else if (m_manager) {
        // The runtime went away: calls are refused with no_runtime until it is back; the
        // manager stays to clean up what it started.
        m_dispatcher.setSessionManager(nullptr);
    }
    if (!m_detectedOnce) {
        m_detectedOnce = true;
        // The token was read meanwhile: now the connection can start (see onTokenRead).
        if (m_tokenChecked && !m_userDisconnected && !backendUrl().isEmpty()) {
            connectBackend();
        }
    }
    if (!detection.isUsable()) {
        recordError(detection.reason);
        if (!m_warnedNoRuntime) {
            m_warnedNoRuntime = true;
            m_tray->notify(tr("No container runtime"), detection.reason, true);
            // Guidance front and centre on the first run without a runtime.
            activate();
            m_dashboard->showPage(DashboardWindow::Page::Overview);
        }
    }
    if (m_dashboard->currentPage() == DashboardWindow::Page::Diagnostics) {
        m_dashboard->diagnosticsPanel()->refresh();
    }
    updateConsole();
    updateStatus();
    updateBanner();
}

void GuiService::createManager() {
    if (!m_detector.hasResult() || !m_detector.result().isUsable()) {
        return;
    }
    if (m_manager) {
        // New sandbox settings: swap the manager only when nothing runs in it.
        if (!m_configDirty || m_manager->runningCalls() > 0) {
            return;
        }
        const QStringList ids = m_manager->sessionIds();
        const bool sessionOpen = std::any_of(ids.cbegin(), ids.cend(), [this](const QString& id) {
            const SessionState state = m_manager->sessionState(id);
            return state == SessionState::Running || state == SessionState::Starting;
        });
        if (sessionOpen) {
            return;  // applied when the last session stops (sessionStateChanged)
        }
        m_dispatcher.setSessionManager(nullptr);
        SessionManager* old = m_manager.release();
        connect(old, &SessionManager::shutdownFinished, old, &QObject::deleteLater);
        old->shutdown();
    }
    m_configDirty = false;
    SandboxConfig config = SandboxFactory::configFrom(m_settings, m_options.image, m_options.profile);
    std::unique_ptr<ContainerRuntime> runtime = SandboxFactory::runtimeFor(m_detector.result(), config);
    if (!runtime) {
        return;
    }
    qCInfo(lcApp).noquote() << "runtime" << runtimeKindToString(runtime->kind()) << "image" << config.image;
    m_manager = std::make_unique<SessionManager>(std::move(runtime), config);
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    LocalConsole* console = m_dashboard->console();
    connect(m_manager.get(), &SessionManager::output, this,
            [sessions, console](const QString& callId, OutputStream stream, const QString& text) {
                sessions->appendOutput(callId, stream, text);
                console->appendOutput(callId, stream, text);
            });
    connect(m_manager.get(), &SessionManager::callFinished, this, [this, sessions, console](const ExecResult& result) {
        sessions->callFinished(result);
        console->callFinished(result);
        if (result.status == ExecStatus::Error
            && (result.errorCode == ExecError::ImageMissing || result.errorCode == ExecError::ContainerFailed)) {
            m_tray->notify(tr("Command failed"), result.errorMessage, true);
        }
        if (m_configDirty) {
            QTimer::singleShot(0, this, &GuiService::createManager);
        }
        updateStatus();
    });
    connect(m_manager.get(), &SessionManager::sessionStateChanged, this,
            [this, sessions](const QString& sessionId, SessionState state, const QString& containerId) {
                sessions->setSessionState(sessionId, state, containerId);
                if (m_monitor && !containerId.isEmpty()) {
                    m_monitor->trackContainer(containerId, sessionId);
                }
                if (m_configDirty && state == SessionState::Stopped) {
                    QTimer::singleShot(0, this, &GuiService::createManager);
                }
                updateStatus();
            });
    connect(m_manager.get(), &SessionManager::sessionLogEntryAdded, sessions, &SessionsPanel::addLogEntry);
    m_dispatcher.setSessionManager(m_manager.get());
    m_manager->sweepOrphans();

    // The engine's events and stats for the sessions table.
    if (m_monitor) {
        m_monitor->stop();
    }
    m_monitor = std::make_unique<ContainerMonitor>(m_manager->runtime(), m_manager->config().ownerId);
    connect(m_monitor.get(), &ContainerMonitor::containerEvent, this,
            [sessions](const QString& containerId, const QString&, ContainerEvent::State state, int exitCode) {
                sessions->model()->applyContainerEvent(containerId, state, exitCode);
            });
    connect(m_monitor.get(), &ContainerMonitor::statsUpdated, this,
            [sessions](const QString& containerId, double cpuPercent, qint64 memoryBytes) {
                sessions->model()->setUsageForContainer(containerId, cpuPercent, memoryBytes);
            });
    m_monitor->setStatsPollingEnabled(m_dashboard->isSessionsPageVisible());
    m_monitor->start();
}

void GuiService::readToken() {
    const QString url = backendUrl();
    if (url.isEmpty()) {
        // First run: nothing can connect before the user signs in, so say so up front.
        m_tokenChecked = true;
        updateStatus();
        updateBanner();
        activate();
        return;
    }
    m_credentials.readToken(url);
}

void GuiService::onTokenRead(const QString& url, const CredentialStore::Result& result) {
    if (url != backendUrl()) {
        return;
    }
    m_tokenChecked = true;
    m_token = result.status == CredentialStore::Status::Ok ? result.token : QString();
    if (result.status != CredentialStore::Status::Ok && result.status != CredentialStore::Status::SignedOut) {
        recordError(result.message);
    }
    m_dashboard->diagnosticsPanel()->setSecrets({m_token});
    // The first hello must say which runtime serves the calls: connect once detection is done.
    if (!m_userDisconnected && m_detector.hasResult()) {
        connectBackend();
    }
    updateBanner();
    if (effectiveToken().isEmpty()) {
        // First run (or signed out): the sign-in prompt is the first thing to see.
        activate();
    }
}

void GuiService::connectBackend() {
    const QString url = backendUrl();
    if (url.isEmpty()) {
        openSettings();
        return;
    }
    m_connection.setUrl(QUrl(url));
    if (m_token.isEmpty() && !effectiveToken().isEmpty()) {
        qCInfo(lcApp) << "no sign-in token; connecting to the local backend without one";
    }
    m_connection.setToken(effectiveToken());
    m_connection.start();
}

void GuiService::openSettings() {
    if (!m_settingsDialog) {
        m_settingsDialog = new SettingsDialog(&m_settings, &m_tokens, m_dashboard.get());
        m_settingsDialog->setStartAtLogin(&m_loginItem);
        m_settingsDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_settingsDialog->show();
    m_settingsDialog->raise();
    m_settingsDialog->activateWindow();
}

void GuiService::runConsoleCommand(const QString& command) {
    LocalConsole* console = m_dashboard->console();
    if (!m_manager || console->workspace().isEmpty()) {
        return;
    }
    ExecRequest request;
    request.callId = QStringLiteral("console-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    request.sessionId = LocalConsole::kSessionId;
    request.workspace = console->workspace();
    request.command = command;
    console->callStarted(request.callId, command);
    m_dashboard->sessionsPanel()->noteCall(request.callId, request.sessionId, command, request.workspace);
    m_manager->execute(request);
    updateStatus();
}

void GuiService::updateConsole() {
    LocalConsole* console = m_dashboard->console();
    const QString workspace = m_dashboard->workspacePanel()->currentWorkspace();
    if (!m_detector.hasResult()) {
        console->setReady(QString(), tr("Checking for a container runtime…"));
    } else if (!m_detector.result().isUsable()) {
        console->setReady(QString(), m_detector.result().reason);
    } else if (workspace.isEmpty()) {
        console->setReady(QString(), tr("Choose and approve a working directory on the Overview page first."));
    } else {
        console->setReady(workspace, QString());
    }
}

void GuiService::updateStatus() {
    TrayStatus::Input input;
    input.runtimeChecked = m_detector.hasResult();
    if (input.runtimeChecked) {
        const DetectionResult result = m_detector.result();
        input.runtimeUsable = result.isUsable();
        input.runtimeName = RuntimePanel::headline(result);
        if (const RuntimeProbe* probe = result.chosenProbe()) {
            const QString version = probe->serverVersion.isEmpty() ? probe->clientVersion : probe->serverVersion;
            input.runtimeName = QString(runtimeDisplayName(probe->kind) + QLatin1Char(' ') + version).trimmed();
        }
        input.runtimeProblem = result.reason;
    }
    input.connection = m_connection.state();
    input.nextReconnect = m_connection.nextAttemptAt();
    input.connectionError = m_connection.lastError();
    input.workspace = m_dashboard->workspacePanel()->currentWorkspace();
    input.runningSessions = m_dashboard->sessionsPanel()->model()->runningSessions();
    input.runningCommands = m_manager ? m_manager->runningCalls() : 0;
    m_tray->setStatus(TrayStatus::from(input));
}

void GuiService::updateBanner() {
    if (m_detector.hasResult() && !m_detector.result().isUsable()) {
        m_dashboard->setBanner(DashboardWindow::Banner::NoRuntime, m_detector.result().reason);
    } else if (m_tokenChecked
               && (backendUrl().isEmpty() || effectiveToken().isEmpty()
                   || m_connection.state() == BackendConnection::State::AuthFailed)) {
        m_dashboard->setBanner(DashboardWindow::Banner::SignIn,
                               m_connection.state() == BackendConnection::State::AuthFailed
                                   ? tr("The backend refused the sign-in token. Enter a new one in Settings.")
                                   : QString());
    } else if (m_dashboard->workspacePanel()->currentWorkspace().isEmpty()) {
        m_dashboard->setBanner(DashboardWindow::Banner::ChooseFolder);
    } else {
        m_dashboard->setBanner(DashboardWindow::Banner::None);
    }
}

void GuiService::applyWorkspaceOverride() {
    if (m_options.workspace.isEmpty()) {
        return;
    }
    WorkspacePanel* panel = m_dashboard->workspacePanel();
    if (panel->approveForThisRun(m_options.workspace)) {
        qCInfo(lcApp).noquote() << "workspace for this run:" << panel->runApprovedWorkspace();
        return;
    }
    const WorkspaceGuard::Result& verdict = panel->verdict();
    qCWarning(lcApp).noquote() << "refused workspace" << m_options.workspace << ":" << verdict.message
                               << "(rule:" << WorkspaceGuard::ruleName(verdict.rule) << ")";
    recordError(tr("Refused working directory %1: %2").arg(m_options.workspace, verdict.message));
}

QStringList GuiService::approvedWorkspaces() const {
    QStringList workspaces = m_settings.approvedWorkspaces();
    const QString forThisRun = m_dashboard ? m_dashboard->workspacePanel()->runApprovedWorkspace() : QString();
    if (!forThisRun.isEmpty() && !workspaces.contains(forThisRun)) {
        workspaces.append(forThisRun);
    }
    return workspaces;
}

void GuiService::recordError(const QString& error) {
    if (error.isEmpty()) {
        return;
    }
    m_recentErrors.append(QDateTime::currentDateTimeUtc().toString(Qt::ISODate) + QStringLiteral("  ") + error);
    while (m_recentErrors.size() > kRecentErrorLimit) {
        m_recentErrors.removeFirst();
    }
}

DiagnosticsReport GuiService::buildReport() const {
    DiagnosticsReport report;
    if (m_detector.hasResult()) {
        report.setDetection(m_detector.result());
    }
    QJsonObject sandbox;
    sandbox.insert(QStringLiteral("image"), m_options.image.isEmpty() ? m_settings.image() : m_options.image);
    sandbox.insert(QStringLiteral("profile"),
                   m_options.profile.isEmpty() ? m_settings.hardeningProfile() : m_options.profile);
    sandbox.insert(QStringLiteral("pids_limit"), m_settings.pidsLimit());
    sandbox.insert(QStringLiteral("memory_mib"), m_settings.memoryMiB());
    sandbox.insert(QStringLiteral("cpus"), m_settings.cpus());
    sandbox.insert(QStringLiteral("idle_timeout_minutes"), m_settings.idleTimeoutMinutes());
    sandbox.insert(QStringLiteral("runtime_preference"), m_settings.runtimePreference());
    sandbox.insert(QStringLiteral("approved_workspaces"), QJsonArray::fromStringList(m_settings.approvedWorkspaces()));
    sandbox.insert(QStringLiteral("workspace_for_this_run"), m_dashboard->workspacePanel()->runApprovedWorkspace());
    sandbox.insert(QStringLiteral("settings_file"), m_settings.fileName());
    report.addSection(QStringLiteral("sandbox"), sandbox, tr("Sandbox"));

    QJsonObject connection;
    connection.insert(QStringLiteral("url"), backendUrl());
    connection.insert(QStringLiteral("url_from_command_line"), !m_backendOverride.isEmpty());
    connection.insert(QStringLiteral("state"), BackendConnection::stateName(m_connection.state()));
    connection.insert(QStringLiteral("last_error"), m_connection.lastError());
    connection.insert(QStringLiteral("attempts"), m_connection.attemptCount());
    connection.insert(QStringLiteral("signed_in"), !m_token.isEmpty());
    QJsonArray history;
    QStringList historyText;
    for (const BackendConnection::HistoryEntry& entry : m_connection.history()) {
        QJsonObject item;
        item.insert(QStringLiteral("time"), entry.when.toUTC().toString(Qt::ISODateWithMs));
        item.insert(QStringLiteral("state"), BackendConnection::stateName(entry.state));
        item.insert(QStringLiteral("event"), entry.event);
        if (entry.closeCode >= 0) {
            item.insert(QStringLiteral("close_code"), entry.closeCode);
        }
        history.append(item);
        historyText.append(
            QStringLiteral("%1  %2  %3%4")
                .arg(entry.when.toUTC().toString(Qt::ISODate), BackendConnection::stateName(entry.state), entry.event,
                     entry.closeCode >= 0 ? QStringLiteral(" (close %1)").arg(entry.closeCode) : QString()));
    }
    connection.insert(QStringLiteral("history"), history);
    report.addSection(QStringLiteral("connection"), connection, tr("Backend connection"),
                      tr("URL: %1\nState: %2\nLast error: %3\nHistory:\n%4")
                          .arg(backendUrl(), BackendConnection::stateName(m_connection.state()),
                               m_connection.lastError(), historyText.join(QLatin1Char('\n'))));

    QJsonArray sessions;
    const SessionTableModel* model = m_dashboard->sessionsPanel()->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        QJsonObject session;
        for (int column = 0; column < SessionTableModel::ColumnCount; ++column) {
            session.insert(model->headerData(column, Qt::Horizontal).toString(),
                           model->data(model->index(row, column)).toString());
        }
        sessions.append(session);
    }
    report.addSection(QStringLiteral("sessions"), sessions, tr("Sessions"));
    report.addSection(QStringLiteral("recent_errors"), QJsonArray::fromStringList(m_recentErrors), tr("Recent errors"),
                      m_recentErrors.isEmpty() ? tr("none") : m_recentErrors.join(QLatin1Char('\n')));
    return report;
}

void GuiService::beginShutdown() {
    if (m_shuttingDown) {
        return;
    }
    m_shuttingDown = true;
    qCInfo(lcApp) << "quitting: removing containers";
    m_shutdownDeadline.setSingleShot(true);
    connect(&m_shutdownDeadline, &QTimer::timeout, this, [] {
        qCWarning(lcApp) << "shutdown took longer than" << kShutdownDeadlineMs << "ms; exiting";
        QCoreApplication::quit();
    });
    m_shutdownDeadline.start(kShutdownDeadlineMs);
    m_connection.stop();
    m_dashboard->hide();
    if (m_monitor) {
        m_monitor->stop();
    }
    if (m_manager) {
        connect(m_manager.get(), &SessionManager::shutdownFinished, this, [] { QCoreApplication::quit(); });
        m_manager->shutdown();
    } else {
        QTimer::singleShot(0, this, [] { QCoreApplication::quit(); });
    }
}

}  // namespace

int runGuiMode(const AppOptions& options) {
    AppTranslator::install(QCoreApplication::instance());
    if (!options.backend.isEmpty()) {
        // Validated like the setting; a bad URL is a usage error, not a window.
        const QString problem = BackendUrl::problem(options.backend);
        if (!problem.isEmpty()) {
            QTextStream(stderr) << "zeus-desktop: --backend " << options.backend << ": " << problem << "\n";
            return 2;
        }
    }

    SingleInstance instance;
    if (!instance.claim()) {
        // Another tray app runs for this user: ask it to show its dashboard, then leave.
        int code = 1;
        instance.activateRunningInstance([&code](bool ok) {
            code = ok ? 0 : 1;
            QCoreApplication::exit(code);
        });
        const int result = QCoreApplication::exec();
        if (result != 0) {
            QTextStream(stderr) << "zeus-desktop: another instance seems to run but did not answer\n";
        }
        return result;
    }

    GuiService service(options);
    QObject::connect(&instance, &SingleInstance::activationRequested, &service, [&service] {
        qCInfo(lcApp) << "another launch asked for the dashboard";
        service.activate();
    });
    QObject::connect(qApp, &QCoreApplication::aboutToQuit, &service, [] { qCInfo(lcApp) << "bye"; });
#ifdef Q_OS_UNIX
    std::unique_ptr<QSocketNotifier> quitNotifier;
    if (installQuitSignals()) {
        quitNotifier = std::make_unique<QSocketNotifier>(g_quitPipe[0], QSocketNotifier::Read);
        QObject::connect(quitNotifier.get(), &QSocketNotifier::activated, &service, [&service] {
            char byte = 0;
            while (::read(g_quitPipe[0], &byte, 1) == 1) {
                qCInfo(lcApp) << "signal" << int(byte) << "received: quitting";
            }
            service.beginShutdown();
        });
    }
#endif
    service.start();
    return QApplication::exec();
}

}  // namespace zeus

#include "guimode.moc"
