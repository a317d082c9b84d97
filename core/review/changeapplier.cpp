#include "review/changeapplier.h"

#include "review/hostfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryFile>
#include <QUuid>

#include <algorithm>

namespace zeus {

QString ApplyOutcome::word(Result result) {
    switch (result) {
        case Result::Applied:
            return QStringLiteral("applied");
        case Result::Skipped:
            return QStringLiteral("skipped");
        case Result::Conflict:
            return QStringLiteral("conflict");
        case Result::Refused:
            return QStringLiteral("refused");
    }
    return {};
}

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::ChangeApplier", text);
}

constexpr quint32 kExecBits = 0111;
constexpr quint32 kNewFileMode = 0644;

ApplyOutcome outcome(const QString& path, ApplyOutcome::Result result, const QString& reason = {}) {
    return ApplyOutcome{path, result, reason};
}

// What the host holds at a path, read without following a symlink.
struct HostState {
    bool exists = false;
    bool special = false;  // a socket, pipe or device: never touched
    ManifestEntry::Type type = ManifestEntry::Type::File;
    QByteArray sha256;
    QString linkTarget;
    quint32 mode = 0;
};

HostState stateOf(const QString& absolute) {
    HostState state;
    const QFileInfo info(absolute);
    if (info.isSymbolicLink()) {
        state.exists = true;
        state.type = ManifestEntry::Type::Symlink;
        state.linkTarget = QFile::decodeName(hostfile::readLink(absolute));
        return state;
    }
    if (!info.exists()) {
        return state;
    }
    state.exists = true;
    state.mode = hostfile::modeOf(info.permissions());
    if (info.isDir()) {
        state.type = ManifestEntry::Type::Directory;
    } else if (info.isFile()) {
        state.type = ManifestEntry::Type::File;
        QFile file;
        if (hostfile::openNoFollow(file, absolute)) {
            state.sha256 = hostfile::sha256Hex(file);
        }
    } else {
        state.special = true;
    }
    return state;
}

// The host holds `entry` (content, link target, kind; the exec bit too when `withExec`).
bool holds(const HostState& host, const ManifestEntry& entry, bool withExec) {
    if (!host.exists || host.special || host.type != entry.type) {
        return false;
    }
    switch (entry.type) {
        case ManifestEntry::Type::File:
            return !host.sha256.isEmpty() && host.sha256 == entry.sha256
                   && (!withExec || ((host.mode & kExecBits) != 0) == entry.isExecutable());
        case ManifestEntry::Type::Symlink:
            return host.linkTarget == entry.linkTarget;
        case ManifestEntry::Type::Directory:
            return true;
    }
    return false;
}

// Every folder between the root and the target must be a real folder, never a symlink; missing ones are created
// when `create`. Returns why not, or an empty string.
QString checkFolders(const QString& base, const QString& path, bool create) {
    QStringList parts = path.split(QLatin1Char('/'));
    parts.removeLast();
    QString current = base;
    QString relative;
    for (const QString& part : std::as_const(parts)) {
        current += QLatin1Char('/') + part;
        relative += (relative.isEmpty() ? QString() : QStringLiteral("/")) + part;
        QFileInfo info(current);
        if (info.isSymbolicLink()) {
            return QCoreApplication::translate("zeus::ChangeApplier",
                                               "%1 is a symbolic link on the host: nothing is written through it.")
                .arg(relative);
        }
        if (!info.exists()) {
            if (!create) {
                return {};
            }
            if (!QDir().mkdir(current)) {
                return QCoreApplication::translate("zeus::ChangeApplier", "The folder %1 could not be created.")
                    .arg(relative);
            }
            info = QFileInfo(current);
            if (info.isSymbolicLink() || !info.isDir()) {
                return QCoreApplication::translate("zeus::ChangeApplier", "%1 is not a folder on the host.")
                    .arg(relative);
            }
            continue;
        }
        if (!info.isDir()) {
            return QCoreApplication::translate("zeus::ChangeApplier", "%1 is not a folder on the host.").arg(relative);
        }
    }
    return {};
}

