#include "guiservice.h"

#include "approval/approvaldialog.h"
#include "dashboard/connectionpanel.h"
#include "dashboard/dashboardwindow.h"
#include "dashboard/localconsole.h"
#include "dashboard/runtimepanel.h"
#include "dashboard/sandboxcontroller.h"
#include "dashboard/workspacepanel.h"
#include "guimcphost.h"
#include "modes.h"
#include "monitor/containermonitor.h"
#include "review/reviewcontroller.h"
#include "sandbox/sessionmanager.h"
#include "secrets/interceptca.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "settings/mcppage.h"
#include "settings/settingsdialog.h"
#include "signin.h"
#include "support/logging.h"
#include "tray/secretprompter.h"
#include "tray/trayicon.h"
#include "tray/traynotifier.h"

#include <QApplication>
#include <QUrl>

#include <utility>

namespace zeus {

namespace {

constexpr int kShutdownDeadlineMs = 15000;

}  // namespace

GuiService::GuiService(AppOptions options, AppSettings* settings, QObject* parent)
    : QObject(parent),
      m_options(std::move(options)),
      m_settings(settings),
      m_interceptCa(std::make_shared<InterceptCa>()),
      m_core(settings, coreOptions()),
      m_mcpHost(std::make_unique<GuiMcpHost>(m_sandbox, m_core)),
      m_tokens(&m_credentials) {}

GuiService::~GuiService() {
    m_dispatcher.setApprovalQueue(nullptr);
    m_mcpHost->dispatcher().disconnect(this);
    // The core outlives the windows (declaration order): nothing it says at its end may reach this object, whose
    // pages are gone by then. (The controllers' connections end with the controllers and the pages.)
    for (QObject* part : std::initializer_list<QObject*>{&m_core, &m_detector, &m_connection, &m_dispatcher, &m_sandbox,
                                                         &m_approvals}) {
        part->disconnect(this);
    }
}

void GuiService::activate() {
    m_dashboard->bringToFront();
}

QString GuiService::backendUrl() const {
    return m_signIn->backendUrl();
}

SandboxOverrides GuiService::sandboxOverrides() const {
    SandboxOverrides overrides = sandboxOverridesOf(m_options);
    overrides.interceptCa = m_interceptCa;
    return overrides;
}

void GuiService::loadInterceptCaIfBound() {
    if (m_interceptCa->isLoaded() || m_interceptCaLoading
        || SandboxSetup::configFrom(*m_settings, sandboxOverrides()).secretBindings.isEmpty()) {
        return;
    }
    m_interceptCaLoading = true;
    m_interceptCa->load();
}

AgentHostService::Options GuiService::coreOptions() const {
    AgentHostService::Options options;
    // Results the last run owed this backend are journaled from the start; a backend set up later in this run is
    // journaled from the next start. (Called before the sign-in exists: it reads the options itself.)
    const QString fromCommandLine = m_options.backend.trimmed();
    options.backend = QUrl(fromCommandLine.isEmpty() ? m_settings->backendUrl() : fromCommandLine);
    options.sandbox = sandboxOverrides();
    options.shutdownDeadlineMs = kShutdownDeadlineMs;
    return options;
}

void GuiService::start() {
    m_detector.setPreference(m_options.runtimePreference.value_or(
        runtimePreferenceFromString(m_settings->runtimePreference()).value_or(RuntimePreference::Auto)));

    m_signIn = std::make_unique<SignIn>(m_settings, m_credentials, m_connection, m_options.backend.trimmed(),
                                        [this] { return m_detector.hasResult() && !m_core.agentCheckPending(); });
    m_dashboard =
        std::make_unique<DashboardWindow>(m_settings, &m_detector, &m_connection, [this] { return buildReport(); });
    applyWorkspaceOverride();
    m_dashboard->connectionPanel()->setBackendUrlOverride(m_signIn->backendFromCommandLine() ? backendUrl()
                                                                                             : QString());
    m_dispatcher.setApprovedWorkspaces(approvedWorkspaces());
    m_tray = std::make_unique<TrayIcon>(m_settings);
    m_notifier = std::make_unique<TrayNotifier>(m_tray.get());
    m_tray->setRunApprovedFolder(m_dashboard->workspacePanel()->runApprovedWorkspace());
    m_sandboxView =
        std::make_unique<SandboxController>(m_sandbox, m_detector, m_settings, m_dashboard.get(), m_notifier.get());
    m_reviewView = std::make_unique<ReviewController>(m_core.reviews(), m_dashboard.get(), m_notifier.get());
    m_secretPrompter =
        std::make_unique<SecretPrompter>(m_core.secrets(), m_settings, m_notifier.get(), m_dashboard.get());
    const bool haveTray = TrayIcon::isAvailable();
    // Without a tray the dashboard is a normal window and closing it quits.
    QApplication::setQuitOnLastWindowClosed(false);
    m_dashboard->setClosingQuits(!haveTray);

    connectRequests();
    connectCalls();
    connectSettings();
    connectApproval();
    connectMcpHost();

    m_tray->show();
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
        m_dashboard->present(DashboardWindow::Page::Overview);
    }
    QTimer::singleShot(0, &m_detector, [this] { m_detector.detect(); });
    m_signIn->readToken();
}

