#include "sandbox/agent/enginecommand.h"

#include "support/logging.h"
#include "support/processrunner.h"

#include <utility>

namespace zeus {

namespace {
constexpr qint64 kCollectLimit = 4 * 1024 * 1024;  // engine call output kept for parsing
constexpr qint64 kStreamingStderrLimit = 64 * 1024;
}  // namespace

EngineCommand::EngineCommand(QString program, QStringList arguments, int timeoutMs, QObject* parent)
    : QObject(parent), m_arguments(std::move(arguments)), m_program(std::move(program)), m_timeoutMs(timeoutMs) {}

// The runner is this object's child: destroyed mid-call (the owner torn down), it kills the CLI.
EngineCommand::~EngineCommand() = default;

void EngineCommand::start() {
    qCDebug(lcSession) << "engine:" << m_program << m_arguments.mid(0, 2);
    m_clock.start();
    // The engine CLI (and what it starts) never gets the backend token or another secret of the app (SPEC §3);
    // a call's own secret is added back for this one process only (`exec -e NAME`, SPEC §9).
    auto* runner = new ProcessRunner(m_program, m_arguments, this);
    m_runner = runner;
    runner->setExtraEnvironment(m_extraEnvironment);
    runner->setTimeoutMs(m_timeoutMs);
    runner->setStreaming(m_streaming);
    runner->setPausable(m_streaming);
    runner->setCoalescing(m_coalescing);
    runner->setInteractive(m_interactive);
    runner->setStandardInput(m_stdinData);
    m_stdinData.clear();
    // Also kept when streaming (it explains a failed exec), but then only the start of it.
    runner->setOutputLimit(m_streaming ? kStreamingStderrLimit : kCollectLimit);
    connect(runner, &ProcessRunner::outputReady, this, &EngineCommand::outputReady);
    connect(runner, &ProcessRunner::inputWritten, this, &EngineCommand::inputWritten);
    connect(runner, &ProcessRunner::finished, this, &EngineCommand::onFinished);
    runner->start();
}

void EngineCommand::write(const QByteArray& data) {
    if (m_runner) {
        m_runner->write(data);
    }
}

void EngineCommand::closeStandardInput() {
    if (m_runner) {
        m_runner->closeStandardInput();
    }
}

qint64 EngineCommand::bytesToWrite() const {
    return m_runner ? m_runner->bytesToWrite() : 0;
}

void EngineCommand::setReadingPaused(bool paused) {
    if (m_runner) {
        m_runner->setReadingPaused(paused);
    }
}

bool EngineCommand::isReadingPaused() const {
    return m_runner && m_runner->isReadingPaused();
}

void EngineCommand::stop() {
    if (!m_runner) {
        return;
    }
    // A stopped command must be able to write its last output and exit (also one that has exited but whose
    // output waits in a paused pipe).
    m_runner->setReadingPaused(false);
    m_runner->cancel();
}

bool EngineCommand::isRunning() const {
    return m_runner && m_runner->isRunning();
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

void EngineCommand::onFinished(const ProcessResult& result) {
    m_stdout = result.standardOutput;
    m_stderr = result.standardError;
    m_exitCode = result.exitCode;
    m_crashed = result.crashed;
    m_timedOut = result.timedOut;
    m_failedToStart = !result.started;
    if (m_failedToStart) {
        m_errorString = result.errorString;
    }
    Q_EMIT finished();
}

}  // namespace zeus
