#include "guiservice.h"

#include "approval/approvaldialog.h"
#include "dashboard/connectionpanel.h"
#include "dashboard/dashboardwindow.h"
#include "dashboard/imagebuilddialog.h"
#include "dashboard/localconsole.h"
#include "dashboard/networkpanel.h"
#include "dashboard/runtimepanel.h"
#include "dashboard/workspacepanel.h"
#include "modes.h"
#include "monitor/containermonitor.h"
#include "review/reviewpanel.h"
#include "sandbox/sessionmanager.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "settings/settingsdialog.h"
#include "support/logging.h"
#include "tray/secretapprovaldialog.h"
#include "tray/trayicon.h"
#include "tray/traynotifier.h"

#include <zeus/buildinfo.h>

#include <QApplication>
#include <QDir>
#include <QSystemTrayIcon>
#include <QUrl>
#include <QUuid>

#include <utility>

namespace zeus {

namespace {

constexpr int kShutdownDeadlineMs = 15000;

}  // namespace

GuiService::GuiService(const AppOptions& options, AppSettings* settings, QObject* parent)
    : QObject(parent),
      m_options(options),
      m_settings(settings),
      m_backendOverride(options.backend.trimmed()),
      m_core(settings, coreOptions()),
      m_tokens(&m_credentials) {}

GuiService::~GuiService() {
    m_dispatcher.setApprovalQueue(nullptr);
    // The sandbox outlives the dashboard (declaration order); nothing it says at its end may reach widgets
    // that are gone.
    m_sandbox.disconnect(this);
    if (SessionManager* manager = m_sandbox.manager()) {
        manager->disconnect(this);
    }
    if (ContainerMonitor* monitor = m_sandbox.monitor()) {
        monitor->disconnect(this);
    }
}

void GuiService::activate() {
    m_dashboard->bringToFront();
}

AgentHostService::Options GuiService::coreOptions() const {
    AgentHostService::Options options;
    // Results the last run owed this backend are journaled from the start; a backend set up later in this run is
    // journaled from the next start.
    options.backend = QUrl(backendUrl());
    options.sandbox = sandboxOverrides();
    options.shutdownDeadlineMs = kShutdownDeadlineMs;
    return options;
}

void GuiService::start() {
    const QString runtimeName = m_options.runtime.isEmpty() ? m_settings->runtimePreference() : m_options.runtime;
    m_detector.setPreference(runtimePreferenceFromString(runtimeName).value_or(RuntimePreference::Auto));
    wireSecrets();

    m_dashboard =
        std::make_unique<DashboardWindow>(m_settings, &m_detector, &m_connection, [this] { return buildReport(); });
    applyWorkspaceOverride();
    m_dashboard->connectionPanel()->setBackendUrlOverride(m_backendOverride);
    m_dispatcher.setApprovedWorkspaces(approvedWorkspaces());
    m_tray = std::make_unique<TrayIcon>(m_settings);
    m_notifier = std::make_unique<TrayNotifier>(m_tray.get());
    m_tray->setRunApprovedFolder(m_dashboard->workspacePanel()->runApprovedWorkspace());
    const bool haveTray = TrayIcon::isAvailable();
    // Without a tray the dashboard is a normal window and closing it quits.
    QApplication::setQuitOnLastWindowClosed(false);
    m_dashboard->setClosingQuits(!haveTray);

    connectRequests();
    connectCalls();
    connectSettings();
    connectApproval();
    connectNetworkPanel();
    connectReview();

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
        activate();
        m_dashboard->showPage(DashboardWindow::Page::Overview);
    }
    QTimer::singleShot(0, &m_detector, [this] { m_detector.detect(); });
    readToken();
}

