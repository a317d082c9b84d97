#pragma once

#include "support/outputstream.h"
#include "support/processresult.h"
#include "support/processterminator.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

#include <functional>

class QSocketNotifier;

namespace zeus {

// Runs one program with an argument list and reports a ProcessResult: the one class of the app that starts a child
// process (tests/common/owned-apis.txt), so the scrubbed environment, the timeout and the terminate-then-kill exist
// once.
//
// Owns the QProcess, its timeout and its ProcessTerminator. Collecting (the default), it keeps at most
// outputLimit() bytes of stdout and of stderr; the rest is counted and dropped so a chatty child cannot grow our
// memory. Streaming (setStreaming), every chunk is handed out through outputReady() as it comes and only the first
// outputLimit() bytes of stderr are kept (they explain a failure). The program is looked up on the PATH of the
// environment given to it (not the app's own PATH), so tests can put fake CLIs first.
//
// A pausable stream (setPausable) reads, on Unix, the child's stdout and stderr from pipes the runner owns (not
// QProcess's), so reading can be paused: QProcess always drains its pipes into an unbounded buffer, but a pipe nobody
// reads fills up and the child blocks writing. That is the flow control from a slow reader down to the child.
// finished() then follows only once the pipes are drained, so no output is lost behind the exit.
//
// It must never run a shell string on the host and never let a child outlive its timeout plus the kill grace. It
// never blocks, except in runBlocking(), which is for a worker thread or the command line and never the GUI
// thread. A runner runs once; make a new one per call.
class ProcessRunner : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultTimeoutMs = 30000;
    static constexpr int kDefaultKillGraceMs = ProcessTerminator::kGraceMs;
    static constexpr qint64 kDefaultOutputLimit = 1024 * 1024;
    // How long the destructor waits to reap a child it has just killed.
    static constexpr int kReapAfterKillMs = 2000;

    explicit ProcessRunner(QObject* parent = nullptr);
    ProcessRunner(const QString& program, const QStringList& arguments, QObject* parent = nullptr);
    ~ProcessRunner() override;

    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }
    void setArguments(const QStringList& arguments) { m_arguments = arguments; }
    QStringList arguments() const { return m_arguments; }
    // Replaces the whole child environment (also used to find the program on its PATH).
    // Scrubbed whatever the caller passes (SPEC §3): no child ever gets the backend token or a ZEUS_* secret.
    void setEnvironment(const QProcessEnvironment& environment) { m_environment = scrubbed(environment); }
    QProcessEnvironment environment() const { return m_environment; }
    // Variables added after the scrubbing, for this one process only: a secret the child passes on by name
    // (`exec -e NAME`, SPEC §9), which must stay out of the argument list.
    void setExtraEnvironment(const QList<QPair<QString, QByteArray>>& variables) { m_extraEnvironment = variables; }
    // Empty: the app's current directory.
    void setWorkingDirectory(const QString& directory) { m_workingDirectory = directory; }
    // <= 0: no timeout (use only for calls that are cancelled by other means).
    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    int timeoutMs() const { return m_timeoutMs; }
    // Time between terminate() (SIGTERM) and kill() (SIGKILL).
    void setKillGraceMs(int graceMs) { m_terminator.setGraceMs(graceMs); }
    int killGraceMs() const { return m_terminator.graceMs(); }
    // Per stream.
    void setOutputLimit(qint64 bytes) { m_outputLimit = bytes; }
    qint64 outputLimit() const { return m_outputLimit; }
    // Written to the child's stdin, which is then closed (unless interactive). Empty: stdin is closed at once.
    // For data that must stay out of argument lists, such as the command text of an exec.
    void setStandardInput(const QByteArray& data) { m_stdin = data; }
    // Runs just before the kill that follows an ignored terminate (e.g. to collect a build's own processes).
    void setBeforeKill(std::function<void()> beforeKill) { m_terminator.setBeforeKill(std::move(beforeKill)); }

    // Streaming: outputReady() for every chunk instead of collecting stdout (set before start()).
    void setStreaming(bool streaming) { m_streaming = streaming; }
    bool isStreaming() const { return m_streaming; }
    // Streaming: read from pipes of the runner's own so setReadingPaused() can hold the child (set before start()).
    // finished() then waits for the pipes to drain, up to 2 s after the exit for a grandchild that kept them open.
    void setPausable(bool pausable) { m_pausable = pausable; }
    // The child's stderr goes to its stdout: one stream in the order it was written (set before start()).
    void setMergedChannels(bool merged) { m_merged = merged; }
    // Keeps stdin open for write() after the standard input was written, until closeStandardInput().
    void setInteractive(bool interactive) { m_interactive = interactive; }
    // Pausable, on: after a read the pipes rest kCoalesceMs, so a fast writer's output comes in fewer, larger
    // chunks. Off: every read is delivered at once, for a channel whose round trip matters more than its chunks.
    void setCoalescing(bool coalescing) { m_coalescing = coalescing; }
    // Interactive: queues bytes for stdin (written as the pipe takes them; inputWritten() tells).
    void write(const QByteArray& data);
    void closeStandardInput();
    qint64 bytesToWrite() const { return m_process ? m_process->bytesToWrite() : 0; }
    // Pausable: stops (true) or resumes reading. While paused the child is slowed down by its full pipe, never its
    // output dropped. A no-op when not pausable, and where the platform has no own pipes (Windows): there QProcess
    // keeps reading.
    void setReadingPaused(bool paused);
    bool isReadingPaused() const { return m_paused; }

    // Starts the program; finished() follows exactly once, also when it cannot start
    // (then asynchronously, from the event loop). finished() is emitted from inside the
    // QProcess's own signal: a receiver that is done with the runner must deleteLater() it.
    void start();
    // Terminates the child now (then kills it after the grace); finished() reports crashed.
    void cancel();
    bool isRunning() const;
    // The child's pid while it runs, else 0 (for tests and diagnostics).
    qint64 processId() const;

    // What child processes (engine CLIs above all) get: `environment` without the app's secrets (SPEC §3): the
    // backend token (ZEUS_DESKTOP_TOKEN) and every ZEUS_* variable whose name says it holds a secret (TOKEN,
    // SECRET, PASSWORD, PASSWD, CREDENTIAL, KEY, AUTH). Pure.
    static QProcessEnvironment scrubbed(const QProcessEnvironment& environment);
    // scrubbed(QProcessEnvironment::systemEnvironment()): the default of every runner.
    static QProcessEnvironment childEnvironment();

    // Looks program up on the PATH of environment (absolute or relative paths are checked
    // as they are). Empty when not found or not executable.
    static QString findExecutable(const QString& program, const QProcessEnvironment& environment);

    // How runBlocking() talks to the child; each part is optional.
    struct BlockingIo {
        // Each stdout chunk as it comes (then not kept in the result); false stops the child.
        std::function<bool(const QByteArray&)> output;
        // Called while less than kMaxInputBacklog bytes wait for stdin: sets the next bytes (empty: the input is
        // complete and stdin is closed). False stops the child.
        std::function<bool(QByteArray*)> input;
    };
    static constexpr qint64 kMaxInputBacklog = 8 * 1024 * 1024;
    // How long runBlocking() waits for the child to start.
    static constexpr int kStartWaitMs = 30000;
    // Runs the program on the calling thread and returns when it has ended: the blocking form of start(), for a
    // worker thread or the command line, never the GUI thread (asserted). Same environment, timeout and
    // terminate-then-kill; finished() is not emitted. While `io.input` still feeds stdin the timeout counts from
    // the last progress of the writing (a big input is no hung child), then from the end of the input.
    ProcessResult runBlocking(const BlockingIo& io = {});

