#include "folderpolicies.h"

#include "approval/commandanalyser.h"
#include "support/logging.h"

#include <QSettings>

#include <algorithm>

namespace zeus {

const QLatin1String FolderPolicies::kWorkspaceModes("workspaces/folderModes");
const QLatin1String FolderPolicies::kApprovalPolicies("approval/policies");
const QLatin1String FolderPolicies::kGitWriteFolders("workspaces/gitWrites");
const QLatin1String FolderPolicies::kExposeHost("workspaces/exposeHost");
const QLatin1String FolderPolicies::kPortsKey("ports");
const QLatin1String FolderPolicies::kFolderKey("folder");
const QLatin1String FolderPolicies::kModeKey("mode");
const QLatin1String FolderPolicies::kPrefixKey("prefix");
const QLatin1String FolderPolicies::kLastMatchedKey("lastMatched");

namespace {

constexpr ApprovalRuleKind kKinds[] = {ApprovalRuleKind::Allow, ApprovalRuleKind::Ask, ApprovalRuleKind::Deny};

template <typename List>
auto findFolder(List& list, const QString& folder) {
    return std::find_if(list.begin(), list.end(), [&folder](const auto& entry) { return entry.folder == folder; });
}

// Sorted by folder, as the JSON object of version 1 kept them: the bounds cut the same folders off.
template <typename List, typename Folder>
void sortByFolder(List& list, Folder folderOf) {
    std::sort(list.begin(), list.end(), [&](const auto& a, const auto& b) { return folderOf(a) < folderOf(b); });
}

QList<FolderPolicies::StoredRule> readRules(QSettings& store, ApprovalRuleKind kind) {
    QList<FolderPolicies::StoredRule> rules;
    const int size = store.beginReadArray(QString(approvalRuleKindName(kind)));
    for (int i = 0; i < size; ++i) {
        store.setArrayIndex(i);
        rules.append({store.value(FolderPolicies::kPrefixKey).toString(),
                      store.value(FolderPolicies::kLastMatchedKey).toString()});
    }
    store.endArray();
    return rules;
}

void writeRules(QSettings& store, ApprovalRuleKind kind, const QList<FolderPolicies::StoredRule>& rules) {
    if (rules.isEmpty()) {
        return;
    }
    store.beginWriteArray(QString(approvalRuleKindName(kind)), int(rules.size()));
    for (int i = 0; i < rules.size(); ++i) {
        store.setArrayIndex(i);
        store.setValue(FolderPolicies::kPrefixKey, rules.at(i).prefix);
        if (!rules.at(i).lastMatched.isEmpty()) {
            store.setValue(FolderPolicies::kLastMatchedKey, rules.at(i).lastMatched);
        }
    }
    store.endArray();
}

// What a stored entry means: an unknown mode is Auto, a rule that is not plain words is dropped, never half-applied.
ApprovalPolicy policyOf(const FolderPolicies::StoredApproval& entry) {
    ApprovalPolicy policy;
    policy.mode = approvalModeFromName(entry.mode).value_or(ApprovalMode::Auto);
    for (const ApprovalRuleKind kind : kKinds) {
        for (const FolderPolicies::StoredRule& rule : entry.rules(kind)) {
            if (!CommandAnalyser::ruleWords(rule.prefix).isEmpty()
                && policy.rules(kind).size() < FolderPolicies::kMaxRules) {
                policy.rules(kind).append(rule.prefix);
            }
        }
    }
    return policy;
}

}  // namespace

QList<FolderPolicies::StoredRule>& FolderPolicies::StoredApproval::rules(ApprovalRuleKind kind) {
    return kind == ApprovalRuleKind::Allow ? allow : kind == ApprovalRuleKind::Ask ? ask : deny;
}

const QList<FolderPolicies::StoredRule>& FolderPolicies::StoredApproval::rules(ApprovalRuleKind kind) const {
    return kind == ApprovalRuleKind::Allow ? allow : kind == ApprovalRuleKind::Ask ? ask : deny;
}

QList<FolderPolicies::StoredApproval> FolderPolicies::readApprovals(QSettings& store) {
    QList<StoredApproval> approvals;
    const int size = store.beginReadArray(kApprovalPolicies);
    for (int i = 0; i < size; ++i) {
        store.setArrayIndex(i);
        StoredApproval entry;
        entry.folder = store.value(kFolderKey).toString();
        entry.mode = store.value(kModeKey).toString();
        for (const ApprovalRuleKind kind : kKinds) {
            entry.rules(kind) = readRules(store, kind);
        }
        approvals.append(entry);
    }
    store.endArray();
    return approvals;
}

void FolderPolicies::writeApprovals(QSettings& store, QList<StoredApproval> approvals) {
    store.remove(kApprovalPolicies);
    if (approvals.isEmpty()) {
        return;
    }
    sortByFolder(approvals, [](const StoredApproval& entry) { return entry.folder; });
    store.beginWriteArray(kApprovalPolicies, int(approvals.size()));
    for (int i = 0; i < approvals.size(); ++i) {
        const StoredApproval& entry = approvals.at(i);
        store.setArrayIndex(i);
        store.setValue(kFolderKey, entry.folder);
        if (!entry.mode.isEmpty()) {
            store.setValue(kModeKey, entry.mode);
        }
        for (const ApprovalRuleKind kind : kKinds) {
            writeRules(store, kind, entry.rules(kind));
        }
    }
    store.endArray();
}

FolderPolicies::StoredModes FolderPolicies::readWorkspaceModes(QSettings& store) {
    StoredModes modes;
    const int size = store.beginReadArray(kWorkspaceModes);
    for (int i = 0; i < size; ++i) {
        store.setArrayIndex(i);
        modes.append({store.value(kFolderKey).toString(), store.value(kModeKey).toString()});
    }
    store.endArray();
    return modes;
}

void FolderPolicies::writeWorkspaceModes(QSettings& store, StoredModes modes) {
    store.remove(kWorkspaceModes);
    if (modes.isEmpty()) {
        return;
    }
    sortByFolder(modes, [](const auto& entry) { return entry.first; });
    store.beginWriteArray(kWorkspaceModes, int(modes.size()));
    for (int i = 0; i < modes.size(); ++i) {
        store.setArrayIndex(i);
        store.setValue(kFolderKey, modes.at(i).first);
        store.setValue(kModeKey, modes.at(i).second);
    }
    store.endArray();
}

FolderPolicies::FolderPolicies(QSettings& store, QObject* parent) : QObject(parent), m_store(store) {}

QHash<QString, ApprovalPolicy> FolderPolicies::approvalPolicies() const {
    QHash<QString, ApprovalPolicy> policies;
    for (const StoredApproval& entry : readApprovals(m_store)) {
        if (policies.size() >= kMaxFolders) {
            break;
        }
        policies.insert(entry.folder, policyOf(entry));
    }
    return policies;
}

ApprovalPolicy FolderPolicies::approvalPolicy(const QString& folder) const {
    const QList<StoredApproval> approvals = readApprovals(m_store);
    const auto it = findFolder(approvals, folder);
    return it == approvals.end() ? ApprovalPolicy() : policyOf(*it);
}

void FolderPolicies::setApprovalMode(const QString& folder, ApprovalMode mode) {
    if (folder.isEmpty() || approvalPolicy(folder).mode == mode) {
        return;
    }
    QList<StoredApproval> approvals = readApprovals(m_store);
    auto it = findFolder(approvals, folder);
    if (it == approvals.end()) {
        it = approvals.insert(approvals.end(), StoredApproval{folder, {}, {}, {}, {}});
    }
    it->mode = QString(approvalModeName(mode));
    writeApprovals(m_store, approvals);
    qCInfo(lcApproval).noquote() << "approval mode of" << folder << "set to" << approvalModeName(mode);
    Q_EMIT approvalPoliciesChanged();
}

bool FolderPolicies::addApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix) {
    const QString rule = prefix.simplified();
    if (folder.isEmpty() || CommandAnalyser::ruleWords(rule).isEmpty()) {
        return false;
    }
    const ApprovalPolicy policy = approvalPolicy(folder);
    if (policy.rules(kind).contains(rule)) {
        return true;
    }
    if (policy.rules(kind).size() >= kMaxRules) {
        return false;
    }
    QList<StoredApproval> approvals = readApprovals(m_store);
    auto it = findFolder(approvals, folder);
    if (it == approvals.end()) {
        if (approvals.size() >= kMaxFolders) {
            return false;
        }
        it = approvals.insert(approvals.end(), StoredApproval{folder, {}, {}, {}, {}});
    }
    it->rules(kind).append({rule, {}});
    writeApprovals(m_store, approvals);
    qCInfo(lcApproval).noquote() << approvalRuleKindName(kind) << "rule added in" << folder << ":" << rule;
    Q_EMIT approvalPoliciesChanged();
    return true;
}