// What the user asks for in the tray and the dashboard.
void GuiService::connectRequests() {
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
    connect(m_tray.get(), &TrayIcon::connectRequested, this, [this] { setUserDisconnected(false); });
    connect(m_tray.get(), &TrayIcon::disconnectRequested, this, [this] { setUserDisconnected(true); });
    connect(m_tray.get(), &TrayIcon::diagnosticsRequested, this, [this] {
        activate();
        m_dashboard->showPage(DashboardWindow::Page::Diagnostics);
    });
    connect(m_tray.get(), &TrayIcon::settingsRequested, this, &GuiService::openSettings);
    connect(m_tray.get(), &TrayIcon::quitRequested, this, &GuiService::beginShutdown);

    ConnectionPanel* connectionPanel = m_dashboard->connectionPanel();
    connect(connectionPanel, &ConnectionPanel::connectRequested, this, [this] { setUserDisconnected(false); });
    connect(connectionPanel, &ConnectionPanel::disconnectRequested, this, [this] { setUserDisconnected(true); });
    connect(connectionPanel, &ConnectionPanel::signInRequested, this, &GuiService::openSettings);
    connect(m_dashboard->diagnosticsPanel(), &DiagnosticsPanel::recheckRequested, &m_detector,
            &RuntimeDetector::recheck);
    connect(m_dashboard->diagnosticsPanel(), &DiagnosticsPanel::buildImageRequested, this, &GuiService::buildImage);
    connect(m_dashboard.get(), &DashboardWindow::sessionsPageVisibleChanged, &m_sandbox,
            &SandboxHost::setStatsPollingEnabled);
    connect(m_dashboard->workspacePanel(), &WorkspacePanel::currentWorkspaceChanged, this, &GuiService::updateStatus);
    connect(m_dashboard->sessionsPanel(), &SessionsPanel::stopRequested, this, [this](const QString& sessionId) {
        if (SessionManager* manager = m_sandbox.manager()) {
            manager->endSession(sessionId);
        }
    });
    LocalConsole* console = m_dashboard->console();
    connect(console, &LocalConsole::runRequested, this, &GuiService::runConsoleCommand);
    connect(console, &LocalConsole::stopRequested, this, [this](const QString& callId) {
        if (SessionManager* manager = m_sandbox.manager()) {
            manager->cancel(callId);
        }
    });
}

// The backend's calls, the connection, the runtime and the sandbox.
void GuiService::connectCalls() {
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    connect(&m_dispatcher, &ToolDispatcher::callStarted, this,
            [this, sessions](const QString& callId, const QString& sessionId, const QString& command,
                             const QString& workspace) {
                sessions->noteCall(callId, sessionId, command, workspace);
                updateStatus();
            });
    connect(&m_dispatcher, &ToolDispatcher::callFinished, this, [this](const ToolResultMessage& result) {
        if (result.status == ExecStatus::Error) {
            recordError(result.errorMessage);
            if (result.errorCode == ProtocolErrorCode::WorkspaceInvalid) {
                // Perhaps the chosen folder itself is gone: the panel, the tray and the banner say so.
                m_dashboard->workspacePanel()->recheck();
                m_notifier->notifyLimited(QStringLiteral("gone ") + result.errorMessage, tr("Folder no longer exists"),
                                          result.errorMessage, true);
            }
            if (result.errorCode == ProtocolErrorCode::WorkspaceNotApproved) {
                // The backend asked for a folder the user has not approved: say where to approve one.
                // Once a minute per message (it names the folder): a backend retrying in a loop must not flood
                // the desktop.
                m_notifier->notifyLimited(QStringLiteral("unapproved ") + result.errorMessage,
                                          tr("Folder not approved"),
                                          tr("%1\nApprove the folder in the dashboard if the agent should work there.")
                                              .arg(result.errorMessage),
                                          true);
            }
        }
        updateStatus();
    });
    connect(&m_connection, &BackendConnection::stateChanged, this, [this](BackendConnection::State state) {
        m_tray->setConnectionActive(
            state != BackendConnection::State::Disconnected && state != BackendConnection::State::SignedOut
            && state != BackendConnection::State::AuthFailed && state != BackendConnection::State::Error);
        if (state == BackendConnection::State::AuthFailed) {
            recordError(m_connection.lastError());
            m_notifier->notify(tr("Sign-in rejected"),
                               tr("The backend refused the sign-in token. Enter a new one in Settings."), true);
        }
        updateStatus();
    });
    connect(&m_detector, &RuntimeDetector::detectionFinished, this, &GuiService::onDetection);
    connect(&m_sandbox, &SandboxHost::rebuilt, this, &GuiService::onSandboxRebuilt);
    connect(&m_core, &AgentHostService::imageInspected, this, &GuiService::onImageInspected);
}

