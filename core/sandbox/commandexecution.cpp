#include "sandbox/commandexecution.h"

#include "engine/containerruntime.h"
#include "sandbox/agent/agentchannel.h"
#include "sandbox/agent/enginecommand.h"
#include "support/logging.h"

#include <QUuid>

#include <utility>

namespace zeus {

namespace {

// Runs in the container as: sh -c WRAPPER zeus-exec PIDFILE, with the command text on stdin (the exec's -i): an
// argument would show it to every local user in ps, and Linux caps one at 128 KiB (an environment string too).
// setsid is a child of this sh (not a group leader), so it does not fork and the inner sh
// becomes leader of a new session and process group; its pid is the group id. The file is
// left behind only while something of the group still lives, so a later stop finds it.
// The outer shell's own diagnostics (job status, fork errors of the wrapper itself) go to
// /dev/null; the command keeps the real stderr through fd 3.
// The group's shell (bash where the image has it) is started with kRunner, a fixed text: it reads the command from
// stdin, gives the command /dev/null as stdin and evaluates it, so the text is never in any argv.
const char kWrapper[] =
    "exec 3>&2 2>/dev/null\n"
    "setsid sh -c 'echo $$ >\"$1\"; "
    "if command -v bash >/dev/null 2>&1; then exec bash -c \"$2\"; else exec sh -c \"$2\"; fi' "
    "zeus-group \"$1\" \"$2\" 2>&3 3>&-\n"
    "rc=$?\n"
    "read pg <\"$1\" 2>/dev/null && { kill -0 -\"$pg\" 2>/dev/null || rm -f \"$1\"; }\n"
    "exit $rc\n";

// The command's shell: $(cat) drops trailing newlines, which a shell command does not need. The variable is unset
// in the first words the command's eval runs, so the command does not see its own text.
const char kRunner[] =
    "zeus_command=$(cat) || exit 126\n"
    "exec </dev/null\n"
    "eval \"unset zeus_command; $zeus_command\"\n";

// Runs in the container as: sh -c STOP zeus-stop PIDFILE GRACE_TENTHS.
// Waits briefly for the group file (a stop can race the start), sends TERM to the group,
// waits up to the grace for the group to go, then KILLs whatever is left.
const char kStop[] =
    "f=$1; n=$2; i=0\n"
    "while [ ! -s \"$f\" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done\n"
    "[ -s \"$f\" ] || exit 0\n"
    "read pg <\"$f\"\n"
    "kill -TERM -\"$pg\" 2>/dev/null\n"
    "i=0; while kill -0 -\"$pg\" 2>/dev/null && [ $i -lt \"$n\" ]; do sleep 0.1; i=$((i+1)); done\n"
    "kill -KILL -\"$pg\" 2>/dev/null\n"
    "rm -f \"$f\"\n"
    "exit 0\n";

constexpr int kCliGraceMs = 3000;
constexpr int kInspectTimeoutMs = 10000;
// The agent enforces the timeout too, this much after the app's own timer: if the app's stop frame
// is lost with a hung pipe, the agent still ends the command.
constexpr int kAgentTimeoutMarginMs = 5000;
// A container whose main process (`sleep infinity`) ended this soon after it started never ran a command: the image
// cannot run it (no sleep, an entrypoint that exits). Podman may even record the end a little before the start.
constexpr qint64 kExitAtStartMs = 3000;
constexpr int kLogLines = 5;
constexpr int kLogChars = 1000;
// The engine may report the container exited before its log holds what the init said (Podman's conmon writes it
// on its own): an empty log is read again a few times before it is reported as empty.
constexpr int kLogAttempts = 4;
constexpr int kLogRetryMs = 250;

}  // namespace

QString execErrorName(ExecError error) {
    switch (error) {
        case ExecError::None:
            return {};
        case ExecError::WorkspaceInvalid:
            return QStringLiteral("workspace_invalid");
        case ExecError::ImageMissing:
            return QStringLiteral("image_missing");
        case ExecError::ContainerFailed:
            return QStringLiteral("container_failed");
        case ExecError::Busy:
            return QStringLiteral("busy");
        case ExecError::NoRuntime:
            return QStringLiteral("no_runtime");
    }
    return {};
}

ExecResult ExecResult::failure(const ExecRequest& request, ExecError code, const QString& message) {
    ExecResult result;
    result.callId = request.callId;
    result.sessionId = request.sessionId;
    result.status = ExecStatus::Error;
    result.errorCode = code;
    result.errorMessage = message;
    result.started = QDateTime::currentDateTimeUtc();
    return result;
}

QStringList CommandExecution::wrapperCommand(const QString& pidFile) {
    return {QStringLiteral("sh"),
            QStringLiteral("-c"),
            QString::fromLatin1(kWrapper),
            QStringLiteral("zeus-exec"),
            pidFile,
            QString::fromLatin1(kRunner)};
}

QStringList CommandExecution::stopCommand(const QString& pidFile, int graceMs) {
    const int tenths = graceMs <= 0 ? 0 : (graceMs + 99) / 100;
    return {
        QStringLiteral("sh"),   QStringLiteral("-c"), QString::fromLatin1(kStop), QStringLiteral("zeus-stop"), pidFile,
        QString::number(tenths)};
}

CommandExecution::CommandExecution(ExecRequest request, const ContainerRuntime& runtime, qint64 outputCap,
                                   int timeoutSeconds, int killGraceMs, QObject* parent)
    : QObject(parent),
      m_request(std::move(request)),
      m_runtime(runtime),
      m_collector(outputCap),
      m_timeoutSeconds(timeoutSeconds),
      m_killGraceMs(killGraceMs) {
    // The file name never contains the backend's call id: only a random token.
    m_pidFile =
        QStringLiteral("/tmp/.zeus-") + QUuid::createUuid().toString(QUuid::Id128).left(16) + QStringLiteral(".pgid");
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        qCInfo(lcExec) << "call" << m_request.callId << "timed out after" << m_timeoutSeconds << "s";
        stopInContainer(StopReason::Timeout);
    });
    m_cliGrace.setSingleShot(true);
    m_cliGrace.setInterval(kCliGraceMs);
    connect(&m_cliGrace, &QTimer::timeout, this, [this] {
        if (m_channel != 0) {
            // The agent did not confirm the stop in time: the call ends; the channel keeps the id until it does.
            qCWarning(lcExec) << "call" << m_request.callId << "the agent did not confirm the stop";
            finishWith(baseResult());
            return;
        }
        if (m_exec) {
            m_exec->stop();  // the group is gone; only the CLI is left waiting on the engine
        }
    });
}

