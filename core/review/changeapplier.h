#pragma once

#include "review/changeset.h"

#include <QList>
#include <QString>

namespace zeus {

// What Apply did with one change (SPEC §10: a report of what was applied, skipped, conflicted).
struct ApplyOutcome {
    enum class Result {
        Applied,   // the host now holds the copy's version
        Skipped,   // nothing to do: the host already holds it, or a folder to delete still has the user's files
        Conflict,  // the host's version changed since the baseline: left as the user has it
        Refused,   // never applied: inside .git, an unsafe path, a symlink in the way, content that does not match
    };

    QString path;
    Result result = Result::Refused;
    QString reason;  // for the user; empty when Applied

    // applied, skipped, conflict, refused: how --apply and the MCP apply_changes say it.
    static QString word(Result result);
};

// Applies changes of a review copy to the host folder, one at a time, safely (docs/review-mode.md "Apply"):
//   - atomic: a file or link is written under a temporary name in its own folder and renamed over the target;
//   - a change is applied only while the host still holds the baseline's version (else a conflict, left alone),
//     a deletion only while the host file still matches the baseline; takeTheirs (the user's explicit "take
//     theirs" for a listed conflict) lifts that check and nothing else;
//   - never through a symlink: every folder on the way is checked without following (a link or a non-folder there
//     refuses the change), the target itself is replaced, never written through; nothing leaves the folder;
//   - never inside a .git folder (commits come as a git bundle); never a setuid/setgid/sticky bit; of the mode
//     only the exec bits are taken, as in the change list;
//   - a new file's content comes from a local file the caller streamed from the container, and is applied only
//     when its SHA-256 is the one the change lists.
// Blocking file I/O, no process, no container: the caller runs it off the GUI thread.
class ChangeApplier {
public:
    struct Options {
        bool takeTheirs = false;
    };

    ChangeApplier() = delete;

    // `contentFile`: the new bytes of an added or modified file (ignored for other changes).
    static ApplyOutcome apply(const QString& root, const Change& change, const QString& contentFile,
                              const Options& options);
    static ApplyOutcome apply(const QString& root, const Change& change, const QString& contentFile) {
        return apply(root, change, contentFile, Options{});
    }

    // The order to apply a selection in: deletions first, deepest first (a folder empties before it goes), then
    // everything else by path (a folder before what goes in it).
    static QList<Change> inApplyOrder(QList<Change> changes);
};

}  // namespace zeus
