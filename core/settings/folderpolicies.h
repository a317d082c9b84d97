#pragma once

#include "approval/approvalpolicy.h"
#include "sandbox/sandboxconfig.h"

#include <QDateTime>
#include <QHash>
#include <QLatin1String>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <utility>

class QSettings;

namespace zeus {

// What the user decided per approved folder, keyed by the exact approval string (SPEC §3 "Approvals are exact
// strings"): the workspace mode (SPEC §10), whether the sandbox may write `.git` (SPEC §3), and command approval
// (SPEC §11, docs/command-approval.md): a mode and allow / ask / deny rules, each with the time it last matched.
// A view on the store AppSettings owns; each per-folder store is a settings array of {folder, ...}, because a
// folder path cannot be a settings key ('/' and '\' separate groups).
//
// Must never: canonicalise a folder (the approval string is the key, as stored), half-apply a damaged entry (a
// rule that is not plain words or an unknown word is dropped when read), or grow past the bounds below.
class FolderPolicies : public QObject {
    Q_OBJECT
public:
    // Array of {folder, mode}: the folders not in direct mode (direct, the default, is not stored).
    static const QLatin1String kWorkspaceModes;
    // Array of {folder, mode, allow, ask, deny}; each list an array of {prefix, lastMatched}.
    static const QLatin1String kApprovalPolicies;
    // A plain list of folders; folders not in it keep `.git` read-only.
    static const QLatin1String kGitWriteFolders;
    static const QLatin1String kExposeHost;
    static const QLatin1String kPortsKey;
    static const QLatin1String kFolderKey;
    static const QLatin1String kModeKey;
    static const QLatin1String kPrefixKey;
    static const QLatin1String kLastMatchedKey;

    static constexpr int kMaxFolders = 100;
    static constexpr int kMaxRules = 200;  // per list of a folder

    // The stored shapes, exactly as written: the readers below sanitise. The migration writes them too.
    struct StoredRule {
        QString prefix;
        QString lastMatched;  // ISO 8601 UTC with milliseconds; empty when never
    };
    struct StoredApproval {
        QString folder;
        QString mode;
        QList<StoredRule> allow;
        QList<StoredRule> ask;
        QList<StoredRule> deny;
        QList<StoredRule>& rules(ApprovalRuleKind kind);
        const QList<StoredRule>& rules(ApprovalRuleKind kind) const;
    };
    using StoredModes = QList<std::pair<QString, QString>>;  // folder, mode word
    static QList<StoredApproval> readApprovals(QSettings& store);
    static void writeApprovals(QSettings& store, QList<StoredApproval> approvals);
    static StoredModes readWorkspaceModes(QSettings& store);
    static void writeWorkspaceModes(QSettings& store, StoredModes modes);

    explicit FolderPolicies(QSettings& store, QObject* parent = nullptr);

    QHash<QString, ApprovalPolicy> approvalPolicies() const;
    ApprovalPolicy approvalPolicy(const QString& folder) const;
    void setApprovalMode(const QString& folder, ApprovalMode mode);
    // A rule must be plain words (CommandAnalyser::ruleWords); it is stored with its spaces simplified.
    bool addApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix);
    void removeApprovalRule(const QString& folder, ApprovalRuleKind kind, const QString& prefix);
    // Notes that rules of `folder` just let a call through; rules the folder does not have are ignored.
    void noteApprovalRulesMatched(const QString& folder, const QStringList& rules,
                                  const QDateTime& when = QDateTime::currentDateTimeUtc());
    // When the rule last matched in `folder`; invalid when never.
    QDateTime approvalRuleLastMatched(const QString& folder, const QString& prefix) const;

    QHash<QString, WorkspaceMode> workspaceModes() const;
    WorkspaceMode workspaceMode(const QString& folder) const;
    void setWorkspaceMode(const QString& folder, WorkspaceMode mode);

    // Off by default: the host's git may then run code the agent writes.
    QSet<QString> gitWriteFolders() const;
    bool gitWrites(const QString& folder) const;
    void setGitWrites(const QString& folder, bool allowed);

    // Host services exposed to a folder's sandbox (SPEC §8 "Ports"): `--expose-host` spellings ("5432",
    // "15432:5432"), as the user set them; the sandbox setup parses them and drops what does not parse. None by
    // default. At most kMaxExposedPerFolder per folder.
    static constexpr int kMaxExposedPerFolder = 16;
    QHash<QString, QStringList> exposedHostPorts() const;
    QStringList exposedHostPorts(const QString& folder) const;
    void setExposedHostPorts(const QString& folder, const QStringList& specs);

Q_SIGNALS:
    // A mode or a rule changed (not emitted for "last matched" times: approvalRuleMatched).
    void approvalPoliciesChanged();
    void approvalRuleMatched(const QString& folder, const QString& prefix);
    void workspaceModesChanged();
    void gitWritesChanged();
    void exposedHostPortsChanged();

private:
    QSettings& m_store;
};

}  // namespace zeus