CommandExecution::~CommandExecution() {
    if (m_agent && m_channel != 0 && !m_execDone) {
        m_agent->detach(m_channel);
    }
}

void CommandExecution::usePlaceholder(const QString& name, const QByteArray& placeholder) {
    for (SecretValue& secret : m_request.secrets) {
        if (secret.name == name) {
            secret.value = placeholder;
        }
    }
}

void CommandExecution::addRedaction(const QList<SecretValue>& secrets) {
    for (const SecretValue& secret : secrets) {
        for (Redactor& redactor : m_redactors) {
            redactor.add(secret);
        }
    }
}

void CommandExecution::start(const QString& containerId, AgentChannel* agent) {
    if (m_finished || m_started) {
        return;
    }
    m_started = true;
    m_containerId = containerId;
    m_clock.start();
    if (agent != nullptr) {
        startWithAgent(agent);
        if (m_channel != 0) {
            return;
        }
        qCInfo(lcExec) << "call" << m_request.callId << "the agent has no free channel; plain exec";
    }
    // A secret's value travels in the CLI's own environment and `exec -e NAME`, never in an argument.
    QStringList names;
    QList<QPair<QString, QByteArray>> variables = m_environment;
    for (const auto& variable : std::as_const(m_environment)) {
        names.append(variable.first);
    }
    for (const SecretValue& secret : std::as_const(m_request.secrets)) {
        names.append(secret.name);
        variables.append({secret.name, secret.value});
    }
    m_exec = new EngineCommand(m_runtime.program(),
                               names.isEmpty()
                                   ? m_runtime.execWithStdinArguments(containerId, wrapperCommand(m_pidFile))
                                   : m_runtime.execWithStdinArguments(containerId, wrapperCommand(m_pidFile), names),
                               0, this);
    m_exec->setExtraEnvironment(variables);
    m_exec->setStandardInputData(m_request.command.toUtf8());
    m_exec->setStreaming(true);
    connect(m_exec, &EngineCommand::outputReady, this, &CommandExecution::deliver);
    connect(m_exec, &EngineCommand::finished, this, &CommandExecution::onExecFinished);
    m_timeout.start(m_timeoutSeconds * 1000);
    m_exec->start();
    if (m_outputPaused) {
        m_exec->setReadingPaused(true);
    }
}

