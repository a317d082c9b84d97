#pragma once

#include "approval/approvalpolicy.h"
#include "engine/containerspec.h"
#include "sandbox/sandboxconfig.h"
#include "sandbox/workspaceapproval.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>

class QJsonObject;
class QSettings;

namespace zeus {

// The user's preferences, persisted with QSettings and shared by the tray app and the
// headless modes. Setters validate and refuse bad values (returning false) so what is
// stored is always usable; every change emits a signal.
//
// Owns: the QSettings store of this install (or an explicit INI file in tests).
// Must never: hold or persist a token or any other secret (those live in the OS
// keychain only), canonicalise paths for the workspace guard's decisions (the guard
// decides; this only remembers what the user approved), or touch a widget.
class AppSettings : public QObject {
    Q_OBJECT
public:
    // Settings keys, also documented in docs/ui.md.
    static const QLatin1String kBackendUrl;
    static const QLatin1String kRuntimePreference;
    static const QLatin1String kImage;
    static const QLatin1String kHardeningProfile;
    static const QLatin1String kExecMode;
    static const QLatin1String kPidsLimit;
    static const QLatin1String kMemoryMiB;
    static const QLatin1String kCpus;
    static const QLatin1String kIdleTimeoutMinutes;
    static const QLatin1String kMaxContainers;
    static const QLatin1String kMaxCallsPerSession;
    static const QLatin1String kMaxCallsTotal;
    static const QLatin1String kStartAtLogin;
    static const QLatin1String kRecentFolders;
    static const QLatin1String kApprovedWorkspaces;
    static const QLatin1String kInstallId;
    static const QLatin1String kDeviceId;
    static const QLatin1String kApprovalPolicies;
    static const QLatin1String kWorkspaceModes;
    static const QLatin1String kGitWriteFolders;
    static const QLatin1String kSecretNames;
    static const QLatin1String kSecretLastUsed;      // group: NAME -> UTC time
    static const QLatin1String kSecretFolderGrants;  // group: NAME -> folders approved "always" for it

    static constexpr int kMaxRecentFolders = 10;
    static constexpr int kMaxApprovedWorkspaces = 100;
    static constexpr int kMaxApprovalFolders = 100;
    static constexpr int kMaxApprovalRules = 200;  // per list of a folder

    static constexpr int kDefaultPidsLimit = sandboxdefaults::kPidsLimit;
    static constexpr int kMinPidsLimit = 16;
    static constexpr int kMaxPidsLimit = 65536;
    static constexpr int kDefaultMemoryMiB = sandboxdefaults::kMemoryMiB;
    static constexpr int kMinMemoryMiB = 64;
    static constexpr int kMaxMemoryMiB = 1024 * 1024;
    static constexpr double kDefaultCpus = sandboxdefaults::kCpus;
    static constexpr double kMinCpus = 0.1;
    static constexpr double kMaxCpus = 256.0;
    static constexpr int kDefaultIdleTimeoutMinutes = 30;
    // SPEC §3 "Bounded": containers alive at once, calls per session and in total.
    static constexpr int kDefaultMaxContainers = 8;
    static constexpr int kDefaultMaxCallsPerSession = 4;
    static constexpr int kDefaultMaxCallsTotal = 8;
    static constexpr int kMaxLimit = 64;
    static constexpr int kMinIdleTimeoutMinutes = 1;
    static constexpr int kMaxIdleTimeoutMinutes = 24 * 60;

    // The application's own settings store (organisation / application name).
    explicit AppSettings(QObject* parent = nullptr);
    // An explicit INI file: tests, and portable set-ups.
    explicit AppSettings(const QString& iniFilePath, QObject* parent = nullptr);
    ~AppSettings() override;

    static bool isValidRuntimePreference(const QString& value);  // auto|apple|docker|podman
    static bool isValidHardeningProfile(const QString& value);   // standard|hardened
    static QStringList runtimePreferences();
    static QStringList hardeningProfiles();
    // The recent-folders rule, pure: `folder` first, duplicates removed, at most `limit`.
    static QStringList withRecentFolder(const QStringList& recent, const QString& folder, int limit);

    QString backendUrl() const;
    bool setBackendUrl(const QString& url);  // empty clears; otherwise must pass BackendUrl::problem()

    QString runtimePreference() const;
    bool setRuntimePreference(const QString& value);

    QString image() const;
    bool setImage(const QString& reference);  // empty restores the default image

    QString hardeningProfile() const;
    bool setHardeningProfile(const QString& value);

    // "agent" (default) or "exec" (SPEC §7).
    QString execMode() const;
    bool setExecMode(const QString& value);

    // The network (SPEC §8): "" (the profile decides: standard allowlist, hardened none), "open", "none" or
    // "allowlist". A change rebuilds the sandbox (hardeningChanged); rule changes apply to live sessions
    // (networkPolicyChanged).
    QString networkMode() const;
    bool setNetworkMode(const QString& value);
    QString networkPreset() const;  // "dev" (default) or "locked"
    bool setNetworkPreset(const QString& value);
    // Rules as the user wrote them; setters refuse a list with a rule that does not parse (nothing is stored).
    QStringList allowedHosts() const;
    bool setAllowedHosts(const QStringList& rules);
    QStringList deniedHosts() const;
    bool setDeniedHosts(const QStringList& rules);
    // HOST:PORT:ADDRESS, like curl's --resolve.
    QStringList resolveOverrides() const;
    bool setResolveOverrides(const QStringList& entries);
    // "Always for this folder": rules that hold for sessions in one approved folder only.
    QStringList folderAllowedHosts(const QString& folder) const;
    QHash<QString, QStringList> allFolderAllowedHosts() const;
    bool addFolderAllowedHost(const QString& folder, const QString& rule);

