#include "sandbox/agent/enginecommand.h"

#include "support/logging.h"
#include "support/processrunner.h"

#ifdef Q_OS_UNIX
#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#include <utility>
#endif

namespace zeus {

namespace {
constexpr qint64 kCollectLimit = 4 * 1024 * 1024;  // engine call output kept for parsing
constexpr qint64 kStreamingStderrLimit = 64 * 1024;
#ifdef Q_OS_UNIX
// One chunk is at most this much: big enough that 64 MiB are a few hundred chunks (each
// becomes one tool_output frame), small enough to keep frames and latency modest.
constexpr qsizetype kReadChunk = 256 * 1024;
// Read at most this much per wake-up before going back to the event loop (fairness, and
// a pause requested while handling a chunk takes effect at once).
constexpr qsizetype kReadPerWakeup = 1024 * 1024;
// Linux lets an unprivileged process grow a pipe to 1 MiB: fewer, larger reads.
constexpr int kPipeSize = 1024 * 1024;
// After a read the pipes are left alone this long. The first output of a command arrives at once; a fast writer's
// many small writes (the engine CLIs write 16-32 KiB at a time) collect in the pipe and become one chunk, one
// tool_output frame and one wake-up of each process on the way instead of dozens: at 200 MiB/s, 2 ms are 400 KiB.
constexpr int kCoalesceMs = 2;
#endif
constexpr int kDrainAfterExitMs = 2000;
}  // namespace

EngineCommand::EngineCommand(QString program, QStringList arguments, int timeoutMs, QObject* parent)
    : QObject(parent), m_arguments(std::move(arguments)), m_program(std::move(program)) {
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(timeoutMs);
    m_drainTimer.setSingleShot(true);
    m_drainTimer.setInterval(kDrainAfterExitMs);
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
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        stop();
    });
    connect(&m_drainTimer, &QTimer::timeout, this, [this] {
#ifdef Q_OS_UNIX
        qCWarning(lcSession) << "engine:" << m_program << "output pipe still open after the exit; closed";
        closePipes();
#endif
        maybeFinishAfterDrain();
    });
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] {
        const QByteArray chunk = m_process.readAllStandardOutput();
        if (m_streaming) {
            Q_EMIT outputReady(OutputStream::Stdout, chunk);
        } else if (m_stdout.size() < kCollectLimit) {
            m_stdout += chunk;
        }
    });
    connect(&m_process, &QProcess::bytesWritten, this, &EngineCommand::inputWritten);
    connect(&m_process, &QProcess::readyReadStandardError, this,
            [this] { deliver(OutputStream::Stderr, m_process.readAllStandardError()); });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            m_failedToStart = true;
            m_errorString = m_process.errorString();
#ifdef Q_OS_UNIX
            closePipes();
#endif
            finish();
        }
    });
    connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        m_exitCode = exitCode;
        m_crashed = status == QProcess::CrashExit;
        onProcessFinished();
    });
}

EngineCommand::~EngineCommand() {
    if (m_process.state() != QProcess::NotRunning) {
        // Only when the owner is torn down mid-call; QProcess's destructor reaps the child.
        m_process.disconnect(this);
        m_process.kill();
    }
#ifdef Q_OS_UNIX
    closePipes();
    for (int& fd : m_writeFd) {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    }
#endif
}