void FolderPolicies::removeApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix) {
    QList<StoredApproval> approvals = readApprovals(m_store);
    const auto it = findFolder(approvals, folder);
    if (it == approvals.end()
        || it->rules(kind).removeIf([&prefix](const StoredRule& rule) { return rule.prefix == prefix; }) == 0) {
        return;
    }
    writeApprovals(m_store, approvals);
    qCInfo(lcApproval).noquote() << approvalRuleKindName(kind) << "rule removed in" << folder << ":" << prefix;
    Q_EMIT approvalPoliciesChanged();
}

void FolderPolicies::noteApprovalRulesMatched(const QString& folder, const QStringList& rules, const QDateTime& when) {
    QList<StoredApproval> approvals = readApprovals(m_store);
    const auto it = findFolder(approvals, folder);
    if (it == approvals.end()) {
        return;  // the command line's rules of this run: not stored
    }
    QStringList noted;
    for (const ApprovalRuleKind kind : kKinds) {
        for (StoredRule& rule : it->rules(kind)) {
            if (rules.contains(rule.prefix)) {
                rule.lastMatched = when.toUTC().toString(Qt::ISODateWithMs);
                noted << rule.prefix;
            }
        }
    }
    if (noted.isEmpty()) {
        return;
    }
    writeApprovals(m_store, approvals);
    for (const QString& prefix : noted) {
        Q_EMIT approvalRuleMatched(folder, prefix);
    }
}

