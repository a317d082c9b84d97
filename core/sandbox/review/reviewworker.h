#pragma once

#include "review/reviewstore.h"

#include <QMutex>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QWaitCondition>

#include <functional>

namespace zeus {

// The one owner of review work (SPEC §10): the store of review records and the one worker thread on which every
// copy, listing, apply, discard, stop and resume of a review container runs. The core service makes one and shares
// it (std::shared_ptr) between its ReviewService and every SessionManager's ReviewContainers, so the Changes view
// and a session (or the manager a runtime switch retires while a new one starts) never work on one container at the
// same time, and both read and write the same store.
class ReviewWorker : public QObject {
    Q_OBJECT

public:
    explicit ReviewWorker(ReviewStore store, QObject* parent = nullptr);
    // Waits for every task: they use the store.
    ~ReviewWorker() override;

    // Stateless on this side (the disk is the truth), so a copy may be used on any thread.
    const ReviewStore& store() const { return m_store; }

    // The tasks of one user of the worker, so that it can wait for its own (its tasks use its members) without
    // waiting for everybody else's.
    class Tasks {
    public:
        Tasks() = default;
        Tasks(const Tasks&) = delete;
        Tasks& operator=(const Tasks&) = delete;
        ~Tasks() { waitForDone(); }
        void waitForDone();

    private:
        friend class ReviewWorker;
        QMutex m_mutex;
        QWaitCondition m_idle;
        int m_running = 0;
    };
    // Runs `task` on the worker thread after every task started before it.
    void run(Tasks& tasks, std::function<void()> task);

    // A copy was taken or kept, or a record changed: whoever shows the records reads them again.
    void notifyStoreChanged() { Q_EMIT storeChanged(); }

Q_SIGNALS:
    void storeChanged();

private:
    ReviewStore m_store;
    QThreadPool m_pool;
};

}  // namespace zeus
