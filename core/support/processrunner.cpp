#include "support/processrunner.h"

#include "support/logging.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QThread>

#ifdef Q_OS_UNIX
#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <memory>
#include <utility>

namespace zeus {

namespace {
#ifdef Q_OS_UNIX
// One chunk is at most this much: big enough that 64 MiB are a few hundred chunks (each may become one frame of a
// protocol), small enough to keep frames and latency modest.
constexpr qsizetype kReadChunk = 256 * 1024;
// Read at most this much per wake-up before going back to the event loop (fairness, and a pause requested while
// handling a chunk takes effect at once).
constexpr qsizetype kReadPerWakeup = 1024 * 1024;
// Linux lets an unprivileged process grow a pipe to 1 MiB: fewer, larger reads.
constexpr int kPipeSize = 1024 * 1024;
// After a read the pipes are left alone this long. The first output of a child arrives at once; a fast writer's many
// small writes (the engine CLIs write 16-32 KiB at a time) collect in the pipe and become one chunk and one wake-up
// of each process on the way instead of dozens: at 200 MiB/s, 2 ms are 400 KiB.
constexpr int kCoalesceMs = 2;
#endif
// After the exit, how long a streamed pipe may stay open (a grandchild that kept it) before it is closed.
constexpr int kDrainAfterExitMs = 2000;
// runBlocking(): how long one wait for the child lasts before the loop looks at the clock and the input again.
constexpr int kBlockingPollMs = 50;
// runBlocking(): at most this much stdout is handed out at once.
constexpr qint64 kBlockingChunk = 1024 * 1024;

// The GUI thread is the main thread of a QGuiApplication (the headless modes run a QCoreApplication, whose main
// thread may block). By class name: core/ links no GUI module.
bool onGuiThread() {
    const QCoreApplication* app = QCoreApplication::instance();
    return app && app->inherits("QGuiApplication") && QThread::currentThread() == app->thread();
}
}  // namespace

ProcessRunner::ProcessRunner(QObject* parent) : QObject(parent), m_environment(childEnvironment()) {
    qRegisterMetaType<zeus::ProcessResult>();
    m_timeoutTimer.setSingleShot(true);
    // A coarse timer may fire 5 % early; a timeout is a promise to the caller.
    m_timeoutTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_timeoutTimer, &QTimer::timeout, this, &ProcessRunner::onTimeout);
    m_drainTimer.setSingleShot(true);
    m_drainTimer.setInterval(kDrainAfterExitMs);
    connect(&m_drainTimer, &QTimer::timeout, this, [this] {
#ifdef Q_OS_UNIX
        qCWarning(lcRuntime) << m_program << "output pipe still open after the exit; closed";
        closePipes();
#endif
        maybeFinishAfterDrain();
    });
#ifdef Q_OS_UNIX
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(kCoalesceMs);
    connect(&m_coalesce, &QTimer::timeout, this, [this] {
        for (QSocketNotifier* notifier : m_notifier) {
            if (notifier && !m_paused) {
                notifier->setEnabled(true);
            }
        }
    });
#endif
}

ProcessRunner::ProcessRunner(const QString& program, const QStringList& arguments, QObject* parent)
    : ProcessRunner(parent) {
    m_program = program;
    m_arguments = arguments;
}

ProcessRunner::~ProcessRunner() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        // Destroyed mid-run (app quitting): no signal may reach a half-destroyed object, and
        // the child must not outlive us. QProcess reaps it after the kill.
        m_process->disconnect(this);
        m_process->kill();
        // Reap it now: a QProcess destroyed before its child is reaped warns on stderr ("Destroyed while
        // process ... is still running"), which --exec passes on to the user. After SIGKILL this is the kernel's
        // few milliseconds, bounded here all the same.
        m_process->waitForFinished(kReapAfterKillMs);
    }
#ifdef Q_OS_UNIX
    closePipes();
    closeChildEnds();
#endif
}

