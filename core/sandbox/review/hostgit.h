#pragma once

#include "review/gitbundle.h"

#include <QList>
#include <QString>

namespace zeus {

// Brings the commits of a review copy into the user's repository (SPEC §10, docs/review-mode.md "Commits"): the
// container's git writes a bundle of what is new since the copy was taken; this side fetches it into
// refs/zeus/<session>/heads/* and refs/zeus/<session>/tags/* (GitBundle::refPrefix), and nowhere else. The user's
// branches, HEAD, index and files are never touched: merging is the user's own step.
//
// The bundle is the container's output, so it is treated as hostile: only refs/heads/* and refs/tags/* are taken
// (explicit refspecs), every object is checked (transfer.fsckObjects), and no hook, fsmonitor, submodule fetch or
// automatic gc runs (core.hooksPath=/dev/null and the rest, on the command line, over anything a config says). The
// host's git is an argument list with a clean environment (no inherited GIT_DIR & co.), and the repository must be
// the folder itself, never a repository found above it. Every call blocks until git ends (or its timeout): it is
// for a worker thread or the command line, never the GUI thread.
class HostGit {
public:
    HostGit() = delete;

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
    // Fetches `bundleFile` into the repository at `workspace` under GitBundle::refPrefix(sessionId).
    static FetchResult fetch(const QString& workspace, const QString& bundleFile, const QString& sessionId);
};

}  // namespace zeus