void CommandExecution::startWithAgent(AgentChannel* agent) {
    const qint64 agentTimeoutMs = qint64(m_timeoutSeconds) * 1000 + kAgentTimeoutMarginMs;
    m_agent = agent;
    // The approved secrets go in this exec frame's environment: this command's only.
    QList<QByteArray> environment;
    for (const auto& variable : std::as_const(m_environment)) {
        environment.append(variable.first.toUtf8() + '=' + variable.second);
    }
    for (const SecretValue& secret : std::as_const(m_request.secrets)) {
        environment.append(secret.name.toUtf8() + '=' + secret.value);
    }
    m_channel = agent->exec(this, m_request.command.toUtf8(), environment,
                            quint32(qMin<qint64>(agentTimeoutMs, 0x7fffffff)), quint32(qMax(0, m_killGraceMs)));
    if (m_channel == 0) {
        m_agent.clear();
        return;
    }
    m_timeout.start(m_timeoutSeconds * 1000);
    if (m_outputPaused) {
        m_agent->setPaused(m_channel, true);
    }
}

void CommandExecution::deliver(OutputStream stream, const QByteArray& chunk) {
    // Redaction comes first, so neither the live stream, nor the kept result, nor a view ever holds a secret.
    Redactor& redactor = m_redactors[stream == OutputStream::Stderr ? 1 : 0];
    // Kept for every call: a session's secret can be added after the first bytes came (another command's).
    const qint64 arrivedCap = m_collector.capBytes() + 3 * Redactor::kMaxValueBytes + 16;
    if (m_arrivedBytes < arrivedCap) {
        const QByteArray kept = chunk.left(arrivedCap - m_arrivedBytes);
        m_arrivedBytes += kept.size();
        const int streamIndex = stream == OutputStream::Stderr ? 1 : 0;
        if (!m_arrived.isEmpty() && m_arrived.last().stream == streamIndex) {
            m_arrived.last().bytes += kept;
        } else {
            m_arrived.append({streamIndex, kept});
        }
    }
    const QByteArray clean = redactor.isEmpty() ? chunk : redactor.feed(chunk);
    if (clean.isEmpty()) {
        return;
    }
    const OutputCollector::Added added = m_collector.append(stream, clean);
    if (!added.live.isEmpty()) {
        Q_EMIT output(m_request.callId, stream, added.live, added.kept);
    }
}

void CommandExecution::agentStarted(quint32 pid) {
    qCDebug(lcExec) << "call" << m_request.callId << "started as pid" << pid;
}

void CommandExecution::agentOutput(OutputStream stream, const QByteArray& data) {
    if (!m_finished) {
        deliver(stream, data);
    }
}

void CommandExecution::agentExited(const agentframe::AgentFrame& exit) {
    m_execDone = true;
    m_agentExitCode = exit.signalled ? 128 + exit.exitCode : exit.exitCode;
    if (exit.exitReason == quint8(agentframe::ExitReason::TimedOut) && m_stopReason == StopReason::None) {
        m_stopReason = StopReason::Timeout;
    }
    finishWith(baseResult());
}