// What the user asks for in the tray and the dashboard.
void GuiService::connectRequests() {
    DashboardWindow* dashboard = m_dashboard.get();
    WorkspacePanel* workspaces = dashboard->workspacePanel();
    connect(dashboard, &DashboardWindow::settingsRequested, this, &GuiService::openSettings);
    connect(dashboard, &DashboardWindow::quitRequested, this, &GuiService::beginShutdown);
    connect(m_tray.get(), &TrayIcon::openDashboardRequested, dashboard, &DashboardWindow::bringToFront);
    connect(m_tray.get(), &TrayIcon::chooseFolderRequested, workspaces, [this, workspaces] {
        m_dashboard->present(DashboardWindow::Page::Overview);
        workspaces->openFolderDialog();
    });
    connect(m_tray.get(), &TrayIcon::recentFolderChosen, workspaces, [this, workspaces](const QString& folder) {
        workspaces->chooseFolder(folder);
        if (workspaces->currentWorkspace().isEmpty()) {
            // Not approved (or refused): show why, and the Approve button.
            m_dashboard->present(DashboardWindow::Page::Overview);
        }
    });
    connect(m_tray.get(), &TrayIcon::diagnosticsRequested, dashboard,
            [this] { m_dashboard->present(DashboardWindow::Page::Diagnostics); });
    connect(m_tray.get(), &TrayIcon::settingsRequested, this, &GuiService::openSettings);
    connect(m_tray.get(), &TrayIcon::quitRequested, this, &GuiService::beginShutdown);
    ConnectionPanel* connectionPanel = dashboard->connectionPanel();
    SignIn* signIn = m_signIn.get();
    connect(m_tray.get(), &TrayIcon::connectRequested, signIn, &SignIn::connectByUser);
    connect(m_tray.get(), &TrayIcon::disconnectRequested, signIn, &SignIn::disconnectByUser);
    connect(connectionPanel, &ConnectionPanel::connectRequested, signIn, &SignIn::connectByUser);
    connect(connectionPanel, &ConnectionPanel::disconnectRequested, signIn, &SignIn::disconnectByUser);
    connect(connectionPanel, &ConnectionPanel::signInRequested, this, &GuiService::openSettings);
    connect(dashboard->diagnosticsPanel(), &DiagnosticsPanel::recheckRequested, &m_detector, &RuntimeDetector::recheck);
    connect(workspaces, &WorkspacePanel::currentWorkspaceChanged, this, &GuiService::updateStatus);
}

