#pragma once

#include "agenthostservice.h"
#include "appoptions.h"
#include "approval/approvalqueue.h"
#include "appsettings.h"
#include "autostartloginitem.h"
#include "backend/backendconnection.h"
#include "backend/credentialstore.h"
#include "backend/tooldispatcher.h"
#include "diagnosticsections.h"
#include "diagnosticsreport.h"
#include "engine/imageinspector.h"
#include "runtime/runtimedetector.h"
#include "sandbox/egress/egressproxy.h"
#include "sandboxhost.h"
#include "secrets/secretbroker.h"
#include "secrets/secretstore.h"
#include "settings/keychaintokenstore.h"
#include "support/recenterrors.h"
#include "tray/traystatus.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <optional>

namespace zeus {

class ApprovalDialog;
class DashboardWindow;
class GuiMcpHost;
class InterceptCa;
class ReviewController;
class SandboxController;
class SecretPrompter;
class SettingsDialog;
class SignIn;
class TrayIcon;
class TrayNotifier;

// The tray app (SPEC §6): one AgentHostService (the detector, the keychain, the backend connection and its
// dispatcher, the sandbox, the review copies) and the windows that show it. The controllers connect the parts to
// their pages -- SignIn (the token and when to connect), SandboxController (sessions, console, network, image
// build), ReviewController (the Changes page), SecretPrompter (secret approvals) -- and this class derives the
// tray, banner and console state through TrayStatus.
//
// The settings belong to the caller (runGuiMode, or a test's temporary file). It must never build a sandbox
// itself (SandboxHost does, through SandboxSetup), nor keep a token anywhere but in memory.
class GuiService : public QObject {
    Q_OBJECT
public:
    GuiService(AppOptions options, AppSettings* settings, QObject* parent = nullptr);
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
    // The Diagnostics page's host-bound secrets: the bindings in force and the interception CA's state.
    DiagnosticSections::SecretsFacts secretsFacts(const SandboxConfig& config) const;
    // The MCP server `zeus-desktop --mcp` bridges to (its door is configured as the backend's dispatcher).
    GuiMcpHost& mcpHost() { return *m_mcpHost; }

private:
    void connectRequests();
    void connectCalls();
    void connectSettings();
    // Command approval (SPEC §11): the queue the dialog answers, the tray notice, the session log.
    void connectApproval();
    // The MCP door (GuiMcpHost): the backend dispatcher's folders, questions, secrets and views.
    void connectMcpHost();
    void onDetection(const DetectionResult& detection);
    // The image answered (AgentHostService::imageInspected): the readiness, the runtime panel, the Diagnostics page.
    void onImageInspected(bool agentCheckDone);
    void onCallFinished(const ToolResultMessage& result);
    void openSettings();
    void updateStatus();
    void recordError(const QString& error) { m_recentErrors.record(error); }
    void applyWorkspaceOverride();
    // The facts the tray, the banner and the console are derived from.
    TrayStatus::Input statusInput() const;
    // --backend for this run, else the setting.
    QString backendUrl() const;
    // This run's command line over the settings, with the interception CA of host-bound secrets.
    SandboxOverrides sandboxOverrides() const;
    // Settings → Secrets "Use only with…" (SPEC §9): the CA is read from the keychain (made the first time) once
    // a secret is bound, and again after a failure when the bindings change.
    void loadInterceptCaIfBound();
    // This run's backend and sandbox overrides, for the service.
    AgentHostService::Options coreOptions() const;
    // The user's approvals plus the command line's --workspace of this run.
    QStringList approvedWorkspaces() const;

    AppOptions m_options;
    AppSettings* m_settings;
    // Host-bound secrets' CA, shared with every session's config (before the core, which is built with it).
    std::shared_ptr<InterceptCa> m_interceptCa;
    bool m_interceptCaLoading = false;
    QString m_interceptCaError;  // the keychain's last refusal, for the Diagnostics page
    // The parts every long-running mode has, and the orderly shutdown; the references name its parts.
    AgentHostService m_core;
    RuntimeDetector& m_detector = m_core.detector();
    CredentialStore& m_credentials = m_core.credentials();
    BackendConnection& m_connection = m_core.connection();
    ToolDispatcher& m_dispatcher = m_core.dispatcher();
    SandboxHost& m_sandbox = m_core.sandbox();
    ApprovalQueue m_approvals;
    // After the parts its door shares (the sandbox, the secrets, the approval queue): it goes first.
    std::unique_ptr<GuiMcpHost> m_mcpHost;
    KeychainTokenStore m_tokens;
    SecretStore m_secretStore;  // Settings -> Secrets
    AutostartLoginItem m_loginItem;
    RecentErrors m_recentErrors;
    // The windows, then what connects them (destroyed first: nothing they connect outlives a page).
    std::unique_ptr<DashboardWindow> m_dashboard;
    std::unique_ptr<ApprovalDialog> m_approvalDialog;
    std::unique_ptr<TrayIcon> m_tray;
    std::unique_ptr<TrayNotifier> m_notifier;  // what the tray says, and where a click on it leads
    QPointer<SettingsDialog> m_settingsDialog;
    std::unique_ptr<SignIn> m_signIn;
    std::unique_ptr<SandboxController> m_sandboxView;
    std::unique_ptr<ReviewController> m_reviewView;
    std::unique_ptr<SecretPrompter> m_secretPrompter;

    bool m_detectedOnce = false;  // the first detection starts the connection (hello names the runtime)
    // Whether an agent it can use is missing, and the tray was told about that problem already.
    QString m_notifiedReadinessProblem;
    bool m_shuttingDown = false;
    bool m_warnedNoRuntime = false;
    // The sandbox image as the engine last described it (the Diagnostics page's image row).
    const std::optional<ImageInspection>& m_lastImageInspection = m_core.imageInspection();
};

}  // namespace zeus
