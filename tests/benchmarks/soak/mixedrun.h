#pragma once
// zeus-bench-soak's mixed run: kLanes lanes of one call at a time through a SoakBackend, each lane moving to a new
// session every few calls. Header-only, as the rest of the benchmark.

#include "soakbackend.h"

#include <QList>
#include <QObject>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <functional>

namespace zeus::bench {

constexpr int kLanes = 6;  // under the default 8 running calls in all: the mixed run itself is never refused
constexpr int kBigOutputBytes = 1024 * 1024;  // the default output cap: all of it is kept
// A call without a result after this long is given up (counted lost) and its lane goes on; also how long a
// phase waits without any result arriving before it counts the rest lost.
constexpr int kGiveUpMs = 120000;

// The kind of the i-th mixed call: per 100, 48 `true`, 48 `echo`, 2 of 1 MiB, 1 timeout and 1 cancel.
inline Kind mixedKind(int i) {
    if (i % 100 == 7) {
        return Kind::Timeout;
    }
    if (i % 100 == 37) {
        return Kind::Cancel;
    }
    if (i % 50 == 13) {
        return Kind::Big;
    }
    return i % 2 ? Kind::Echo : Kind::Short;
}

// A command that prints `bytes` times `letter`.
inline QString fillCommand(int bytes, char letter) {
    return QStringLiteral("head -c %1 /dev/zero | tr '\\0' %2").arg(bytes).arg(QLatin1Char(letter));
}

// The mixed calls: kLanes lanes of one call at a time, each lane moving to a new session every `perSession`
// calls (session_end of the old one, as a backend does when a conversation ends).
class MixedRun {
public:
    MixedRun(SoakBackend& backend, const QString& prefix, int total, int perSession)
        : m_backend(backend), m_prefix(prefix), m_total(total), m_perSession(perSession) {}

    void start() {
        m_backend.resultArrived = [this](const QString& callId) { onResult(callId); };
        for (int lane = 0; lane < kLanes; ++lane) {
            m_lanes.append(Lane{newSession(), 0, QString()});
            issue(lane);
        }
    }
    // Every call was sent and has its result, or was given up on.
    bool finished() const {
        return m_next >= m_total
               && std::all_of(m_lanes.cbegin(), m_lanes.cend(), [](const Lane& l) { return l.current.isEmpty(); });
    }
    QStringList liveSessions() const {
        QStringList sessions;
        for (const Lane& lane : m_lanes) {
            sessions.append(lane.session);
        }
        return sessions;
    }
    int sessionsBegun = 0;
    int sessionsEnded = 0;
    std::function<void()> atEachTenth;

private:
    struct Lane {
        QString session;
        int inSession = 0;
        QString current;  // the call in flight
    };
    QString newSession() {
        ++sessionsBegun;
        return QStringLiteral("%1-s%2").arg(m_prefix).arg(sessionsBegun);
    }
    void issue(int lane) {
        Lane& l = m_lanes[lane];
        l.current.clear();
        if (m_next >= m_total) {
            return;
        }
        if (l.inSession == m_perSession) {
            m_backend.endSession(l.session);
            ++sessionsEnded;
            l.session = newSession();
            l.inSession = 0;
        }
        const int i = m_next++;
        Call call;
        call.id = QStringLiteral("m%1").arg(i);
        call.session = l.session;
        call.kind = mixedKind(i);
        call.order = l.inSession++;
        l.current = call.id;
        m_laneOf.insert(call.id, lane);
        switch (call.kind) {
            case Kind::Timeout:
                m_backend.call(call, QStringLiteral("sleep 5"), 1);
                break;
            case Kind::Cancel:
                m_backend.call(call, QStringLiteral("echo started; sleep 30"));
                // Should no output or running state come (a refused call has none), cancel anyway.
                QTimer::singleShot(3000, &m_context, [this, id = call.id] { m_backend.cancel(id); });
                break;
            case Kind::Big:
                m_backend.call(call, fillCommand(kBigOutputBytes, 'a'));
                break;
            case Kind::Echo:
                m_backend.call(call, QStringLiteral("echo soak-%1").arg(i));
                break;
            default:
                m_backend.call(call, QStringLiteral("true"));
                break;
        }
        QTimer::singleShot(kGiveUpMs, &m_context, [this, lane, id = call.id] {
            if (m_lanes.at(lane).current == id) {
                issue(lane);  // lost: the lane goes on, the audit counts it
            }
        });
        if (i > 0 && i % std::max(1, m_total / 10) == 0) {
            QTextStream(stderr) << "zeus-bench-soak: " << i << " of " << m_total << " mixed calls sent\n";
            if (atEachTenth) {
                atEachTenth();
            }
        }
    }
    void onResult(const QString& callId) {
        const auto it = m_laneOf.constFind(callId);
        if (it != m_laneOf.cend() && m_lanes.at(*it).current == callId) {
            issue(*it);
        }
    }

    SoakBackend& m_backend;
    QString m_prefix;
    int m_total;
    int m_perSession;
    int m_next = 0;
    QList<Lane> m_lanes;
    QHash<QString, int> m_laneOf;
    QObject m_context;  // the timers' receiver: none fires after the run is gone
};

}  // namespace zeus::bench
