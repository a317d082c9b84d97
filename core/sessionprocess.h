#pragma once

#include "outputcollector.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace zeus {

// One engine CLI call (docker/podman/container + an argument list) for a session. It owns
// the QProcess, its timeout and the terminate-then-kill grace. Output is either streamed
// chunk by chunk (outputReady) or collected (standardOutput()/standardError(), for short
// calls such as run, rm and inspect). It must never run a host shell, never block
// (no waitFor*), and finished() is emitted exactly once, also when the program cannot start.
class SessionProcess : public QObject {
    Q_OBJECT

public:
    SessionProcess(const QString& program, const QStringList& arguments, int timeoutMs, QObject* parent = nullptr);
    ~SessionProcess() override;

    // Stream chunks through outputReady() instead of collecting them.
    void setStreaming(bool streaming) { m_streaming = streaming; }
    void start();
    // Terminates the CLI now, kills it after a short grace; finished() follows.
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

private:
    void finish();

    QProcess m_process;
    QStringList m_arguments;
    QString m_program;
    QTimer m_timeout;
    QTimer m_killTimer;
    QElapsedTimer m_clock;
    QByteArray m_stdout;
    QByteArray m_stderr;
    int m_exitCode = -1;
    bool m_streaming = false;
    bool m_crashed = false;
    bool m_timedOut = false;
    bool m_failedToStart = false;
    bool m_finished = false;
    QString m_errorString;
};

}  // namespace zeus