// Settings and keychain changes that take effect at once.
void GuiService::connectSettings() {
    connect(m_settings, &AppSettings::approvedWorkspacesChanged, this, [this] {
        m_dispatcher.setApprovedWorkspaces(approvedWorkspaces());
        updateStatus();
    });
    connect(m_settings, &AppSettings::backendUrlChanged, this, [this] {
        // A URL chosen in Settings now wins over the command line's.
        m_backendOverride.clear();
        m_dashboard->connectionPanel()->setBackendUrlOverride(QString());
        m_token.clear();
        m_lastTokenRead.reset();  // it was about the old URL's account
        m_connection.stop();
        readToken();
    });
    // The sandbox rebuilds with the new image once idle; the image row should say now whether it exists.
    connect(m_settings, &AppSettings::imageChanged, &m_core, &AgentHostService::inspectImage);
    connect(m_settings, &AppSettings::runtimePreferenceChanged, this, [this](const QString& value) {
        m_detector.setPreference(runtimePreferenceFromString(value).value_or(RuntimePreference::Auto));
        m_detector.recheck();
    });
    connect(&m_credentials, &CredentialStore::readFinished, this, &GuiService::onTokenRead);
    connect(&m_credentials, &CredentialStore::writeFinished, this,
            [this](const QString&, const CredentialStore::Result& result) {
                if (result.status == CredentialStore::Status::Ok) {
                    m_userDisconnected = false;
                    readToken();
                }
            });
    connect(&m_credentials, &CredentialStore::deleteFinished, this,
            [this](const QString& url, const CredentialStore::Result& result) {
                if (result.status == CredentialStore::Status::Ok && url == backendUrl()) {
                    // Signed out: the keychain now holds no token for this account, as a read would say.
                    m_lastTokenRead =
                        CredentialStore::Result{CredentialStore::Status::SignedOut, QString(), QString(), false};
                }
                m_token.clear();
                m_connection.setToken(QString());
                updateStatus();
            });
}

void GuiService::connectApproval() {
    m_approvals.setInteractive(true);
    m_dispatcher.setApprovalQueue(&m_approvals);
    applyApprovalOptions(m_options, *m_settings, m_dispatcher);
    m_approvalDialog = std::make_unique<ApprovalDialog>(&m_approvals);
    connect(&m_approvals, &ApprovalQueue::questionAdded, this, [this](const ApprovalQuestion& question) {
        // The dialog queues every question; the notification is said once a minute per folder.
        m_notifier->notifyLimited(QStringLiteral("approval ") + question.folder, tr("Command waiting for approval"),
                                  tr("%1\nin %2").arg(question.command.simplified().left(200), question.folder), false);
    });
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    connect(&m_dispatcher, &ToolDispatcher::approvalDecided, this, [sessions](const ApprovalRecord& record) {
        SessionLogEntry entry;
        entry.kind = SessionLogEntry::Kind::Event;
        entry.time = record.time;
        entry.callId = record.callId;
        entry.message = record.summary() + QStringLiteral(": ") + record.command.simplified().left(300);
        sessions->addLogEntry(record.sessionId, entry);
    });
}

