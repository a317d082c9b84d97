#pragma once

#include "engine/containerevent.h"
#include "runtime/runtimekind.h"
#include "support/processrunner.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace zeus {

class ContainerRuntime;
class ProcessRunner;
struct ProcessResult;

// Live state and resource figures of this install's containers, for the sessions table.
//
// It owns one long-running `events` process (filtered by the owner label and by the events
// that change a state, so exec events and their command lines never reach the app), the
// short `ps`/`inspect`/`stats` processes, the stats timer and the restart backoff. It keeps
// the set of containers it knows (from `ps` at start, events, trackContainer()) and their
// last state, and emits a containerEvent only when a state changes, so a replayed event is
// not reported twice.
//
// It must never block (no waitFor*), never start a process without a timeout or a way to
// stop it (events: stop(); others: a timeout with terminate-then-kill), never report a
// container of another owner, and never run `stats` while polling is disabled (the
// dashboard enables it only while visible). Apple's CLI has no events stream and no stats
// here: start() then only reads the current state, and refresh() does the rest.
class ContainerMonitor : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultStatsIntervalMs = 3000;
    static constexpr int kDefaultCommandTimeoutMs = 15000;
    static constexpr int kFirstRestartDelayMs = 1000;
    static constexpr int kMaxRestartDelayMs = 30000;
    // A stream that held this long resets the backoff.
    static constexpr int kStableStreamMs = 60000;

    // The adapter (made by the composition) names the engine and its CLI; it must not be null.
    ContainerMonitor(std::unique_ptr<ContainerRuntime> runtime, QString ownerId, QObject* parent = nullptr);
    // A copy of a running sandbox's adapter (the detector's choice).
    ContainerMonitor(const ContainerRuntime& runtime, const QString& ownerId, QObject* parent = nullptr);
    ~ContainerMonitor() override;

    RuntimeKind kind() const { return m_kind; }
    QString ownerId() const { return m_ownerId; }
    // The CLI (default: runtimeProgram(kind)); looked up on the environment's PATH.
    void setProgram(const QString& program);
    QString program() const { return m_program; }
    // Scrubbed like every child's (SPEC §3): never the backend token or a ZEUS_* secret.
    void setEnvironment(const QProcessEnvironment& environment) {
        m_environment = ProcessRunner::scrubbed(environment);
    }
    void setStatsIntervalMs(int intervalMs) { m_statsIntervalMs = qMax(200, intervalMs); }
    int statsIntervalMs() const { return m_statsIntervalMs; }
    // For ps, inspect and stats (not for the events stream, which runs until stop()).
    void setCommandTimeoutMs(int timeoutMs) { m_commandTimeoutMs = qMax(1000, timeoutMs); }

    // Lists this owner's containers (reporting each one's state), then follows the events
    // stream, restarting it with backoff (1 s, x2, capped at 30 s) when it ends.
    void start();
    // Ends every process it started (terminate, then kill after a grace) and all timers,
    // stats polling included. The known containers and the polling choice are kept: start()
    // again resumes both, and the events missed in between are replayed.
    void stop();
    bool isStarted() const { return m_started; }
    bool isEventsStreamRunning() const;
    // The events process's pid while it runs, else 0 (for tests and diagnostics).
    qint64 eventsProcessId() const;

    // Makes a container known (the SessionManager just created it) so stats cover it even
    // before its start event arrives.
    void trackContainer(const QString& containerId, const QString& sessionId = QString());
    // Reads these containers' state now (`inspect`); a vanished one is reported Removed.
    void refresh(const QStringList& containerIds);
    QStringList trackedContainers() const { return m_containers.keys(); }

    void setStatsPollingEnabled(bool enabled);
    bool isStatsPollingEnabled() const { return m_statsEnabled; }
    bool isStatsProcessRunning() const;
    // Processes of this monitor alive right now (events stream, and processes stop() is still
    // ending), for tests and diagnostics.
    int runningProcessCount() const;

Q_SIGNALS:
    // exitCode: for Exited, the main process's code (137 = killed); otherwise -1. time: the
    // engine's time of the event (UTC); for a state read by ps/inspect, when it started or
    // finished, possibly invalid.
    void containerEvent(const QString& containerId, const QString& sessionId, zeus::ContainerEvent::State state,
                        int exitCode, const QDateTime& time);
    // cpuPercent of one CPU; memory in bytes; -1 where the engine did not say.
    void statsUpdated(const QString& containerId, double cpuPercent, qint64 memoryBytes, qint64 memoryLimitBytes);
    // The events process started (true; the engine may still refuse it) or ended and a
    // restart is scheduled (false).
    void eventsStreamChanged(bool running);

private:
    struct Known {
        QString sessionId;
        ContainerEvent::State state = ContainerEvent::State::Unknown;
        int exitCode = -1;
        QDateTime time;  // engine time of the last state: older (replayed) events are stale
    };

    void startEventsStream();
    void onEventsOutput(const QByteArray& chunk);
    void onEventsFinished(const ProcessResult& result);
    void scheduleRestart();
    void retireEventsProcess();
    void handleLine(const QByteArray& line);
    void report(const ContainerEvent& event);
    void list();
    void onListFinished(const ProcessResult& result);
    void onInspectFinished(const QStringList& requested, const ProcessResult& result);
    void pollStats();
    void onStatsFinished(const QStringList& polled, const ProcessResult& result);
    void scheduleNextPoll();
    ProcessRunner* runCommand(const QStringList& arguments);
    QString knownIdFor(const QString& printedId) const;

    RuntimeKind m_kind;
    QString m_ownerId;
    QString m_program;
    QProcessEnvironment m_environment;
    std::unique_ptr<ContainerRuntime> m_runtime;
    int m_statsIntervalMs = kDefaultStatsIntervalMs;
    int m_commandTimeoutMs = kDefaultCommandTimeoutMs;

    bool m_started = false;
    quint64 m_generation = 0;  // bumped by stop(): results of older processes are ignored
    QPointer<ProcessRunner> m_events;
    QByteArray m_eventsBuffer;
    bool m_skippingLongLine = false;
    QElapsedTimer m_eventsClock;
    QDateTime m_resumeFrom;  // --since for the next stream: what it may have missed
    int m_restartDelayMs = kFirstRestartDelayMs;
    QTimer m_restartTimer;

    QHash<QString, Known> m_containers;
    QStringList m_removed;  // recently removed ids, so a replayed destroy is not reported again
    QList<QPointer<ProcessRunner>> m_commands;
    QList<QPointer<ProcessRunner>> m_retired;  // events processes between terminate and their end

    bool m_statsEnabled = false;
    QPointer<ProcessRunner> m_stats;
    QTimer m_statsTimer;
};

}  // namespace zeus