bool removeEntry(const QString& absolute, const HostState& host) {
    if (host.type == ManifestEntry::Type::Directory) {
        return QDir().rmdir(absolute);
    }
    return QFile::remove(absolute);  // a symlink itself, never what it points to
}

QString temporaryName(const QString& absolute) {
    return QFileInfo(absolute).absolutePath() + QStringLiteral("/.zeus-apply-")
           + QUuid::createUuid().toString(QUuid::Id128);
}

// The copy's version is what the change list says (checked before anything on the host is touched).
QString checkContent(const QString& contentFile, const ManifestEntry& after) {
    QFile content(contentFile);
    if (!content.open(QIODevice::ReadOnly)) {
        return QCoreApplication::translate("zeus::ChangeApplier", "The copy's version could not be read: %1")
            .arg(content.errorString());
    }
    if (hostfile::sha256Hex(content) != after.sha256) {
        return QCoreApplication::translate("zeus::ChangeApplier",
                                           "The content received from the copy does not match the change list.");
    }
    return {};
}

QString writeFile(const QString& absolute, const HostState& host, const ManifestEntry& after,
                  const QString& contentFile) {
    QFile content(contentFile);
    if (!content.open(QIODevice::ReadOnly)) {
        return QCoreApplication::translate("zeus::ChangeApplier", "The copy's version could not be read: %1")
            .arg(content.errorString());
    }
    QTemporaryFile temporary(QFileInfo(absolute).absolutePath() + QStringLiteral("/.zeus-apply-XXXXXX"));
    if (!temporary.open()) {
        return QCoreApplication::translate("zeus::ChangeApplier",
                                           "A temporary file could not be created next to it: %1")
            .arg(temporary.errorString());
    }
    while (true) {
        const QByteArray chunk = content.read(1024 * 1024);
        if (chunk.isEmpty()) {
            break;
        }
        if (temporary.write(chunk) != chunk.size()) {
            return QCoreApplication::translate("zeus::ChangeApplier", "Writing failed: %1")
                .arg(temporary.errorString());
        }
    }
    if (!temporary.flush()) {
        return QCoreApplication::translate("zeus::ChangeApplier", "Writing failed: %1").arg(temporary.errorString());
    }
    // The user's own bits stay; only the exec bits come from the copy.
    const quint32 baseMode = (host.exists && host.type == ManifestEntry::Type::File) ? host.mode : kNewFileMode;
    const quint32 mode = (baseMode & ~kExecBits & 0777) | (after.mode & kExecBits);
    temporary.setPermissions(hostfile::permissionsOf(mode));
    temporary.close();
    if (!hostfile::replace(temporary.fileName(), absolute)) {
        return QCoreApplication::translate("zeus::ChangeApplier", "The file could not be put in place.");
    }
    temporary.setAutoRemove(false);
    return {};
}

QString writeLink(const QString& absolute, const ManifestEntry& after) {
    const QString temporary = temporaryName(absolute);
    if (!QFile::link(after.linkTarget, temporary)) {
        return QCoreApplication::translate("zeus::ChangeApplier", "The symbolic link could not be created.");
    }
    if (!hostfile::replace(temporary, absolute)) {
        QFile::remove(temporary);
        return QCoreApplication::translate("zeus::ChangeApplier", "The symbolic link could not be put in place.");
    }
    return {};
}

}  // namespace