QProcessEnvironment ProcessRunner::scrubbed(const QProcessEnvironment& environment) {
    static const QStringList secretWords = {
        QStringLiteral("TOKEN"),      QStringLiteral("SECRET"), QStringLiteral("PASSWORD"), QStringLiteral("PASSWD"),
        QStringLiteral("CREDENTIAL"), QStringLiteral("KEY"),    QStringLiteral("AUTH")};
    QProcessEnvironment clean = environment;
    const QStringList names = environment.keys();
    for (const QString& name : names) {
        if (!name.startsWith(QLatin1String("ZEUS_"), Qt::CaseInsensitive)) {
            continue;
        }
        const bool secret = std::any_of(secretWords.cbegin(), secretWords.cend(), [&name](const QString& word) {
            return name.contains(word, Qt::CaseInsensitive);
        });
        if (secret) {
            clean.remove(name);
        }
    }
    return clean;
}

QProcessEnvironment ProcessRunner::childEnvironment() {
    return scrubbed(QProcessEnvironment::systemEnvironment());
}

QString ProcessRunner::findExecutable(const QString& program, const QProcessEnvironment& environment) {
    if (program.isEmpty()) {
        return {};
    }
    if (program.contains(QLatin1Char('/')) || program.contains(QLatin1Char('\\'))) {
        const QFileInfo info(program);
        return info.isFile() && info.isExecutable() ? info.absoluteFilePath() : QString();
    }
    // The child's PATH decides, not ours: that is what a user's shell would run, and it is
    // how tests put fake CLIs first.
    const QString path = environment.value(QStringLiteral("PATH"));
    const QStringList directories = path.split(QDir::listSeparator(), Qt::SkipEmptyParts);
    if (directories.isEmpty()) {
        return {};
    }
    return QStandardPaths::findExecutable(program, directories);
}

QProcess* ProcessRunner::makeProcess() {
    auto* process = new QProcess(this);
    QProcessEnvironment environment = m_environment;
    for (const auto& [name, value] : std::as_const(m_extraEnvironment)) {
        environment.insert(name, QString::fromUtf8(value));
    }
    process->setProcessEnvironment(environment);
    process->setProgram(m_result.resolvedPath);
    process->setArguments(m_arguments);
    if (!m_workingDirectory.isEmpty()) {
        process->setWorkingDirectory(m_workingDirectory);
    }
    if (m_merged) {
        process->setProcessChannelMode(QProcess::MergedChannels);
    }
    return process;
}

void ProcessRunner::start() {
    Q_ASSERT_X(!m_startCalled, "ProcessRunner::start", "a runner runs once");
    if (m_startCalled) {
        return;
    }
    m_startCalled = true;
    m_result = ProcessResult();
    m_result.program = m_program;
    m_result.arguments = m_arguments;
    m_clock.start();

    m_result.resolvedPath = findExecutable(m_program, m_environment);
    if (m_result.resolvedPath.isEmpty()) {
        m_result.errorString = QStringLiteral("%1: not found on PATH").arg(m_program);
        // Keep the contract "finished() comes from the event loop" even without a child.
        QTimer::singleShot(0, this, &ProcessRunner::finish);
        return;
    }

    m_process = makeProcess();
    connect(m_process, &QProcess::readyReadStandardOutput, this, &ProcessRunner::onReadyReadStandardOutput);
    connect(m_process, &QProcess::readyReadStandardError, this, &ProcessRunner::onReadyReadStandardError);
    connect(m_process, &QProcess::errorOccurred, this, &ProcessRunner::onErrorOccurred);
    connect(m_process, &QProcess::finished, this, &ProcessRunner::onFinished);
    connect(m_process, &QProcess::bytesWritten, this, &ProcessRunner::inputWritten);
    connect(m_process, &QProcess::started, this, [this] {
        if (!m_stdin.isEmpty()) {
            // QProcess writes it from the event loop as the pipe takes it.
            m_process->write(m_stdin);
            m_stdin.clear();
        }
        if (!m_interactive) {
            m_process->closeWriteChannel();  // closes once all is written
        }
        Q_EMIT started();
    });
#ifdef Q_OS_UNIX
    if (m_streaming && m_pausable && openPipes()) {
        m_ownPipes = true;
        // QProcess leaves the child's stdout and stderr alone; the modifier (run in the child between fork and
        // exec, so only async-signal-safe calls) puts our pipes there.
        m_process->setProcessChannelMode(QProcess::ForwardedChannels);
        const int out = m_writeFd[0];
        const int err = m_merged ? m_writeFd[0] : m_writeFd[1];
        m_process->setChildProcessModifier([out, err] {
            const int targets[2] = {STDOUT_FILENO, STDERR_FILENO};
            const int fds[2] = {out, err};
            for (int i = 0; i < 2; ++i) {
                if (fds[i] == targets[i]) {
                    ::fcntl(fds[i], F_SETFD, 0);  // dup2 onto itself would keep close-on-exec
                } else {
                    ::dup2(fds[i], targets[i]);
                }
            }
        });
    }
#endif
    if (m_timeoutMs > 0) {
        m_timeoutTimer.start(m_timeoutMs);
    }
    qCDebug(lcRuntime).noquote() << "starting" << m_result.argv().join(QLatin1Char(' '));
    m_process->start(QIODevice::ReadWrite);
#ifdef Q_OS_UNIX
    // The child has its copies (or never started); ours must go, or the pipes never reach EOF.
    closeChildEnds();
#endif
}