void GuiService::onDetection(const DetectionResult& detection) {
    // The service (connected first) handed the detection to the sandbox and asked the image whether it carries an
    // agent, when that decides if the sandbox is ready (SPEC §7).
    if (!m_core.agentCheckPending()) {
        m_dashboard->runtimePanel()->setReadinessProblem({});
    }
    if (!m_detectedOnce) {
        m_detectedOnce = true;
        // The token was read meanwhile: now the connection can start (see onTokenRead), unless the image check
        // must answer first (onImageInspected starts it then).
        if (m_tokenChecked && !m_userDisconnected && !backendUrl().isEmpty() && !m_core.agentCheckPending()) {
            connectBackend();
        }
    }
    if (!detection.isUsable()) {
        recordError(detection.reason);
        if (!m_warnedNoRuntime) {
            m_warnedNoRuntime = true;
            m_notifier->notify(tr("No container runtime"), detection.reason, true);
            // Guidance front and centre on the first run without a runtime.
            activate();
            m_dashboard->showPage(DashboardWindow::Page::Overview);
        }
    }
    if (m_dashboard->currentPage() == DashboardWindow::Page::Diagnostics) {
        m_dashboard->diagnosticsPanel()->refresh();
    }
    updateStatus();
}

// A new manager and monitor (first runtime, other runtime or new settings): show what they do.
void GuiService::onEgressDecided(const EgressEvent& event) {
    m_dashboard->networkPanel()->addEvent(event);
    m_notifier->notifyDenied(event);
}

void GuiService::connectNetworkPanel() {
    NetworkPanel* panel = m_dashboard->networkPanel();
    connect(panel, &NetworkPanel::allowOnceRequested, this,
            [this](const QString& session, const QString& host, int port) {
                if (SessionManager* manager = m_sandbox.manager()) {
                    manager->allowHostOnce(session, host, port);
                }
            });
    connect(panel, &NetworkPanel::allowForSessionRequested, this, [this](const QString& session, const QString& rule) {
        if (SessionManager* manager = m_sandbox.manager()) {
            manager->allowHostForSession(session, rule);
        }
    });
    connect(panel, &NetworkPanel::allowForFolderRequested, this, [this](const QString& session, const QString& rule) {
        const SessionManager* manager = m_sandbox.manager();
        const QString folder = manager != nullptr ? manager->sessionWorkspace(session) : QString();
        if (!folder.isEmpty()) {
            m_settings->addFolderAllowedHost(folder, rule);  // the live sessions get it through the settings
        }
    });
    // A click on the last "Blocked" notification opens the policy log at that host.
    connect(m_notifier.get(), &TrayNotifier::deniedNoticeClicked, panel, [this, panel](const EgressEvent& event) {
        m_dashboard->bringToFront();
        m_dashboard->showPage(DashboardWindow::Page::Network);
        panel->selectHost(event.sessionId, event.host, event.port);
    });
}

void GuiService::connectReview() {
    ReviewPanel* panel = m_dashboard->reviewPanel();
    // A click on the last "changes to review" notification opens the Changes page at that session.
    connect(m_notifier.get(), &TrayNotifier::reviewNoticeClicked, panel, [this, panel](const QString& sessionId) {
        m_dashboard->bringToFront();
        m_dashboard->showPage(DashboardWindow::Page::Changes);
        panel->showSession(sessionId);
    });
    SessionTableModel* table = m_dashboard->sessionsPanel()->model();
    const auto showRecords = [this, panel, table] {
        const QList<ReviewRecord> records = m_reviews.records();
        panel->setRecords(records);
        for (const ReviewRecord& record : records) {
            // The count comes with the change list; until then it is not known.
            const QList<Change> changes = m_reviews.lastChanges(record.sessionId);
            table->setChangesToReview(record.sessionId, record.workspace,
                                      changes.isEmpty() ? -1 : ChangeSet::peopleCount(changes));
        }
    };
    connect(&m_reviews, &ReviewService::recordsChanged, this, showRecords);
    connect(panel, &ReviewPanel::refreshRequested, &m_reviews, &ReviewService::refreshChanges);
    connect(panel, &ReviewPanel::detailRequested, &m_reviews, &ReviewService::requestDetail);
    connect(panel, &ReviewPanel::applyRequested, &m_reviews, &ReviewService::apply);
    connect(panel, &ReviewPanel::discardRequested, &m_reviews, &ReviewService::discard);
    connect(
        &m_reviews, &ReviewService::changesReady, this,
        [this, panel, table](const QString& sessionId, bool ok, const QString& error, const QList<Change>& changes) {
            panel->setChanges(sessionId, ok, error, changes);
            if (!ok) {
                return;
            }
            if (const std::optional<ReviewRecord> record = m_reviews.store().record(sessionId)) {
                table->setChangesToReview(sessionId, record->workspace, ChangeSet::peopleCount(changes));
            }
        });
    connect(&m_reviews, &ReviewService::detailReady, panel, &ReviewPanel::setDetail);
    connect(&m_reviews, &ReviewService::applied, this,
            [this, panel](const QString& sessionId, const QList<ApplyOutcome>& outcomes, const QString& error) {
                panel->setApplied(sessionId, outcomes, error);
                if (!error.isEmpty()) {
                    recordError(error);
                }
            });
    connect(&m_reviews, &ReviewService::commitsFetched, panel,
            [panel](const QString& sessionId, const CommitsResult& commits) {
                panel->setCommits(sessionId, commits.describe(), commits.state == CommitsResult::State::Failed);
            });
    connect(&m_reviews, &ReviewService::discarded, this,
            [this, panel, table](const QString& sessionId, bool ok, const QString& error) {
                panel->setDiscarded(sessionId, ok, error);
                if (ok) {
                    table->clearChangesToReview(sessionId);
                    panel->setRecords(m_reviews.records());
                } else {
                    recordError(error);
                }
            });
    // The copies an earlier run (or the command line) kept.
    showRecords();
}

