#pragma once

#include "sandbox/callqueue.h"
#include "sandbox/commandexecution.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <optional>

namespace zeus {

// When a call that may not start yet starts (SPEC §3 "Bounded, and queued rather than refused").
//
// Owns: the CallQueue of waiting calls, the bounded wait of a queued call for what blocks it (a container: then
// `busy` naming the container bound; the engine: then `container_failed` naming the cause) and the loop that starts
// waiting calls, round-robin, as slots free. It must
// never decide whether a call may start (SessionManager's limits say, through Hooks), start a command itself, or
// touch a container: it hands each call that may start to Hooks::start, and ends the calls that never left the
// queue (cancelled, their session ended, shutdown) with exactly one callFinished.
class CallScheduler : public QObject {
    Q_OBJECT

public:
    // Why a waiting call cannot start, how long it may wait for that, and what it gets when the wait is over.
    struct Block {
        int waitMs = 0;
        ExecError code = ExecError::Busy;
        QString message;
    };

    struct Hooks {
        // A call of this session may start now: under the running limits, with a container or room for one.
        std::function<bool(const QString& sessionId)> mayStart;
        // What keeps the session's calls from starting other than a call slot (which the queue bounds): the engine
        // does not answer, or no container can be made. Empty: only slots.
        std::function<std::optional<Block>(const QString& sessionId)> blockedBy;
        // Starts a call that waited (it was taken out of the queue).
        std::function<void(const ExecRequest& request)> start;
        // Refuses a call (it was never queued, or was taken out): one callFinished, from the event loop.
        std::function<void(const ExecRequest& request, ExecError code, const QString& message)> refuse;
    };

    CallScheduler(int perSessionBound, int totalBound, Hooks hooks, QObject* parent = nullptr);

    const CallQueue& queue() const { return m_queue; }
    int size() const { return m_queue.size(); }
    int size(const QString& sessionId) const { return m_queue.size(sessionId); }

    // Queues an admitted call (callQueued with its position), or refuses it past a queue bound, naming the bound.
    // False: refused.
    bool enqueue(const ExecRequest& request);
    // Starts waiting calls while Hooks::mayStart lets them; re-entrant calls (a call ended while one was being
    // started) leave it to the running loop.
    void startQueued();
    // startQueued() from the event loop: the caller is in the middle of freeing a container.
    void scheduleStartQueued();
    // What blocks the waiting calls changed (the engine stopped answering, or came back): each waiting call waits
    // from now on at most the waitMs of what Hooks::blockedBy names for it, or only for a slot.
    void armWaits();
    // Takes a waiting call out and finishes it as cancelled. False: it does not wait.
    bool cancel(const QString& callId);
    // Finishes every waiting call of the session (cancelled, with `message`); returns how many.
    int endSession(const QString& sessionId, const QString& message);
    // Finishes every waiting call and starts none from now on.
    void shutdown(const QString& message);

Q_SIGNALS:
    void callQueued(const QString& callId, int position);
    void queuedCallsChanged(const QString& sessionId, int queued);
    // A call that never left the queue ended (status cancelled; `errorMessage` says why, empty for a cancel).
    void callFinished(const zeus::ExecResult& result);

private:
    void arm(const ExecRequest& request);
    void onWaitOver(const QString& callId, const QString& sessionId, quint64 ticket);
    void finish(const ExecRequest& request, const QString& message);
    void announce(const QString& sessionId);

    CallQueue m_queue;
    Hooks m_hooks;
    QHash<QString, quint64> m_waits;  // queued call id -> the ticket of its bounded wait
    quint64 m_nextTicket = 0;
    bool m_starting = false;
    bool m_startScheduled = false;
    bool m_stopped = false;
};

}  // namespace zeus
