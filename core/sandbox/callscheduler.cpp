#include "sandbox/callscheduler.h"

#include "support/logging.h"

#include <QDateTime>
#include <QTimer>

#include <utility>

namespace zeus {

CallScheduler::CallScheduler(int perSessionBound, int totalBound, int containerWaitMs, int maxContainers, Hooks hooks,
                             QObject* parent)
    : QObject(parent),
      m_queue(perSessionBound, totalBound),
      m_containerWaitMs(containerWaitMs),
      m_maxContainers(maxContainers),
      m_hooks(std::move(hooks)) {}

bool CallScheduler::enqueue(const ExecRequest& request) {
    switch (m_queue.push(request)) {
        case CallQueue::Refusal::SessionFull:
            m_hooks.refuse(request, ExecError::Busy,
                           QStringLiteral("%1 calls already wait in this session's queue (the per-session queue "
                                          "bound); try again when some have finished.")
                               .arg(m_queue.perSessionBound()));
            return false;
        case CallQueue::Refusal::TotalFull:
            m_hooks.refuse(request, ExecError::Busy,
                           QStringLiteral("%1 calls already wait in the queues of all sessions (the total queue "
                                          "bound); try again when some have finished.")
                               .arg(m_queue.totalBound()));
            return false;
        case CallQueue::Refusal::None:
            break;
    }
    const int position = m_queue.position(request.callId);
    qCInfo(lcExec) << "call" << request.callId << "queued in session" << request.sessionId << "at" << position;
    if (m_hooks.waitsForContainer(request.sessionId)) {
        // It may be waiting for a container: at most containerWaitMs (SPEC §3), then busy.
        const quint64 ticket = ++m_nextTicket;
        m_containerWaits.insert(request.callId, ticket);
        QTimer::singleShot(m_containerWaitMs, this,
                           [this, callId = request.callId, sessionId = request.sessionId, ticket] {
                               onContainerWaitOver(callId, sessionId, ticket);
                           });
    }
    Q_EMIT callQueued(request.callId, position);
    announce(request.sessionId);
    return true;
}

void CallScheduler::onContainerWaitOver(const QString& callId, const QString& sessionId, quint64 ticket) {
    if (m_containerWaits.value(callId) != ticket || !m_queue.contains(callId)) {
        return;  // it started, or left the queue
    }
    m_containerWaits.remove(callId);
    if (!m_hooks.waitsForContainer(sessionId)) {
        return;  // it waits for a call slot now, which the queue bounds, not for a container
    }
    const std::optional<ExecRequest> request = m_queue.remove(callId);
    announce(sessionId);
    m_hooks.refuse(*request, ExecError::Busy,
                   QStringLiteral("%1 sandbox containers are running and none became idle within %2 s (the container "
                                  "bound); try again when one has finished.")
                       .arg(m_maxContainers)
                       .arg(m_containerWaitMs / 1000));
}

void CallScheduler::startQueued() {
    if (m_starting) {
        return;  // a call that ended while one was being started: the loop below goes on
    }
    m_starting = true;
    while (!m_stopped) {
        const std::optional<ExecRequest> next = m_queue.takeNext(m_hooks.mayStart);
        if (!next) {
            break;
        }
        m_containerWaits.remove(next->callId);
        announce(next->sessionId);
        m_hooks.start(*next);
    }
    m_starting = false;
}

void CallScheduler::scheduleStartQueued() {
    if (m_startScheduled || m_queue.size() == 0) {
        return;
    }
    m_startScheduled = true;
    QTimer::singleShot(0, this, [this] {
        m_startScheduled = false;
        startQueued();
    });
}

bool CallScheduler::cancel(const QString& callId) {
    const std::optional<ExecRequest> queued = m_queue.remove(callId);
    if (!queued) {
        return false;
    }
    announce(queued->sessionId);
    finish(*queued, QString());
    return true;
}

int CallScheduler::endSession(const QString& sessionId, const QString& message) {
    const QList<ExecRequest> waiting = m_queue.takeSession(sessionId);
    for (const ExecRequest& request : waiting) {
        finish(request, message);
    }
    if (!waiting.isEmpty()) {
        announce(sessionId);
    }
    return int(waiting.size());
}

void CallScheduler::shutdown(const QString& message) {
    m_stopped = true;
    const QStringList sessions = m_queue.sessions();
    const QList<ExecRequest> waiting = m_queue.takeAll();
    for (const ExecRequest& request : waiting) {
        finish(request, message);
    }
    for (const QString& sessionId : sessions) {
        announce(sessionId);
    }
}

void CallScheduler::finish(const ExecRequest& request, const QString& message) {
    m_containerWaits.remove(request.callId);
    ExecResult result;
    result.callId = request.callId;
    result.sessionId = request.sessionId;
    result.status = ExecStatus::Cancelled;
    result.errorMessage = message;
    result.started = QDateTime::currentDateTimeUtc();
    qCInfo(lcExec) << "call" << request.callId
                   << "left the queue:" << (message.isEmpty() ? QStringLiteral("cancelled") : message);
    Q_EMIT callFinished(result);
}

void CallScheduler::announce(const QString& sessionId) {
    Q_EMIT queuedCallsChanged(sessionId, m_queue.size(sessionId));
}

}  // namespace zeus
