#pragma once

#include "approval/approvalpolicy.h"
#include "engine/containerspec.h"
#include "sandbox/sandboxconfig.h"
#include "sandbox/workspaceapproval.h"
#include "settings/folderpolicies.h"
#include "settings/networksettings.h"
#include "settings/sandboxsettings.h"
#include "settings/secretindex.h"
#include "settings/workspacefolders.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>

class QSettings;

namespace zeus {

// The user's preferences, persisted with QSettings and shared by the tray app and the headless modes: the one
// owner of the one store, which it brings to today's format when it opens it (SettingsMigration) and hands out
// as domain views (core/settings/): sandbox(), network(), workspaceFolders(), folderPolicies(), secrets(). It
// keeps what belongs to the app as a whole: the backend URL, start at login, the install and device ids.
// Setters validate and refuse bad values (returning false) so what is stored is always usable; every change
// emits a signal, here as well as on the view (the methods below that only call a view keep older callers
// working).
//
// Must never: hold or persist a token or any other secret (those live in the OS keychain only), canonicalise
// paths for the workspace guard's decisions (the guard decides; this only remembers what the user approved), or
// touch a widget.
class AppSettings : public QObject {
    Q_OBJECT
public:
    // Settings keys of the app as a whole; the views name theirs. All documented in docs/ui.md.
    static const QLatin1String kBackendUrl;
    static const QLatin1String kStartAtLogin;
    static const QLatin1String kMcpHttpPort;
    static const QLatin1String kInstallId;
    static const QLatin1String kDeviceId;

    // The bounds the settings dialog's fields show (SandboxSettings has them all).
    static constexpr int kDefaultPidsLimit = SandboxSettings::kDefaultPidsLimit;
    static constexpr int kMinPidsLimit = SandboxSettings::kMinPidsLimit;
    static constexpr int kMaxPidsLimit = SandboxSettings::kMaxPidsLimit;
    static constexpr int kMinMemoryMiB = SandboxSettings::kMinMemoryMiB;
    static constexpr int kMaxMemoryMiB = SandboxSettings::kMaxMemoryMiB;
    static constexpr double kMinCpus = SandboxSettings::kMinCpus;
    static constexpr double kMaxCpus = SandboxSettings::kMaxCpus;
    static constexpr int kMinIdleTimeoutMinutes = SandboxSettings::kMinIdleTimeoutMinutes;
    static constexpr int kMaxIdleTimeoutMinutes = SandboxSettings::kMaxIdleTimeoutMinutes;

    // The application's own settings store (organisation / application name).
    explicit AppSettings(QObject* parent = nullptr);
    // An explicit INI file: tests, and portable set-ups.
    explicit AppSettings(const QString& iniFilePath, QObject* parent = nullptr);
    ~AppSettings() override;

    SandboxSettings& sandbox() { return *m_sandbox; }
    const SandboxSettings& sandbox() const { return *m_sandbox; }
    NetworkSettings& network() { return *m_network; }
    const NetworkSettings& network() const { return *m_network; }
    WorkspaceFolders& workspaceFolders() { return *m_workspaceFolders; }
    const WorkspaceFolders& workspaceFolders() const { return *m_workspaceFolders; }
    FolderPolicies& folderPolicies() { return *m_folderPolicies; }
    const FolderPolicies& folderPolicies() const { return *m_folderPolicies; }
    SecretIndex& secrets() { return *m_secrets; }
    const SecretIndex& secrets() const { return *m_secrets; }

    QString backendUrl() const;
    bool setBackendUrl(const QString& url);  // empty clears; otherwise must pass BackendUrl::problem()

    bool startAtLogin() const;
    void setStartAtLogin(bool enabled);

    // The tray app's MCP server over Streamable HTTP on 127.0.0.1 (SPEC §12): its port, or 0 (the default) when it
    // is off. A port below kMinMcpHttpPort or above 65535 is refused.
    static constexpr int kMinMcpHttpPort = 1024;
    static constexpr int kDefaultMcpHttpPort = 8765;  // what the settings page offers when it is turned on
    int mcpHttpPort() const;
    bool setMcpHttpPort(int port);