// The backend's calls, the connection, the runtime, the sandbox and the sign-in.
void GuiService::connectCalls() {
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    connect(&m_dispatcher, &ToolDispatcher::callStarted, sessions,
            [this, sessions](const QString& callId, const QString& sessionId, const QString& command,
                             const QString& workspace) {
                sessions->noteCall(callId, sessionId, command, workspace);
                updateStatus();
            });
    connect(&m_dispatcher, &ToolDispatcher::callFinished, this, &GuiService::onCallFinished);
    connect(&m_connection, &BackendConnection::stateChanged, this, [this](BackendConnection::State state) {
        m_tray->setConnectionState(state);
        if (state == BackendConnection::State::AuthFailed) {
            recordError(m_connection.lastError());
            m_notifier->notify(tr("Sign-in rejected"),
                               tr("The backend refused the sign-in token. Enter a new one in Settings."), true);
        }
        updateStatus();
    });
    connect(&m_detector, &RuntimeDetector::detectionFinished, this, &GuiService::onDetection);
    connect(&m_core, &AgentHostService::imageInspected, this, &GuiService::onImageInspected);
    connect(m_sandboxView.get(), &SandboxController::activityChanged, this, &GuiService::updateStatus);
    connect(m_reviewView.get(), &ReviewController::errorOccurred, this, &GuiService::recordError);
    connect(&m_sandbox, &SandboxHost::rebuilt, m_reviewView.get(), &ReviewController::attach);
    connect(m_signIn.get(), &SignIn::changed, this, &GuiService::updateStatus);
    connect(m_signIn.get(), &SignIn::errorOccurred, this, &GuiService::recordError);
    connect(m_signIn.get(), &SignIn::attentionNeeded, this, &GuiService::activate);
    connect(m_signIn.get(), &SignIn::settingsNeeded, this, &GuiService::openSettings);
    DiagnosticsPanel* diagnostics = m_dashboard->diagnosticsPanel();
    connect(m_signIn.get(), &SignIn::tokenRead, diagnostics,
            [diagnostics](const QString& token) { diagnostics->setSecrets({token}); });
    ConnectionPanel* connectionPanel = m_dashboard->connectionPanel();
    connect(m_signIn.get(), &SignIn::backendChanged, connectionPanel,
            [connectionPanel] { connectionPanel->setBackendUrlOverride(QString()); });
}

void GuiService::onCallFinished(const ToolResultMessage& result) {
    if (result.status == ExecStatus::Error) {
        recordError(result.errorMessage);
        if (result.errorCode == ProtocolErrorCode::WorkspaceInvalid) {
            // Perhaps the chosen folder itself is gone: the panel, the tray and the banner say so.
            m_dashboard->workspacePanel()->recheck();
        }
        m_notifier->notifyCallError(result);
    }
    updateStatus();
}

// Settings that take effect at once.
void GuiService::connectSettings() {
    // Until the CA is there, a bound secret's commands get a placeholder nothing replaces (never the value).
    connect(m_interceptCa.get(), &InterceptCa::ready, this, [this](const InterceptCa::Result& result) {
        m_interceptCaLoading = false;
        if (result.status == InterceptCa::Status::Ok) {
            m_interceptCaError.clear();
            qCInfo(lcApp).noquote() << "interception CA of host-bound secrets:" << m_interceptCa->fingerprint()
                                    << (result.created ? "(made now)" : "(from the keychain)");
        } else {
            m_interceptCaError = result.message;
            recordError(
                QStringLiteral("Host-bound secrets: the interception CA is not available: %1").arg(result.message));
        }
    });
    connect(&m_settings->secrets(), &SecretIndex::bindingsChanged, this, &GuiService::loadInterceptCaIfBound);
    loadInterceptCaIfBound();
    connect(m_settings, &AppSettings::approvedWorkspacesChanged, this, [this] {
        m_dispatcher.setApprovedWorkspaces(approvedWorkspaces());
        m_mcpHost->dispatcher().setApprovedWorkspaces(approvedWorkspaces());
        m_mcpHost->foldersChanged();
        updateStatus();
    });
    // The sandbox rebuilds with the new image once idle; the image row should say now whether it exists.
    connect(m_settings, &AppSettings::imageChanged, &m_core, &AgentHostService::inspectImage);
    connect(m_settings, &AppSettings::runtimePreferenceChanged, this, [this](const QString& value) {
        m_detector.setPreference(runtimePreferenceFromString(value).value_or(RuntimePreference::Auto));
        m_detector.recheck();
    });
}

