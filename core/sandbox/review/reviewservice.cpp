#include "sandbox/review/reviewservice.h"

#include "engine/containerruntime.h"
#include "review/hostfile.h"
#include "review/textdiff.h"
#include "sandbox/review/hostgit.h"
#include "sandbox/review/reviewcopy.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

namespace zeus {

namespace {

// Larger bundles are refused: the copy itself is capped at the review size cap (2 GiB by default).
constexpr qint64 kMaxBundleBytes = qint64(4) * 1024 * 1024 * 1024;

// Larger files are shown by size and hash only.
constexpr qint64 kMaxDiffBytes = 4 * 1024 * 1024;

// The host's side of a change: the file as it is now in the folder (never through a symlink).
struct HostSide {
    bool exists = false;
    bool isFile = false;
    bool readable = false;
    QByteArray data;
    qint64 size = -1;
    QByteArray sha256;
    QString linkTarget;
};

HostSide hostSide(const QString& root, const QString& path) {
    HostSide side;
    const QString absolute = root + QLatin1Char('/') + path;
    const QFileInfo info(absolute);
    if (!info.exists() && !info.isSymLink()) {
        return side;
    }
    side.exists = true;
    if (info.isSymLink()) {
        side.linkTarget = QString::fromUtf8(hostfile::readLink(absolute));
        side.sha256 = QCryptographicHash::hash(side.linkTarget.toUtf8(), QCryptographicHash::Sha256).toHex();
        return side;
    }
    if (!info.isFile()) {
        return side;
    }
    side.isFile = true;
    QFile file;
    if (!hostfile::openNoFollow(file, absolute)) {
        return side;
    }
    side.size = file.size();
    if (side.size <= kMaxDiffBytes) {
        side.data = file.readAll();
        side.sha256 = QCryptographicHash::hash(side.data, QCryptographicHash::Sha256).toHex();
        side.readable = true;
    } else {
        side.sha256 = hostfile::sha256Hex(file);
    }
    return side;
}

ReviewService::ListResult unknownEngine(const ReviewRecord& record) {
    ReviewService::ListResult result;
    result.error = QStringLiteral("The review copy names an engine this app does not know: %1").arg(record.engine);
    return result;
}

QByteArray linkText(const QString& target) {
    return QByteArrayLiteral("symlink -> ") + target.toUtf8() + '\n';
}

}  // namespace

QString CommitsResult::describe() const {
    switch (state) {
        case State::Fetched: {
            QStringList names;
            for (const FetchedRef& ref : refs) {
                names.append(ref.name.mid(prefix.size()));
            }
            if (names.isEmpty()) {
                return QCoreApplication::translate("zeus::CommitsResult", "The copy's commits were fetched.");
            }
            return QCoreApplication::translate(
                       "zeus::CommitsResult",
                       "The agent's commits are in your repository under %1 (%2): your branches are untouched. "
                       "Look with git log %1%3; merge with git merge --autostash %1%3 (it keeps your uncommitted "
                       "changes, the files you applied included).")
                .arg(prefix, names.join(QStringLiteral(", ")), names.first());
        }
        case State::NothingNew:
            return QCoreApplication::translate("zeus::CommitsResult", "The agent made no new commits.");
        case State::NoRepository:
            return {};
        case State::NoGitInImage:
            return QCoreApplication::translate("zeus::CommitsResult",
                                               "The container's image has no git: any commits stay in the copy.");
        case State::NoGitOnHost:
            return QCoreApplication::translate("zeus::CommitsResult",
                                               "git is not installed on this computer: the commits stay in the copy.");
        case State::Failed:
            return QCoreApplication::translate("zeus::CommitsResult", "The commits stay in the copy: %1").arg(error);
    }
    return {};
}

ReviewService::ReviewService(std::shared_ptr<ReviewWorker> worker, RuntimeFactory runtimes, QObject* parent)
    : QObject(parent), m_worker(std::move(worker)), m_runtimes(std::move(runtimes)) {
    Q_ASSERT(m_worker);
    qRegisterMetaType<zeus::ChangeDetail>();
    qRegisterMetaType<QList<zeus::Change>>();
    qRegisterMetaType<QList<zeus::ApplyOutcome>>();
    qRegisterMetaType<zeus::CommitsResult>();
    connect(m_worker.get(), &ReviewWorker::storeChanged, this, &ReviewService::recordsChanged);
}

ReviewService::~ReviewService() {
    m_tasks.waitForDone();
}

std::unique_ptr<ContainerRuntime> ReviewService::runtimeFor(const ReviewRecord& record,
                                                            const RuntimeFactory& runtimes) {
    const std::optional<RuntimeKind> kind = runtimeKindFromString(record.engine);
    if (!kind) {
        return nullptr;
    }
    return runtimes(*kind, record.engineProgram);
}

ReviewService::ListResult ReviewService::listChanges(const ContainerRuntime& runtime, const ReviewStore& store,
                                                     const ReviewRecord& record) {
    ListResult result;
    WorkspaceManifest baseline;
    QString error;
    if (!store.loadBaseline(record.sessionId, baseline, &error)) {
        result.error = QStringLiteral("The review copy's baseline could not be read: %1").arg(error);
        return result;
    }
    const ReviewCopy copy(runtime, record.containerId);
    const bool wasRunning = copy.isRunning();
    if (!wasRunning && !copy.start(&error)) {
        result.error = QStringLiteral("The review container could not be started: %1").arg(error);
        return result;
    }
    const ReviewCopy::ChangesResult changes = copy.changes(baseline);
    if (!wasRunning) {
        copy.stop();
    }
    result.ok = changes.ok;
    result.error = changes.error;
    result.changes = changes.changes;
    return result;
}

QList<ApplyOutcome> ReviewService::applyChanges(const ContainerRuntime& runtime, ReviewStore& store,
                                                const ReviewRecord& record, const QList<Change>& changes,
                                                bool takeTheirs, QString* error, CommitsResult* commits) {
    const ReviewCopy copy(runtime, record.containerId);
    const bool wasRunning = copy.isRunning();
    QString startError;
    if (!wasRunning && !copy.start(&startError)) {
        if (error) {
            *error = QStringLiteral("The review container could not be started: %1").arg(startError);
        }
        return {};
    }
    ChangeApplier::Options options;
    options.takeTheirs = takeTheirs;
    QList<ApplyOutcome> outcomes = copy.apply(record.workspace, changes, options);
    QList<Change> done;
    for (const ApplyOutcome& outcome : outcomes) {
        if (outcome.result != ApplyOutcome::Result::Applied && outcome.result != ApplyOutcome::Result::Skipped) {
            continue;
        }
        for (const Change& change : changes) {
            if (change.path == outcome.path) {
                done.append(change);
            }
        }
    }
    // The commits come with every Apply: they land only under refs/zeus/<session>/, never in the user's branches.
    const CommitsResult fetched = fetchCommits(runtime, store, record);
    if (commits) {
        *commits = fetched;
    }
    if (fetched.settled()) {
        // What the copy's .git holds besides its commits (hooks, config, index) is never applied: once the commits
        // are home, its .git changes are done with.
        WorkspaceManifest baseline;
        if (store.loadBaseline(record.sessionId, baseline)) {
            const ReviewCopy::ChangesResult now = copy.changes(baseline);
            for (const Change& change : now.changes) {
                if (ChangeSet::isGitInternal(change.path)) {
                    done.append(change);
                }
            }
        }
    }
    // A skipped deletion of a folder that still holds the user's files stays in the list: only what the host now
    // holds as the copy has it leaves the baseline.
    QString storeError;
    if (!done.isEmpty() && !store.markApplied(record.sessionId, done, &storeError) && error) {
        *error = QStringLiteral("Applied, but the review record could not be updated: %1").arg(storeError);
    }
    if (!wasRunning) {
        copy.stop();
    }
    return outcomes;
}

CommitsResult ReviewService::fetchCommits(const ContainerRuntime& runtime, ReviewStore& store,
                                          const ReviewRecord& record) {
    CommitsResult result;
    result.prefix = GitBundle::refPrefix(record.sessionId);
    const QTemporaryDir scratch(QDir::tempPath() + QStringLiteral("/zeus-commits-XXXXXX"));
    if (!scratch.isValid()) {
        result.state = CommitsResult::State::Failed;
        result.error = QStringLiteral("no temporary folder: %1").arg(scratch.errorString());
        return result;
    }
    const QString bundle = scratch.filePath(QStringLiteral("commits.bundle"));
    const ReviewCopy copy(runtime, record.containerId);
    QString error;
    switch (copy.exportBundle(record.gitBaseTips, bundle, kMaxBundleBytes, &error)) {
        case ReviewCopy::BundleState::NoRepository:
            result.state = CommitsResult::State::NoRepository;
            return result;
        case ReviewCopy::BundleState::NoGit:  // the copy has a .git, the image no git to read it
            result.state = CommitsResult::State::NoGitInImage;
            return result;
        case ReviewCopy::BundleState::NothingNew:
            result.state = CommitsResult::State::NothingNew;
            return result;
        case ReviewCopy::BundleState::Failed:
            result.state = CommitsResult::State::Failed;
            result.error = QStringLiteral("the container's git could not write them: %1").arg(error);
            return result;
        case ReviewCopy::BundleState::Written:
            break;
    }
    if (HostGit::gitProgram().isEmpty()) {
        result.state = CommitsResult::State::NoGitOnHost;
        return result;
    }
    const HostGit::FetchResult fetched = HostGit::fetch(record.workspace, bundle, record.sessionId);
    if (!fetched.ok) {
        result.state = CommitsResult::State::Failed;
        result.error = fetched.error;
        return result;
    }
    result.state = CommitsResult::State::Fetched;
    result.refs = fetched.refs;
    if (record.fetchedRefsPrefix != result.prefix) {
        ReviewRecord updated = record;
        updated.fetchedRefsPrefix = result.prefix;
        store.saveRecord(updated);
    }
    return result;
}

bool ReviewService::discardCopy(const ContainerRuntime& runtime, ReviewStore& store, const ReviewRecord& record,
                                QString* error) {
    const ReviewCopy copy(runtime, record.containerId);
    QString removeError;
    if (!copy.remove(&removeError)
        && runtime.containerCallFailure(removeError.toUtf8()) != EngineFailure::NoSuchContainer) {
        if (error) {
            *error = QStringLiteral("The review container could not be removed: %1").arg(removeError);
        }
        return false;
    }
    return store.remove(record.sessionId, error);
}

ChangeDetail ReviewService::detailOf(const ContainerRuntime& runtime, const ReviewRecord& record,
                                     const Change& change) {
    ChangeDetail detail;
    detail.path = change.path;
    const HostSide host = hostSide(record.workspace, change.path);
    // The host's version is the baseline's while its hash is the same; anything else makes applying a conflict.
    if (change.hasBefore) {
        detail.hostChanged = !host.exists || host.sha256 != change.before.sha256;
    } else {
        detail.hostChanged = host.exists;
    }
    QByteArray before;
    bool beforeKnown = !change.hasBefore;
    if (change.hasBefore) {
        detail.beforeSize = change.before.size;
        detail.beforeSha256 = change.before.sha256;
        if (change.before.type == ManifestEntry::Type::Symlink) {
            before = linkText(change.before.linkTarget);
            beforeKnown = true;
        } else if (change.before.type == ManifestEntry::Type::File && host.readable) {
            before = host.data;
            beforeKnown = true;
            if (detail.hostChanged) {
                detail.beforeSize = host.size;
                detail.beforeSha256 = host.sha256;
            }
        }
    }
    QByteArray after;
    bool afterKnown = !change.hasAfter;
    if (change.hasAfter) {
        detail.afterSize = change.after.size;
        detail.afterSha256 = change.after.sha256;
        if (change.after.type == ManifestEntry::Type::Symlink) {
            after = linkText(change.after.linkTarget);
            afterKnown = true;
        } else if (change.after.type == ManifestEntry::Type::File && change.after.size <= kMaxDiffBytes) {
            QString error;
            const ReviewCopy copy(runtime, record.containerId);
            const bool wasRunning = copy.isRunning();
            if (!wasRunning) {
                copy.start(&error);
            }
            // Exactly the listed size, never through a link (ReviewCopy::readFile): the copy is hostile input.
            afterKnown = copy.readFile(change.path, change.after.size, after, &error);
            if (!wasRunning) {
                copy.stop();
            }
            if (!afterKnown) {
                detail.error = error;
                return detail;
            }
        }
    }
    const bool folder = (change.hasBefore && change.before.type == ManifestEntry::Type::Directory)
                        || (change.hasAfter && change.after.type == ManifestEntry::Type::Directory);
    if (folder) {
        detail.ok = true;
        detail.unifiedDiff = change.hasAfter ? QStringLiteral("New folder\n") : QStringLiteral("Folder deleted\n");
        return detail;
    }
    if (!beforeKnown || !afterKnown || TextDiff::looksBinary(before) || TextDiff::looksBinary(after)) {
        detail.binary = true;
        detail.ok = true;
        return detail;
    }
    const TextDiff::Result diff = TextDiff::unified(change.hasBefore ? before : QByteArray(),
                                                    change.hasAfter ? after : QByteArray(), change.path);
    detail.unifiedDiff = diff.text;
    detail.binary = diff.tooLarge;
    detail.ok = true;
    return detail;
}

void ReviewService::refreshChanges(const QString& sessionId) {
    const std::optional<ReviewRecord> record = store().record(sessionId);
    if (!record) {
        Q_EMIT changesReady(sessionId, false, tr("No review copy is kept for this session."), {});
        return;
    }
    const ReviewStore store = this->store();
    const std::shared_ptr<const ContainerRuntime> runtime = runtimeFor(*record, m_runtimes);
    m_worker->run(m_tasks, [this, store, runtime, record = *record] {
        const ListResult result = runtime ? listChanges(*runtime, store, record) : unknownEngine(record);
        QMetaObject::invokeMethod(
            this,
            [this, sessionId = record.sessionId, result] {
                if (result.ok) {
                    m_lastChanges.insert(sessionId, result.changes);
                }
                Q_EMIT changesReady(sessionId, result.ok, result.error, result.changes);
            },
            Qt::QueuedConnection);
    });
}

void ReviewService::requestDetail(const QString& sessionId, const Change& change) {
    const std::optional<ReviewRecord> record = store().record(sessionId);
    if (!record) {
        ChangeDetail detail;
        detail.path = change.path;
        detail.error = tr("No review copy is kept for this session.");
        Q_EMIT detailReady(sessionId, detail);
        return;
    }
    const std::shared_ptr<const ContainerRuntime> runtime = runtimeFor(*record, m_runtimes);
    m_worker->run(m_tasks, [this, runtime, record = *record, change] {
        ChangeDetail detail;
        if (runtime) {
            detail = detailOf(*runtime, record, change);
        } else {
            detail.path = change.path;
            detail.error = unknownEngine(record).error;
        }
        QMetaObject::invokeMethod(
            this, [this, sessionId = record.sessionId, detail] { Q_EMIT detailReady(sessionId, detail); },
            Qt::QueuedConnection);
    });
}

void ReviewService::apply(const QString& sessionId, const QList<Change>& changes, bool takeTheirs) {
    const std::optional<ReviewRecord> record = store().record(sessionId);
    if (!record) {
        Q_EMIT changesReady(sessionId, false, tr("No review copy is kept for this session."), {});
        return;
    }
    ReviewStore store = this->store();
    const std::shared_ptr<const ContainerRuntime> runtime = runtimeFor(*record, m_runtimes);
    m_worker->run(m_tasks, [this, store, runtime, record = *record, changes, takeTheirs]() mutable {
        QString error = unknownEngine(record).error;
        QList<ApplyOutcome> outcomes;
        CommitsResult commits;
        ListResult after = unknownEngine(record);
        if (runtime) {
            error.clear();
            outcomes = applyChanges(*runtime, store, record, changes, takeTheirs, &error, &commits);
            after = listChanges(*runtime, store, record);
        }
        QMetaObject::invokeMethod(
            this,
            [this, sessionId = record.sessionId, outcomes, error, after, commits] {
                Q_EMIT applied(sessionId, outcomes, error);
                Q_EMIT commitsFetched(sessionId, commits);
                if (after.ok) {
                    m_lastChanges.insert(sessionId, after.changes);
                }
                Q_EMIT changesReady(sessionId, after.ok, after.error, after.changes);
                m_worker->notifyStoreChanged();
            },
            Qt::QueuedConnection);
    });
}

void ReviewService::discard(const QString& sessionId) {
    const std::optional<ReviewRecord> record = store().record(sessionId);
    if (!record) {
        Q_EMIT discarded(sessionId, false, tr("No review copy is kept for this session."));
        return;
    }
    ReviewStore store = this->store();
    const std::shared_ptr<const ContainerRuntime> runtime = runtimeFor(*record, m_runtimes);
    m_worker->run(m_tasks, [this, store, runtime, record = *record]() mutable {
        QString error = unknownEngine(record).error;
        const bool ok = runtime && discardCopy(*runtime, store, record, &error);
        QMetaObject::invokeMethod(
            this,
            [this, sessionId = record.sessionId, ok, error] {
                m_lastChanges.remove(sessionId);
                Q_EMIT discarded(sessionId, ok, error);
                m_worker->notifyStoreChanged();
            },
            Qt::QueuedConnection);
    });
}

}  // namespace zeus
