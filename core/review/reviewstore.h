#pragma once

#include "review/changeset.h"
#include "review/workspacemanifest.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// One review copy the app keeps (SPEC §10): which session, which folder, which container holds the copy.
struct ReviewRecord {
    QString sessionId;      // the backend's session id (any text: never used as a file name)
    QString workspace;      // the approved host folder the copy was taken from, and where Apply writes
    QString containerId;    // the engine's id of the container holding the copy
    QString containerName;  // the name the app gave it (zeus-…)
    QString engine;         // runtimeKindName() of the engine that runs it
    QString engineProgram;  // the CLI the app called ("docker", a full path, …)
    QDateTime created;      // UTC, when the copy was taken
    // What the copy's branches and tags pointed at when it was taken (object ids): the commits the folder already
    // has. Empty when the copy is no git repository or the image has no git.
    QStringList gitBaseTips;
    // The git repository's refs fetched last ("refs/zeus/<session>/…"), empty when none was.
    QString fetchedRefsPrefix;
};

// The review copies of this user, on disk, in the app's data folder (docs/review-mode.md "Lifetime"): one folder per
// session, named by the SHA-256 of the session id, holding record.json and baseline.json. The disk is the only
// truth: the tray app and `zeus-desktop --changes/--apply/--discard` share it, each change under a lock file, so
// either may run while the other does.
//
// The folder is created 0700 (the baseline names every file of the user's folder with its hash). Files are
// written atomically (QSaveFile). Reading never trusts the files: a record that does not parse is skipped (and
// named by records()' error list), never half-used.
class ReviewStore {
public:
    // `directory`: where the per-session folders live; default: <AppDataLocation>/review.
    explicit ReviewStore(QString directory = defaultDirectory());

    static QString defaultDirectory();
    QString directory() const { return m_directory; }

    // Every record that parses, oldest first; `errors` (when given) gets one line per folder that did not.
    QList<ReviewRecord> records(QStringList* errors = nullptr) const;
    std::optional<ReviewRecord> record(const QString& sessionId) const;
    // The record whose containerId starts with `idOrPrefix` (or whose session id is it): for the CLI.
    std::optional<ReviewRecord> find(const QString& sessionOrContainer) const;

    // Writes (or replaces) the record and its baseline.
    bool save(const ReviewRecord& record, const WorkspaceManifest& baseline, QString* error = nullptr);
    bool saveRecord(const ReviewRecord& record, QString* error = nullptr) const;
    bool loadBaseline(const QString& sessionId, WorkspaceManifest& out, QString* error = nullptr) const;
    // After Apply: the applied changes become the baseline (an applied file is no longer a change; a deleted one
    // leaves the baseline). Under the lock.
    bool markApplied(const QString& sessionId, const QList<Change>& applied, QString* error = nullptr) const;
    // Forgets the session's record and baseline (after Discard, or once nothing is left to review).
    bool remove(const QString& sessionId, QString* error = nullptr) const;

    // The folder of one session (exists or not).
    QString sessionDirectory(const QString& sessionId) const;

private:
    QString m_directory;
};

}  // namespace zeus
