#pragma once
// What the benchmarks that drive the real app share: a wait in a real event loop that wakes as soon as its
// condition holds, percentiles, and the app's figures read from /proc (Linux only, as the benchmarks are).
// Header-only: each benchmark is one executable.

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QList>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <functional>

namespace zeus::bench {

inline QTextStream& out() {
    static QTextStream stream(stdout);
    return stream;
}

// The wait in progress: poke() re-checks its condition at once, so a benchmark that calls it from its message
// handler measures the message, not a polling period.
struct Waiter {
    QEventLoop* loop = nullptr;
    std::function<bool()> done;
};

inline Waiter& currentWaiter() {
    static Waiter waiter;
    return waiter;
}

inline void poke() {
    const Waiter& waiter = currentWaiter();
    if (waiter.loop && waiter.done && waiter.done()) {
        waiter.loop->quit();
    }
}

// Waits in a real event loop until `done` holds (checked whenever poke() is called, and every 50 ms as a
// safety net). QTest::qWaitFor sleeps 10 ms between rounds, which would dominate what is measured.
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs) {
    if (done()) {
        return true;
    }
    QEventLoop loop;
    const Waiter outer = currentWaiter();
    currentWaiter() = Waiter{&loop, done};
    QTimer safety;
    QObject::connect(&safety, &QTimer::timeout, &loop, &poke);
    safety.start(50);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    currentWaiter() = outer;
    return done();
}

// The p-th percentile (0..100, nearest rank) of the values, 0 for none.
inline double percentile(QList<double> values, double p) {
    if (values.isEmpty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const auto rank = qsizetype(p / 100.0 * double(values.size()) + 0.999999);
    return values.at(std::clamp<qsizetype>(rank - 1, 0, values.size() - 1));
}

inline double median(QList<double> values) {
    if (values.isEmpty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    return n % 2 ? values.at(n / 2) : (values.at(n / 2 - 1) + values.at(n / 2)) / 2;
}

// A number field of /proc/PID/status (VmRSS in KiB, Threads), or -1 when the process is gone.
inline qint64 statusField(qint64 pid, const char* field) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly)) {
        return -1;
    }
    const QByteArray prefix = QByteArray(field) + ':';
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith(prefix)) {
            return line.mid(prefix.size()).trimmed().split(' ').value(0).toLongLong();
        }
    }
    return -1;
}

inline qint64 rssKiB(qint64 pid) {
    return statusField(pid, "VmRSS");
}

// The process's open descriptors: the entries of /proc/PID/fd (System: a pipe's or socket's link has no target
// on disk, and QDir would skip it as a broken link).
inline qint64 openDescriptors(qint64 pid) {
    const QDir fds(QStringLiteral("/proc/%1/fd").arg(pid));
    if (!fds.exists()) {
        return -1;
    }
    return fds.entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot).size();
}

inline QString loadAverage() {
    QFile file(QStringLiteral("/proc/loadavg"));
    if (!file.open(QIODevice::ReadOnly)) {
        return QStringLiteral("?");
    }
    return QString::fromLatin1(file.readAll().split(' ').mid(0, 3).join(' '));
}

}  // namespace zeus::bench
