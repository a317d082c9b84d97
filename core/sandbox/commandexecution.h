#pragma once

#include "sandbox/agent/agentcall.h"
#include "secrets/redactor.h"
#include "support/execstatus.h"
#include "support/outputcollector.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <optional>
#include <utility>

namespace zeus {

class AgentChannel;
class ContainerRuntime;
class EngineCommand;

// Why a call ended with ExecStatus::Error: the SPEC §5 error codes that execution produces.
// The backend layer maps each to its protocol code with an exhaustive switch.
//   None             - no error (status is not Error);
//   WorkspaceInvalid - the folder is gone, not a folder, or refused by the guard;
//   ImageMissing     - the sandbox image is not present in the engine;
//   ContainerFailed  - the container could not be created, or failed under the command;
//   Busy             - over a concurrency limit, or the session runs in another folder;
//   NoRuntime        - the engine is unreachable.
enum class ExecError { None, WorkspaceInvalid, ImageMissing, ContainerFailed, Busy, NoRuntime };
// The SPEC word ("workspace_invalid", ...; empty for None), for logs, the session log and the UI.
QString execErrorName(ExecError error);

// One command to run in a session's container.
struct ExecRequest {
    QString callId;
    QString sessionId;
    QString workspace;       // host folder the user approved; guarded again before use
    QString command;         // run by bash -c (sh -c where the image has no bash)
    int timeoutSeconds = 0;  // <= 0: the configured default; clamped to the maximum
    // Approved secrets (SPEC §9): set in this command's environment only, and redacted from every session output.
    QList<SecretValue> secrets;
};

// What a call ended with (the fields of tool_result).
struct ExecResult {
    QString callId;
    QString sessionId;
    ExecStatus status = ExecStatus::Error;
    std::optional<int> exitCode;            // none for timeout, cancel and errors
    ExecError errorCode = ExecError::None;  // set when status is Error
    QString errorMessage;
    QString output;  // combined stdout+stderr in arrival order, capped
    bool truncated = false;
    qint64 durationMs = 0;
    qint64 stdoutBytes = 0;
    qint64 stderrBytes = 0;
    QDateTime started;
    bool containerLost = false;  // the container stopped or vanished under the call
    qint64 redacted = 0;         // secret forms replaced in the output (SPEC §9)

    static ExecResult failure(const ExecRequest& request, ExecError code, const QString& message);
};

// Runs one command in a running container and really stops it on timeout or cancel.
//
// Through the session's sandbox agent when it has one (SPEC §7): the command travels in an exec
// frame, and the agent stops its process group and everything it left behind. Otherwise
// (plain exec, the fallback): the command runs as `sh -c WRAPPER` (its text written to the exec's stdin, never an
// argument) where the wrapper starts it with setsid in its own
// process group and writes the group id to a file under /tmp in the container. Stopping
// execs a second small script that sends TERM to the group, waits the grace period and
// then sends KILL, so nothing of the command survives (killing the CLI alone would leave
// it running). It owns its exec process, its output collector and its timers; it never
// touches the container's lifecycle (the SessionManager does).
class CommandExecution : public QObject, private AgentCall {
    Q_OBJECT

public:
    CommandExecution(ExecRequest request, const ContainerRuntime& runtime, qint64 outputCap, int timeoutSeconds,
                     int killGraceMs, QObject* parent = nullptr);
    ~CommandExecution() override;

    const ExecRequest& request() const { return m_request; }
    // The sandbox image, named in the message when the container exits right after it started.
    void setImage(const QString& image) { m_image = image; }
    // NAME=value set in this command's environment besides its secrets (the host certificates' variables). Before
    // start().
    void setEnvironment(QList<QPair<QString, QByteArray>> variables) { m_environment = std::move(variables); }
    bool isStarted() const { return m_started; }
    // Secrets to remove from this call's output (every secret its session used so far, and its own): each form
    // becomes [REDACTED:NAME] before the output is streamed, kept or shown. May grow while the call runs.
    void addRedaction(const QList<SecretValue>& secrets);
    // A host-bound secret (SPEC §9): the command's environment gets `placeholder` for NAME instead of its value, which
    // never enters the container. Before start(); the value stays only in the redaction.
    void usePlaceholder(const QString& name, const QByteArray& placeholder);