void GuiService::connectApproval() {
    m_approvals.setInteractive(true);
    m_dispatcher.setApprovalQueue(&m_approvals);
    applyApprovalOptions(m_options, *m_settings, m_dispatcher);
    m_approvalDialog = std::make_unique<ApprovalDialog>(&m_approvals);
    connect(&m_approvals, &ApprovalQueue::questionAdded, m_notifier.get(), &TrayNotifier::notifyApprovalQuestion);
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    connect(&m_dispatcher, &ToolDispatcher::approvalDecided, sessions, &SessionsPanel::addApprovalRecord);
    // The backend's open_port (SPEC §8 "Ports"): the user approves each.
    m_core.portRequests().setAsker([sessions](const OpenPortMessage& request, std::function<void(bool)> answer) {
        sessions->askToPublish(request.sessionId, quint16(request.port), std::move(answer));
    });
}

void GuiService::connectMcpHost() {
    ToolDispatcher& door = m_mcpHost->dispatcher();
    door.setClientInfo(m_dispatcher.hello());
    door.setFlowControl(m_dispatcher.flowControl());
    door.setSecretBroker(&m_core.secrets());
    // The client is asked when it can be (elicitation), else the same dialog (SPEC §11, §12); in auto mode
    // nothing is asked.
    m_mcpHost->setApprovalFallback(&m_approvals);
    applyApprovalOptions(m_options, *m_settings, door);
    door.setApprovedWorkspaces(approvedWorkspaces());
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    connect(&door, &ToolDispatcher::callStarted, sessions,
            [this, sessions](const QString& callId, const QString& sessionId, const QString& command,
                             const QString& workspace) {
                sessions->noteCall(callId, sessionId, command, workspace);
                updateStatus();
            });
    connect(&door, &ToolDispatcher::callFinished, this, &GuiService::onCallFinished);
    connect(&door, &ToolDispatcher::approvalDecided, sessions, &SessionsPanel::addApprovalRecord);
    // MCP over HTTP when Settings > Agents turns it on (SPEC §12); a port in use or a keychain that fails is said.
    connect(m_mcpHost.get(), &GuiMcpHost::httpStateChanged, this, [this] {
        const QString problem = m_mcpHost->httpProblem();
        if (!problem.isEmpty()) {
            recordError(problem);
            m_notifier->notify(tr("MCP over HTTP is off"), problem, true);
        }
    });
    connect(m_settings, &AppSettings::mcpHttpPortChanged, m_mcpHost.get(),
            [this](int port) { m_mcpHost->setHttpPort(port); });
    m_mcpHost->setHttpPort(m_settings->mcpHttpPort());
}

void GuiService::onDetection(const DetectionResult& detection) {
    // The service (connected first) handed the detection to the sandbox and asked the image whether it carries an
    // agent, when that decides if the sandbox is ready (SPEC §7).
    if (!m_core.agentCheckPending()) {
        m_dashboard->runtimePanel()->setReadinessProblem({});
    }
    if (!m_detectedOnce) {
        m_detectedOnce = true;
        // The token was read meanwhile: now the connection can start, unless the image check must answer first
        // (onImageInspected starts it then).
        m_signIn->connectIfReady();
    }
    if (!detection.isUsable()) {
        recordError(detection.reason);
        if (!m_warnedNoRuntime) {
            m_warnedNoRuntime = true;
            m_notifier->notify(tr("No container runtime"), detection.reason, true);
            // Guidance front and centre on the first run without a runtime.
            m_dashboard->present(DashboardWindow::Page::Overview);
        }
    }
    if (m_dashboard->currentPage() == DashboardWindow::Page::Diagnostics) {
        m_dashboard->diagnosticsPanel()->refresh();
    }
    updateStatus();
}

