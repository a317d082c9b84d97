#include "sessionprocess.h"

#include "logging.h"

namespace zeus {

namespace {
constexpr int kKillGraceMs = 2000;
constexpr qint64 kCollectLimit = 4 * 1024 * 1024;  // engine call output kept for parsing
constexpr qint64 kStreamingStderrLimit = 64 * 1024;
}  // namespace

SessionProcess::SessionProcess(const QString& program, const QStringList& arguments, int timeoutMs, QObject* parent)
    : QObject(parent), m_arguments(arguments), m_program(program) {
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(timeoutMs);
    m_killTimer.setSingleShot(true);
    m_killTimer.setInterval(kKillGraceMs);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        stop();
    });
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
        }
    });
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] {
        const QByteArray chunk = m_process.readAllStandardOutput();
        if (m_streaming) {
            Q_EMIT outputReady(OutputStream::Stdout, chunk);
        } else if (m_stdout.size() < kCollectLimit) {
            m_stdout += chunk;
        }
    });
    connect(&m_process, &QProcess::readyReadStandardError, this, [this] {
        const QByteArray chunk = m_process.readAllStandardError();
        if (m_streaming) {
            Q_EMIT outputReady(OutputStream::Stderr, chunk);
        }
        // Also kept when streaming (it explains a failed exec), but then only the start of it.
        if (m_stderr.size() < (m_streaming ? kStreamingStderrLimit : kCollectLimit)) {
            m_stderr += chunk;
        }
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            m_failedToStart = true;
            m_errorString = m_process.errorString();
            finish();
        }
    });
    connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        m_exitCode = exitCode;
        m_crashed = status == QProcess::CrashExit;
        finish();
    });
}

SessionProcess::~SessionProcess() {
    if (m_process.state() != QProcess::NotRunning) {
        // Only when the owner is torn down mid-call; QProcess's destructor reaps the child.
        m_process.disconnect(this);
        m_process.kill();
    }
}

void SessionProcess::start() {
    qCDebug(lcSession) << "engine:" << m_program << m_arguments.mid(0, 2);
    m_clock.start();
    m_process.setProgram(m_program);
    m_process.setArguments(m_arguments);
    m_process.start(QIODevice::ReadWrite);
    m_process.closeWriteChannel();
    if (m_timeout.interval() > 0) {
        m_timeout.start();
    }
}

void SessionProcess::stop() {
    if (m_process.state() == QProcess::NotRunning) {
        return;
    }
    m_process.terminate();
    m_killTimer.start();
}

bool SessionProcess::isRunning() const {
    return m_process.state() != QProcess::NotRunning;
}

QString SessionProcess::diagnostic() const {
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

void SessionProcess::finish() {
    if (m_finished) {
        return;
    }
    m_finished = true;
    m_timeout.stop();
    m_killTimer.stop();
    Q_EMIT finished();
}

}  // namespace zeus