void ProcessRunner::cancel() {
    if (isRunning()) {
        stopChild();
    }
}

bool ProcessRunner::isRunning() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 ProcessRunner::processId() const {
    return isRunning() ? m_process->processId() : 0;
}

void ProcessRunner::write(const QByteArray& data) {
    if (m_interactive && isRunning()) {
        m_process->write(data);
    }
}

void ProcessRunner::closeStandardInput() {
    if (isRunning()) {
        m_process->closeWriteChannel();
    }
}

void ProcessRunner::setReadingPaused(bool paused) {
    if (!m_ownPipes || m_paused == paused) {
        return;
    }
    m_paused = paused;
#ifdef Q_OS_UNIX
    for (QSocketNotifier* notifier : m_notifier) {
        if (notifier) {
            notifier->setEnabled(!paused);  // level-triggered: it fires again at once if data waits
        }
    }
#endif
    if (paused) {
        m_drainTimer.stop();  // a paused pipe is not a stuck one
    } else if (m_processDone && !m_finished) {
        m_drainTimer.start();
    }
}

void ProcessRunner::onReadyReadStandardOutput() {
    const QByteArray chunk = m_process->readAllStandardOutput();
    if (!chunk.isEmpty()) {
        deliver(OutputStream::Stdout, chunk);
    }
}

void ProcessRunner::onReadyReadStandardError() {
    const QByteArray chunk = m_process->readAllStandardError();
    if (!chunk.isEmpty()) {
        deliver(OutputStream::Stderr, chunk);
    }
}

void ProcessRunner::deliver(OutputStream stream, const QByteArray& chunk) {
    if (m_streaming) {
        Q_EMIT outputReady(stream, chunk);
        if (stream == OutputStream::Stderr) {
            // Also kept when streaming: it explains a failure.
            append(m_result.standardError, chunk);
        }
        return;
    }
    append(stream == OutputStream::Stdout ? m_result.standardOutput : m_result.standardError, chunk);
}

void ProcessRunner::append(QByteArray& buffer, const QByteArray& chunk) {
    const qint64 room = qMax<qint64>(0, m_outputLimit - buffer.size());
    if (chunk.size() <= room) {
        buffer.append(chunk);
        return;
    }
    buffer.append(chunk.left(room));
    m_result.droppedOutputBytes += chunk.size() - room;
}

void ProcessRunner::onErrorOccurred(QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) {
        // No finished() follows from QProcess in this case.
        m_result.errorString = m_process->errorString();
        m_timeoutTimer.stop();
#ifdef Q_OS_UNIX
        closePipes();
#endif
        finish();
    }
    // Crashed, Timedout, ReadError, WriteError: finished() (or nothing, for I/O errors on a
    // running child) follows; the exit status tells what happened.
}

void ProcessRunner::onFinished(int exitCode, QProcess::ExitStatus exitStatus) {
    m_timeoutTimer.stop();
    m_terminator.cancel();
    onReadyReadStandardOutput();
    onReadyReadStandardError();
    m_result.started = true;
    m_result.crashed = exitStatus == QProcess::CrashExit;
    m_result.exitCode = m_result.crashed ? -1 : exitCode;
    if (m_result.crashed) {
        m_result.errorString = m_process->errorString();
    }
    m_processDone = true;
#ifdef Q_OS_UNIX
    if (!m_paused) {
        for (int i = 0; i < 2; ++i) {
            readPipe(i);  // usually reaches EOF at once: the child has exited
        }
    }
#endif
    maybeFinishAfterDrain();
    if (!m_finished && !m_paused) {
        m_drainTimer.start();
    }
}

