#include "workspacefolders.h"

#include "settings/folderpolicies.h"
#include "support/logging.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include <algorithm>

namespace zeus {

const QLatin1String WorkspaceFolders::kRecent("workspaces/recent");
const QLatin1String WorkspaceFolders::kApproved("workspaces/approved");

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

bool containsPath(const QStringList& list, const QString& path) {
    return std::any_of(list.cbegin(), list.cend(), [&path](const QString& item) { return samePath(item, path); });
}

// Strings read back from the store: anything else (a hand-edited file) is dropped.
QStringList cleanList(const QVariant& value, int limit) {
    QStringList out;
    for (const QString& item : value.toStringList()) {
        if (!item.isEmpty() && !containsPath(out, item)) {
            out.append(item);
        }
        if (out.size() >= limit) {
            break;
        }
    }
    return out;
}

// The messages keep the context they were translated under when AppSettings held them.
QString translated(const char* source) {
    return QCoreApplication::translate("zeus::AppSettings", source);
}

}  // namespace

WorkspaceFolders::WorkspaceFolders(QSettings& store, FolderPolicies& policies, QObject* parent)
    : QObject(parent), m_store(store), m_policies(policies) {}

QStringList WorkspaceFolders::withRecentFolder(const QStringList& recent, const QString& folder, int limit) {
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
        if (!item.isEmpty() && !samePath(item, folder) && !containsPath(out, item)) {
            out.append(item);
        }
    }
    return out;
}

QStringList WorkspaceFolders::recent() const {
    return cleanList(m_store.value(kRecent), kMaxRecent);
}

void WorkspaceFolders::addRecent(const QString& folder) {
    if (folder.isEmpty()) {
        return;
    }
    const QStringList before = recent();
    const QStringList after = withRecentFolder(before, folder, kMaxRecent);
    if (after != before) {
        m_store.setValue(kRecent, after);
        Q_EMIT recentChanged(after);
    }
}

void WorkspaceFolders::removeRecent(const QString& folder) {
    QStringList folders = recent();
    if (folders.removeIf([&folder](const QString& item) { return samePath(item, folder); }) > 0) {
        m_store.setValue(kRecent, folders);
        Q_EMIT recentChanged(folders);
    }
}

void WorkspaceFolders::clearRecent() {
    if (!recent().isEmpty()) {
        m_store.remove(kRecent);
        Q_EMIT recentChanged({});
    }
}

QStringList WorkspaceFolders::approved() const {
    return cleanList(m_store.value(kApproved), kMaxApproved);
}

bool WorkspaceFolders::approve(const QString& path) {
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    if (path.isEmpty() || canonical.isEmpty() || !info.isDir()) {
        return false;
    }
    QStringList workspaces = approved();
    if (containsPath(workspaces, canonical)) {
        return true;
    }
    if (const QString problem = approvalProblem(canonical); !problem.isEmpty()) {
        qCWarning(lcApp).noquote() << "workspace not approved:" << problem;
        return false;
    }
    if (workspaces.size() >= kMaxApproved) {
        // The oldest approval goes first; the list is a convenience, not an archive.
        workspaces.removeFirst();
    }
    workspaces.append(canonical);
    m_store.setValue(kApproved, workspaces);
    qCInfo(lcApp) << "workspace approved:" << canonical;
    Q_EMIT approvedChanged(workspaces);
    return true;
}

QString WorkspaceFolders::approvalProblem(const QString& path) const {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (canonical.isEmpty()) {
        return {};
    }
    const QString other = WorkspaceApproval::overlapping(canonical, approved(), pathCaseSensitivity());
    if (other.isEmpty() || samePath(other, canonical)) {
        return {};
    }
    // Nested approvals let a command in the outer folder rename the inner one and put a symlink in its place.
    const QString shownOther = QDir::toNativeSeparators(other);
    const QString shown = QDir::toNativeSeparators(canonical);
    if (other.size() > canonical.size()) {
        return translated(QT_TRANSLATE_NOOP("zeus::AppSettings",
                                            "%1 contains the approved folder %2. A folder inside or around an "
                                            "approved one cannot be approved as well: revoke %2 first, or keep "
                                            "using it."))
            .arg(shown, shownOther);
    }
    return translated(QT_TRANSLATE_NOOP("zeus::AppSettings",
                                        "%1 is inside the approved folder %2. A folder inside or around an approved "
                                        "one cannot be approved as well: use %2, or revoke it first."))
        .arg(shown, shownOther);
}

WorkspaceApproval::State WorkspaceFolders::approvalState(const QString& approvedPath) const {
    return WorkspaceApproval::stateAmong(approvedPath, approved(), WorkspaceApproval::hostResolver(),
                                         pathCaseSensitivity());
}

bool WorkspaceFolders::isApproved(const QString& path) const {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    return !canonical.isEmpty() && containsPath(approved(), canonical);
}

void WorkspaceFolders::revoke(const QString& path) {
    const QString canonical = QFileInfo(path).canonicalFilePath();
    const auto matches = [&](const QString& item) {
        return samePath(item, path) || (!canonical.isEmpty() && samePath(item, canonical));
    };
    QStringList workspaces = approved();
    // A folder deleted since it was approved can still be revoked by its stored path.
    if (workspaces.removeIf(matches) > 0) {
        m_store.setValue(kApproved, workspaces);
        qCInfo(lcApp) << "workspace approval revoked:" << path;
        Q_EMIT approvedChanged(workspaces);
    }
    // The riskiest per-folder setting does not come back by itself when the folder is approved again.
    const QSet<QString> gitFolders = m_policies.gitWriteFolders();
    for (const QString& folder : gitFolders) {
        if (matches(folder)) {
            m_policies.setGitWrites(folder, false);
        }
    }
    // Nor do the host services exposed to it.
    const QStringList exposing = m_policies.exposedHostPorts().keys();
    for (const QString& folder : exposing) {
        if (matches(folder)) {
            m_policies.setExposedHostPorts(folder, {});
        }
    }
}

}  // namespace zeus
