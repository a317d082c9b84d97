#pragma once

#include "sandbox/workspaceapproval.h"

#include <QLatin1String>
#include <QObject>
#include <QString>
#include <QStringList>

class QSettings;

namespace zeus {

class FolderPolicies;

// The folders the user named: the recent ones (a convenience) and the approved ones (SPEC §3). A view on the
// store AppSettings owns.
//
// Approving is explicit: only a user action calls approve(). The path must exist; what is stored is its canonical
// form (symlinks resolved), and from then on that string is the approval (SPEC §3 "Approvals are exact strings").
// A folder inside or containing an approved one is refused (approvalProblem() says why).
//
// Must never: decide whether a folder may be used now (WorkspaceGuard does, on the canonical path at use time),
// or let a revoked folder keep its git writes (they do not come back by themselves with a new approval).
class WorkspaceFolders : public QObject {
    Q_OBJECT
public:
    static const QLatin1String kRecent;
    static const QLatin1String kApproved;
    static constexpr int kMaxRecent = 10;
    static constexpr int kMaxApproved = 100;

    // `policies` loses a revoked folder's git writes.
    WorkspaceFolders(QSettings& store, FolderPolicies& policies, QObject* parent = nullptr);

    // The recent-folders rule, pure: `folder` first, duplicates removed, at most `limit`.
    static QStringList withRecentFolder(const QStringList& recent, const QString& folder, int limit);

    QStringList recent() const;
    void addRecent(const QString& folder);
    void removeRecent(const QString& folder);
    void clearRecent();

    QStringList approved() const;
    bool approve(const QString& path);
    // Why `path` cannot be approved (for the user), or empty when it can (or already is).
    QString approvalProblem(const QString& path) const;
    // What a stored approval is now, among the others: active, missing, changed since approval, or nested
    // (inactive until approved again).
    WorkspaceApproval::State approvalState(const QString& approved) const;
    bool isApproved(const QString& path) const;
    void revoke(const QString& path);

Q_SIGNALS:
    void recentChanged(const QStringList& folders);
    void approvedChanged(const QStringList& folders);

private:
    QSettings& m_store;
    FolderPolicies& m_policies;
};

}  // namespace zeus