Q_SIGNALS:
    void finished(const zeus::ProcessResult& result);
    // Streaming: one chunk of a stream, in the order it was read (with merged channels, always Stdout).
    void outputReady(zeus::OutputStream stream, const QByteArray& chunk);
    // The child is running (not emitted when it fails to start).
    void started();
    // Bytes given to write() (or the standard input) reached the child's stdin pipe.
    void inputWritten(qint64 bytes);

private:
    void onReadyReadStandardOutput();
    void onReadyReadStandardError();
    void onErrorOccurred(QProcess::ProcessError error);
    void onFinished(int exitCode, QProcess::ExitStatus exitStatus);
    void onTimeout();
    void stopChild();
    void append(QByteArray& buffer, const QByteArray& chunk);
    void deliver(OutputStream stream, const QByteArray& chunk);
    void maybeFinishAfterDrain();
    QProcess* makeProcess();
    void finish();
#ifdef Q_OS_UNIX
    bool openPipes();
    void readPipe(int index);
    void closePipe(int index);
    void closePipes();
    void closeChildEnds();

    int m_readFd[2] = {-1, -1};   // stdout, stderr: our ends (stderr's -1 with merged channels)
    int m_writeFd[2] = {-1, -1};  // the child's ends, closed here once it started
    QSocketNotifier* m_notifier[2] = {nullptr, nullptr};
    QByteArray m_readBuffer;
    QTimer m_coalesce;  // after a read, the pipes rest briefly so a fast writer's output comes in fewer chunks
#endif

    QString m_program;
    QStringList m_arguments;
    QProcessEnvironment m_environment;
    int m_timeoutMs = kDefaultTimeoutMs;
    qint64 m_outputLimit = kDefaultOutputLimit;
    QByteArray m_stdin;
    QList<QPair<QString, QByteArray>> m_extraEnvironment;
    QString m_workingDirectory;
    bool m_streaming = false;
    bool m_merged = false;
    bool m_pausable = false;
    bool m_interactive = false;
    bool m_coalescing = true;
    bool m_ownPipes = false;
    bool m_paused = false;
    bool m_processDone = false;

    QPointer<QProcess> m_process;
    QTimer m_drainTimer;  // after the exit, how long a pipe may stay open (a leftover grandchild)
    QTimer m_timeoutTimer;
    ProcessTerminator m_terminator;
    QElapsedTimer m_clock;
    ProcessResult m_result;
    bool m_startCalled = false;
    bool m_finished = false;
};

}  // namespace zeus
