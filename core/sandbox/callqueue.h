#pragma once

#include "sandbox/commandexecution.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace zeus {

// The calls that wait for a slot (SPEC §3 "Bounded, and queued rather than refused"): one FIFO per session, served
// round-robin across sessions, so a session with many waiting calls cannot starve another, and calls of one session
// start in the order they arrived.
//
// Owns: the waiting requests and the ring of the sessions that have any. It decides the order and enforces the two
// bounds (per session, in all). It must never decide whether a call may start now (the caller's predicate says),
// start or end a call, or hold a timer: plain data, so the order is tested without a container. A session leaves the
// ring with its last waiting call: memory does not grow with the number of session ids.
class CallQueue {
public:
    // What push() did: queued, or which bound refused the call (then it is not queued).
    enum class Refusal { None, SessionFull, TotalFull };

    CallQueue(int perSessionBound, int totalBound) : m_perSessionBound(perSessionBound), m_totalBound(totalBound) {}

    int perSessionBound() const { return m_perSessionBound; }
    int totalBound() const { return m_totalBound; }

    // Appends the call to its session's FIFO. The call id must not be queued already.
    Refusal push(const ExecRequest& request);
    bool contains(const QString& callId) const { return m_sessionOf.contains(callId); }
    // The call's 1-based place in its session's FIFO; 0 when it does not wait.
    int position(const QString& callId) const;
    int size() const { return int(m_sessionOf.size()); }
    int size(const QString& sessionId) const;
    // The session's waiting calls, first first.
    QList<ExecRequest> waiting(const QString& sessionId) const { return m_bySession.value(sessionId); }
    // The first waiting call of the session; null when it has none.
    const ExecRequest* head(const QString& sessionId) const;
    // The sessions with waiting calls, the next to be served first.
    const QStringList& sessions() const { return m_ring; }

    // The next call to start: the head of the first session in serving order for which `mayStart` is true. Its
    // session then goes to the end of the order (round-robin); the sessions it passed over keep their places.
    std::optional<ExecRequest> takeNext(const std::function<bool(const QString& sessionId)>& mayStart);
    // Takes one waiting call out (it was cancelled).
    std::optional<ExecRequest> remove(const QString& callId);
    // Takes all of a session's waiting calls out, in order (the session ended); the session is forgotten.
    QList<ExecRequest> takeSession(const QString& sessionId);
    // Takes every waiting call out, session by session in serving order (the app is shutting down).
    QList<ExecRequest> takeAll();

private:
    void dropIfEmpty(const QString& sessionId);

    int m_perSessionBound;
    int m_totalBound;
    QHash<QString, QList<ExecRequest>> m_bySession;  // each session's FIFO, never empty
    QHash<QString, QString> m_sessionOf;             // call id -> session id, for every waiting call
    QStringList m_ring;                              // the sessions of m_bySession, the next to serve first
};

}  // namespace zeus
