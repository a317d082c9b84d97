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

// The names a review copy's commits get in the user's repository (SPEC §10, docs/review-mode.md "Commits"):
// refs/zeus/<session>/heads/* and refs/zeus/<session>/tags/*, and what an object id looks like. Pure: the fetch
// itself, which starts the host's git, is HostGit's (core/sandbox/review/hostgit.h).
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
};

}  // namespace zeus