void GuiService::onReviewCopyKept(const QString& sessionId, const QString& workspace, int changeCount) {
    m_reviews.notifyStoreChanged();
    m_dashboard->sessionsPanel()->model()->setChangesToReview(sessionId, workspace, changeCount);
    m_notifier->notifyReviewCopy(sessionId, workspace, changeCount);
}

void GuiService::onSandboxRebuilt(SessionManager* manager, ContainerMonitor* monitor) {
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    LocalConsole* console = m_dashboard->console();
    connect(manager, &SessionManager::output, this,
            [sessions, console](const QString& callId, OutputStream stream, const QString& text) {
                sessions->appendOutput(callId, stream, text);
                console->appendOutput(callId, stream, text);
            });
    connect(manager, &SessionManager::callFinished, this, [this, sessions, console](const ExecResult& result) {
        sessions->callFinished(result);
        console->callFinished(result);
        if (result.status == ExecStatus::Error
            && (result.errorCode == ExecError::ImageMissing || result.errorCode == ExecError::ContainerFailed)) {
            m_notifier->notifyLimited(QStringLiteral("failed ") + result.errorMessage, tr("Command failed"),
                                      result.errorMessage, true);
        }
        updateStatus();
    });
    connect(manager, &SessionManager::sessionStateChanged, this,
            [this, sessions](const QString& sessionId, SessionState state, const QString& containerId) {
                sessions->setSessionState(sessionId, state, containerId);
                updateStatus();
            });
    connect(manager, &SessionManager::sessionLogEntryAdded, sessions, &SessionsPanel::addLogEntry);
    connect(manager, &SessionManager::egressDecided, this, &GuiService::onEgressDecided);
    connect(manager, &SessionManager::sessionExecPathChanged, sessions->model(), &SessionTableModel::setExecPath);
    connect(manager, &SessionManager::sessionExecPathChanged, this, &GuiService::onExecPathChanged);
    connect(manager, &SessionManager::reviewCopyTaken, &m_reviews, &ReviewService::notifyStoreChanged);
    connect(manager, &SessionManager::reviewCopyKept, this, &GuiService::onReviewCopyKept);
    if (monitor) {
        connect(monitor, &ContainerMonitor::containerEvent, this,
                [sessions](const QString& containerId, const QString&, ContainerEvent::State state, int exitCode) {
                    sessions->model()->applyContainerEvent(containerId, state, exitCode);
                });
        connect(monitor, &ContainerMonitor::statsUpdated, this,
                [sessions](const QString& containerId, double cpuPercent, qint64 memoryBytes) {
                    sessions->model()->setUsageForContainer(containerId, cpuPercent, memoryBytes);
                });
    }
}