void GuiService::onImageInspected(bool agentCheckDone) {
    // Every answer about the image decides again (a rebuilt image may carry an agent now); the one the first
    // detection waited for also lets the connection start.
    if (m_detector.hasResult() && m_detector.result().isUsable()) {
        const QString problem = m_sandbox.readinessProblem();
        m_dashboard->runtimePanel()->setReadinessProblem(problem);
        if (!problem.isEmpty() && problem != m_notifiedReadinessProblem) {
            m_notifiedReadinessProblem = problem;
            recordError(problem);
            m_notifier->notify(tr("Not ready: no sandbox agent"), problem, true);
        }
        if (agentCheckDone) {
            m_signIn->connectIfReady(true);
        }
        updateStatus();
    }
    if (m_dashboard && m_dashboard->currentPage() == DashboardWindow::Page::Diagnostics) {
        m_dashboard->diagnosticsPanel()->refresh();
    }
}

void GuiService::openSettings() {
    if (!m_settingsDialog) {
        m_settingsDialog = new SettingsDialog(m_settings, &m_tokens, m_dashboard.get());
        m_settingsDialog->setStartAtLogin(&m_loginItem);
        m_settingsDialog->setSecretStore(&m_secretStore);
        // A new MCP HTTP token replaces the old one at once: the running server takes it.
        connect(m_settingsDialog->mcpPage(), &McpPage::tokenRenewed, m_mcpHost.get(), &GuiMcpHost::renewToken);
        m_settingsDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_settingsDialog->show();
    m_settingsDialog->raise();
    m_settingsDialog->activateWindow();
}

TrayStatus::Input GuiService::statusInput() const {
    TrayStatus::Input input;
    if (m_detector.hasResult()) {
        input.setDetection(m_detector.result());
    }
    input.connection = m_connection.state();
    input.nextReconnect = m_connection.nextAttemptAt();
    input.connectionError = m_connection.lastError();
    input.workspace = m_dashboard->workspacePanel()->currentWorkspace();
    input.missingWorkspace = m_dashboard->workspacePanel()->missingApprovedWorkspace();
    input.runningSessions = m_dashboard->sessionsPanel()->model()->runningSessions();
    const SessionManager* manager = m_sandbox.manager();
    input.runningCommands = manager ? manager->runningCalls() : 0;
    input.tokenChecked = m_signIn->tokenChecked();
    input.readinessProblem = m_sandbox.readinessProblem();
    input.signInMissing = backendUrl().isEmpty() || m_signIn->token().isEmpty();
    return input;
}

// The tray, the banner and the console, all from the same facts.
void GuiService::updateStatus() {
    const TrayStatus::Input input = statusInput();
    m_tray->setStatus(TrayStatus::from(input));
    const TrayStatus::Banner banner = TrayStatus::bannerFor(input);
    m_dashboard->setBanner(banner.banner, banner.detail);
    const TrayStatus::ConsoleReadiness console = TrayStatus::consoleFor(input);
    m_dashboard->console()->setReady(console.workspace, console.reason);
}

void GuiService::applyWorkspaceOverride() {
    WorkspacePanel* panel = m_dashboard->workspacePanel();
    if (!m_options.workspace.isEmpty() && !panel->approveForThisRun(m_options.workspace)) {
        recordError(tr("Refused working directory %1: %2").arg(m_options.workspace, panel->verdict().message));
    }
}

QStringList GuiService::approvedWorkspaces() const {
    QStringList workspaces = m_settings->approvedWorkspaces();
    const QString forThisRun = m_dashboard ? m_dashboard->workspacePanel()->runApprovedWorkspace() : QString();
    if (!forThisRun.isEmpty() && !workspaces.contains(forThisRun)) {
        workspaces.append(forThisRun);
    }
    return workspaces;
}

void GuiService::beginShutdown() {
    if (m_shuttingDown) {
        return;
    }
    m_shuttingDown = true;
    qCInfo(lcApp) << "quitting: removing containers";
    m_connection.stop();
    m_mcpHost->closeAll();
    m_dashboard->hide();
    // Calls cancelled, containers removed (or the deadline passed): then the event loop ends.
    connect(&m_core, &AgentHostService::stateChanged, this, [](AgentHostService::State state) {
        if (state == AgentHostService::State::Stopped) {
            QCoreApplication::quit();
        }
    });
    m_core.shutdown();
}

}  // namespace zeus
