#pragma once
// Shared by the engine tests of sessions and execution: a SessionManager on a real
// engine with a unique owner id, and helpers that wait for results without hard-coding them.

#include "sandbox/sessionmanager.h"
#include "testenvironment.h"

#include <QDir>
#include <QHash>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

namespace zeus::test {

inline QString uniqueOwner() {
    return QStringLiteral("test-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
}

// A config for tests: no network (the test engines have no bridge), small limits, the test image, the agent.
inline SandboxConfig testConfig(const QString& owner) {
    SandboxConfig config;
    config.image = testImage();
    config.ownerId = owner;
    config.network = QStringLiteral("none");
    config.pidsLimit = 256;
    config.memory = QStringLiteral("256m");
    config.cpus = QStringLiteral("1");
    config.killGraceMs = 1000;
    // The project's own agent, mounted as the app mounts it (the test image has none of its own).
    config.agentHostPath = QStringLiteral(ZEUS_AGENT_BINARY);
    // The plain-exec fallback, for a second run of a whole test (tests/CMakeLists.txt: tst_exec_plain).
    if (qEnvironmentVariable("ZEUS_TEST_EXEC_MODE") == QStringLiteral("exec")) {
        config.execMode = ExecMode::Exec;
    }
    return config;
}

// Containers of the engine that carry this owner label (running or not).
inline QStringList containersOf(const QString& engine, const QString& owner) {
    const ProcessOutput out = runProgram(
        engine, {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q"), QStringLiteral("--no-trunc"),
                 QStringLiteral("--filter"), QStringLiteral("label=zeus.desktop.owner=") + owner});
    QStringList ids;
    for (const QByteArray& line : out.out.split('\n')) {
        if (!line.trimmed().isEmpty()) {
            ids << QString::fromUtf8(line.trimmed());
        }
    }
    return ids;
}

inline void removeContainersOf(const QString& engine, const QString& owner) {
    const QStringList ids = containersOf(engine, owner);
    if (!ids.isEmpty()) {
        runProgram(engine, QStringList{QStringLiteral("rm"), QStringLiteral("-f")} + ids);
    }
}

// Containers of the engine, running or not, that carry this session label.
inline QStringList containersOfSession(const QString& engine, const QString& sessionId) {
    const ProcessOutput out = runProgram(
        engine, {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q"), QStringLiteral("--no-trunc"),
                 QStringLiteral("--filter"), QStringLiteral("label=zeus.desktop.session=") + sessionId});
    QStringList ids;
    for (const QByteArray& line : out.out.split('\n')) {
        if (!line.trimmed().isEmpty()) {
            ids << QString::fromUtf8(line.trimmed());
        }
    }
    return ids;
}

// A variant of the test image: `script` runs once in a container of it (as root, no network) and the result is
// committed as `tag`. True when the image exists afterwards; remove it with removeImage().
inline bool makeVariantImage(const QString& engine, const QString& tag, const QString& script) {
    const QString builder = QStringLiteral("zeus-variant-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    const ProcessOutput run =
        runProgram(engine, {QStringLiteral("run"), QStringLiteral("--name"), builder, QStringLiteral("--network"),
                            QStringLiteral("none"), testImage(), QStringLiteral("sh"), QStringLiteral("-c"), script});
    const ProcessOutput commit = runProgram(engine, {QStringLiteral("commit"), builder, tag});
    runProgram(engine, {QStringLiteral("rm"), QStringLiteral("-f"), builder});
    if (run.exitCode != 0 || commit.exitCode != 0) {
        qWarning() << "variant image" << tag << "failed:" << run.err << commit.err;
        return false;
    }
    return true;
}

inline void removeImage(const QString& engine, const QString& tag) {
    runProgram(engine, {QStringLiteral("rmi"), QStringLiteral("-f"), tag});
}

// Records everything a SessionManager reports.
class Recorder {
public:
    explicit Recorder(SessionManager& manager) : m_manager(manager) {
        QObject::connect(&manager, &SessionManager::output,
                         [this](const QString& callId, OutputStream stream, const QString& text) {
                             (stream == OutputStream::Stdout ? stdoutOf : stderrOf)[callId] += text;
                             chunks[callId] += 1;
                         });
        QObject::connect(&manager, &SessionManager::callFinished,
                         [this](const ExecResult& result) { results.insert(result.callId, result); });
    }

    bool waitFor(const QString& callId, int timeoutMs) {
        return QTest::qWaitFor([&] { return results.contains(callId); }, timeoutMs);
    }

    // Runs one command and waits for its result (fails the wait by returning an error result).
    ExecResult run(const QString& sessionId, const QString& workspace, const QString& command, int timeoutSeconds = 0,
                   int waitMs = 60000) {
        ExecRequest request;
        request.callId = QStringLiteral("call-") + QString::number(++m_counter);
        request.sessionId = sessionId;
        request.workspace = workspace;
        request.command = command;
        request.timeoutSeconds = timeoutSeconds;
        m_manager.execute(request);
        if (!waitFor(request.callId, waitMs)) {
            ExecResult none;
            none.callId = request.callId;
            none.errorMessage = QStringLiteral("test_wait_timed_out");
            return none;
        }
        return results.value(request.callId);
    }

    QString start(const QString& sessionId, const QString& workspace, const QString& command, int timeoutSeconds = 0) {
        ExecRequest request;
        request.callId = QStringLiteral("call-") + QString::number(++m_counter);
        request.sessionId = sessionId;
        request.workspace = workspace;
        request.command = command;
        request.timeoutSeconds = timeoutSeconds;
        m_manager.execute(request);
        return request.callId;
    }

    QHash<QString, ExecResult> results;
    QHash<QString, QString> stdoutOf;
    QHash<QString, QString> stderrOf;
    QHash<QString, int> chunks;

private:
    SessionManager& m_manager;
    int m_counter = 0;
};

// A workspace folder that the guard accepts (under the temp dir, not the home folder).
inline QString makeWorkspace(QTemporaryDir& dir, const QString& name) {
    const QString path = QFileInfo(dir.path()).canonicalFilePath() + QLatin1Char('/') + name;
    QDir().mkpath(path);
    return path;
}

}  // namespace zeus::test