    // Random UUIDs generated once and then kept: the install id labels this install's
    // containers (zeus.desktop.owner); the device id identifies it to the backend.
    QString installId();
    QString deviceId();

    // Where the settings live (shown in diagnostics).
    QString fileName() const;
    void sync();

    // SandboxSettings.
    static bool isValidRuntimePreference(const QString& v) { return SandboxSettings::isValidRuntimePreference(v); }
    static bool isValidHardeningProfile(const QString& v) { return SandboxSettings::isValidHardeningProfile(v); }
    static QStringList runtimePreferences() { return SandboxSettings::runtimePreferences(); }
    static QStringList hardeningProfiles() { return SandboxSettings::hardeningProfiles(); }
    QString runtimePreference() const { return m_sandbox->runtimePreference(); }
    bool setRuntimePreference(const QString& value) { return m_sandbox->setRuntimePreference(value); }
    QString image() const { return m_sandbox->image(); }
    bool setImage(const QString& reference) { return m_sandbox->setImage(reference); }
    QString hardeningProfile() const { return m_sandbox->hardeningProfile(); }
    bool setHardeningProfile(const QString& value) { return m_sandbox->setHardeningProfile(value); }
    QString execMode() const { return m_sandbox->execMode(); }
    bool setExecMode(const QString& value) { return m_sandbox->setExecMode(value); }
    int pidsLimit() const { return m_sandbox->pidsLimit(); }
    bool setPidsLimit(int value) { return m_sandbox->setPidsLimit(value); }
    int memoryMiB() const { return m_sandbox->memoryMiB(); }
    bool setMemoryMiB(int value) { return m_sandbox->setMemoryMiB(value); }
    double cpus() const { return m_sandbox->cpus(); }
    bool setCpus(double value) { return m_sandbox->setCpus(value); }
    int idleTimeoutMinutes() const { return m_sandbox->idleTimeoutMinutes(); }
    bool setIdleTimeoutMinutes(int minutes) { return m_sandbox->setIdleTimeoutMinutes(minutes); }

    // NetworkSettings.
    QString networkMode() const { return m_network->mode(); }
    bool setNetworkMode(const QString& value) { return m_network->setMode(value); }
    QString networkPreset() const { return m_network->preset(); }
    bool setNetworkPreset(const QString& value) { return m_network->setPreset(value); }
    QStringList allowedHosts() const { return m_network->allowedHosts(); }
    bool setAllowedHosts(const QStringList& rules) { return m_network->setAllowedHosts(rules); }
    QStringList deniedHosts() const { return m_network->deniedHosts(); }
    bool setDeniedHosts(const QStringList& rules) { return m_network->setDeniedHosts(rules); }
    QStringList resolveOverrides() const { return m_network->resolveOverrides(); }
    bool setResolveOverrides(const QStringList& entries) { return m_network->setResolveOverrides(entries); }
    bool addFolderAllowedHost(const QString& folder, const QString& rule) {
        return m_network->addFolderAllowedHost(folder, rule);
    }

    // WorkspaceFolders.
    QStringList recentFolders() const { return m_workspaceFolders->recent(); }
    void addRecentFolder(const QString& folder) { m_workspaceFolders->addRecent(folder); }
    QStringList approvedWorkspaces() const { return m_workspaceFolders->approved(); }
    bool approveWorkspace(const QString& path) { return m_workspaceFolders->approve(path); }
    QString approvalProblem(const QString& path) const { return m_workspaceFolders->approvalProblem(path); }
    WorkspaceApproval::State approvalState(const QString& approved) const {
        return m_workspaceFolders->approvalState(approved);
    }
    bool isWorkspaceApproved(const QString& path) const { return m_workspaceFolders->isApproved(path); }
    void revokeWorkspace(const QString& path) { m_workspaceFolders->revoke(path); }

