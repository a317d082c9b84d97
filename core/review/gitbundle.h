#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace zeus {

// One ref the host repository now holds under refs/zeus/<session>/ after a fetch.
struct FetchedRef {
    QString name;      // full ref name: refs/zeus/<session>/heads/main
    QString objectId;  // hex
};

// Brings the commits of a review copy into the user's repository (SPEC §10, docs/review-mode.md "Commits"): the
// container's git writes a bundle of what is new since the copy was taken; this side fetches it into
// refs/zeus/<session>/heads/* and refs/zeus/<session>/tags/*, and nowhere else. The user's branches, HEAD, index and
// files are never touched: merging is the user's own step.
//
// The bundle is the container's output, so it is treated as hostile: only refs/heads/* and refs/tags/* are taken
// (explicit refspecs), every object is checked (transfer.fsckObjects), and no hook, fsmonitor, submodule fetch or
// automatic gc runs (core.hooksPath=/dev/null and the rest, on the command line, over anything a config says). The
// host's git is an argument list with a clean environment (no inherited GIT_DIR & co.), and the repository must be
// the folder itself, never a repository found above it.
class GitBundle {
public:
    GitBundle() = delete;

    // The component the session gets under refs/zeus/: the session id when it is a plain name (letters, digits, '-',
    // '_', '.' not leading, at most 64, no ".." and no ".lock" ending), else "s-" + the first 20 hex digits of its
    // SHA-256. Two different ids never share one (a plain id never starts with "s-" and 20 hex digits).
    static QString refComponent(const QString& sessionId);
    static QString refPrefix(const QString& sessionId) {
        return QStringLiteral("refs/zeus/") + refComponent(sessionId) + QLatin1Char('/');
    }

    // An object id as git prints it (40 or 64 lower-case hex digits).
    static bool isObjectId(const QString& text);

    // The host's git: $PATH's, or `program` when set (tests). Empty: not installed.
    static QString gitProgram();
    static void setGitProgram(const QString& program);

    // The folder is a git repository of its own (its top level is the folder itself).
    static bool isRepository(const QString& workspace, QString* error = nullptr);

    struct FetchResult {
        bool ok = false;
        QString error;  // for the user
        QString prefix;
        QList<FetchedRef> refs;  // what refs/zeus/<session>/ holds after the fetch
    };
    // Fetches `bundleFile` into the repository at `workspace` under refPrefix(sessionId).
    static FetchResult fetch(const QString& workspace, const QString& bundleFile, const QString& sessionId);
};

}  // namespace zeus