ApplyOutcome ChangeApplier::apply(const QString& root, const Change& change, const QString& contentFile,
                                  const Options& options) {
    using Result = ApplyOutcome::Result;
    const QString& path = change.path;
    // Before the .git rule: on a disk that follows Windows' rules "GIT~1" or ".git." is .git (refused on every host,
    // whatever the change says).
    const QString windows = ChangeSet::windowsNameProblem(path);
    if (!windows.isEmpty()) {
        return outcome(path, Result::Refused, windows);
    }
    if (!change.applicable || ChangeSet::isGitInternal(path)) {
        return outcome(path, Result::Refused,
                       change.notApplicableReason.isEmpty() ? tr("Inside .git: never applied as files.")
                                                            : change.notApplicableReason);
    }
    bool safe = ManifestEntry::isSafePath(path);
#ifdef Q_OS_WIN
    safe = safe && !path.contains(QLatin1Char('\\')) && !path.contains(QLatin1Char(':'));
#endif
    if (!safe) {
        return outcome(path, Result::Refused, tr("Not a path inside the folder."));
    }
    const QString base = QFileInfo(root).canonicalFilePath();
    if (base.isEmpty()) {
        return outcome(path, Result::Refused, tr("The folder no longer exists."));
    }
    const QString absolute = base + QLatin1Char('/') + path;
    const QString blocked = checkFolders(base, path, false);
    if (!blocked.isEmpty()) {
        return outcome(path, Result::Refused, blocked);
    }

    const HostState host = stateOf(absolute);
    if (host.special) {
        return outcome(path, Result::Refused, tr("On the host this is a socket, pipe or device."));
    }
    if (change.hasAfter && holds(host, change.after, true)) {
        return outcome(path, Result::Skipped, tr("The host already holds this version."));
    }
    if (!change.hasAfter && !host.exists) {
        return outcome(path, Result::Skipped, tr("Already gone from the host."));
    }
    if (!options.takeTheirs) {
        if (change.hasBefore && !host.exists) {
            return outcome(path, Result::Conflict, tr("Deleted on the host since the copy was made."));
        }
        if (change.hasBefore && !holds(host, change.before, false)) {
            return outcome(path, Result::Conflict, tr("Changed on the host since the copy was made."));
        }
        if (!change.hasBefore && host.exists) {
            return outcome(path, Result::Conflict, tr("Created on the host since the copy was made."));
        }
    }

    if (!change.hasAfter) {
        if (!removeEntry(absolute, host)) {
            if (host.type == ManifestEntry::Type::Directory) {
                return outcome(path, Result::Skipped, tr("The folder still holds files on the host."));
            }
            return outcome(path, Result::Refused, tr("It could not be deleted."));
        }
        return outcome(path, Result::Applied);
    }

    const ManifestEntry& after = change.after;
    // A folder is never replaced in one step, nor does anything replace it so: it goes first, when empty.
    const bool folderInvolved =
        host.exists && host.type != after.type
        && (host.type == ManifestEntry::Type::Directory || after.type == ManifestEntry::Type::Directory);
    const bool modeOnly = change.kind == Change::Kind::ModeChanged && !folderInvolved && holds(host, after, false);
    if (after.type == ManifestEntry::Type::File && !modeOnly) {
        const QString wrong = checkContent(contentFile, after);
        if (!wrong.isEmpty()) {
            return outcome(path, Result::Refused, wrong);
        }
    }
    if (folderInvolved && !removeEntry(absolute, host)) {
        return outcome(path, Result::Conflict, tr("The folder still holds files on the host."));
    }
    const QString folders = checkFolders(base, path, true);
    if (!folders.isEmpty()) {
        return outcome(path, Result::Refused, folders);
    }

    QString problem;
    switch (after.type) {
        case ManifestEntry::Type::Directory:
            if (!QDir().mkdir(absolute)) {
                problem = tr("The folder could not be created.");
            }
            break;
        case ManifestEntry::Type::Symlink:
            problem = writeLink(absolute, after);
            break;
        case ManifestEntry::Type::File:
            if (modeOnly) {
                // Same content: only the exec bits change (the host was just read as a file, not a link).
                const quint32 mode = (host.mode & ~kExecBits) | (after.mode & kExecBits);
                if (!QFile::setPermissions(absolute, hostfile::permissionsOf(mode))) {
                    problem = tr("The file's mode could not be changed.");
                }
                break;
            }
            problem = writeFile(absolute, folderInvolved ? HostState{} : host, after, contentFile);
            break;
    }
    if (!problem.isEmpty()) {
        return outcome(path, Result::Refused, problem);
    }
    return outcome(path, Result::Applied);
}

QList<Change> ChangeApplier::inApplyOrder(QList<Change> changes) {
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
        const bool aDeletes = a.kind == Change::Kind::Deleted;
        const bool bDeletes = b.kind == Change::Kind::Deleted;
        if (aDeletes != bDeletes) {
            return aDeletes;
        }
        return aDeletes ? b.path < a.path : a.path < b.path;
    });
    return changes;
}

}  // namespace zeus
