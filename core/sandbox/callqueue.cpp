#include "sandbox/callqueue.h"

#include <utility>

namespace zeus {

CallQueue::Refusal CallQueue::push(const ExecRequest& request) {
    Q_ASSERT(!contains(request.callId));
    if (size(request.sessionId) >= m_perSessionBound) {
        return Refusal::SessionFull;
    }
    if (size() >= m_totalBound) {
        return Refusal::TotalFull;
    }
    auto it = m_bySession.find(request.sessionId);
    if (it == m_bySession.end()) {
        it = m_bySession.insert(request.sessionId, {});
        m_ring.append(request.sessionId);  // a new session is served after those already waiting
    }
    it->append(request);
    m_sessionOf.insert(request.callId, request.sessionId);
    return Refusal::None;
}

int CallQueue::position(const QString& callId) const {
    const auto session = m_sessionOf.constFind(callId);
    if (session == m_sessionOf.cend()) {
        return 0;
    }
    const QList<ExecRequest>& fifo = *m_bySession.constFind(*session);
    for (int i = 0; i < fifo.size(); ++i) {
        if (fifo.at(i).callId == callId) {
            return i + 1;
        }
    }
    return 0;
}

int CallQueue::size(const QString& sessionId) const {
    const auto it = m_bySession.constFind(sessionId);
    return it == m_bySession.cend() ? 0 : int(it->size());
}

const ExecRequest* CallQueue::head(const QString& sessionId) const {
    const auto it = m_bySession.constFind(sessionId);
    return it == m_bySession.cend() ? nullptr : &it->constFirst();
}

std::optional<ExecRequest> CallQueue::takeNext(const std::function<bool(const QString&)>& mayStart) {
    for (int i = 0; i < m_ring.size(); ++i) {
        const QString sessionId = m_ring.at(i);
        if (!mayStart(sessionId)) {
            continue;
        }
        QList<ExecRequest>& fifo = m_bySession[sessionId];
        ExecRequest next = fifo.takeFirst();
        m_sessionOf.remove(next.callId);
        m_ring.removeAt(i);
        if (fifo.isEmpty()) {
            m_bySession.remove(sessionId);
        } else {
            m_ring.append(sessionId);
        }
        return next;
    }
    return std::nullopt;
}

std::optional<ExecRequest> CallQueue::remove(const QString& callId) {
    const auto found = m_sessionOf.find(callId);
    if (found == m_sessionOf.end()) {
        return std::nullopt;
    }
    const QString sessionId = *found;
    m_sessionOf.erase(found);
    QList<ExecRequest>& fifo = m_bySession[sessionId];
    std::optional<ExecRequest> removed;
    for (int i = 0; i < fifo.size(); ++i) {
        if (fifo.at(i).callId == callId) {
            removed = fifo.takeAt(i);
            break;
        }
    }
    dropIfEmpty(sessionId);
    return removed;
}

QList<ExecRequest> CallQueue::takeSession(const QString& sessionId) {
    QList<ExecRequest> taken = m_bySession.take(sessionId);
    for (const ExecRequest& request : std::as_const(taken)) {
        m_sessionOf.remove(request.callId);
    }
    m_ring.removeAll(sessionId);
    return taken;
}

QList<ExecRequest> CallQueue::takeAll() {
    QList<ExecRequest> taken;
    const QStringList ring = m_ring;
    for (const QString& sessionId : ring) {
        taken += takeSession(sessionId);
    }
    return taken;
}

void CallQueue::dropIfEmpty(const QString& sessionId) {
    const auto it = m_bySession.find(sessionId);
    if (it != m_bySession.end() && it->isEmpty()) {
        m_bySession.erase(it);
        m_ring.removeAll(sessionId);
    }
}

}  // namespace zeus
