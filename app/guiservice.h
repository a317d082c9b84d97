#pragma once

#include "agenthostservice.h"
#include "appoptions.h"
#include "approval/approvalqueue.h"
#include "appsettings.h"
#include "autostartloginitem.h"
#include "backend/backendconnection.h"
#include "backend/credentialstore.h"
#include "backend/tooldispatcher.h"
#include "diagnosticsreport.h"
#include "engine/imageinspector.h"
#include "runtime/runtimedetector.h"
#include "sandbox/egress/egressproxy.h"
#include "sandbox/review/reviewservice.h"
#include "sandboxhost.h"
#include "secrets/secretbroker.h"
#include "secrets/secretstore.h"
#include "settings/keychaintokenstore.h"
#include "support/recenterrors.h"
#include "tray/traystatus.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <optional>

namespace zeus {

class ApprovalDialog;
class ContainerMonitor;
class DashboardWindow;
class ImageBuildDialog;
class SessionManager;
class SecretApprovalDialog;
class SettingsDialog;
class TrayIcon;
class TrayNotifier;

// The tray app (SPEC §6): the detector, the keychain, the backend connection and its dispatcher, the sandbox
// (a SandboxHost), and the windows that show them. It connects core's objects to the widgets and derives the
// tray, banner and console state through TrayStatus.
//
// The settings belong to the caller (runGuiMode, or a test's temporary file). It must never build a sandbox
// itself (SandboxHost does, through SandboxSetup), nor keep a token anywhere but in memory.
class GuiService : public QObject {
    Q_OBJECT
public:
    GuiService(const AppOptions& options, AppSettings* settings, QObject* parent = nullptr);
    ~GuiService() override;

    // Builds the windows, connects everything and starts detection and sign-in.
    void start();
    // Quit: stop the connection, remove the containers, then leave the event loop (with a deadline).
    void beginShutdown();
    void activate();

    // The sandbox of this run (what it builds comes from SandboxHost::setupFor()).
    SandboxHost& sandbox() { return m_sandbox; }
    // The support report of the Diagnostics page (guidiagnostics.cpp).
    DiagnosticsReport buildReport() const;

private:
    void connectRequests();
    void connectCalls();
    void connectSettings();
    // Command approval (SPEC §11): the queue the dialog answers, the tray notice, the session log.
    void connectApproval();
    void onDetection(const DetectionResult& detection);
    void onSandboxRebuilt(SessionManager* manager, ContainerMonitor* monitor);
    void onEgressDecided(const EgressEvent& event);
    void connectNetworkPanel();
    // Review mode (SPEC §10): the Changes page and the copies on disk, the notice when a session keeps one.
    void connectReview();
    void onReviewCopyKept(const QString& sessionId, const QString& workspace, int changeCount);
    void readToken();
    void onTokenRead(const QString& url, const CredentialStore::Result& result);
    // Diagnostics -> Build Image…
    void buildImage();
    // The image answered (AgentHostService::imageInspected): the readiness, the runtime panel, the Diagnostics page.
    void onImageInspected(bool agentCheckDone);
    void connectBackend();
    void setUserDisconnected(bool disconnected);
    void openSettings();
    void runConsoleCommand(const QString& command);
    void updateStatus();
    void recordError(const QString& error);
    void applyWorkspaceOverride();
    // The facts the tray, the banner and the console are derived from.
    TrayStatus::Input statusInput() const;
    // --backend for this run, else the setting.
    QString backendUrl() const { return m_backendOverride.isEmpty() ? m_settings->backendUrl() : m_backendOverride; }
    // This run's --image and --profile, over the settings.
    SandboxOverrides sandboxOverrides() const { return sandboxOverridesOf(m_options); }
    // This run's backend and sandbox overrides, for the service.
    AgentHostService::Options coreOptions() const;
    // The user's approvals plus the command line's --workspace of this run.
    QStringList approvedWorkspaces() const;

    AppOptions m_options;
    AppSettings* m_settings;
    QString m_backendOverride;  // --backend, validated in runGuiMode(); never written to the settings
    // The parts every long-running mode has, and the orderly shutdown; the references name its parts.
    AgentHostService m_core;
    RuntimeDetector& m_detector = m_core.detector();
    CredentialStore& m_credentials = m_core.credentials();
    BackendConnection& m_connection = m_core.connection();
    ToolDispatcher& m_dispatcher = m_core.dispatcher();
    SecretBroker& m_secrets = m_core.secrets();  // who may use which secret: the dialogs below ask the user
    SandboxHost& m_sandbox = m_core.sandbox();
    ApprovalQueue m_approvals;
    std::unique_ptr<ApprovalDialog> m_approvalDialog;
    KeychainTokenStore m_tokens;
    SecretStore m_secretStore;  // Settings -> Secrets
    QHash<QString, QPointer<SecretApprovalDialog>> m_secretDialogs;
    std::unique_ptr<DashboardWindow> m_dashboard;
    std::unique_ptr<TrayIcon> m_tray;
    std::unique_ptr<TrayNotifier> m_notifier;  // what the tray says, and where a click on it leads
    QPointer<SettingsDialog> m_settingsDialog;
    QPointer<ImageBuildDialog> m_imageBuild;
    AutostartLoginItem m_loginItem;

    void wireSecrets();
    QString m_token;              // in memory only, for the connection (and so diagnostics can redact it)
    bool m_tokenChecked = false;  // the keychain answered: the sign-in banner may show
    bool m_detectedOnce = false;  // the first detection starts the connection (hello names the runtime)
    // Whether an agent it can use is missing, and the tray was told about that problem already.
    QString m_notifiedReadinessProblem;
    // Says a fallback to plain exec that happened anyway (SPEC §7) where the user looks: tray, console.
    void onExecPathChanged(const QString& sessionId, const QString& execPath);
    bool m_userDisconnected = false;
    bool m_shuttingDown = false;
    bool m_warnedNoRuntime = false;
    // The review copies' adapters are made as the sandbox's are, told what the latest detection knows.
    ReviewService m_reviews{ReviewStore(), [this](RuntimeKind kind, const QString& program) {
                                return SandboxSetup::adapterFactory(m_detector.result())(kind, program);
                            }};
    RecentErrors m_recentErrors;
    // The keychain's answer to the last token read, for the report; its token is cleared (m_token keeps it).
    std::optional<CredentialStore::Result> m_lastTokenRead;
    // The sandbox image as the engine last described it (the Diagnostics page's image row).
    const std::optional<ImageInspection>& m_lastImageInspection = m_core.imageInspection();
};

}  // namespace zeus
