#include "support/processrunner.h"

#include "support/logging.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

namespace zeus {

ProcessRunner::ProcessRunner(QObject* parent) : QObject(parent), m_environment(childEnvironment()) {
    qRegisterMetaType<zeus::ProcessResult>();
    m_timeoutTimer.setSingleShot(true);
    // A coarse timer may fire 5 % early; a timeout is a promise to the caller.
    m_timeoutTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_timeoutTimer, &QTimer::timeout, this, &ProcessRunner::onTimeout);
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
    }
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

    m_process = new QProcess(this);
    m_process->setProcessEnvironment(m_environment);
    m_process->setProgram(m_result.resolvedPath);
    m_process->setArguments(m_arguments);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &ProcessRunner::onReadyReadStandardOutput);
    connect(m_process, &QProcess::readyReadStandardError, this, &ProcessRunner::onReadyReadStandardError);
    connect(m_process, &QProcess::errorOccurred, this, &ProcessRunner::onErrorOccurred);
    connect(m_process, &QProcess::finished, this, &ProcessRunner::onFinished);
    connect(m_process, &QProcess::started, this, [this] {
        if (m_stdin.isEmpty()) {
            m_process->closeWriteChannel();
        } else {
            m_process->write(m_stdin);
            m_process->closeWriteChannel();
        }
    });
    if (m_timeoutMs > 0) {
        m_timeoutTimer.start(m_timeoutMs);
    }
    qCDebug(lcRuntime).noquote() << "starting" << m_result.argv().join(QLatin1Char(' '));
    m_process->start();
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

void ProcessRunner::onReadyReadStandardOutput() {
    append(m_result.standardOutput, m_process->readAllStandardOutput());
}

void ProcessRunner::onReadyReadStandardError() {
    append(m_result.standardError, m_process->readAllStandardError());
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
    m_terminator.terminate(m_process);
}

void ProcessRunner::finish() {
    if (m_finished) {
        return;
    }
    m_finished = true;
    m_result.durationMs = m_clock.elapsed();
    qCDebug(lcRuntime).noquote() << "finished" << m_result.argv().join(QLatin1Char(' ')) << "started"
                                 << m_result.started << "exit" << m_result.exitCode << "timedOut" << m_result.timedOut
                                 << "in" << m_result.durationMs << "ms";
    Q_EMIT finished(m_result);
}

}  // namespace zeus