QDateTime FolderPolicies::approvalRuleLastMatched(const QString& folder, const QString& prefix) const {
    const QList<StoredApproval> approvals = readApprovals(m_store);
    const auto it = findFolder(approvals, folder);
    if (it == approvals.end()) {
        return {};
    }
    for (const ApprovalRuleKind kind : kKinds) {
        for (const StoredRule& rule : it->rules(kind)) {
            if (rule.prefix == prefix) {
                return QDateTime::fromString(rule.lastMatched, Qt::ISODateWithMs);
            }
        }
    }
    return {};
}

QHash<QString, WorkspaceMode> FolderPolicies::workspaceModes() const {
    QHash<QString, WorkspaceMode> modes;
    for (const auto& [folder, word] : readWorkspaceModes(m_store)) {
        if (modes.size() >= kMaxFolders) {
            break;
        }
        // A damaged or unknown value is direct, the default, never a guess.
        const auto mode = workspaceModeFromName(word);
        if (!folder.isEmpty() && mode && *mode != WorkspaceMode::Direct) {
            modes.insert(folder, *mode);
        }
    }
    return modes;
}

WorkspaceMode FolderPolicies::workspaceMode(const QString& folder) const {
    return workspaceModes().value(folder, WorkspaceMode::Direct);
}

void FolderPolicies::setWorkspaceMode(const QString& folder, WorkspaceMode mode) {
    if (folder.isEmpty() || workspaceMode(folder) == mode) {
        return;
    }
    StoredModes modes = readWorkspaceModes(m_store);
    const auto it = std::find_if(modes.begin(), modes.end(), [&folder](const auto& e) { return e.first == folder; });
    if (mode == WorkspaceMode::Direct) {
        modes.removeIf([&folder](const auto& entry) { return entry.first == folder; });
    } else if (it != modes.end()) {
        it->second = workspaceModeName(mode);
    } else if (modes.size() < kMaxFolders) {
        modes.append({folder, workspaceModeName(mode)});
    } else {
        return;
    }
    writeWorkspaceModes(m_store, modes);
    qCInfo(lcApp).noquote() << "workspace mode of" << folder << "set to" << workspaceModeName(mode);
    Q_EMIT workspaceModesChanged();
}

QSet<QString> FolderPolicies::gitWriteFolders() const {
    const QStringList folders = m_store.value(kGitWriteFolders).toStringList();
    QSet<QString> set;
    for (const QString& folder : folders) {
        if (!folder.isEmpty()) {
            set.insert(folder);
        }
    }
    return set;
}

bool FolderPolicies::gitWrites(const QString& folder) const {
    return gitWriteFolders().contains(folder);
}

void FolderPolicies::setGitWrites(const QString& folder, bool allowed) {
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
    m_store.setValue(kGitWriteFolders, list);
    qCInfo(lcApp).noquote() << "git writes of" << folder << (allowed ? "allowed" : "refused");
    Q_EMIT gitWritesChanged();
}

QHash<QString, QStringList> FolderPolicies::exposedHostPorts() const {
    QHash<QString, QStringList> byFolder;
    const int size = m_store.beginReadArray(kExposeHost);
    for (int i = 0; i < size && byFolder.size() < kMaxFolders; ++i) {
        m_store.setArrayIndex(i);
        const QString folder = m_store.value(kFolderKey).toString();
        const QStringList specs = m_store.value(kPortsKey).toStringList().mid(0, kMaxExposedPerFolder);
        if (!folder.isEmpty() && !specs.isEmpty()) {
            byFolder.insert(folder, specs);
        }
    }
    m_store.endArray();
    return byFolder;
}

QStringList FolderPolicies::exposedHostPorts(const QString& folder) const {
    return exposedHostPorts().value(folder);
}

void FolderPolicies::setExposedHostPorts(const QString& folder, const QStringList& specs) {
    QHash<QString, QStringList> byFolder = exposedHostPorts();
    const QStringList kept = specs.mid(0, kMaxExposedPerFolder);
    if (folder.isEmpty() || byFolder.value(folder) == kept) {
        return;
    }
    if (kept.isEmpty()) {
        byFolder.remove(folder);
    } else {
        byFolder.insert(folder, kept);
    }
    QStringList folders = byFolder.keys();
    folders.sort();
    m_store.remove(kExposeHost);
    m_store.beginWriteArray(kExposeHost, int(folders.size()));
    for (int i = 0; i < folders.size(); ++i) {
        m_store.setArrayIndex(i);
        m_store.setValue(kFolderKey, folders.at(i));
        m_store.setValue(kPortsKey, byFolder.value(folders.at(i)));
    }
    m_store.endArray();
    qCInfo(lcApp).noquote() << "host services exposed to" << folder << ":"
                            << (kept.isEmpty() ? QStringLiteral("none") : kept.join(QStringLiteral(", ")));
    Q_EMIT exposedHostPortsChanged();
}

}  // namespace zeus