void GuiService::onExecPathChanged(const QString& sessionId, const QString& execPath) {
    // "exec: <why>" is a fallback that happened although an agent was expected; "exec (forced)" was asked for.
    if (!execPath.startsWith(QLatin1String("exec: "))) {
        return;
    }
    const QString why = execPath.mid(6);
    const QString text =
        tr("The sandbox agent is not available (%1): commands run with plain exec, slower, and an allowlist session "
           "has no network.")
            .arg(why);
    if (sessionId == LocalConsole::kSessionId) {
        m_dashboard->console()->addNotice(text);
    }
    m_notifier->notifyLimited(QStringLiteral("exec path ") + sessionId, tr("Sandbox agent not available"), text, true);
}

// Diagnostics -> Build Image…: the image the sandbox uses, with the runtime it uses, as --build-image does; a
// success asks the runtime again (a new image may carry the agent the sandbox was waiting for).
void GuiService::buildImage() {
    if (m_imageBuild) {
        m_imageBuild->raise();
        m_imageBuild->activateWindow();
        return;
    }
    const QString dockerDir = ImageBuilder::locateDockerDirectory();
    const std::optional<DetectionResult> detection =
        m_detector.hasResult() ? std::optional<DetectionResult>(m_detector.result()) : std::nullopt;
    QString problem;
    if (!detection || !detection->chosen) {
        problem = detection ? detection->unusableReason() : tr("The container runtime is still being checked.");
    } else if (dockerDir.isEmpty()) {
        problem = tr("The sandbox Dockerfile was not found. Reinstall %1, or set ZEUS_DOCKER_DIR to the folder "
                     "that holds it.")
                      .arg(QStringLiteral(ZEUS_APP_NAME));
    }
    if (!problem.isEmpty()) {
        m_notifier->notify(tr("Cannot build the image"), problem, true);
        return;
    }
    const ImageBuilder::Request request = ImageBuilder::sandboxRequest(
        SandboxSetup::cliProgram(*detection), m_sandbox.setupFor(*detection).config.image, dockerDir);
    m_imageBuild = new ImageBuildDialog(request, runtimeDisplayName(*detection->chosen), m_dashboard.get());
    m_imageBuild->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_imageBuild, &ImageBuildDialog::buildFinished, &m_detector, [this](bool success) {
        if (success) {
            m_detector.recheck();
        }
    });
    m_imageBuild->show();
    m_imageBuild->start();
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
        if (agentCheckDone && m_connection.state() == BackendConnection::State::Disconnected && m_tokenChecked
            && !m_userDisconnected && !backendUrl().isEmpty()) {
            connectBackend();
        }
        updateStatus();
    }
    if (m_dashboard && m_dashboard->currentPage() == DashboardWindow::Page::Diagnostics) {
        m_dashboard->diagnosticsPanel()->refresh();
    }
}

