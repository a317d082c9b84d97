#pragma once

#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

#include <functional>

namespace zeus {

// The one terminate-then-kill of the app: SIGTERM now, SIGKILL after a grace unless the
// process has ended by then. ProcessRunner, the one process class, stops every child through
// one of these (terminateAndWait() when it runs blocking), so "how long may a CLI take to
// clean up" is decided here, once.
//
// It owns only its timer, never the process (a QPointer: a process deleted in the grace is
// simply not killed). It must never block or wait for the process, except in terminateAndWait().
class ProcessTerminator : public QObject {
    Q_OBJECT

public:
    // Long enough for an engine CLI to close its connection to the daemon (and for
    // `podman build` to stop its RUN step), short enough that quitting never hangs on it.
    // Not the SandboxConfig's killGraceMs: that one is between TERM and KILL of the
    // command's process group inside the container, a different thing.
    static constexpr int kGraceMs = 2000;

    explicit ProcessTerminator(QObject* parent = nullptr);

    void setGraceMs(int graceMs) { m_graceMs = graceMs; }
    int graceMs() const { return m_graceMs; }
    // Runs just before the kill (e.g. to collect a build's child processes); not when the
    // process ended within the grace.
    void setBeforeKill(std::function<void()> beforeKill) { m_beforeKill = std::move(beforeKill); }

    // Terminates process now and kills it after the grace. A no-op when it is not running;
    // a second call while the grace runs does not restart it.
    void terminate(QProcess* process);
    // The process has ended: forget it, no kill follows.
    void cancel();
    bool isPending() const { return m_killTimer.isActive(); }

    // The same decision, waited for on the calling thread: terminate, wait up to the grace, kill, wait for the end.
    // Only for a blocking run on a worker thread or the command line (ProcessRunner::runBlocking), never the GUI
    // thread. A no-op when the process is not running.
    static void terminateAndWait(QProcess* process, int graceMs = kGraceMs);

private:
    void kill();

    int m_graceMs = kGraceMs;
    std::function<void()> m_beforeKill;
    QPointer<QProcess> m_process;
    QTimer m_killTimer;
};

}  // namespace zeus
