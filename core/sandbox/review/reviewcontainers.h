#pragma once

#include "review/reviewstore.h"
#include "sandbox/review/reviewcopy.h"
#include "sandbox/review/reviewworker.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace zeus {

class ContainerRuntime;

// The containers that hold review copies (SPEC §10) as one SessionManager's engine sees them. Their records and
// the thread every copy, listing, stop and resume runs on (blocking file and engine I/O, never on the caller's
// thread) belong to the shared ReviewWorker, so these calls never overlap with the Changes view's. Every answer
// comes back on this object's thread, after which it says copyTaken or copyKept (and the worker storeChanged). It
// decides nothing about a session (ContainerStart and SandboxSession do, and log it), and never removes a container
// that still holds changes to review.
class ReviewContainers : public QObject {
    Q_OBJECT

public:
    ReviewContainers(const ContainerRuntime& runtime, std::shared_ptr<ReviewWorker> worker, QObject* parent = nullptr);
    // Waits for this object's tasks on the worker: they use the runtime.
    ~ReviewContainers() override;

    std::optional<ReviewRecord> record(const QString& sessionId) const { return store().record(sessionId); }
    // A record names this container (a full id, or a prefix of it either way).
    bool isReviewContainer(const QString& containerId) const;
    // The session's copy is lost (its container no longer exists): the record goes too.
    void forget(const QString& sessionId) { store().remove(sessionId); }

    struct Resumed {
        bool started = false;
        bool gone = false;  // the engine has no such container
        QString error;
    };
    // Starts the session's stopped container again.
    void resume(const QString& containerId, std::function<void(const Resumed&)> done);
    // Copies `draft.workspace` into `draft.containerId` and records it (the engine, the time and the folder's git
    // tips are filled in). A copy that fails takes its container with it: never a partial copy. copyTaken follows a
    // copy that was recorded, before `done`.
    void copyIn(const ReviewRecord& draft, qint64 sizeCap, int timeoutMs,
                std::function<void(const ReviewCopy::CopyResult&)> done);

    struct Retired {
        int changes = -1;  // changed files; < 0: not known (the listing failed)
        bool ok = false;   // the container was stopped (or removed when nothing changed)
        QString error;
    };
    // Instead of `rm`: the container is listed; with changes it is stopped and kept (copyKept after `report`),
    // without any it is removed with its record. `finished` comes last.
    void retire(const QString& sessionId, const QString& workspace, const QString& containerId,
                std::function<void(const Retired&)> report, std::function<void()> finished = {});

Q_SIGNALS:
    void copyTaken(const QString& sessionId, const QString& workspace);
    void copyKept(const QString& sessionId, const QString& workspace, int changeCount);

private:
    const ReviewStore& store() const { return m_worker->store(); }

    const ContainerRuntime& m_runtime;
    std::shared_ptr<ReviewWorker> m_worker;
    ReviewWorker::Tasks m_tasks;  // last: destroyed (waited for) first
};

}  // namespace zeus