void CommandExecution::agentFailed(const QString& message, bool channelLost) {
    m_execDone = true;
    if (m_finished) {
        return;
    }
    if (m_stopReason != StopReason::None) {
        finishWith(baseResult());
        return;
    }
    if (!channelLost) {
        ExecResult result = baseResult();
        result.status = ExecStatus::Error;
        result.exitCode.reset();
        result.errorCode = ExecError::ContainerFailed;
        result.errorMessage = QStringLiteral("The sandbox agent could not run the command: %1").arg(message);
        finishWith(result);
        return;
    }
    m_timeout.stop();
    checkContainerThenFinish(message);
}

void CommandExecution::setOutputPaused(bool paused) {
    if (m_stopReason != StopReason::None || m_finished) {
        paused = false;
    }
    m_outputPaused = paused;
    if (m_exec) {
        m_exec->setReadingPaused(paused);
    }
    if (m_agent && m_channel != 0) {
        m_agent->setPaused(m_channel, paused);
    }
}

void CommandExecution::cancel() {
    if (!m_started) {
        m_stopReason = StopReason::Cancelled;
        finishWith(baseResult());
        return;
    }
    stopInContainer(StopReason::Cancelled);
}

void CommandExecution::abandon(const QString& message) {
    m_abandonMessage = message;
    if (!m_started || m_execDone || m_channel != 0) {
        // Through the agent nothing waits on a CLI: the container's removal (or the agent's close) ends it.
        m_stopReason = StopReason::Abandoned;
        finishWith(baseResult());
        return;
    }
    if (m_stopReason == StopReason::None) {
        m_stopReason = StopReason::Abandoned;
    }
    setOutputPaused(false);
    m_timeout.stop();
    // The container's removal ends the exec; the CLI gets a grace in case the engine hangs.
    m_cliGrace.start(kCliGraceMs + 10000);
}

void CommandExecution::fail(ExecError code, const QString& message) {
    ExecResult result = ExecResult::failure(m_request, code, message);
    finishWith(result);
}

void CommandExecution::stopInContainer(StopReason reason) {
    if (m_stopReason != StopReason::None || m_finished) {
        return;
    }
    m_stopReason = reason;
    m_timeout.stop();
    setOutputPaused(false);  // the command must be able to write its last output and exit
    if (m_execDone) {
        return;  // already finished; onExecFinished has reported
    }
    if (m_channel != 0) {
        if (m_agent) {
            m_agent->stop(m_channel, quint32(qMax(0, m_killGraceMs)));
        }
        m_cliGrace.start(m_killGraceMs + kCliGraceMs);
        return;
    }
    m_stop = new EngineCommand(m_runtime.program(),
                               m_runtime.execArguments(m_containerId, stopCommand(m_pidFile, m_killGraceMs)),
                               m_killGraceMs + 15000, this);
    connect(m_stop, &EngineCommand::finished, this, &CommandExecution::onStopFinished);
    m_stop->start();
}

void CommandExecution::onStopFinished() {
    if (m_stop && !m_stop->succeeded()) {
        qCWarning(lcExec) << "stopping call" << m_request.callId << "failed:" << m_stop->diagnostic();
    }
    if (m_execDone) {
        finishWith(baseResult());
    } else {
        m_cliGrace.start();
    }
}

void CommandExecution::onExecFinished() {
    m_execDone = true;
    m_timeout.stop();
    if (m_stopReason == StopReason::Abandoned) {
        finishWith(baseResult());
        return;
    }
    if (m_stopReason != StopReason::None) {
        if (!m_stop || !m_stop->isRunning()) {
            finishWith(baseResult());
        }
        return;  // onStopFinished reports once the group is surely gone
    }
    if (m_exec->failedToStart()) {
        ExecResult result = baseResult();
        result.status = ExecStatus::Error;
        result.errorCode = ExecError::ContainerFailed;
        result.errorMessage = QStringLiteral("Could not start %1: %2").arg(m_runtime.program(), m_exec->errorString());
        finishWith(result);
        return;
    }
    if (!m_exec->crashed() && m_exec->exitCode() == 0) {
        finishWith(baseResult());
        return;
    }
    // A non-zero exit is usually the command's own; but it is also what the CLI reports
    // when the engine died or the container went away, so ask the engine.
    checkContainerThenFinish();
}