void ProcessRunner::maybeFinishAfterDrain() {
    if (!m_processDone || m_finished) {
        return;
    }
#ifdef Q_OS_UNIX
    if (m_readFd[0] >= 0 || m_readFd[1] >= 0) {
        return;
    }
#endif
    m_drainTimer.stop();
    finish();
}

void ProcessRunner::onTimeout() {
    if (!isRunning()) {
        return;
    }
    qCWarning(lcRuntime).noquote() << m_result.argv().join(QLatin1Char(' ')) << "timed out after" << m_timeoutMs
                                   << "ms; terminating";
    m_result.timedOut = true;
    stopChild();
}

void ProcessRunner::stopChild() {
    // A stopped child must be able to write its last output and exit.
    setReadingPaused(false);
    m_terminator.terminate(m_process);
}

void ProcessRunner::finish() {
    if (m_finished) {
        return;
    }
    m_finished = true;
    m_timeoutTimer.stop();
    m_terminator.cancel();
    m_drainTimer.stop();
    m_result.durationMs = m_clock.elapsed();
    qCDebug(lcRuntime).noquote() << "finished" << m_result.argv().join(QLatin1Char(' ')) << "started"
                                 << m_result.started << "exit" << m_result.exitCode << "timedOut" << m_result.timedOut
                                 << "in" << m_result.durationMs << "ms";
    Q_EMIT finished(m_result);
}

#ifdef Q_OS_UNIX
bool ProcessRunner::openPipes() {
    const int count = m_merged ? 1 : 2;
    for (int i = 0; i < count; ++i) {
        int fds[2] = {-1, -1};
#ifdef Q_OS_LINUX
        const bool ok = ::pipe2(fds, O_CLOEXEC) == 0;
#else
        // No pipe2 on macOS; processes are only started from this thread, so no fork races this.
        const bool ok =
            ::pipe(fds) == 0 && ::fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0 && ::fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0;
#endif
        if (!ok) {
            for (const int fd : fds) {
                if (fd >= 0) {
                    ::close(fd);
                }
            }
            qCWarning(lcRuntime) << "could not create an output pipe; reading through QProcess";
            closePipes();
            closeChildEnds();
            return false;
        }
        ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
#ifdef F_SETPIPE_SZ
        ::fcntl(fds[0], F_SETPIPE_SZ, kPipeSize);  // best effort
#endif
        m_readFd[i] = fds[0];
        m_writeFd[i] = fds[1];
    }
    for (int i = 0; i < count; ++i) {
        m_notifier[i] = new QSocketNotifier(m_readFd[i], QSocketNotifier::Read, this);
        connect(m_notifier[i], &QSocketNotifier::activated, this, [this, i] { readPipe(i); });
    }
    return true;
}

void ProcessRunner::readPipe(int index) {
    const OutputStream stream = index == 0 ? OutputStream::Stdout : OutputStream::Stderr;
    qsizetype total = 0;
    while (m_readFd[index] >= 0 && !m_paused && total < kReadPerWakeup) {
        if (m_readBuffer.size() != kReadChunk) {
            m_readBuffer.resize(kReadChunk);
        }
        qsizetype filled = 0;
        bool closed = false;
        bool empty = false;
        while (filled < kReadChunk) {
            const ssize_t n = ::read(m_readFd[index], m_readBuffer.data() + filled, size_t(kReadChunk - filled));
            if (n > 0) {
                filled += n;
            } else if (n == 0) {
                closed = true;
                break;
            } else if (errno == EINTR) {
                continue;
            } else {
                empty = errno == EAGAIN || errno == EWOULDBLOCK;
                closed = !empty;  // a read error ends the stream like EOF
                break;
            }
        }
        total += filled;
        if (closed) {
            closePipe(index);
        }
        if (filled > 0) {
            // A copy of exactly what was read: the read buffer is reused for the next chunk.
            deliver(stream, QByteArray(m_readBuffer.constData(), filled));
        }
        if (closed || empty) {
            break;
        }
    }
    if (total > 0 && !m_paused && !m_processDone && m_coalescing) {
        // Both pipes rest together, so one stream is never read ahead of the other's waiting output.
        for (QSocketNotifier* notifier : m_notifier) {
            if (notifier) {
                notifier->setEnabled(false);
            }
        }
        m_coalesce.start();
    }
    maybeFinishAfterDrain();
}

