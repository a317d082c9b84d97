#pragma once

#include "sandbox/callqueue.h"
#include "sandbox/commandexecution.h"

#include <QHash>
#include <QObject>

#include <functional>

namespace zeus {

// When a call that may not start yet starts (SPEC §3 "Bounded, and queued rather than refused").
//
// Owns: the CallQueue of waiting calls, the bounded wait of a queued call for a container (containerWaitMs, then
// `busy` naming the container bound) and the loop that starts waiting calls, round-robin, as slots free. It must
// never decide whether a call may start (SessionManager's limits say, through Hooks), start a command itself, or
// touch a container: it hands each call that may start to Hooks::start, and ends the calls that never left the
// queue (cancelled, their session ended, shutdown) with exactly one callFinished.
class CallScheduler : public QObject {
    Q_OBJECT

public:
    struct Hooks {
        // A call of this session may start now: under the running limits, with a container or room for one.
        std::function<bool(const QString& sessionId)> mayStart;
        // The session has no container, and none could be made now: its waiting calls wait for one.
        std::function<bool(const QString& sessionId)> waitsForContainer;
        // Starts a call that waited (it was taken out of the queue).
        std::function<void(const ExecRequest& request)> start;
        // Refuses a call (it was never queued, or was taken out): one callFinished, from the event loop.
        std::function<void(const ExecRequest& request, ExecError code, const QString& message)> refuse;
    };

    // `maxContainers` and `containerWaitMs` only word the refusal of a call whose container wait ran out.
    CallScheduler(int perSessionBound, int totalBound, int containerWaitMs, int maxContainers, Hooks hooks,
                  QObject* parent = nullptr);

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
    void onContainerWaitOver(const QString& callId, const QString& sessionId, quint64 ticket);
    void finish(const ExecRequest& request, const QString& message);
    void announce(const QString& sessionId);

    CallQueue m_queue;
    int m_containerWaitMs;
    int m_maxContainers;
    Hooks m_hooks;
    QHash<QString, quint64> m_containerWaits;  // queued call id -> the ticket of its container wait
    quint64 m_nextTicket = 0;
    bool m_starting = false;
    bool m_startScheduled = false;
    bool m_stopped = false;
};

}  // namespace zeus
