#pragma once

#include "support/processresult.h"
#include "support/processterminator.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

namespace zeus {

// Runs one program with an argument list, asynchronously, and reports a ProcessResult.
//
// Owns the QProcess, its timeout and its terminate-then-kill grace timer. It keeps at most
// outputLimit() bytes of stdout and of stderr; the rest is counted and dropped so a chatty
// child cannot grow our memory. The program is looked up on the PATH of the environment
// given to it (not the app's own PATH), so tests can put fake CLIs first.
//
// It must never run a shell string on the host, never block (no waitFor*), and never let a
// child outlive its timeout plus the kill grace. A runner runs once; make a new one per call.
class ProcessRunner : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultTimeoutMs = 30000;
    static constexpr int kDefaultKillGraceMs = ProcessTerminator::kGraceMs;
    static constexpr qint64 kDefaultOutputLimit = 1024 * 1024;

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
    // <= 0: no timeout (use only for calls that are cancelled by other means).
    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    int timeoutMs() const { return m_timeoutMs; }
    // Time between terminate() (SIGTERM) and kill() (SIGKILL).
    void setKillGraceMs(int graceMs) { m_terminator.setGraceMs(graceMs); }
    int killGraceMs() const { return m_terminator.graceMs(); }
    // Per stream.
    void setOutputLimit(qint64 bytes) { m_outputLimit = bytes; }
    qint64 outputLimit() const { return m_outputLimit; }
    // Written to the child's stdin, which is then closed. Empty: stdin is closed at once.
    void setStandardInput(const QByteArray& data) { m_stdin = data; }

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

Q_SIGNALS:
    void finished(const zeus::ProcessResult& result);

private:
    void onReadyReadStandardOutput();
    void onReadyReadStandardError();
    void onErrorOccurred(QProcess::ProcessError error);
    void onFinished(int exitCode, QProcess::ExitStatus exitStatus);
    void onTimeout();
    void stopChild();
    void append(QByteArray& buffer, const QByteArray& chunk);
    void finish();

    QString m_program;
    QStringList m_arguments;
    QProcessEnvironment m_environment;
    int m_timeoutMs = kDefaultTimeoutMs;
    qint64 m_outputLimit = kDefaultOutputLimit;
    QByteArray m_stdin;

    QPointer<QProcess> m_process;
    QTimer m_timeoutTimer;
    ProcessTerminator m_terminator;
    QElapsedTimer m_clock;
    ProcessResult m_result;
    bool m_startCalled = false;
    bool m_finished = false;
};

}  // namespace zeus
