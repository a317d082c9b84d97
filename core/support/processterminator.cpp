#include "support/processterminator.h"

#include "support/logging.h"

namespace zeus {

ProcessTerminator::ProcessTerminator(QObject* parent) : QObject(parent) {
    m_killTimer.setSingleShot(true);
    // A coarse timer may fire 5 % early; the grace is a promise to the child.
    m_killTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_killTimer, &QTimer::timeout, this, &ProcessTerminator::kill);
}

void ProcessTerminator::terminate(QProcess* process) {
    if (!process || process->state() == QProcess::NotRunning) {
        return;
    }
    if (m_killTimer.isActive() && m_process == process) {
        return;
    }
    m_process = process;
    // Polite first (a CLI may clean up a connection), then certain.
    process->terminate();
    m_killTimer.start(qMax(0, m_graceMs));
}

void ProcessTerminator::cancel() {
    m_killTimer.stop();
    m_process = nullptr;
}

void ProcessTerminator::terminateAndWait(QProcess* process, int graceMs) {
    if (!process || process->state() == QProcess::NotRunning) {
        return;
    }
    process->terminate();
    if (process->waitForFinished(qMax(0, graceMs))) {
        return;
    }
    qCWarning(lcRuntime).noquote() << "killing" << process->program() << "after the" << graceMs << "ms grace";
    process->kill();
    process->waitForFinished(-1);
}

void ProcessTerminator::kill() {
    if (!m_process || m_process->state() == QProcess::NotRunning) {
        return;
    }
    qCWarning(lcRuntime).noquote() << "killing" << m_process->program() << "after the" << m_graceMs << "ms grace";
    if (m_beforeKill) {
        m_beforeKill();
    }
    m_process->kill();
}

}  // namespace zeus
