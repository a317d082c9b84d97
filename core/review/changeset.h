#pragma once

#include "review/workspacemanifest.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace zeus {

// One difference between the baseline of a review copy and the copy as it is now.
struct Change {
    // What happened to the path (SPEC §10: added / modified / deleted / mode-changed, plus a change of kind).
    enum class Kind {
        Added,        // only in the copy
        Modified,     // a file's content or a link's target differs (the exec bit may have changed too)
        Deleted,      // only in the baseline
        ModeChanged,  // same content, the executable bit differs (the only mode bit compared, as in git)
        TypeChanged,  // a file became a folder, a link became a file, …
    };

    Kind kind = Kind::Added;
    QString path;
    bool hasBefore = false;
    bool hasAfter = false;
    ManifestEntry before;      // valid when hasBefore
    ManifestEntry after;       // valid when hasAfter
    bool execChanged = false;  // the executable bit differs (ModeChanged, or Modified with a new mode)

    // Makes the host run code (SPEC §10): needs its own confirmation, and Apply all leaves it. Why, for the user.
    bool flagged = false;
    QString flagReason;
    // False for what is never applied as files (inside a .git folder: commits come as a git bundle).
    bool applicable = true;
    QString notApplicableReason;

    static QString kindLetter(Kind kind);  // A, M, D, X (mode), T (type) for the list
    // kind, path, flagged, applicable, exec_changed, and flag_reason / not_applicable_reason when they apply: the
    // change as `--changes --json` and the MCP list_changes give it (without the two sides).
    QJsonObject summaryJson() const;
};

// The difference between two manifests. Pure: no file is read.
//
// Entries of `current` that the baseline's own ignore rules exclude are not changes: the copy never held them, and
// the user's host copy (a real `.env`) must never be replaced by what the agent wrote under that name. Folders are
// listed when added or deleted (an empty folder matters), never for a mode change.
class ChangeSet {
public:
    ChangeSet() = delete;

    static QList<Change> compute(const WorkspaceManifest& baseline, const WorkspaceManifest& current);

    // Why writing this path can make the host run code (build files, CI, editor tasks, git internals, …), empty
    // when nothing is known. Case-insensitive: on a case-insensitive disk MAKEFILE lands on Makefile.
    static QString hostRunsCodeReason(const QString& path);
    // The patterns behind hostRunsCodeReason, each with its reason (docs/review-mode.md lists the same).
    struct RiskyPattern {
        QString pattern;  // gitignore syntax
        QString reason;   // in English; hostRunsCodeReason translates it
    };
    static const QList<RiskyPattern>& riskyPatterns();
    // True when a symlink's target is absolute or climbs out of the folder from where the link lies (its text only;
    // compute() also follows the other links of both manifests).
    static bool linkLeavesFolder(const QString& linkPath, const QString& target);
    // Why Windows (or a disk that follows its rules: NTFS, FAT, an SMB share) would read this path as another name
    // or a device: a component ending in '.' or ' ', an 8.3 alias ("GIT~1", any "~digit"), a device name (CON, PRN,
    // AUX, NUL, COM0-9, LPT0-9, CONIN$, CONOUT$, with any extension, any case). Empty when it reads it as written.
    // Such a change is refused on every host, before the .git and risky-file rules look at it.
    static QString windowsNameProblem(const QString& path);
    // True when the path lies in a .git folder (the repository's own or a nested one) or is a .git file.
    static bool isGitInternal(const QString& path);
    // How many changes to tell the user of (notifications, the Sessions table, `--exec`, `--changes`): the files
    // outside .git, plus one for the repository when anything inside .git changed. A commit touches a dozen
    // objects, logs and refs; to the user it is one thing to review, and it comes home as commits.
    static int peopleCount(const QList<Change>& changes);
};

}  // namespace zeus
