#include "sandbox/review/reviewcontainers.h"

#include "engine/containerruntime.h"
#include "review/changeset.h"
#include "runtime/runtimekind.h"

#include <QDateTime>
#include <QMetaObject>

#include <algorithm>
#include <memory>
#include <utility>

namespace zeus {

ReviewContainers::ReviewContainers(const ContainerRuntime& runtime, std::shared_ptr<ReviewWorker> worker,
                                   QObject* parent)
    : QObject(parent), m_runtime(runtime), m_worker(std::move(worker)) {
    Q_ASSERT(m_worker);
}

ReviewContainers::~ReviewContainers() {
    m_tasks.waitForDone();
}

bool ReviewContainers::isReviewContainer(const QString& containerId) const {
    if (containerId.isEmpty()) {
        return false;
    }
    const QList<ReviewRecord> records = store().records();
    return std::any_of(records.cbegin(), records.cend(), [&containerId](const ReviewRecord& r) {
        return ContainerRuntime::sameContainer(r.containerId, containerId) || r.containerId.startsWith(containerId)
               || containerId.startsWith(r.containerId);
    });
}

void ReviewContainers::resume(const QString& containerId, std::function<void(const Resumed&)> done) {
    m_worker->run(m_tasks, [this, containerId, done = std::move(done)] {
        const ReviewCopy copy(m_runtime, containerId);
        Resumed resumed;
        resumed.started = copy.start(&resumed.error);
        resumed.gone = !resumed.started
                       && m_runtime.containerCallFailure(resumed.error.toUtf8()) == EngineFailure::NoSuchContainer;
        QMetaObject::invokeMethod(
            this, [done, resumed] { done(resumed); }, Qt::QueuedConnection);
    });
}

void ReviewContainers::copyIn(const ReviewRecord& draft, qint64 sizeCap, int timeoutMs,
                              std::function<void(const ReviewCopy::CopyResult&)> done) {
    m_worker->run(m_tasks, [this, draft, sizeCap, timeoutMs, done = std::move(done)] {
        ReviewCopy copy(m_runtime, draft.containerId);
        copy.setTimeoutMs(timeoutMs);
        auto result = std::make_shared<ReviewCopy::CopyResult>(copy.copyIn(draft.workspace, sizeCap));
        if (result->ok) {
            ReviewRecord record = draft;
            record.engine = runtimeKindToString(m_runtime.kind());
            record.engineProgram = m_runtime.program();
            record.created = QDateTime::currentDateTimeUtc();
            // What the folder's branches point at: the commits the agent makes on top are what Apply brings home.
            record.gitBaseTips = copy.gitTips();
            QString error;
            ReviewStore store = this->store();
            if (!store.save(record, result->baseline, &error)) {
                result->ok = false;
                result->error = QStringLiteral("The review copy could not be recorded: %1").arg(error);
            }
        }
        if (!result->ok) {
            QString ignored;
            copy.remove(&ignored);  // never a partial copy: the container goes with it
        }
        QMetaObject::invokeMethod(
            this,
            [this, draft, result, done] {
                if (result->ok) {
                    Q_EMIT copyTaken(draft.sessionId, draft.workspace);
                    m_worker->notifyStoreChanged();
                }
                done(*result);
            },
            Qt::QueuedConnection);
    });
}

void ReviewContainers::retire(const QString& sessionId, const QString& workspace, const QString& containerId,
                              std::function<void(const Retired&)> report, std::function<void()> finished) {
    m_worker->run(
        m_tasks, [this, sessionId, workspace, containerId, report = std::move(report), finished = std::move(finished)] {
            const ReviewCopy copy(m_runtime, containerId);
            Retired retired;
            WorkspaceManifest baseline;
            const std::optional<ReviewRecord> record = store().record(sessionId);
            const bool recorded = record && record->containerId == containerId;
            if (recorded && store().loadBaseline(sessionId, baseline)) {
                const ReviewCopy::ChangesResult changes = copy.changes(baseline);
                if (changes.ok) {
                    retired.changes = ChangeSet::peopleCount(changes.changes);
                }
            }
            if (retired.changes == 0 || (!recorded && !isReviewContainer(containerId))) {
                // Nothing to review (or a copy that was never recorded): the container goes.
                retired.ok = copy.remove(&retired.error);
                if (retired.ok && recorded) {
                    store().remove(sessionId);
                }
                retired.changes = 0;
            } else {
                retired.ok = copy.stop(&retired.error);
            }
            QMetaObject::invokeMethod(
                this,
                [this, sessionId, workspace, retired, report, finished] {
                    if (report) {
                        report(retired);
                    }
                    if (retired.changes != 0) {
                        Q_EMIT copyKept(sessionId, workspace, retired.changes);
                        m_worker->notifyStoreChanged();
                    }
                    if (finished) {
                        finished();
                    }
                },
                Qt::QueuedConnection);
        });
}

}  // namespace zeus
