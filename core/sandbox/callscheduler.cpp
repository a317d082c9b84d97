#include "sandbox/callscheduler.h"

#include "support/logging.h"

#include <QDateTime>
#include <QTimer>

#include <utility>

namespace zeus {

CallScheduler::CallScheduler(int perSessionBound, int totalBound, Hooks hooks, QObject* parent)
    : QObject(parent), m_queue(perSessionBound, totalBound), m_hooks(std::move(hooks)) {}

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
    arm(request);
    Q_EMIT callQueued(request.callId, position);
    announce(request.sessionId);
    return true;
}

void CallScheduler::arm(const ExecRequest& request) {
    const std::optional<Block> block = m_hooks.blockedBy(request.sessionId);
    if (!block) {
        m_waits.remove(request.callId);  // it waits for a call slot, which the queue bounds
        return;
    }
    const quint64 ticket = ++m_nextTicket;
    m_waits.insert(request.callId, ticket);
    QTimer::singleShot(block->waitMs, this, [this, callId = request.callId, sessionId = request.sessionId, ticket] {
        onWaitOver(callId, sessionId, ticket);
    });
}

void CallScheduler::armWaits() {
    for (const QString& sessionId : m_queue.sessions()) {
        for (const ExecRequest& request : m_queue.waiting(sessionId)) {
            arm(request);
        }
    }
}

void CallScheduler::onWaitOver(const QString& callId, const QString& sessionId, quint64 ticket) {
    if (m_waits.value(callId) != ticket || !m_queue.contains(callId)) {
        return;  // it started, or left the queue
    }
    m_waits.remove(callId);
    const std::optional<Block> block = m_hooks.blockedBy(sessionId);
    if (!block) {
        return;  // it waits for a call slot now, which the queue bounds
    }
    const std::optional<ExecRequest> request = m_queue.remove(callId);
    announce(sessionId);
    m_hooks.refuse(*request, block->code, block->message);
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
        m_waits.remove(next->callId);
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
    m_waits.remove(request.callId);
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