void CommandExecution::checkContainerThenFinish(const QString& agentFailure) {
    m_inspect =
        new EngineCommand(m_runtime.program(), m_runtime.inspectArguments(m_containerId), kInspectTimeoutMs, this);
    connect(m_inspect, &EngineCommand::finished, this, [this, agentFailure] {
        const auto info = m_inspect->succeeded() ? m_runtime.parseInspect(m_inspect->standardOutput())
                                                 : std::optional<ContainerInfo>();
        ExecResult result = baseResult();
        const bool cliCrashed = m_exec && m_exec->crashed();
        if (info && info->running && !cliCrashed && agentFailure.isEmpty()) {
            finishWith(result);
            return;
        }
        result.status = ExecStatus::Error;
        result.exitCode.reset();
        result.errorCode = ExecError::ContainerFailed;
        result.containerLost = !info || !info->running;
        if (!info) {
            const QString why = m_inspect->diagnostic();
            result.errorMessage =
                QStringLiteral("The container engine or the container went away while the command ran (%1).")
                    .arg(why.isEmpty() ? (m_exec ? m_exec->diagnostic() : agentFailure) : why);
        } else if (!info->running && info->startedAt.isValid() && info->time.isValid()
                   && info->startedAt.msecsTo(info->time) < kExitAtStartMs) {
            reportExitAtStart(result, info->exitCode);
            return;
        } else if (!info->running) {
            result.errorMessage =
                QStringLiteral("The container stopped (%1) while the command ran; the next command starts a new one.")
                    .arg(info->state);
        } else if (!agentFailure.isEmpty()) {
            result.errorMessage =
                QStringLiteral("The sandbox agent stopped while the command ran (%1); the next command restarts it.")
                    .arg(agentFailure);
        } else {
            result.errorMessage = QStringLiteral("The %1 CLI was killed while the command ran.")
                                      .arg(runtimeKindToString(m_runtime.kind()));
        }
        finishWith(result);
    });
    m_inspect->start();
}

void CommandExecution::reportExitAtStart(ExecResult result, int exitCode, int attempt) {
    if (m_logs) {
        m_logs->deleteLater();
    }
    // The whole log (it is short: the container exited as it started), cut here: Podman 4.3 (Debian 12) may drop a line
    // that came in two pieces from `logs --tail`.
    m_logs = new EngineCommand(m_runtime.program(), m_runtime.logsArguments(m_containerId, 0), kInspectTimeoutMs, this);
    connect(m_logs, &EngineCommand::finished, this, [this, result, exitCode, attempt]() mutable {
        // The container's own output: what its init or entrypoint said before it gave up (both streams).
        QString log = QString::fromUtf8(m_logs->standardOutput() + m_logs->standardError()).trimmed();
        const QStringList lines = log.split(QLatin1Char('\n'));
        log = lines.mid(qMax<qsizetype>(0, lines.size() - kLogLines)).join(QLatin1Char('\n'));
        if (log.isEmpty() && attempt + 1 < kLogAttempts) {
            QTimer::singleShot(kLogRetryMs, this,
                               [this, result, exitCode, attempt] { reportExitAtStart(result, exitCode, attempt + 1); });
            return;
        }
        if (log.size() > kLogChars) {
            log = QChar(0x2026) + log.right(kLogChars);
        }
        if (log.isEmpty()) {
            log = tr("(the log is empty)");
        }
        result.errorMessage =
            tr("The container exited right after it started (exit code %1), so the command did not run. The sandbox "
               "image %2 must be able to run `sleep infinity`; check the image setting (Settings, Sandbox image) or "
               "rebuild the image. The end of the container's log:\n%3")
                .arg(exitCode)
                .arg(m_image.isEmpty() ? tr("(unknown)") : m_image, log);
        finishWith(result);
    });
    m_logs->start();
}

