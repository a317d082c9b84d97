#include "appsettings.h"

#include "approval/commandanalyser.h"
#include "backend/backendurl.h"
#include "engine/containerruntime.h"
#include "sandbox/egress/egresspolicy.h"
#include "secrets/secretstore.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QUrl>
#include <QUuid>

#include <algorithm>
#include <cmath>

namespace zeus {

const QLatin1String AppSettings::kBackendUrl("backend/url");
const QLatin1String AppSettings::kRuntimePreference("runtime/preference");
const QLatin1String AppSettings::kImage("sandbox/image");
const QLatin1String AppSettings::kHardeningProfile("sandbox/profile");
const QLatin1String AppSettings::kExecMode("sandbox/execMode");
const QLatin1String AppSettings::kPidsLimit("sandbox/pidsLimit");
const QLatin1String AppSettings::kMemoryMiB("sandbox/memoryMiB");
const QLatin1String AppSettings::kCpus("sandbox/cpus");
const QLatin1String AppSettings::kIdleTimeoutMinutes("sessions/idleTimeoutMinutes");
const QLatin1String AppSettings::kMaxContainers("sessions/maxContainers");
const QLatin1String AppSettings::kMaxCallsPerSession("sessions/maxCallsPerSession");
const QLatin1String AppSettings::kMaxCallsTotal("sessions/maxCallsTotal");
const QLatin1String AppSettings::kStartAtLogin("app/startAtLogin");
const QLatin1String AppSettings::kRecentFolders("workspaces/recent");
const QLatin1String AppSettings::kApprovedWorkspaces("workspaces/approved");
const QLatin1String AppSettings::kInstallId("identity/installId");
const QLatin1String AppSettings::kDeviceId("identity/deviceId");
const QLatin1String AppSettings::kApprovalPolicies("approval/folders");
const QLatin1String AppSettings::kWorkspaceModes("workspaces/modes");
const QLatin1String AppSettings::kGitWriteFolders("workspaces/gitWrites");
const QLatin1String AppSettings::kSecretNames("secrets/names");
const QLatin1String AppSettings::kSecretLastUsed("secrets/lastUsed");
const QLatin1String AppSettings::kSecretFolderGrants("secrets/alwaysInFolders");

namespace {

// Paths compare the way the platform's usual file system does.
Qt::CaseSensitivity pathCaseSensitivity() {
#if defined(Q_OS_WIN) || defined(Q_OS_MACOS)
    return Qt::CaseInsensitive;
#else
    return Qt::CaseSensitive;
#endif
}

bool samePath(const QString& a, const QString& b) {
    return QString::compare(a, b, pathCaseSensitivity()) == 0;
}

// Strings read back from the store: anything else (a hand-edited file) is dropped.
QStringList cleanList(const QVariant& value, int limit) {
    QStringList out;
    for (const QString& item : value.toStringList()) {
        if (item.isEmpty()) {
            continue;
        }
        bool duplicate = false;
        for (const QString& seen : std::as_const(out)) {
            duplicate = duplicate || samePath(seen, item);
        }
        if (!duplicate) {
            out.append(item);
        }
        if (out.size() >= limit) {
            break;
        }
    }
    return out;
}

}  // namespace

AppSettings::AppSettings(QObject* parent) : QObject(parent), m_settings(std::make_unique<QSettings>()) {}

AppSettings::AppSettings(const QString& iniFilePath, QObject* parent)
    : QObject(parent), m_settings(std::make_unique<QSettings>(iniFilePath, QSettings::IniFormat)) {}

AppSettings::~AppSettings() = default;

QStringList AppSettings::runtimePreferences() {
    return {QStringLiteral("auto"), QStringLiteral("apple"), QStringLiteral("docker"), QStringLiteral("podman")};
}

QStringList AppSettings::hardeningProfiles() {
    return {QStringLiteral("standard"), QStringLiteral("hardened")};
}

bool AppSettings::isValidRuntimePreference(const QString& value) {
    return runtimePreferences().contains(value);
}

bool AppSettings::isValidHardeningProfile(const QString& value) {
    return hardeningProfiles().contains(value);
}

QStringList AppSettings::withRecentFolder(const QStringList& recent, const QString& folder, int limit) {
    QStringList out;
    if (limit <= 0) {
        return out;
    }
    if (!folder.isEmpty()) {
        out.append(folder);
    }
    for (const QString& item : recent) {
        if (out.size() >= limit) {
            break;
        }
        if (item.isEmpty() || samePath(item, folder)) {
            continue;
        }
        bool duplicate = false;
        for (const QString& seen : std::as_const(out)) {
            duplicate = duplicate || samePath(seen, item);
        }
        if (!duplicate) {
            out.append(item);
        }
    }
    return out;
}

QString AppSettings::backendUrl() const {
    const QString url = m_settings->value(kBackendUrl).toString();
    // A hand-edited store with a plaintext ws:// to a remote host is not used.
    return BackendUrl::problem(url).isEmpty() ? url : QString();
}

bool AppSettings::setBackendUrl(const QString& url) {
    const QString trimmed = url.trimmed();
    if (!trimmed.isEmpty() && !BackendUrl::problem(trimmed).isEmpty()) {
        return false;
    }
    if (m_settings->value(kBackendUrl).toString() == trimmed) {
        return true;
    }
    if (trimmed.isEmpty()) {
        m_settings->remove(kBackendUrl);
    } else {
        m_settings->setValue(kBackendUrl, trimmed);
    }
    Q_EMIT backendUrlChanged(trimmed);
    return true;
}

QString AppSettings::runtimePreference() const {
    const QString value = m_settings->value(kRuntimePreference).toString();
    return isValidRuntimePreference(value) ? value : QStringLiteral("auto");
}

bool AppSettings::setRuntimePreference(const QString& value) {
    if (!isValidRuntimePreference(value)) {
        return false;
    }
    if (runtimePreference() != value) {
        m_settings->setValue(kRuntimePreference, value);
        Q_EMIT runtimePreferenceChanged(value);
    }
    return true;
}

QString AppSettings::image() const {
    const QString value = m_settings->value(kImage).toString().trimmed();
    // A hand-edited store is read like a typed value: "--privileged" must never reach `run` as a flag.
    return ContainerRuntime::isSafeImageReference(value) ? value : QStringLiteral(ZEUS_DEFAULT_IMAGE);
}

bool AppSettings::setImage(const QString& reference) {
    const QString trimmed = reference.trimmed();
    // An image reference is one word; whitespace or a leading dash would be read as
    // something else by the engine's command line.
    if (!trimmed.isEmpty() && !ContainerRuntime::isSafeImageReference(trimmed)) {
        return false;
    }
    const QString effective = trimmed.isEmpty() ? QStringLiteral(ZEUS_DEFAULT_IMAGE) : trimmed;
    if (effective == this->image() && m_settings->contains(kImage) == !trimmed.isEmpty()) {
        return true;
    }
    if (trimmed.isEmpty()) {
        m_settings->remove(kImage);
    } else {
        m_settings->setValue(kImage, trimmed);
    }
    Q_EMIT imageChanged(effective);
    return true;
}

QString AppSettings::hardeningProfile() const {
    const QString value = m_settings->value(kHardeningProfile).toString();
    return isValidHardeningProfile(value) ? value : QStringLiteral("standard");
}

bool AppSettings::setHardeningProfile(const QString& value) {
    if (!isValidHardeningProfile(value)) {
        return false;
    }
    if (hardeningProfile() != value) {
        m_settings->setValue(kHardeningProfile, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

QString AppSettings::execMode() const {
    const QString value = m_settings->value(kExecMode).toString();
    return value == QStringLiteral("exec") ? value : QStringLiteral("agent");
}

bool AppSettings::setExecMode(const QString& value) {
    if (value != QStringLiteral("agent") && value != QStringLiteral("exec")) {
        return false;
    }
    if (execMode() != value) {
        m_settings->setValue(kExecMode, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

namespace {
const QLatin1String kNetworkMode("network/mode");
const QLatin1String kNetworkPreset("network/preset");
const QLatin1String kAllowedHosts("network/allow");
const QLatin1String kDeniedHosts("network/deny");
const QLatin1String kResolve("network/resolve");
const QLatin1String kFolderAllow("network/folderAllow");

bool allRulesParse(const QStringList& rules) {
    return std::all_of(rules.cbegin(), rules.cend(), [](const QString& r) { return HostRule::parse(r).has_value(); });
}
}  // namespace

QString AppSettings::networkMode() const {
    const QString value = m_settings->value(kNetworkMode).toString();
    return networkModeFromName(value) ? value : QString();
}

bool AppSettings::setNetworkMode(const QString& value) {
    if (!value.isEmpty() && !networkModeFromName(value)) {
        return false;
    }
    if (networkMode() != value) {
        m_settings->setValue(kNetworkMode, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

QString AppSettings::networkPreset() const {
    const QString value = m_settings->value(kNetworkPreset).toString();
    return EgressPolicy::presetNames().contains(value) ? value : QStringLiteral("dev");
}

bool AppSettings::setNetworkPreset(const QString& value) {
    if (!EgressPolicy::presetNames().contains(value)) {
        return false;
    }
    if (networkPreset() != value) {
        m_settings->setValue(kNetworkPreset, value);
        Q_EMIT networkPolicyChanged();
    }
    return true;
}

QStringList AppSettings::allowedHosts() const {
    return m_settings->value(kAllowedHosts).toStringList();
}

bool AppSettings::setAllowedHosts(const QStringList& rules) {
    if (!allRulesParse(rules)) {
        return false;
    }
    if (allowedHosts() != rules) {
        m_settings->setValue(kAllowedHosts, rules);
        Q_EMIT networkPolicyChanged();
    }
    return true;
}

QStringList AppSettings::deniedHosts() const {
    return m_settings->value(kDeniedHosts).toStringList();
}

bool AppSettings::setDeniedHosts(const QStringList& rules) {
    if (!allRulesParse(rules)) {
        return false;
    }
    if (deniedHosts() != rules) {
        m_settings->setValue(kDeniedHosts, rules);
        Q_EMIT networkPolicyChanged();
    }
    return true;
}

QStringList AppSettings::resolveOverrides() const {
    return m_settings->value(kResolve).toStringList();
}

bool AppSettings::setResolveOverrides(const QStringList& entries) {
    for (const QString& entry : entries) {
        if (!ResolveOverride::parse(entry)) {
            return false;
        }
    }
    if (resolveOverrides() != entries) {
        m_settings->setValue(kResolve, entries);
        Q_EMIT networkPolicyChanged();
    }
    return true;
}

QHash<QString, QStringList> AppSettings::allFolderAllowedHosts() const {
    QHash<QString, QStringList> out;
    const QVariantMap map = m_settings->value(kFolderAllow).toMap();
    for (auto it = map.cbegin(); it != map.cend(); ++it) {
        out.insert(it.key(), it.value().toStringList());
    }
    return out;
}

QStringList AppSettings::folderAllowedHosts(const QString& folder) const {
    return allFolderAllowedHosts().value(folder);
}

bool AppSettings::addFolderAllowedHost(const QString& folder, const QString& rule) {
    if (folder.isEmpty() || !HostRule::parse(rule)) {
        return false;
    }
    QVariantMap map = m_settings->value(kFolderAllow).toMap();
    QStringList rules = map.value(folder).toStringList();
    if (!rules.contains(rule)) {
        rules << rule;
        map.insert(folder, rules);
        m_settings->setValue(kFolderAllow, map);
        Q_EMIT networkPolicyChanged();
    }
    return true;
}

int AppSettings::pidsLimit() const {
    bool ok = false;
    const int value = m_settings->value(kPidsLimit).toInt(&ok);
    return ok && value >= kMinPidsLimit && value <= kMaxPidsLimit ? value : kDefaultPidsLimit;
}

bool AppSettings::setPidsLimit(int value) {
    if (value < kMinPidsLimit || value > kMaxPidsLimit) {
        return false;
    }
    if (pidsLimit() != value) {
        m_settings->setValue(kPidsLimit, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

int AppSettings::memoryMiB() const {
    bool ok = false;
    const int value = m_settings->value(kMemoryMiB).toInt(&ok);
    return ok && value >= kMinMemoryMiB && value <= kMaxMemoryMiB ? value : kDefaultMemoryMiB;
}

bool AppSettings::setMemoryMiB(int value) {
    if (value < kMinMemoryMiB || value > kMaxMemoryMiB) {
        return false;
    }
    if (memoryMiB() != value) {
        m_settings->setValue(kMemoryMiB, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

double AppSettings::cpus() const {
    bool ok = false;
    const double value = m_settings->value(kCpus).toDouble(&ok);
    return ok && std::isfinite(value) && value >= kMinCpus && value <= kMaxCpus ? value : kDefaultCpus;
}

bool AppSettings::setCpus(double value) {
    if (!std::isfinite(value) || value < kMinCpus || value > kMaxCpus) {
        return false;
    }
    if (!qFuzzyCompare(cpus(), value)) {
        m_settings->setValue(kCpus, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

int AppSettings::idleTimeoutMinutes() const {
    bool ok = false;
    const int value = m_settings->value(kIdleTimeoutMinutes).toInt(&ok);
    return ok && value >= kMinIdleTimeoutMinutes && value <= kMaxIdleTimeoutMinutes ? value
                                                                                    : kDefaultIdleTimeoutMinutes;
}

bool AppSettings::setIdleTimeoutMinutes(int minutes) {
    if (minutes < kMinIdleTimeoutMinutes || minutes > kMaxIdleTimeoutMinutes) {
        return false;
    }
    if (idleTimeoutMinutes() != minutes) {
        m_settings->setValue(kIdleTimeoutMinutes, minutes);
        Q_EMIT idleTimeoutMinutesChanged(minutes);
    }
    return true;
}

int AppSettings::boundedLimit(const QLatin1String& key, int fallback) const {
    bool ok = false;
    const int value = m_settings->value(key).toInt(&ok);
    return ok && value >= 1 && value <= kMaxLimit ? value : fallback;
}

bool AppSettings::setBoundedLimit(const QLatin1String& key, int value, int fallback) {
    if (value < 1 || value > kMaxLimit) {
        return false;
    }
    if (boundedLimit(key, fallback) != value) {
        m_settings->setValue(key, value);
        Q_EMIT hardeningChanged();  // the sandbox is rebuilt with the new bounds
    }
    return true;
}

int AppSettings::maxContainers() const {
    return boundedLimit(kMaxContainers, kDefaultMaxContainers);
}

bool AppSettings::setMaxContainers(int value) {
    return setBoundedLimit(kMaxContainers, value, kDefaultMaxContainers);
}

int AppSettings::maxCallsPerSession() const {
    return boundedLimit(kMaxCallsPerSession, kDefaultMaxCallsPerSession);
}

bool AppSettings::setMaxCallsPerSession(int value) {
    return setBoundedLimit(kMaxCallsPerSession, value, kDefaultMaxCallsPerSession);
}

int AppSettings::maxCallsTotal() const {
    return boundedLimit(kMaxCallsTotal, kDefaultMaxCallsTotal);
}

bool AppSettings::setMaxCallsTotal(int value) {
    return setBoundedLimit(kMaxCallsTotal, value, kDefaultMaxCallsTotal);
}

bool AppSettings::startAtLogin() const {
    return m_settings->value(kStartAtLogin, false).toBool();
}

void AppSettings::setStartAtLogin(bool enabled) {
    if (startAtLogin() != enabled) {
        m_settings->setValue(kStartAtLogin, enabled);
        Q_EMIT startAtLoginChanged(enabled);
    }
}

QStringList AppSettings::recentFolders() const {
    return cleanList(m_settings->value(kRecentFolders), kMaxRecentFolders);
}

void AppSettings::addRecentFolder(const QString& folder) {
    if (folder.isEmpty()) {
        return;
    }
    const QStringList before = recentFolders();
    const QStringList after = withRecentFolder(before, folder, kMaxRecentFolders);
    if (after != before) {
        m_settings->setValue(kRecentFolders, after);
        Q_EMIT recentFoldersChanged(after);
    }
}

void AppSettings::removeRecentFolder(const QString& folder) {
    QStringList folders = recentFolders();
    const auto removed = folders.removeIf([&folder](const QString& item) { return samePath(item, folder); });
    if (removed > 0) {
        m_settings->setValue(kRecentFolders, folders);
        Q_EMIT recentFoldersChanged(folders);
    }
}

void AppSettings::clearRecentFolders() {
    if (!recentFolders().isEmpty()) {
        m_settings->remove(kRecentFolders);
        Q_EMIT recentFoldersChanged({});
    }
}

QStringList AppSettings::approvedWorkspaces() const {
    return cleanList(m_settings->value(kApprovedWorkspaces), kMaxApprovedWorkspaces);
}

bool AppSettings::approveWorkspace(const QString& path) {
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    if (path.isEmpty() || canonical.isEmpty() || !info.isDir()) {
        return false;
    }
    QStringList workspaces = approvedWorkspaces();
    for (const QString& item : std::as_const(workspaces)) {
        if (samePath(item, canonical)) {
            return true;
        }
    }
    if (const QString problem = approvalProblem(canonical); !problem.isEmpty()) {
        qCWarning(lcApp).noquote() << "workspace not approved:" << problem;
        return false;
    }
    if (workspaces.size() >= kMaxApprovedWorkspaces) {
        // The oldest approval goes first; the list is a convenience, not an archive.
        workspaces.removeFirst();
    }
    workspaces.append(canonical);
    m_settings->setValue(kApprovedWorkspaces, workspaces);
    qCInfo(lcApp) << "workspace approved:" << canonical;
    Q_EMIT approvedWorkspacesChanged(workspaces);
    return true;
}

QString AppSettings::approvalProblem(const QString& path) const {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (canonical.isEmpty()) {
        return {};
    }
    const QStringList workspaces = approvedWorkspaces();
    const QString other = WorkspaceApproval::overlapping(canonical, workspaces, pathCaseSensitivity());
    if (other.isEmpty() || samePath(other, canonical)) {
        return {};
    }
    // Nested approvals let a command in the outer folder rename the inner one and put a symlink in its place.
    const QString shownOther = QDir::toNativeSeparators(other);
    const QString shown = QDir::toNativeSeparators(canonical);
    if (other.size() > canonical.size()) {
        return tr("%1 contains the approved folder %2. A folder inside or around an approved one cannot be approved "
                  "as well: revoke %2 first, or keep using it.")
            .arg(shown, shownOther);
    }
    return tr("%1 is inside the approved folder %2. A folder inside or around an approved one cannot be approved as "
              "well: use %2, or revoke it first.")
        .arg(shown, shownOther);
}

WorkspaceApproval::State AppSettings::approvalState(const QString& approved) const {
    return WorkspaceApproval::stateAmong(approved, approvedWorkspaces(), WorkspaceApproval::hostResolver(),
                                         pathCaseSensitivity());
}

bool AppSettings::isWorkspaceApproved(const QString& path) const {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (canonical.isEmpty()) {
        return false;
    }
    const QStringList workspaces = approvedWorkspaces();
    return std::any_of(workspaces.cbegin(), workspaces.cend(),
                       [&canonical](const QString& item) { return samePath(item, canonical); });
}

void AppSettings::revokeWorkspace(const QString& path) {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    QStringList workspaces = approvedWorkspaces();
    // A folder deleted since it was approved can still be revoked by its stored path.
    const auto removed = workspaces.removeIf([&](const QString& item) {
        return samePath(item, path) || (!canonical.isEmpty() && samePath(item, canonical));
    });
    if (removed > 0) {
        m_settings->setValue(kApprovedWorkspaces, workspaces);
        qCInfo(lcApp) << "workspace approval revoked:" << path;
        Q_EMIT approvedWorkspacesChanged(workspaces);
    }
    // The riskiest per-folder setting does not come back by itself when the folder is approved again.
    const QSet<QString> gitFolders = gitWriteFolders();
    for (const QString& folder : gitFolders) {
        if (samePath(folder, path) || (!canonical.isEmpty() && samePath(folder, canonical))) {
            setGitWrites(folder, false);
        }
    }
}

QStringList AppSettings::secretNames() const {
    QStringList names;
    for (const QString& name : m_settings->value(kSecretNames).toStringList()) {
        if (SecretStore::isValidName(name) && !names.contains(name)) {
            names.append(name);
        }
    }
    names.sort();
    return names;
}

void AppSettings::addSecretName(const QString& name) {
    QStringList names = secretNames();
    if (!SecretStore::isValidName(name) || names.contains(name)) {
        return;
    }
    names.append(name);
    names.sort();
    m_settings->setValue(kSecretNames, names);
    Q_EMIT secretsChanged();
}

void AppSettings::removeSecretName(const QString& name) {
    QStringList names = secretNames();
    if (names.removeAll(name) == 0) {
        return;
    }
    m_settings->setValue(kSecretNames, names);
    m_settings->remove(QString(kSecretLastUsed) + u'/' + name);
    m_settings->remove(QString(kSecretFolderGrants) + u'/' + name);
    Q_EMIT secretsChanged();
}

QDateTime AppSettings::secretLastUsed(const QString& name) const {
    if (!SecretStore::isValidName(name)) {
        return {};
    }
    return m_settings->value(QString(kSecretLastUsed) + u'/' + name).toDateTime();
}

void AppSettings::setSecretLastUsed(const QString& name, const QDateTime& when) {
    if (!secretNames().contains(name)) {
        return;
    }
    m_settings->setValue(QString(kSecretLastUsed) + u'/' + name, when.toUTC());
    Q_EMIT secretsChanged();
}

QHash<QString, QStringList> AppSettings::secretFolderGrants() const {
    QHash<QString, QStringList> grants;
    for (const QString& name : secretNames()) {
        for (const QString& folder : m_settings->value(QString(kSecretFolderGrants) + u'/' + name).toStringList()) {
            if (!folder.isEmpty()) {
                grants[folder].append(name);
            }
        }
    }
    return grants;
}

void AppSettings::addSecretFolderGrant(const QString& name, const QString& folder) {
    if (!secretNames().contains(name) || folder.isEmpty()) {
        return;
    }
    const QString key = QString(kSecretFolderGrants) + u'/' + name;
    QStringList folders = m_settings->value(key).toStringList();
    if (folders.contains(folder)) {
        return;
    }
    folders.append(folder);
    m_settings->setValue(key, folders);
    qCInfo(lcApp).noquote() << "secret" << name << "approved always in" << folder;
    Q_EMIT secretsChanged();
}

QString AppSettings::generatedId(const QString& key) {
    QString stored = m_settings->value(key).toString();
    if (!QUuid::fromString(stored).isNull()) {
        return stored;
    }
    QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    m_settings->setValue(key, id);
    m_settings->sync();
    return id;
}

QString AppSettings::installId() {
    return generatedId(kInstallId);
}

QString AppSettings::deviceId() {
    return generatedId(kDeviceId);
}

QString AppSettings::fileName() const {
    return m_settings->fileName();
}

void AppSettings::sync() {
    m_settings->sync();
}

// Git writes: a plain list of folders under kGitWriteFolders; folders not in it keep `.git` read-only.
QSet<QString> AppSettings::gitWriteFolders() const {
    const QStringList folders = m_settings->value(kGitWriteFolders).toStringList();
    QSet<QString> set;
    for (const QString& folder : folders) {
        if (!folder.isEmpty()) {
            set.insert(folder);
        }
    }
    return set;
}

bool AppSettings::gitWrites(const QString& folder) const {
    return gitWriteFolders().contains(folder);
}

void AppSettings::setGitWrites(const QString& folder, bool allowed) {
    if (folder.isEmpty() || gitWrites(folder) == allowed) {
        return;
    }
    QSet<QString> folders = gitWriteFolders();
    if (allowed) {
        folders.insert(folder);
    } else {
        folders.remove(folder);
    }
    QStringList list(folders.cbegin(), folders.cend());
    list.sort();
    m_settings->setValue(kGitWriteFolders, list);
    qCInfo(lcApp).noquote() << "git writes of" << folder << (allowed ? "allowed" : "refused");
    Q_EMIT gitWritesChanged();
}

// Workspace modes: one JSON object under kWorkspaceModes, {"<folder>": "review"}; direct folders are not stored.
QHash<QString, WorkspaceMode> AppSettings::workspaceModes() const {
    QHash<QString, WorkspaceMode> modes;
    const QJsonObject store = QJsonDocument::fromJson(m_settings->value(kWorkspaceModes).toString().toUtf8()).object();
    for (auto it = store.constBegin(); it != store.constEnd() && modes.size() < kMaxApprovalFolders; ++it) {
        // A damaged or unknown value is direct, the default, never a guess.
        const auto mode = workspaceModeFromName(it.value().toString());
        if (!it.key().isEmpty() && mode && *mode != WorkspaceMode::Direct) {
            modes.insert(it.key(), *mode);
        }
    }
    return modes;
}

WorkspaceMode AppSettings::workspaceMode(const QString& folder) const {
    return workspaceModes().value(folder, WorkspaceMode::Direct);
}

void AppSettings::setWorkspaceMode(const QString& folder, WorkspaceMode mode) {
    if (folder.isEmpty() || workspaceMode(folder) == mode) {
        return;
    }
    QJsonObject store = QJsonDocument::fromJson(m_settings->value(kWorkspaceModes).toString().toUtf8()).object();
    if (mode == WorkspaceMode::Direct) {
        store.remove(folder);
    } else {
        if (!store.contains(folder) && store.size() >= kMaxApprovalFolders) {
            return;
        }
        store.insert(folder, workspaceModeName(mode));
    }
    m_settings->setValue(kWorkspaceModes, QString::fromUtf8(QJsonDocument(store).toJson(QJsonDocument::Compact)));
    qCInfo(lcApp).noquote() << "workspace mode of" << folder << "set to" << workspaceModeName(mode);
    Q_EMIT workspaceModesChanged();
}

// Command approval: one JSON object under kApprovalPolicies,
//   {"<folder>": {"mode": "ask-unsafe", "allow": [{"prefix": "ls", "lastMatched": "<ISO UTC>"}], "ask": [], "deny":
//   []}}
QJsonObject AppSettings::approvalStore() const {
    return QJsonDocument::fromJson(m_settings->value(kApprovalPolicies).toString().toUtf8()).object();
}

void AppSettings::setApprovalStore(const QJsonObject& store) {
    m_settings->setValue(kApprovalPolicies, QString::fromUtf8(QJsonDocument(store).toJson(QJsonDocument::Compact)));
}

QHash<QString, ApprovalPolicy> AppSettings::approvalPolicies() const {
    QHash<QString, ApprovalPolicy> policies;
    const QJsonObject store = approvalStore();
    for (auto it = store.constBegin(); it != store.constEnd() && policies.size() < kMaxApprovalFolders; ++it) {
        policies.insert(it.key(), approvalPolicy(it.key()));
    }
    return policies;
}

ApprovalPolicy AppSettings::approvalPolicy(const QString& folder) const {
    const QJsonObject entry = approvalStore().value(folder).toObject();
    ApprovalPolicy policy;
    policy.mode = approvalModeFromName(entry.value(QStringLiteral("mode")).toString()).value_or(ApprovalMode::Auto);
    for (const ApprovalRuleKind kind : {ApprovalRuleKind::Allow, ApprovalRuleKind::Ask, ApprovalRuleKind::Deny}) {
        const QJsonArray rules = entry.value(approvalRuleKindName(kind)).toArray();
        for (const auto& rule : rules) {
            const QString prefix = rule.toObject().value(QStringLiteral("prefix")).toString();
            // A damaged or hand-edited entry that is not plain words is dropped, never half-applied.
            if (!CommandAnalyser::ruleWords(prefix).isEmpty() && policy.rules(kind).size() < kMaxApprovalRules) {
                policy.rules(kind).append(prefix);
            }
        }
    }
    return policy;
}

void AppSettings::setApprovalMode(const QString& folder, ApprovalMode mode) {
    if (folder.isEmpty() || approvalPolicy(folder).mode == mode) {
        return;
    }
    QJsonObject store = approvalStore();
    QJsonObject entry = store.value(folder).toObject();
    entry.insert(QStringLiteral("mode"), QString(approvalModeName(mode)));
    store.insert(folder, entry);
    setApprovalStore(store);
    qCInfo(lcApproval).noquote() << "approval mode of" << folder << "set to" << approvalModeName(mode);
    Q_EMIT approvalPoliciesChanged();
}

bool AppSettings::addApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix) {
    const QString rule = prefix.simplified();
    if (folder.isEmpty() || CommandAnalyser::ruleWords(rule).isEmpty()) {
        return false;
    }
    const ApprovalPolicy policy = approvalPolicy(folder);
    if (policy.rules(kind).contains(rule)) {
        return true;
    }
    if (policy.rules(kind).size() >= kMaxApprovalRules) {
        return false;
    }
    QJsonObject store = approvalStore();
    if (!store.contains(folder) && store.size() >= kMaxApprovalFolders) {
        return false;
    }
    QJsonObject entry = store.value(folder).toObject();
    QJsonArray rules = entry.value(approvalRuleKindName(kind)).toArray();
    rules.append(QJsonObject{{QStringLiteral("prefix"), rule}});
    entry.insert(approvalRuleKindName(kind), rules);
    store.insert(folder, entry);
    setApprovalStore(store);
    qCInfo(lcApproval).noquote() << approvalRuleKindName(kind) << "rule added in" << folder << ":" << rule;
    Q_EMIT approvalPoliciesChanged();
    return true;
}

void AppSettings::removeApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix) {
    QJsonObject store = approvalStore();
    QJsonObject entry = store.value(folder).toObject();
    QJsonArray rules = entry.value(approvalRuleKindName(kind)).toArray();
    bool removed = false;
    for (qsizetype i = rules.size() - 1; i >= 0; --i) {
        if (rules.at(i).toObject().value(QStringLiteral("prefix")).toString() == prefix) {
            rules.removeAt(i);
            removed = true;
        }
    }
    if (!removed) {
        return;
    }
    entry.insert(approvalRuleKindName(kind), rules);
    store.insert(folder, entry);
    setApprovalStore(store);
    qCInfo(lcApproval).noquote() << approvalRuleKindName(kind) << "rule removed in" << folder << ":" << prefix;
    Q_EMIT approvalPoliciesChanged();
}

void AppSettings::noteApprovalRulesMatched(const QString& folder, const QStringList& rules, const QDateTime& when) {
    QJsonObject store = approvalStore();
    if (!store.contains(folder)) {
        return;  // the command line's rules of this run: not stored
    }
    QJsonObject entry = store.value(folder).toObject();
    QStringList noted;
    for (const ApprovalRuleKind kind : {ApprovalRuleKind::Allow, ApprovalRuleKind::Ask, ApprovalRuleKind::Deny}) {
        QJsonArray list = entry.value(approvalRuleKindName(kind)).toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            QJsonObject rule = list.at(i).toObject();
            const QString prefix = rule.value(QStringLiteral("prefix")).toString();
            if (rules.contains(prefix)) {
                rule.insert(QStringLiteral("lastMatched"), when.toUTC().toString(Qt::ISODateWithMs));
                list.replace(i, rule);
                noted << prefix;
            }
        }
        entry.insert(approvalRuleKindName(kind), list);
    }
    if (noted.isEmpty()) {
        return;
    }
    store.insert(folder, entry);
    setApprovalStore(store);
    for (const QString& prefix : noted) {
        Q_EMIT approvalRuleMatched(folder, prefix);
    }
}

QDateTime AppSettings::approvalRuleLastMatched(const QString& folder, const QString& prefix) const {
    const QJsonObject entry = approvalStore().value(folder).toObject();
    for (const ApprovalRuleKind kind : {ApprovalRuleKind::Allow, ApprovalRuleKind::Ask, ApprovalRuleKind::Deny}) {
        const QJsonArray rules = entry.value(approvalRuleKindName(kind)).toArray();
        for (const auto& value : rules) {
            const QJsonObject rule = value.toObject();
            if (rule.value(QStringLiteral("prefix")).toString() == prefix) {
                return QDateTime::fromString(rule.value(QStringLiteral("lastMatched")).toString(), Qt::ISODateWithMs);
            }
        }
    }
    return {};
}

}  // namespace zeus
