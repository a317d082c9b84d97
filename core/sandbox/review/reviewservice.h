#pragma once

#include "engine/containerruntime.h"
#include "review/changeapplier.h"
#include "review/changeset.h"
#include "review/gitbundle.h"
#include "review/reviewstore.h"
#include "sandbox/review/reviewworker.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace zeus {

class ContainerRuntime;

// What the Changes view shows of one changed file besides the list (SPEC §10: a diff for text, size and hash for
// binary).
struct ChangeDetail {
    QString path;
    bool ok = false;
    QString error;
    bool binary = false;     // either side is not text: show sizes and hashes
    QString unifiedDiff;     // text: `diff -u` style, "--- a/PATH", "+++ b/PATH", hunks
    qint64 beforeSize = -1;  // -1: no such side
    qint64 afterSize = -1;
    QByteArray beforeSha256;  // hex
    QByteArray afterSha256;
    bool hostChanged = false;  // the host file is no longer the baseline's: applying it is a conflict
};

// What bringing the agent's commits home did (docs/review-mode.md "Commits"): every Apply also fetches them.
struct CommitsResult {
    enum class State {
        Fetched,       // refs/zeus/<session>/ holds the branches and tags that point at the agent's new commits
        NothingNew,    // no branch or tag of the copy points at a commit the folder lacks
        NoRepository,  // the copy (or the folder) is no git repository: nothing to do
        NoGitInImage,  // the image has no git: the commits stay in the copy
        NoGitOnHost,   // this computer has no git: the commits stay in the copy
        Failed,
    };
    State state = State::NoRepository;
    QString error;
    QString prefix;
    QList<FetchedRef> refs;

    // One line for the user (empty for NoRepository): what was fetched where and how to merge it, or why not.
    QString describe() const;
    // Commits were brought over or none are left to bring: the copy's .git changes are done.
    bool settled() const { return state == State::Fetched || state == State::NothingNew; }
};

// The review copies as the app's UI sees them: the store on disk plus the engine each record names (the CLI it was
// made with: a copy made with Podman stays reviewable after a switch to Docker), every engine call on a worker
// thread (the shared ReviewWorker's, which the sessions' review containers use too), every answer as a signal on the
// object's thread. One request at a time (a second one while the first runs is queued behind it).
class ReviewService : public QObject {
    Q_OBJECT

public:
    // `runtimes` makes the adapter of the engine a record names (the composition's SandboxSetup::adapterFactory);
    // it is called on this object's thread.
    ReviewService(std::shared_ptr<ReviewWorker> worker, RuntimeFactory runtimes, QObject* parent = nullptr);
    ~ReviewService() override;

    const ReviewStore& store() const { return m_worker->store(); }
    // The records on disk now (cheap: no engine call).
    QList<ReviewRecord> records() const { return store().records(); }

    // Asks for the change list of a session; changesReady answers.
    void refreshChanges(const QString& sessionId);
    // Asks for one file's diff or sizes/hashes; detailReady answers.
    void requestDetail(const QString& sessionId, const Change& change);
    // Applies the given changes (the caller has already confirmed the flagged ones); applied answers, then a new
    // changesReady follows.
    void apply(const QString& sessionId, const QList<Change>& changes, bool takeTheirs = false);
    // Removes the container and forgets the record; discarded answers.
    void discard(const QString& sessionId);
    // The last change list of a session (empty before the first changesReady).
    QList<Change> lastChanges(const QString& sessionId) const { return m_lastChanges.value(sessionId); }

    // The store changed (a review copy was taken, applied, discarded, here or by the command line).
    void notifyStoreChanged() { m_worker->notifyStoreChanged(); }

Q_SIGNALS:
    void recordsChanged();
    void changesReady(const QString& sessionId, bool ok, const QString& error, const QList<zeus::Change>& changes);
    void detailReady(const QString& sessionId, const zeus::ChangeDetail& detail);
    // error: what went wrong around the outcomes (the container could not be started, the record not updated).
    void applied(const QString& sessionId, const QList<zeus::ApplyOutcome>& outcomes, const QString& error);
    void discarded(const QString& sessionId, bool ok, const QString& error);
    // After applied: what fetching the copy's commits did (NoRepository included).
    void commitsFetched(const QString& sessionId, const zeus::CommitsResult& commits);

public:
    // The blocking operations behind the requests, shared with the command line (--changes, --apply, --discard).
    // A stopped container is started for the call and stopped again after it.
    struct ListResult {
        bool ok = false;
        QString error;
        QList<Change> changes;
    };
    static ListResult listChanges(const ContainerRuntime& runtime, const ReviewStore& store,
                                  const ReviewRecord& record);
    // Applies, fetches the copy's commits (fetchCommits; `commits` gets what it did), then moves what the host now
    // holds into the baseline: the applied files, and the copy's .git changes once its commits are settled.
    // `error`: what went wrong around the outcomes.
    static QList<ApplyOutcome> applyChanges(const ContainerRuntime& runtime, ReviewStore& store,
                                            const ReviewRecord& record, const QList<Change>& changes, bool takeTheirs,
                                            QString* error, CommitsResult* commits = nullptr);
    // The container's git writes a bundle of the commits the folder lacks (reachable from no branch or tag the
    // copy had when it was taken); the host's git fetches it into refs/zeus/<session>/ with hooks off. The
    // container must be running.
    static CommitsResult fetchCommits(const ContainerRuntime& runtime, ReviewStore& store, const ReviewRecord& record);
    // Removes the container (one already gone is no error) and forgets the record.
    static bool discardCopy(const ContainerRuntime& runtime, ReviewStore& store, const ReviewRecord& record,
                            QString* error);
    static ChangeDetail detailOf(const ContainerRuntime& runtime, const ReviewRecord& record, const Change& change);
    // The adapter of the engine that holds the record's container; null when the record names no known engine.
    static std::unique_ptr<ContainerRuntime> runtimeFor(const ReviewRecord& record, const RuntimeFactory& runtimes);

private:
    std::shared_ptr<ReviewWorker> m_worker;
    RuntimeFactory m_runtimes;
    QHash<QString, QList<Change>> m_lastChanges;
    ReviewWorker::Tasks m_tasks;  // last: destroyed (waited for) first
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ChangeDetail)
Q_DECLARE_METATYPE(zeus::CommitsResult)