ExecResult CommandExecution::baseResult() const {
    ExecResult result;
    result.callId = m_request.callId;
    result.sessionId = m_request.sessionId;
    result.started =
        m_started ? QDateTime::currentDateTimeUtc().addMSecs(-m_clock.elapsed()) : QDateTime::currentDateTimeUtc();
    result.durationMs = m_started ? m_clock.elapsed() : 0;
    result.output = m_collector.text();  // finishWith() adds the flushed tail
    result.truncated = m_collector.truncated();
    result.stdoutBytes = m_collector.bytes(OutputStream::Stdout);
    result.stderrBytes = m_collector.bytes(OutputStream::Stderr);
    switch (m_stopReason) {
        case StopReason::Timeout:
            result.status = ExecStatus::Timeout;
            result.errorMessage =
                QStringLiteral("The command timed out after %1 s and was stopped.").arg(m_timeoutSeconds);
            break;
        case StopReason::Cancelled:
            result.status = ExecStatus::Cancelled;
            break;
        case StopReason::Abandoned:
            result.status = ExecStatus::Cancelled;
            result.errorMessage = m_abandonMessage;
            break;
        case StopReason::None:
            result.status = ExecStatus::Ok;
            if (m_channel != 0) {
                result.exitCode = m_agentExitCode;
            } else if (m_exec && !m_exec->failedToStart()) {
                result.exitCode = m_exec->exitCode();
            }
            break;
    }
    return result;
}

void CommandExecution::finishWith(ExecResult result) {
    if (m_finished) {
        return;
    }
    m_finished = true;
    m_timeout.stop();
    m_cliGrace.stop();
    for (const OutputStream stream : {OutputStream::Stdout, OutputStream::Stderr}) {
        // What the redactor held back in case it began a secret's form: passed on now, like the rest.
        const QByteArray heldBack = m_redactors[stream == OutputStream::Stderr ? 1 : 0].flush();
        if (!heldBack.isEmpty()) {
            const OutputCollector::Added added = m_collector.append(stream, heldBack);
            result.output += QString::fromUtf8(added.kept);
            if (!added.live.isEmpty()) {
                Q_EMIT output(m_request.callId, stream, added.live, added.kept);
            }
        }
        // A character cut off by the end of the output: U+FFFD, streamed and kept like the rest.
        const OutputCollector::Added tail = m_collector.finish(stream);
        if (!tail.kept.isEmpty()) {
            result.output += QString::fromUtf8(tail.kept);
        }
        if (!tail.live.isEmpty()) {
            Q_EMIT output(m_request.callId, stream, tail.live, tail.kept);
        }
    }
    m_collector.releaseText();  // up to the cap (the result has it): not kept twice while the result is sent
    result.truncated = m_collector.truncated();
    result.stdoutBytes = m_collector.bytes(OutputStream::Stdout);
    result.stderrBytes = m_collector.bytes(OutputStream::Stderr);
    result.redacted = m_redactors[0].count() + m_redactors[1].count();
    // Each stream was redacted on its own; a value split between stdout and stderr only meets in the combined
    // output, so that is redacted once more as a whole (SPEC §9 "across stdout and stderr").
    if (!m_redactors[0].isEmpty()) {
        // Each stream was redacted on its own, and a stream holds back what may begin a form, which can put the
        // other stream's bytes first: the result is made again from both streams as they arrived, redacted whole
        // (a value split between the streams) and stream by stream (a value one stream printed in one piece while
        // the other stream's bytes arrived in between).
        qint64 joined = 0;
        QByteArray whole = m_redactors[0].redactedInterleaved(m_arrived, &joined);
        if (result.truncated && whole.size() > m_collector.capBytes()) {
            whole.truncate(m_collector.capBytes());
        }
        result.output = QString::fromUtf8(whole);
        result.redacted = qMax(result.redacted, joined);
    }
    m_arrived.clear();
    m_arrivedBytes = 0;
    // An error message may quote the command's or the engine's words: redacted like the output.
    result.errorMessage = m_redactors[0].redacted(result.errorMessage);
    if (m_agent && m_channel != 0 && !m_execDone) {
        m_agent->detach(m_channel);
        m_execDone = true;
    }
    if (m_exec && m_exec->isRunning()) {
        m_exec->stop();
    }
    qCInfo(lcExec) << "call" << result.callId << execStatusName(result.status) << "exit"
                   << (result.exitCode ? *result.exitCode : -1) << "in" << result.durationMs << "ms";
    Q_EMIT finished(result);
}

}  // namespace zeus
