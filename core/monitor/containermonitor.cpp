#include "monitor/containermonitor.h"

#include "engine/containerruntime.h"
#include "support/logging.h"
#include "support/processrunner.h"

#include <algorithm>
#include <utility>

namespace zeus {

namespace {

// An events line longer than this is not an event of ours: it is dropped, not buffered.
constexpr qsizetype kMaxLineBytes = 256 * 1024;
constexpr int kRemovedMemory = 256;
// The engines' --since has second precision, and the event that ended a stream may be
// stamped a little before we noticed: resume a bit earlier (replays are de-duplicated).
constexpr int kResumeOverlapSecs = 2;

}  // namespace

ContainerMonitor::ContainerMonitor(std::unique_ptr<ContainerRuntime> runtime, QString ownerId, QObject* parent)
    : QObject(parent),
      m_kind(runtime->kind()),
      m_ownerId(std::move(ownerId)),
      m_program(runtime->program().isEmpty() ? runtimeProgram(m_kind) : runtime->program()),
      m_environment(ProcessRunner::childEnvironment()),
      m_runtime(std::move(runtime)) {
    m_runtime->setProgram(m_program);
    qRegisterMetaType<zeus::ContainerEvent::State>();
    m_restartTimer.setSingleShot(true);
    connect(&m_restartTimer, &QTimer::timeout, this, &ContainerMonitor::startEventsStream);
    m_statsTimer.setSingleShot(true);
    connect(&m_statsTimer, &QTimer::timeout, this, &ContainerMonitor::pollStats);
}

ContainerMonitor::ContainerMonitor(const ContainerRuntime& runtime, const QString& ownerId, QObject* parent)
    : ContainerMonitor(runtime.clone(), ownerId, parent) {}

ContainerMonitor::~ContainerMonitor() {
    stop();
    // What stop() is still ending finishes on its own (terminate, then kill after the grace)
    // instead of being killed by our destruction; each deletes itself when it ends.
    for (const QPointer<ProcessRunner>& runner : std::as_const(m_retired)) {
        if (runner && runner->isRunning()) {
            runner->setParent(nullptr);
        }
    }
    for (const QPointer<ProcessRunner>& runner : std::as_const(m_commands)) {
        if (runner && runner->isRunning()) {
            runner->setParent(nullptr);
            connect(runner, &ProcessRunner::finished, runner, &QObject::deleteLater);
        }
    }
}

void ContainerMonitor::setProgram(const QString& program) {
    m_program = program;
    if (m_runtime) {
        m_runtime->setProgram(program);
    }
}

void ContainerMonitor::start() {
    if (m_started) {
        return;
    }
    m_started = true;
    m_restartDelayMs = kFirstRestartDelayMs;
    if (!m_resumeFrom.isValid()) {
        m_resumeFrom = QDateTime::currentDateTimeUtc();
    }
    list();
    startEventsStream();
    if (m_statsEnabled) {
        pollStats();  // stop() paused it
    }
}

void ContainerMonitor::stop() {
    const bool wasStreaming = isEventsStreamRunning();
    if (m_started) {
        m_resumeFrom = QDateTime::currentDateTimeUtc();  // a later start() replays from here
    }
    m_started = false;
    ++m_generation;
    m_restartTimer.stop();
    m_statsTimer.stop();
    retireEventsProcess();
    for (const QPointer<ProcessRunner>& runner : std::as_const(m_commands)) {
        if (runner) {
            runner->cancel();  // terminate, then kill after the runner's grace
        }
    }
    // Kept until they end: runningProcessCount() counts them, the destructor lets them finish.
    if (m_stats) {
        m_stats->cancel();
        m_stats = nullptr;
    }
    if (wasStreaming) {
        Q_EMIT eventsStreamChanged(false);
    }
}

bool ContainerMonitor::isEventsStreamRunning() const {
    return m_events && m_events->isRunning();
}

qint64 ContainerMonitor::eventsProcessId() const {
    return isEventsStreamRunning() ? m_events->processId() : 0;
}

void ContainerMonitor::startEventsStream() {
    if (!m_started || m_events) {
        return;
    }
    const QDateTime since = m_resumeFrom.isValid() ? m_resumeFrom.addSecs(-kResumeOverlapSecs) : QDateTime();
    const QStringList arguments = m_runtime ? m_runtime->eventsArguments(m_ownerId, since) : QStringList();
    if (arguments.isEmpty()) {
        qCDebug(lcRuntime) << "container monitor:" << runtimeKindToString(m_kind) << "has no events stream";
        return;
    }
    const QString executable = ProcessRunner::findExecutable(m_program, m_environment);
    if (executable.isEmpty()) {
        qCWarning(lcRuntime) << "container monitor: cannot find" << m_program;
        scheduleRestart();
        return;
    }
    auto* runner = new ProcessRunner(m_program, arguments, this);
    m_events = runner;
    m_eventsBuffer.clear();
    m_skippingLongLine = false;
    runner->setEnvironment(m_environment);
    runner->setTimeoutMs(0);  // runs until stop()
    runner->setStreaming(true);
    runner->setOutputLimit(0);  // its stderr is logged as it comes, never kept for hours
    connect(runner, &ProcessRunner::outputReady, this, [this](OutputStream stream, const QByteArray& chunk) {
        if (stream == OutputStream::Stdout) {
            onEventsOutput(chunk);
            return;
        }
        // Kept short: the engine's complaint, for the log only.
        const QByteArray text = chunk.left(512).trimmed();
        if (!text.isEmpty()) {
            qCInfo(lcRuntime) << "container events:" << QString::fromUtf8(text);
        }
    });
    connect(runner, &ProcessRunner::started, this, [this] {
        m_eventsClock.start();
        qCDebug(lcRuntime) << "container events stream started";
        Q_EMIT eventsStreamChanged(true);
    });
    connect(runner, &ProcessRunner::finished, this, [this, runner](const ProcessResult& result) {
        if (runner != m_events) {
            return;
        }
        if (!result.started) {
            qCWarning(lcRuntime) << "container events failed to start:" << result.errorString;
        }
        onEventsFinished(result);
    });
    runner->start();
}

void ContainerMonitor::onEventsOutput(const QByteArray& chunk) {
    if (!m_events) {
        return;
    }
    m_eventsBuffer += chunk;
    qsizetype from = 0;
    for (;;) {
        const qsizetype newline = m_eventsBuffer.indexOf('\n', from);
        if (newline < 0) {
            break;
        }
        if (!m_skippingLongLine) {
            handleLine(m_eventsBuffer.mid(from, newline - from));
        }
        m_skippingLongLine = false;
        from = newline + 1;
    }
    m_eventsBuffer.remove(0, from);
    if (m_eventsBuffer.size() > kMaxLineBytes) {
        qCWarning(lcRuntime) << "container events: dropping an over-long line";
        m_eventsBuffer.clear();
        m_skippingLongLine = true;
    }
}

void ContainerMonitor::onEventsFinished(const ProcessResult& result) {
    ProcessRunner* runner = m_events;
    if (!runner) {
        return;
    }
    m_events = nullptr;
    runner->disconnect(this);
    runner->deleteLater();
    const bool held = m_eventsClock.isValid() && m_eventsClock.elapsed() >= kStableStreamMs;
    m_eventsClock.invalidate();
    if (held) {
        m_restartDelayMs = kFirstRestartDelayMs;
    }
    // What happened from now on may be missed until the next stream: it resumes here.
    m_resumeFrom = QDateTime::currentDateTimeUtc();
    qCInfo(lcRuntime) << "container events stream ended; exit" << result.exitCode;
    Q_EMIT eventsStreamChanged(false);
    scheduleRestart();
}

void ContainerMonitor::scheduleRestart() {
    if (!m_started) {
        return;
    }
    qCDebug(lcRuntime) << "container events: restarting in" << m_restartDelayMs << "ms";
    m_restartTimer.start(m_restartDelayMs);
    m_restartDelayMs = qMin(m_restartDelayMs * 2, kMaxRestartDelayMs);
    // The engine may have come back with containers gone or stopped: read them again.
    if (!m_containers.isEmpty()) {
        refresh(m_containers.keys());
    }
}

void ContainerMonitor::retireEventsProcess() {
    ProcessRunner* runner = m_events;
    if (!runner) {
        return;
    }
    m_events = nullptr;
    runner->disconnect(this);
    if (!runner->isRunning()) {
        runner->deleteLater();
        return;
    }
    connect(runner, &ProcessRunner::finished, runner, &QObject::deleteLater);
    m_retired.removeAll(nullptr);
    m_retired.append(runner);
    runner->cancel();  // terminate, then kill after the runner's grace
}

void ContainerMonitor::handleLine(const QByteArray& line) {
    const std::optional<ContainerEvent> event = m_runtime ? m_runtime->parseEvent(line) : std::nullopt;
    if (!event) {
        if (!line.trimmed().isEmpty()) {
            qCDebug(lcRuntime) << "container events: ignoring a line of" << line.size() << "bytes";
        }
        return;
    }
    report(*event);
}

void ContainerMonitor::report(const ContainerEvent& event) {
    using State = ContainerEvent::State;
    // The engine filters by owner; this is the app's own guarantee.
    if (!event.ownerId.isEmpty() && event.ownerId != m_ownerId) {
        return;
    }
    if (event.state == State::Unknown) {
        return;
    }
    QString id = knownIdFor(event.containerId);
    if (id.isEmpty()) {
        id = event.containerId;
    }
    if (event.state == State::Removed) {
        const auto it = m_containers.constFind(id);
        if (it == m_containers.constEnd() && m_removed.contains(id)) {
            return;  // a replay
        }
        const QString sessionId =
            it != m_containers.constEnd() && event.sessionId.isEmpty() ? it->sessionId : event.sessionId;
        m_containers.remove(id);
        m_removed.append(id);
        while (m_removed.size() > kRemovedMemory) {
            m_removed.removeFirst();
        }
        Q_EMIT containerEvent(id, sessionId, State::Removed, -1, event.time);
        return;
    }
    if (m_removed.contains(id)) {
        return;  // a replayed event of a container that is gone
    }
    Known& known = m_containers[id];
    if (!event.sessionId.isEmpty()) {
        known.sessionId = event.sessionId;
    }
    if (event.time.isValid() && known.time.isValid() && event.time < known.time) {
        return;  // replayed by --since, older than what inspect or an event already said
    }
    if (event.time.isValid()) {
        known.time = event.time;
    }
    if (known.state == event.state && known.exitCode == event.exitCode) {
        return;  // nothing new (a replay, or inspect confirming an event)
    }
    known.state = event.state;
    known.exitCode = event.exitCode;
    Q_EMIT containerEvent(id, known.sessionId, event.state, event.exitCode, event.time);
}

QString ContainerMonitor::knownIdFor(const QString& printedId) const {
    if (m_containers.contains(printedId)) {
        return printedId;
    }
    for (auto it = m_containers.constBegin(); it != m_containers.constEnd(); ++it) {
        if (ContainerRuntime::sameContainer(it.key(), printedId)) {
            return it.key();
        }
    }
    return {};
}

void ContainerMonitor::trackContainer(const QString& containerId, const QString& sessionId) {
    if (containerId.isEmpty()) {
        return;
    }
    m_removed.removeAll(containerId);
    Known& known = m_containers[containerId];
    if (!sessionId.isEmpty()) {
        known.sessionId = sessionId;
    }
}

ProcessRunner* ContainerMonitor::runCommand(const QStringList& arguments) {
    auto* runner = new ProcessRunner(m_program, arguments, this);
    runner->setEnvironment(m_environment);
    runner->setTimeoutMs(m_commandTimeoutMs);
    runner->setOutputLimit(4 * 1024 * 1024);
    m_commands.removeAll(nullptr);
    m_commands.append(runner);
    return runner;
}

void ContainerMonitor::list() {
    if (!m_runtime) {
        return;
    }
    const QStringList arguments = m_runtime->listArguments(m_ownerId);
    if (arguments.isEmpty()) {
        return;
    }
    ProcessRunner* runner = runCommand(arguments);
    const quint64 generation = m_generation;
    connect(runner, &ProcessRunner::finished, this, [this, runner, generation](const ProcessResult& result) {
        runner->deleteLater();
        if (generation == m_generation) {
            onListFinished(result);
        }
    });
    runner->start();
}

void ContainerMonitor::onListFinished(const ProcessResult& result) {
    if (!result.succeeded()) {
        qCInfo(lcRuntime) << "container monitor: listing failed:" << result.errorString
                          << QString::fromUtf8(result.standardError.left(300));
        return;
    }
    QStringList ids;
    const QList<ContainerInfo> containers = m_runtime->parseList(result.standardOutput);
    for (const ContainerInfo& info : containers) {
        // Apple's list has no label filter: the owner is checked here for every engine.
        if (info.labels.value(labels::owner()) != m_ownerId) {
            continue;
        }
        trackContainer(info.id, info.labels.value(labels::session()));
        ids << info.id;
    }
    // inspect, not ps, says how an exited container ended.
    if (!ids.isEmpty()) {
        refresh(ids);
    }
}

void ContainerMonitor::refresh(const QStringList& containerIds) {
    if (!m_runtime || containerIds.isEmpty()) {
        return;
    }
    if (m_kind == RuntimeKind::Apple && containerIds.size() > 1) {
        // Apple's inspect reads one container per call.
        for (const QString& id : containerIds) {
            refresh({id});
        }
        return;
    }
    QStringList arguments = m_runtime->inspectArguments(containerIds.first());
    if (arguments.isEmpty()) {
        return;
    }
    // Both CLIs inspect several containers at once: one process, not one per container.
    arguments.append(containerIds.mid(1));
    ProcessRunner* runner = runCommand(arguments);
    const quint64 generation = m_generation;
    connect(runner, &ProcessRunner::finished, this,
            [this, runner, generation, containerIds](const ProcessResult& result) {
                runner->deleteLater();
                if (generation == m_generation) {
                    onInspectFinished(containerIds, result);
                }
            });
    runner->start();
}

void ContainerMonitor::onInspectFinished(const QStringList& requested, const ProcessResult& result) {
    const QList<ContainerEvent> events = m_runtime->parseInspectStates(result.standardOutput);
    QStringList seen;
    for (const ContainerEvent& event : events) {
        seen << event.containerId;
        report(event);
    }
    if (result.succeeded() || !result.started || result.timedOut
        || m_runtime->containerCallFailure(result.standardError) != EngineFailure::NoSuchContainer) {
        if (!result.succeeded()) {
            qCInfo(lcRuntime) << "container monitor: inspect failed:" << result.errorString
                              << QString::fromUtf8(result.standardError.left(300));
        }
        return;
    }
    // The engine answered and named missing containers: the ones it did not print are gone.
    for (const QString& id : requested) {
        const bool found = std::any_of(seen.cbegin(), seen.cend(), [&id](const QString& other) {
            return other == id || ContainerRuntime::sameContainer(other, id);
        });
        if (!found) {
            ContainerEvent gone;
            gone.containerId = id;
            gone.state = ContainerEvent::State::Removed;
            gone.time = QDateTime::currentDateTimeUtc();
            report(gone);
        }
    }
}

void ContainerMonitor::setStatsPollingEnabled(bool enabled) {
    if (enabled == m_statsEnabled) {
        return;
    }
    m_statsEnabled = enabled;
    if (enabled) {
        pollStats();
        return;
    }
    m_statsTimer.stop();
    if (m_stats) {
        m_stats->cancel();  // its finished() is ignored: m_stats no longer points at it
        m_stats = nullptr;
    }
}

bool ContainerMonitor::isStatsProcessRunning() const {
    return m_stats && m_stats->isRunning();
}

int ContainerMonitor::runningProcessCount() const {
    int count = isEventsStreamRunning() ? 1 : 0;
    for (const QPointer<ProcessRunner>& runner : m_retired) {
        if (runner && runner->isRunning()) {
            ++count;
        }
    }
    for (const QPointer<ProcessRunner>& runner : m_commands) {
        if (runner && runner->isRunning()) {
            ++count;
        }
    }
    return count;
}

void ContainerMonitor::pollStats() {
    if (!m_statsEnabled || m_stats) {
        return;
    }
    QStringList ids;
    for (auto it = m_containers.constBegin(); it != m_containers.constEnd(); ++it) {
        // Stats of a stopped container are zeros at best and an error at worst.
        if (it->state == ContainerEvent::State::Running || it->state == ContainerEvent::State::Unknown) {
            ids << it.key();
        }
    }
    const QStringList arguments = m_runtime ? m_runtime->statsArguments(ids) : QStringList();
    if (ids.isEmpty() || arguments.isEmpty()) {
        scheduleNextPoll();
        return;
    }
    ProcessRunner* runner = runCommand(arguments);
    m_stats = runner;
    connect(runner, &ProcessRunner::finished, this, [this, runner, ids](const ProcessResult& result) {
        runner->deleteLater();
        if (m_stats != runner) {
            return;  // cancelled by stop() or by disabling the polling
        }
        m_stats = nullptr;
        onStatsFinished(ids, result);
        scheduleNextPoll();
    });
    runner->start();
}

void ContainerMonitor::onStatsFinished(const QStringList& polled, const ProcessResult& result) {
    const QList<ContainerStats> samples = m_runtime->parseStats(result.standardOutput);
    for (const ContainerStats& stats : samples) {
        const QString id = knownIdFor(stats.containerId);
        if (id.isEmpty() || !polled.contains(id)) {
            continue;  // not ours
        }
        Q_EMIT statsUpdated(id, stats.cpuPercent, stats.memoryBytes, stats.memoryLimitBytes);
    }
    if (!result.succeeded()) {
        qCDebug(lcRuntime) << "container stats failed:" << QString::fromUtf8(result.standardError.left(300));
        // One vanished container fails the whole call on both engines: find out which.
        if (result.started && !result.timedOut
            && m_runtime->containerCallFailure(result.standardError) == EngineFailure::NoSuchContainer) {
            refresh(polled);
        }
    }
}

void ContainerMonitor::scheduleNextPoll() {
    if (m_statsEnabled) {
        m_statsTimer.start(m_statsIntervalMs);
    }
}

}  // namespace zeus
