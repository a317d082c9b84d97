#include "sandbox/review/reviewworker.h"

#include <QMutexLocker>

#include <utility>

namespace zeus {

ReviewWorker::ReviewWorker(ReviewStore store, QObject* parent) : QObject(parent), m_store(std::move(store)) {
    // One at a time: a copy, a listing, an apply and a stop of one container must never overlap.
    m_pool.setMaxThreadCount(1);
}

ReviewWorker::~ReviewWorker() {
    m_pool.waitForDone();
}

void ReviewWorker::Tasks::waitForDone() {
    QMutexLocker lock(&m_mutex);
    while (m_running > 0) {
        m_idle.wait(&m_mutex);
    }
}

void ReviewWorker::run(Tasks& tasks, std::function<void()> task) {
    {
        const QMutexLocker lock(&tasks.m_mutex);
        ++tasks.m_running;
    }
    m_pool.start([&tasks, task = std::move(task)] {
        task();
        const QMutexLocker lock(&tasks.m_mutex);
        if (--tasks.m_running == 0) {
            tasks.m_idle.wakeAll();
        }
    });
}

}  // namespace zeus