    // FolderPolicies.
    QHash<QString, ApprovalPolicy> approvalPolicies() const { return m_folderPolicies->approvalPolicies(); }
    ApprovalPolicy approvalPolicy(const QString& folder) const { return m_folderPolicies->approvalPolicy(folder); }
    void setApprovalMode(const QString& folder, ApprovalMode mode) { m_folderPolicies->setApprovalMode(folder, mode); }
    bool addApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix) {
        return m_folderPolicies->addApprovalRule(folder, kind, prefix);
    }
    void removeApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix) {
        m_folderPolicies->removeApprovalRule(folder, kind, prefix);
    }
    void noteApprovalRulesMatched(const QString& folder, const QStringList& rules,
                                  const QDateTime& when = QDateTime::currentDateTimeUtc()) {
        m_folderPolicies->noteApprovalRulesMatched(folder, rules, when);
    }
    QDateTime approvalRuleLastMatched(const QString& folder, const QString& prefix) const {
        return m_folderPolicies->approvalRuleLastMatched(folder, prefix);
    }
    QHash<QString, WorkspaceMode> workspaceModes() const { return m_folderPolicies->workspaceModes(); }
    WorkspaceMode workspaceMode(const QString& folder) const { return m_folderPolicies->workspaceMode(folder); }
    void setWorkspaceMode(const QString& folder, WorkspaceMode mode) {
        m_folderPolicies->setWorkspaceMode(folder, mode);
    }
    bool gitWrites(const QString& folder) const { return m_folderPolicies->gitWrites(folder); }
    void setGitWrites(const QString& folder, bool allowed) { m_folderPolicies->setGitWrites(folder, allowed); }
    QStringList exposedHostPorts(const QString& folder) const { return m_folderPolicies->exposedHostPorts(folder); }
    void setExposedHostPorts(const QString& folder, const QStringList& specs) {
        m_folderPolicies->setExposedHostPorts(folder, specs);
    }

    // SecretIndex.
    QStringList secretNames() const { return m_secrets->names(); }
    void addSecretName(const QString& name) { m_secrets->addName(name); }
    void removeSecretName(const QString& name) { m_secrets->removeName(name); }
    QDateTime secretLastUsed(const QString& name) const { return m_secrets->lastUsed(name); }
    void setSecretLastUsed(const QString& name, const QDateTime& when) { m_secrets->setLastUsed(name, when); }
    QHash<QString, QStringList> secretFolderGrants() const { return m_secrets->folderGrants(); }
    void addSecretFolderGrant(const QString& name, const QString& folder) { m_secrets->addFolderGrant(name, folder); }

Q_SIGNALS:
    void backendUrlChanged(const QString& url);
    void runtimePreferenceChanged(const QString& value);
    void imageChanged(const QString& image);
    // The profile, one of the limits, the exec mode or the network mode changed (the sandbox is rebuilt).
    void hardeningChanged();
    // A network rule or the preset changed (it applies to live sessions).
    void networkPolicyChanged();
    void idleTimeoutMinutesChanged(int minutes);
    void startAtLoginChanged(bool enabled);
    void mcpHttpPortChanged(int port);
    void recentFoldersChanged(const QStringList& folders);
    void approvedWorkspacesChanged(const QStringList& workspaces);
    // A mode or a rule changed (not emitted for "last matched" times: approvalRuleMatched).
    void approvalPoliciesChanged();
    void approvalRuleMatched(const QString& folder, const QString& prefix);
    void workspaceModesChanged();
    void gitWritesChanged();
    void exposedHostPortsChanged();
    // A secret was added or removed, used, or approved for a folder.
    void secretsChanged();

private:
    // Migrates the store, builds the views and passes their signals on as this object's.
    void open();
    QString generatedId(const QString& key);

    std::unique_ptr<QSettings> m_settings;
    // Declared after the store they view, so they go first.
    std::unique_ptr<SandboxSettings> m_sandbox;
    std::unique_ptr<NetworkSettings> m_network;
    std::unique_ptr<FolderPolicies> m_folderPolicies;
    std::unique_ptr<WorkspaceFolders> m_workspaceFolders;
    std::unique_ptr<SecretIndex> m_secrets;
};

}  // namespace zeus