void GuiService::readToken() {
    const QString url = backendUrl();
    if (url.isEmpty()) {
        // First run: nothing can connect before the user signs in, so say so up front.
        m_tokenChecked = true;
        updateStatus();
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
    m_lastTokenRead = result;
    m_lastTokenRead->token.clear();
    if (result.status != CredentialStore::Status::Ok && result.status != CredentialStore::Status::SignedOut) {
        recordError(result.message);
    }
    m_dashboard->diagnosticsPanel()->setSecrets({m_token});
    // The first hello must say which runtime serves the calls: connect once detection (and the image's agent
    // check, when there is one) is done.
    if (!m_userDisconnected && m_detector.hasResult() && !m_core.agentCheckPending()) {
        connectBackend();
    }
    updateStatus();
    if (m_token.isEmpty()) {
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
    // No token: SignedOut, whatever the URL (SPEC §5 "No anonymous backends").
    m_connection.setToken(m_token);
    m_connection.start();
}

void GuiService::setUserDisconnected(bool disconnected) {
    m_userDisconnected = disconnected;
    if (disconnected) {
        m_connection.stop();
    } else {
        connectBackend();
    }
}

// SPEC §9: the broker asks through a tray notification and a dialog naming the secret, the command and the folder;
// "always in this folder" is remembered in the settings (names only; the service records the last use).
void GuiService::wireSecrets() {
    m_secrets.setInteractive(true);
    m_secrets.setKnownNames(m_settings->secretNames());
    m_secrets.setFolderApprovals(m_settings->secretFolderGrants());
    connect(m_settings, &AppSettings::secretsChanged, this, [this] {
        m_secrets.setKnownNames(m_settings->secretNames());
        m_secrets.setFolderApprovals(m_settings->secretFolderGrants());
    });
    connect(&m_secrets, &SecretBroker::alwaysApproved, this,
            [this](const QString& name, const QString& folder) { m_settings->addSecretFolderGrant(name, folder); });
    connect(&m_secrets, &SecretBroker::approvalNeeded, this, [this](const SecretBroker::Request& request) {
        if (m_tray) {
            m_notifier->notify(tr("Allow a secret?"), SecretApprovalDialog::question(request));
        }
        auto* dialog = new SecretApprovalDialog(request, m_dashboard.get());
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &SecretApprovalDialog::decided, &m_secrets, &SecretBroker::decide);
        m_secretDialogs.insert(request.id, dialog);
        dialog->show();
        dialog->raise();
        dialog->activateWindow();
    });
    connect(&m_secrets, &SecretBroker::approvalSettled, this, [this](const QString& id) {
        const QPointer<SecretApprovalDialog> dialog = m_secretDialogs.take(id);
        if (dialog) {
            dialog->close();  // answered here, timed out or cancelled
        }
    });
}

void GuiService::openSettings() {
    if (!m_settingsDialog) {
        m_settingsDialog = new SettingsDialog(m_settings, &m_tokens, m_dashboard.get());
        m_settingsDialog->setStartAtLogin(&m_loginItem);
        m_settingsDialog->setSecretStore(&m_secretStore);
        m_settingsDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_settingsDialog->show();
    m_settingsDialog->raise();
    m_settingsDialog->activateWindow();
}

void GuiService::runConsoleCommand(const QString& command) {
    LocalConsole* console = m_dashboard->console();
    SessionManager* manager = m_sandbox.manager();
    if (!manager || console->workspace().isEmpty()) {
        return;
    }
    ExecRequest request;
    request.callId = QStringLiteral("console-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    request.sessionId = LocalConsole::kSessionId;
    request.workspace = console->workspace();
    request.command = command;
    console->callStarted(request.callId, command);
    m_dashboard->sessionsPanel()->noteCall(request.callId, request.sessionId, command, request.workspace);
    manager->execute(request);
    updateStatus();
}

TrayStatus::Input GuiService::statusInput() const {
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
    input.missingWorkspace = m_dashboard->workspacePanel()->missingApprovedWorkspace();
    input.runningSessions = m_dashboard->sessionsPanel()->model()->runningSessions();
    const SessionManager* manager = m_sandbox.manager();
    input.runningCommands = manager ? manager->runningCalls() : 0;
    input.tokenChecked = m_tokenChecked;
    input.readinessProblem = m_sandbox.readinessProblem();
    input.signInMissing = backendUrl().isEmpty() || m_token.isEmpty();
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
    QStringList workspaces = m_settings->approvedWorkspaces();
    const QString forThisRun = m_dashboard ? m_dashboard->workspacePanel()->runApprovedWorkspace() : QString();
    if (!forThisRun.isEmpty() && !workspaces.contains(forThisRun)) {
        workspaces.append(forThisRun);
    }
    return workspaces;
}

void GuiService::recordError(const QString& error) {
    m_recentErrors.record(error);
}

void GuiService::beginShutdown() {
    if (m_shuttingDown) {
        return;
    }
    m_shuttingDown = true;
    qCInfo(lcApp) << "quitting: removing containers";
    m_connection.stop();
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