void ProcessRunner::closePipe(int index) {
    if (m_notifier[index]) {
        m_notifier[index]->setEnabled(false);
        m_notifier[index]->deleteLater();
        m_notifier[index] = nullptr;
    }
    if (m_readFd[index] >= 0) {
        ::close(m_readFd[index]);
        m_readFd[index] = -1;
    }
}

void ProcessRunner::closePipes() {
    closePipe(0);
    closePipe(1);
}

void ProcessRunner::closeChildEnds() {
    for (int& fd : m_writeFd) {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    }
}
#endif

ProcessResult ProcessRunner::runBlocking(const BlockingIo& io) {
    Q_ASSERT_X(!onGuiThread(), "ProcessRunner::runBlocking", "blocks: for a worker thread or the command line");
    Q_ASSERT_X(!m_startCalled, "ProcessRunner::runBlocking", "a runner runs once");
    m_startCalled = true;
    m_finished = true;  // no finished() from a blocking run
    m_result = ProcessResult();
    m_result.program = m_program;
    m_result.arguments = m_arguments;
    m_clock.start();
    m_result.resolvedPath = findExecutable(m_program, m_environment);
    if (m_result.resolvedPath.isEmpty()) {
        m_result.errorString = QStringLiteral("%1: not found on PATH").arg(m_program);
        m_result.durationMs = m_clock.elapsed();
        return m_result;
    }
    const std::unique_ptr<QProcess> process(makeProcess());
    process->setParent(nullptr);  // owned here, on this thread
    qCDebug(lcRuntime).noquote() << "running" << m_result.argv().join(QLatin1Char(' '));
    process->start(QIODevice::ReadWrite);
    if (!process->waitForStarted(kStartWaitMs)) {
        m_result.errorString = process->errorString();
        ProcessTerminator::terminateAndWait(process.get(), m_terminator.graceMs());
        m_result.durationMs = m_clock.elapsed();
        return m_result;
    }
    m_result.started = true;
    bool inputOpen = bool(io.input);
    if (!m_stdin.isEmpty()) {
        process->write(m_stdin);
    }
    if (!inputOpen) {
        process->closeWriteChannel();
    }
    QElapsedTimer sinceProgress;  // the timeout's clock: restarted while the input makes progress
    sinceProgress.start();
    qint64 backlog = process->bytesToWrite();
    bool stop = false;
    while (!stop) {
        while (inputOpen && process->bytesToWrite() < kMaxInputBacklog && process->state() == QProcess::Running) {
            QByteArray chunk;
            if (!io.input(&chunk)) {
                stop = true;
                break;
            }
            if (chunk.isEmpty()) {
                process->closeWriteChannel();  // once all queued bytes are written
                inputOpen = false;
                break;
            }
            process->write(chunk);
        }
        if (stop) {
            break;
        }
        append(m_result.standardError, process->readAllStandardError());
        if (process->bytesAvailable() > 0) {
            const QByteArray chunk = process->read(std::min(process->bytesAvailable(), kBlockingChunk));
            if (!io.output) {
                append(m_result.standardOutput, chunk);
            } else if (!io.output(chunk)) {
                stop = true;
            }
            continue;
        }
        if (process->state() == QProcess::NotRunning) {
            break;
        }
        const qint64 waiting = process->bytesToWrite();
        if (waiting < backlog || (inputOpen && waiting == 0)) {
            sinceProgress.start();
        }
        backlog = waiting;
        if (m_timeoutMs > 0 && sinceProgress.elapsed() > m_timeoutMs) {
            qCWarning(lcRuntime).noquote()
                << m_result.argv().join(QLatin1Char(' ')) << "timed out after" << m_timeoutMs << "ms; terminating";
            m_result.timedOut = true;
            break;
        }
        if (waiting > 0) {
            process->waitForBytesWritten(kBlockingPollMs);
        } else {
            process->waitForReadyRead(kBlockingPollMs);
        }
    }
    ProcessTerminator::terminateAndWait(process.get(), m_terminator.graceMs());
    append(m_result.standardError, process->readAllStandardError());
    m_result.crashed = process->exitStatus() == QProcess::CrashExit;
    m_result.exitCode = m_result.crashed ? -1 : process->exitCode();
    if (m_result.crashed) {
        m_result.errorString = process->errorString();
    }
    m_result.durationMs = m_clock.elapsed();
    return m_result;
}

}  // namespace zeus
