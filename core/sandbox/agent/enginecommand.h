#pragma once

#include "support/outputcollector.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QStringList>

namespace zeus {

class ProcessRunner;
struct ProcessResult;

// One engine CLI call (docker/podman/container + an argument list) for a session: run, exec,
// rm, inspect, ps. It owns the ProcessRunner that runs it (its timeout, its terminate-then-kill
// and its scrubbed environment). Output is either streamed chunk by chunk (outputReady) or
// collected (standardOutput()/standardError(), for short calls such as run, rm and inspect).
// It must never run a host shell, never block, and finished() is emitted exactly once, also
// when the program cannot start.
//
// A streamed call is pausable (ProcessRunner::setPausable): reading can stop, the CLI's pipe
// fills up, the CLI blocks writing, stops reading from the engine, and the command in the
// container blocks on its own write. That is the flow control from the backend socket down to
// the command. finished() then follows only once both pipes are drained, so no output is lost
// behind the exit.
class EngineCommand : public QObject {
    Q_OBJECT

public:
    EngineCommand(QString program, QStringList arguments, int timeoutMs, QObject* parent = nullptr);
    ~EngineCommand() override;

    // Stream chunks through outputReady() instead of collecting them.
    void setStreaming(bool streaming) { m_streaming = streaming; }
    // Keeps the CLI's stdin open for write() (the agent channel) instead of closing it at start.
    void setInteractive(bool interactive) { m_interactive = interactive; }
    // Off: every read is delivered at once, for a channel whose round trip matters more than its chunk count.
    void setCoalescing(bool coalescing) { m_coalescing = coalescing; }
    // Interactive only: queues bytes for the CLI's stdin (written as the pipe takes them).
    void write(const QByteArray& data);
    void closeStandardInput();
    qint64 bytesToWrite() const;
    // Bytes written to the CLI's stdin once it started, which is then closed (without them: closed at once). For
    // data that must stay out of argument lists: the command text of an exec.
    void setStandardInputData(const QByteArray& data) { m_stdinData = data; }
    // Variables added to the CLI's own environment (the app's, scrubbed), for values that must stay out of
    // argument lists: a secret the CLI passes on with `exec -e NAME`.
    void setExtraEnvironment(const QList<QPair<QString, QByteArray>>& variables) { m_extraEnvironment = variables; }
    void start();
    // Stops (true) or resumes reading the streamed output. While paused the command is slowed
    // down by its full pipe, never its output dropped. A no-op where the platform has no own
    // pipes (Windows): there the output keeps being read.
    void setReadingPaused(bool paused);
    bool isReadingPaused() const;
    // Terminates the CLI now, kills it after ProcessTerminator's grace; finished() follows.
    void stop();
    bool isRunning() const;

    QByteArray standardOutput() const { return m_stdout; }
    QByteArray standardError() const { return m_stderr; }
    int exitCode() const { return m_exitCode; }
    bool succeeded() const { return !m_failedToStart && !m_crashed && !m_timedOut && m_exitCode == 0; }
    bool crashed() const { return m_crashed; }
    bool timedOut() const { return m_timedOut; }
    bool failedToStart() const { return m_failedToStart; }
    QString errorString() const { return m_errorString; }
    qint64 elapsedMs() const { return m_clock.isValid() ? m_clock.elapsed() : 0; }
    // The last line of stderr (or of stdout), trimmed, for a message to the user.
    QString diagnostic() const;

Q_SIGNALS:
    void outputReady(zeus::OutputStream stream, const QByteArray& chunk);
    void finished();
    // Interactive: bytes given to write() reached the process's stdin pipe.
    void inputWritten(qint64 bytes);

private:
    void onFinished(const ProcessResult& result);

    QPointer<ProcessRunner> m_runner;
    QStringList m_arguments;
    QString m_program;
    int m_timeoutMs = 0;
    QElapsedTimer m_clock;
    QByteArray m_stdout;
    QByteArray m_stderr;
    QByteArray m_stdinData;
    QList<QPair<QString, QByteArray>> m_extraEnvironment;
    int m_exitCode = -1;
    bool m_streaming = false;
    bool m_interactive = false;
    bool m_coalescing = true;
    bool m_crashed = false;
    bool m_timedOut = false;
    bool m_failedToStart = false;
    QString m_errorString;
};

}  // namespace zeus