    int pidsLimit() const;
    bool setPidsLimit(int value);
    int memoryMiB() const;
    bool setMemoryMiB(int value);
    double cpus() const;
    bool setCpus(double value);

    int idleTimeoutMinutes() const;
    bool setIdleTimeoutMinutes(int minutes);

    // The bounds of SPEC §3, each 1..kMaxLimit (a hand-edited value outside gives the default).
    int maxContainers() const;
    bool setMaxContainers(int value);
    int maxCallsPerSession() const;
    bool setMaxCallsPerSession(int value);
    int maxCallsTotal() const;
    bool setMaxCallsTotal(int value);

    bool startAtLogin() const;
    void setStartAtLogin(bool enabled);

    QStringList recentFolders() const;
    void addRecentFolder(const QString& folder);
    void removeRecentFolder(const QString& folder);
    void clearRecentFolders();

    // Approving is explicit: only a user action calls approveWorkspace(). The path must
    // exist; what is stored is its canonical form (symlinks resolved), and from then on that string is the
    // approval (SPEC §3 "Approvals are exact strings"). A folder inside or containing an approved one is refused
    // (approvalProblem() says why).
    QStringList approvedWorkspaces() const;
    bool approveWorkspace(const QString& path);
    // Why `path` cannot be approved (for the user), or empty when it can (or already is).
    QString approvalProblem(const QString& path) const;
    // What a stored approval is now: active, missing, or changed since approval (inactive until approved again).
    // What a stored approval is now, among the others (nested ones are inactive).
    WorkspaceApproval::State approvalState(const QString& approved) const;
    bool isWorkspaceApproved(const QString& path) const;
    void revokeWorkspace(const QString& path);

    // Command approval per folder (SPEC §11, docs/command-approval.md): a mode and allow / ask / deny rules, each
    // a token prefix, with the time each rule last matched. Folders are stored as given (the approved canonical
    // path). A rule must be plain words (CommandAnalyser::ruleWords); it is stored with its spaces simplified.
    QHash<QString, ApprovalPolicy> approvalPolicies() const;
    ApprovalPolicy approvalPolicy(const QString& folder) const;
    void setApprovalMode(const QString& folder, ApprovalMode mode);
    bool addApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix);
    void removeApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix);
    // Notes that rules of `folder` just let a call through; rules the folder does not have are ignored.
    void noteApprovalRulesMatched(const QString& folder, const QStringList& rules,
                                  const QDateTime& when = QDateTime::currentDateTimeUtc());
    // When the rule last matched in `folder`; invalid when never.
    QDateTime approvalRuleLastMatched(const QString& folder, const QString& prefix) const;
    // Workspace mode per folder (SPEC §10, docs/remote-engines.md): direct (the default, not stored) or review,
    // keyed like the approval policies by the exact approval string.
    QHash<QString, WorkspaceMode> workspaceModes() const;
    WorkspaceMode workspaceMode(const QString& folder) const;
    void setWorkspaceMode(const QString& folder, WorkspaceMode mode);
    // Folders (exact approval strings) whose sandbox may write the repository's metadata, `.git` (SPEC §3). Off
    // by default: the host's git may then run code the agent writes.
    QSet<QString> gitWriteFolders() const;
    bool gitWrites(const QString& folder) const;
    void setGitWrites(const QString& folder, bool allowed);
    // The names (never the values: those are in the OS keychain) of the secrets stored on this computer, sorted,
    // when each was last handed to a command, and the folders each is approved for "always" (SPEC §9).
    QStringList secretNames() const;
    void addSecretName(const QString& name);     // a valid name only (SecretStore::isValidName)
    void removeSecretName(const QString& name);  // with its last-used time and folder approvals
    QDateTime secretLastUsed(const QString& name) const;
    void setSecretLastUsed(const QString& name, const QDateTime& when);
    // folder (canonical) -> names approved "always" in it.
    QHash<QString, QStringList> secretFolderGrants() const;
    void addSecretFolderGrant(const QString& name, const QString& folder);

    // Random UUIDs generated once and then kept: the install id labels this install's
    // containers (zeus.desktop.owner); the device id identifies it to the backend.
    QString installId();
    QString deviceId();

    // Where the settings live (shown in diagnostics).
    QString fileName() const;
    void sync();

Q_SIGNALS:
    void backendUrlChanged(const QString& url);
    void runtimePreferenceChanged(const QString& value);
    void imageChanged(const QString& image);
    // The profile, one of the limits or the exec mode changed (the sandbox is rebuilt).
    void hardeningChanged();
    void networkPolicyChanged();
    void idleTimeoutMinutesChanged(int minutes);
    void startAtLoginChanged(bool enabled);
    void recentFoldersChanged(const QStringList& folders);
    void approvedWorkspacesChanged(const QStringList& workspaces);
    // A mode or a rule changed (not emitted for "last matched" times: approvalRuleMatched).
    void approvalPoliciesChanged();
    void approvalRuleMatched(const QString& folder, const QString& prefix);
    void workspaceModesChanged();
    void gitWritesChanged();

    // A secret was added or removed, used, or approved for a folder.
    void secretsChanged();

private:
    QString generatedId(const QString& key);
    QJsonObject approvalStore() const;
    void setApprovalStore(const QJsonObject& store);
    int boundedLimit(const QLatin1String& key, int fallback) const;
    bool setBoundedLimit(const QLatin1String& key, int value, int fallback);

    std::unique_ptr<QSettings> m_settings;
};

}  // namespace zeus