void EngineCommand::start() {
    qCDebug(lcSession) << "engine:" << m_program << m_arguments.mid(0, 2);
    m_clock.start();
    m_process.setProgram(m_program);
    m_process.setArguments(m_arguments);
    // The engine CLI (and what it starts) never gets the backend token or another secret of the app (SPEC §3);
    // a call's own secret is added back for this one process only (`exec -e NAME`, SPEC §9).
    QProcessEnvironment environment = ProcessRunner::childEnvironment();
    for (const auto& [name, value] : std::as_const(m_extraEnvironment)) {
        environment.insert(name, QString::fromUtf8(value));
    }
    m_process.setProcessEnvironment(environment);
#ifdef Q_OS_UNIX
    if (m_streaming && openPipes()) {
        m_ownPipes = true;
        // QProcess leaves the child's stdout and stderr alone; the modifier (run in the child
        // between fork and exec, so only async-signal-safe calls) puts our pipes there.
        m_process.setProcessChannelMode(QProcess::ForwardedChannels);
        const int out = m_writeFd[0];
        const int err = m_writeFd[1];
        m_process.setChildProcessModifier([out, err] {
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
    m_process.start(QIODevice::ReadWrite);
#ifdef Q_OS_UNIX
    // The child has its copies (or never started); ours must go, or the pipes never reach EOF.
    for (int& fd : m_writeFd) {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    }
#endif
    if (!m_stdinData.isEmpty() && m_process.state() != QProcess::NotRunning) {
        // QProcess writes it from the event loop as the pipe takes it; the channel closes once all is written.
        m_process.write(m_stdinData);
        m_stdinData.clear();
    }
    if (!m_interactive) {
        m_process.closeWriteChannel();
    }
    if (m_timeout.interval() > 0) {
        m_timeout.start();
    }
}

void EngineCommand::write(const QByteArray& data) {
    if (m_interactive && m_process.state() != QProcess::NotRunning) {
        m_process.write(data);
    }
}

void EngineCommand::closeStandardInput() {
    if (m_process.state() != QProcess::NotRunning) {
        m_process.closeWriteChannel();
    }
}

void EngineCommand::setReadingPaused(bool paused) {
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
    } else if (m_processDone) {
        m_drainTimer.start();
    }
}

void EngineCommand::stop() {
    // A stopped command must be able to write its last output and exit.
    setReadingPaused(false);
    if (m_process.state() == QProcess::NotRunning) {
        return;
    }
    m_terminator.terminate(&m_process);
}

bool EngineCommand::isRunning() const {
    return m_process.state() != QProcess::NotRunning;
}

QString EngineCommand::diagnostic() const {
    const QByteArray text = m_stderr.trimmed().isEmpty() ? m_stdout.trimmed() : m_stderr.trimmed();
    QString line = QString::fromUtf8(text.mid(text.lastIndexOf('\n') + 1)).trimmed();
    if (line.isEmpty() && m_failedToStart) {
        line = m_errorString;
    }
    if (line.isEmpty() && m_timedOut) {
        line = QStringLiteral("timed out");
    }
    return line.left(500);
}

void EngineCommand::deliver(OutputStream stream, const QByteArray& chunk) {
    if (stream == OutputStream::Stdout) {
        if (m_streaming) {
            Q_EMIT outputReady(OutputStream::Stdout, chunk);
        } else if (m_stdout.size() < kCollectLimit) {
            m_stdout += chunk;
        }
        return;
    }
    if (m_streaming) {
        Q_EMIT outputReady(OutputStream::Stderr, chunk);
    }
    // Also kept when streaming (it explains a failed exec), but then only the start of it.
    if (m_stderr.size() < (m_streaming ? kStreamingStderrLimit : kCollectLimit)) {
        m_stderr += chunk;
    }
}

void EngineCommand::onProcessFinished() {
    m_processDone = true;
    m_timeout.stop();
    m_terminator.cancel();
#ifdef Q_OS_UNIX
    if (!m_paused) {
        for (int i = 0; i < 2; ++i) {
            readPipe(i);  // usually reaches EOF at once: the CLI has exited
        }
    }
#endif
    maybeFinishAfterDrain();
    if (!m_finished && !m_paused) {
        m_drainTimer.start();
    }
}

void EngineCommand::maybeFinishAfterDrain() {
    if (!m_processDone) {
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

#ifdef Q_OS_UNIX
bool EngineCommand::openPipes() {
    for (int i = 0; i < 2; ++i) {
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
            qCWarning(lcSession) << "could not create an output pipe; reading through QProcess";
            closePipes();
            for (int& fd : m_writeFd) {
                if (fd >= 0) {
                    ::close(fd);
                    fd = -1;
                }
            }
            return false;
        }
        ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
#ifdef F_SETPIPE_SZ
        ::fcntl(fds[0], F_SETPIPE_SZ, kPipeSize);  // best effort
#endif
        m_readFd[i] = fds[0];
        m_writeFd[i] = fds[1];
    }
    for (int i = 0; i < 2; ++i) {
        m_notifier[i] = new QSocketNotifier(m_readFd[i], QSocketNotifier::Read, this);
        connect(m_notifier[i], &QSocketNotifier::activated, this, [this, i] { readPipe(i); });
    }
    return true;
}

void EngineCommand::readPipe(int index) {
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

void EngineCommand::closePipe(int index) {
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

void EngineCommand::closePipes() {
    closePipe(0);
    closePipe(1);
}
#endif

void EngineCommand::finish() {
    if (m_finished) {
        return;
    }
    m_finished = true;
    m_timeout.stop();
    m_terminator.cancel();
    m_drainTimer.stop();
    Q_EMIT finished();
}

}  // namespace zeus