    // Starts the command in this container, through the agent when one is given (it must be Ready).
    // finished() follows exactly once.
    void start(const QString& containerId, AgentChannel* agent = nullptr);
    bool usesAgent() const { return m_channel != 0; }
    // Stops the command inside the container (TERM, grace, KILL); status cancelled.
    void cancel();
    // The container is being removed anyway: do not signal inside it, just end as
    // cancelled with this message once the exec process has gone (or at once if not started).
    void abandon(const QString& message);
    // Ends a call that never started (container creation failed).
    void fail(ExecError code, const QString& message);
    // Flow control: stop reading the command's output (its pipe fills and the command blocks
    // on its next write) or resume. Ignored once the command is being stopped, which must
    // always be able to finish.
    void setOutputPaused(bool paused);

    // The wrapper and stop scripts (pure; shown in docs and tested through the engine tests).
    // The wrapper reads the command text from its stdin (the exec's -i); it is never an argument.
    static QStringList wrapperCommand(const QString& pidFile);
    static QStringList stopCommand(const QString& pidFile, int graceMs);

Q_SIGNALS:
    // Output as it arrives, as valid UTF-8 (invalid bytes already replaced): `live` is all of it, `kept` its part
    // within the output cap (empty past the cap; then the result says truncated).
    void output(const QString& callId, zeus::OutputStream stream, const QByteArray& live, const QByteArray& kept);
    void finished(const zeus::ExecResult& result);

private:
    enum class StopReason { None, Timeout, Cancelled, Abandoned };
    void startWithAgent(AgentChannel* agent);
    void agentStarted(quint32 pid) override;
    void agentOutput(OutputStream stream, const QByteArray& data) override;
    void agentExited(const agentframe::AgentFrame& exit) override;
    void agentFailed(const QString& message, bool channelLost) override;
    void deliver(OutputStream stream, const QByteArray& chunk);
    void stopInContainer(StopReason reason);
    void onExecFinished();
    void onStopFinished();
    void checkContainerThenFinish(const QString& agentFailure = QString());
    void reportExitAtStart(ExecResult result, int exitCode, int attempt = 0);
    void finishWith(ExecResult result);
    ExecResult baseResult() const;

    ExecRequest m_request;
    const ContainerRuntime& m_runtime;
    OutputCollector m_collector;
    Redactor m_redactors[2];  // stdout, stderr: each stream holds back its own partial match
    // Both streams' raw bytes in arrival order (up to the cap and the longest form more): with secrets, the result
    // is this, redacted as a whole, where a value split between stdout and stderr becomes whole (SPEC §9).
    QList<Redactor::Segment> m_arrived;  // both streams as they arrived, for the result's redaction
    qint64 m_arrivedBytes = 0;
    int m_timeoutSeconds;
    int m_killGraceMs;
    QString m_containerId;
    QString m_pidFile;
    QPointer<EngineCommand> m_exec;
    QPointer<EngineCommand> m_stop;
    QPointer<EngineCommand> m_inspect;
    QPointer<AgentChannel> m_agent;
    quint32 m_channel = 0;               // the agent's channel of this call; 0: plain exec
    std::optional<int> m_agentExitCode;  // the agent's exit frame: code, or 128 + signal
    QPointer<EngineCommand> m_logs;
    QString m_image;
    QList<QPair<QString, QByteArray>> m_environment;
    QTimer m_timeout;
    QTimer m_cliGrace;  // after the group was killed, the CLI gets this long to exit
    QElapsedTimer m_clock;
    StopReason m_stopReason = StopReason::None;
    QString m_abandonMessage;
    bool m_started = false;
    bool m_execDone = false;
    bool m_finished = false;
    bool m_outputPaused = false;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ExecResult)
Q_DECLARE_METATYPE(zeus::OutputStream)
