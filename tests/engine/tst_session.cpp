// SessionManager on real engines (Docker and Podman rows): container per session, reuse,
// labels, unusual workspace names, idle timeout, vanished containers, orphan sweep,
// missing image, concurrency limits and ten concurrent commands.
#include "sessionfixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>

using namespace zeus;
using namespace zeus::test;

class TestSession : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void engines_data();
    void firstCommandCreatesThenReuses_data() { engines_data(); }
    void firstCommandCreatesThenReuses();
    void unusualWorkspaceName_data() { engines_data(); }
    void unusualWorkspaceName();
    void folderSwappedBeforeTheMountIsRefused_data() { engines_data(); }
    void folderSwappedBeforeTheMountIsRefused();
    void changedApprovalIsRefused_data() { engines_data(); }
    void changedApprovalIsRefused();
    void revokedFolderEndsItsSessionsWithin2s_data() { engines_data(); }
    void revokedFolderEndsItsSessionsWithin2s();
    void endSessionRemovesContainer_data() { engines_data(); }
    void endSessionRemovesContainer();
    void idleTimeoutRemovesThenRecreates_data() { engines_data(); }
    void idleTimeoutRemovesThenRecreates();
    void vanishedContainerIsRecreated_data() { engines_data(); }
    void vanishedContainerIsRecreated();
    void idleCallWithLiveAgentSkipsInspect_data() { engines_data(); }
    void idleCallWithLiveAgentSkipsInspect();
    void orphanSweep_data() { engines_data(); }
    void orphanSweep();
    void missingImage_data() { engines_data(); }
    void missingImage();
    void tenConcurrentCommandsKeepOutputsApart_data() { engines_data(); }
    void tenConcurrentCommandsKeepOutputsApart();
    void overTheLimitWaitsInTheQueue_data() { engines_data(); }
    void overTheLimitWaitsInTheQueue();
    void shutdownRemovesEverything_data() { engines_data(); }
    void shutdownRemovesEverything();
    void shutdownWhileCreating_data() { engines_data(); }
    void shutdownWhileCreating();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, SandboxConfig config = {});
    QTemporaryDir m_dir;
    QString m_owner;
    QString m_engine;
};

void TestSession::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestSession::cleanup() {
    if (!m_owner.isEmpty() && !m_engine.isEmpty()) {
        removeContainersOf(m_engine, m_owner);
    }
}

void TestSession::engines_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

std::unique_ptr<SessionManager> TestSession::makeManager(const QString& engine, SandboxConfig config) {
    m_engine = engine;
    m_owner = uniqueOwner();
    if (config.ownerId.isEmpty()) {
        config = testConfig(m_owner);
    }
    config.ownerId = m_owner;
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

void TestSession::firstCommandCreatesThenReuses() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    QSignalSpy states(manager.get(), &SessionManager::sessionStateChanged);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("reuse-") + engine);
    QVERIFY(containersOf(engine, m_owner).isEmpty());

    const ExecResult first = rec.run(QStringLiteral("s1"), ws, QStringLiteral("echo out; echo err >&2; exit 3"));
    QCOMPARE(QString(execStatusName(first.status)), QStringLiteral("ok"));
    QCOMPARE(first.exitCode.value_or(-1), 3);
    QCOMPARE(rec.stdoutOf.value(first.callId), QStringLiteral("out\n"));
    QCOMPARE(rec.stderrOf.value(first.callId), QStringLiteral("err\n"));
    QCOMPARE(first.stdoutBytes, qint64(4));
    QCOMPARE(first.stderrBytes, qint64(4));
    const QString container = manager->containerId(QStringLiteral("s1"));
    QVERIFY(!container.isEmpty());
    QCOMPARE(containersOf(engine, m_owner).size(), 1);
    QCOMPARE(manager->sessionState(QStringLiteral("s1")), SessionState::Running);
    QVERIFY(states.size() >= 2);  // starting, running

    const ExecResult second = rec.run(QStringLiteral("s1"), ws, QStringLiteral("pwd; echo $HOME; touch made-here"));
    QCOMPARE(second.exitCode.value_or(-1), 0);
    QCOMPARE(second.output, QStringLiteral("/workspace\n/home/zeus\n"));
    QCOMPARE(manager->containerId(QStringLiteral("s1")), container);
    QCOMPARE(containersOf(engine, m_owner).size(), 1);
    QVERIFY(QFile::exists(ws + QStringLiteral("/made-here")));

    // The log has the container event and both commands with their exit codes.
    const QList<SessionLogEntry> log = manager->sessionLog(QStringLiteral("s1"));
    int commands = 0;
    for (const SessionLogEntry& entry : log) {
        if (entry.kind == SessionLogEntry::Kind::Command) {
            ++commands;
            QVERIFY(entry.exitCode.has_value());
            QVERIFY(entry.durationMs >= 0);
        }
    }
    QCOMPARE(commands, 2);
    QCOMPARE(log.first().kind, SessionLogEntry::Kind::Event);

    // Labels on the container.
    const ProcessOutput labels = runProgram(engine, {QStringLiteral("inspect"), QStringLiteral("--format"),
                                                     QStringLiteral("{{json .Config.Labels}}"), container});
    QVERIFY(labels.out.contains("\"zeus.desktop\":\"1\""));
    QVERIFY(labels.out.contains(QStringLiteral("\"zeus.desktop.owner\":\"%1\"").arg(m_owner).toUtf8()));
    QVERIFY(labels.out.contains("\"zeus.desktop.session\":\"s1\""));
    QVERIFY(labels.out.contains(QStringLiteral("\"zeus.desktop.workspace\":\"%1\"").arg(ws).toUtf8()));
}

void TestSession::unusualWorkspaceName() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, engine + QStringLiteral("-项目 a,b:c \"q\""));
    QFile file(ws + QStringLiteral("/inside.txt"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("seen through the mount");
    file.close();
    const ExecResult result = rec.run(QStringLiteral("s1"), ws, QStringLiteral("cat inside.txt"));
    QCOMPARE(result.errorMessage, QString());
    QCOMPARE(result.output, QStringLiteral("seen through the mount"));
}

// The approved folder is swapped for a symlink to another folder after the app checked it and before
// the engine mounts it (what a command in a folder around it could do). The container's /workspace is then not the
// approved folder: the app sees another device/inode, removes the container and runs nothing.
void TestSession::folderSwappedBeforeTheMountIsRefused() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("swap-") + engine);
    const QString secret = makeWorkspace(m_dir, QStringLiteral("swap-secret-") + engine);
    QFile marker(secret + QStringLiteral("/secret.txt"));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.write("not for the sandbox");
    marker.close();

    const QString callId = rec.start(QStringLiteral("s1"), ws, QStringLiteral("cat secret.txt"));
    // The checks ran inside execute(); the engine CLI has not reached its daemon yet.
    QVERIFY(QDir().rename(ws, ws + QStringLiteral(".o")));
    QVERIFY(QFile::link(secret, ws));
    QVERIFY(rec.waitFor(callId, 60000));
    const ExecResult result = rec.results.value(callId);
    QVERIFY2(!result.output.contains(QLatin1String("not for the sandbox")), qPrintable(result.output));
    QCOMPARE(QString(execStatusName(result.status)), QStringLiteral("error"));
    QCOMPARE(execErrorName(result.errorCode), execErrorName(ExecError::WorkspaceInvalid));
    QVERIFY2(result.errorMessage.contains(QLatin1String("not the approved folder")), qPrintable(result.errorMessage));
    QTRY_VERIFY_WITH_TIMEOUT(containersOf(engine, m_owner).isEmpty(), 30000);
    QFile::remove(ws);
    QDir().rename(ws + QStringLiteral(".o"), ws);
}

// An approval that resolves elsewhere before the call (a component is a symlink now) is refused before any
// container is made.
void TestSession::changedApprovalIsRefused() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("changed-") + engine);
    const QString other = makeWorkspace(m_dir, QStringLiteral("changed-other-") + engine);
    QVERIFY(QDir().rename(ws, ws + QStringLiteral(".o")));
    QVERIFY(QFile::link(other, ws));
    const ExecResult result = rec.run(QStringLiteral("s1"), ws, QStringLiteral("true"));
    QCOMPARE(execErrorName(result.errorCode), execErrorName(ExecError::WorkspaceInvalid));
    QVERIFY2(result.errorMessage.contains(QLatin1String("changed since it was approved")),
             qPrintable(result.errorMessage));
    QVERIFY(containersOf(engine, m_owner).isEmpty());
    QFile::remove(ws);
    QDir().rename(ws + QStringLiteral(".o"), ws);
}

// Revoking an approval ends every session on that folder within 2 s, background loops included;
// a session on another folder goes on.
void TestSession::revokedFolderEndsItsSessionsWithin2s() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("revoke-") + engine);
    const QString other = makeWorkspace(m_dir, QStringLiteral("revoke-other-") + engine);
    QCOMPARE(rec.run(m_owner + QStringLiteral("-v1"), ws, QStringLiteral("(while :; do sleep 1; done) &"))
                 .exitCode.value_or(-1),
             0);
    const QString running = rec.start(m_owner + QStringLiteral("-v2"), ws, QStringLiteral("sleep 100"));
    QCOMPARE(rec.run(m_owner + QStringLiteral("-v3"), other, QStringLiteral("true")).exitCode.value_or(-1), 0);
    QTRY_COMPARE_WITH_TIMEOUT(manager->sessionState(m_owner + QStringLiteral("-v2")), SessionState::Running, 30000);
    QTest::qWait(500);
    QElapsedTimer clock;
    clock.start();
    QCOMPARE(manager->endSessionsIn(ws), 2);
    // The running command's exec ends when its container is removed: that is the 2 s bound. The listing below is
    // the test's own (slow) check that both containers are gone.
    QVERIFY(rec.waitFor(running, 2000));
    QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
    QTRY_VERIFY_WITH_TIMEOUT(containersOfSession(engine, m_owner + QStringLiteral("-v1")).isEmpty()
                                 && containersOfSession(engine, m_owner + QStringLiteral("-v2")).isEmpty(),
                             10000);
    QCOMPARE(containersOfSession(engine, m_owner + QStringLiteral("-v3")).size(), 1);
    QCOMPARE(manager->sessionState(m_owner + QStringLiteral("-v3")), SessionState::Running);
}

void TestSession::endSessionRemovesContainer() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("end"));
    QCOMPARE(rec.run(QStringLiteral("s1"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    QCOMPARE(containersOf(engine, m_owner).size(), 1);
    // A running command is cancelled by the end of its session.
    const QString running = rec.start(QStringLiteral("s1"), ws, QStringLiteral("sleep 100"));
    QTest::qWait(500);
    manager->endSession(QStringLiteral("s1"));
    QVERIFY(rec.waitFor(running, 30000));
    QCOMPARE(QString(execStatusName(rec.results.value(running).status)), QStringLiteral("cancelled"));
    QCOMPARE(manager->sessionState(QStringLiteral("s1")), SessionState::Stopped);
    QTRY_VERIFY_WITH_TIMEOUT(containersOf(engine, m_owner).isEmpty(), 30000);
}

void TestSession::idleTimeoutRemovesThenRecreates() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QStringLiteral("x"));
    config.idleTimeoutMs = 1500;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("idle"));
    QCOMPARE(rec.run(QStringLiteral("s1"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QString first = manager->containerId(QStringLiteral("s1"));
    QTRY_COMPARE_WITH_TIMEOUT(manager->sessionState(QStringLiteral("s1")), SessionState::Stopped, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(containersOf(engine, m_owner).isEmpty(), 20000);
    const ExecResult again = rec.run(QStringLiteral("s1"), ws, QStringLiteral("echo back"));
    QCOMPARE(again.output, QStringLiteral("back\n"));
    QVERIFY(manager->containerId(QStringLiteral("s1")) != first);
}

void TestSession::vanishedContainerIsRecreated() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QStringLiteral("x"));
    config.staleCheckAfterMs = 200;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("vanish"));
    QCOMPARE(rec.run(QStringLiteral("s1"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QString first = manager->containerId(QStringLiteral("s1"));
    QCOMPARE(runProgram(engine, {QStringLiteral("rm"), QStringLiteral("-f"), first}).exitCode, 0);
    QTest::qWait(400);
    const ExecResult again = rec.run(QStringLiteral("s1"), ws, QStringLiteral("echo fine"));
    QCOMPARE(again.errorMessage, QString());
    QCOMPARE(again.output, QStringLiteral("fine\n"));
    QVERIFY(manager->containerId(QStringLiteral("s1")) != first);
    bool logged = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s1"))) {
        logged = logged || entry.message.contains(QLatin1String("gone"));
    }
    QVERIFY2(logged, "the session log says the container was recreated");
}

// A call after a pause longer than staleCheckAfterMs, in a session whose agent is connected, goes straight to the
// agent: its channel would have ended with the container (vanishedContainerIsRecreated: then the check runs). The
// engine CLI is wrapped to note each subcommand; plain exec (tst_exec_plain) has no agent and checks as before.
void TestSession::idleCallWithLiveAgentSkipsInspect() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString log = m_dir.filePath(QStringLiteral("subcommands-") + engine);
    const QString wrapper = m_dir.filePath(QStringLiteral("noting-") + engine);
    QFile script(wrapper);
    QVERIFY(script.open(QIODevice::WriteOnly | QIODevice::Truncate));
    script.write(QStringLiteral("#!/bin/sh\necho \"$1\" >> '%1'\nexec '%2' \"$@\"\n")
                     .arg(log, QStandardPaths::findExecutable(engine))
                     .toUtf8());
    script.close();
    QVERIFY(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
    SandboxConfig config = testConfig(QStringLiteral("x"));
    config.staleCheckAfterMs = 200;
    m_engine = engine;
    m_owner = uniqueOwner();
    config.ownerId = m_owner;
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine), wrapper), config);
    Recorder rec(manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("idle"));
    QCOMPARE(rec.run(QStringLiteral("s1"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const auto inspects = [&log] {
        QFile file(log);
        return file.open(QIODevice::ReadOnly) ? file.readAll().split('\n').count("inspect") : -1;
    };
    const int before = inspects();
    QTest::qWait(400);
    QCOMPARE(rec.run(QStringLiteral("s1"), ws, QStringLiteral("echo again")).output, QStringLiteral("again\n"));
    const bool agent = manager.execPath(QStringLiteral("s1")).startsWith(QStringLiteral("agent "));
    QCOMPARE(inspects(), agent ? before : before + 1);
}

void TestSession::orphanSweep() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    // Two orphans of this owner (as after a crash) and one of another install.
    const QString other = uniqueOwner();
    for (const QString& owner : {m_owner, m_owner, other}) {
        const ProcessOutput out = runProgram(
            engine, {QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--network"), QStringLiteral("none"),
                     QStringLiteral("--label"), QStringLiteral("zeus.desktop.owner=") + owner, testImage(),
                     QStringLiteral("sleep"), QStringLiteral("infinity")});
        QCOMPARE(out.exitCode, 0);
    }
    // A session id that looks like another label in Docker's joined "k=v,k=v" list: read as a whole string it
    // would make this orphan someone else's, and the sweep would leave it running.
    const ProcessOutput tricky = runProgram(
        engine, {QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--network"), QStringLiteral("none"),
                 QStringLiteral("--label"), QStringLiteral("zeus.desktop.owner=") + m_owner, QStringLiteral("--label"),
                 QStringLiteral("zeus.desktop.session=s,zeus.desktop.owner=x"), testImage(), QStringLiteral("sleep"),
                 QStringLiteral("infinity")});
    QCOMPARE(tricky.exitCode, 0);
    QCOMPARE(containersOf(engine, m_owner).size(), 3);
    QSignalSpy swept(manager.get(), &SessionManager::orphanSweepFinished);
    manager->sweepOrphans();
    QVERIFY(swept.wait(60000));
    QCOMPARE(swept.first().first().toInt(), 3);
    QVERIFY(containersOf(engine, m_owner).isEmpty());
    QCOMPARE(containersOf(engine, other).size(), 1);
    removeContainersOf(engine, other);
}

void TestSession::missingImage() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QStringLiteral("x"));
    config.image = QStringLiteral("zeus-desktop-sandbox:does-not-exist");
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const ExecResult result =
        rec.run(QStringLiteral("s1"), makeWorkspace(m_dir, QStringLiteral("img")), QStringLiteral("true"));
    QCOMPARE(QString(execStatusName(result.status)), QStringLiteral("error"));
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("image_missing"));
    QVERIFY2(result.errorMessage.contains(engine + QStringLiteral(" build -t zeus-desktop-sandbox:does-not-exist ")),
             qPrintable(result.errorMessage));
    QCOMPARE(manager->sessionState(QStringLiteral("s1")), SessionState::Failed);
    QVERIFY(containersOf(engine, m_owner).isEmpty());
}

void TestSession::tenConcurrentCommandsKeepOutputsApart() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QStringLiteral("x"));
    config.maxCallsPerSession = 10;
    config.maxCallsTotal = 10;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("ten"));
    QStringList calls;
    for (int i = 0; i < 10; ++i) {
        // Interleaved writes on both streams, with pauses so the chunks really interleave.
        calls << rec.start(
            QStringLiteral("s1"), ws,
            QStringLiteral("for n in 1 2 3 4 5; do echo out-%1-$n; echo err-%1-$n >&2; sleep 0.05; done").arg(i));
    }
    for (const QString& call : calls) {
        QVERIFY(rec.waitFor(call, 120000));
    }
    QCOMPARE(containersOf(engine, m_owner).size(), 1);
    for (int i = 0; i < 10; ++i) {
        const QString call = calls.at(i);
        QString expectedOut;
        QString expectedErr;
        for (int n = 1; n <= 5; ++n) {
            expectedOut += QStringLiteral("out-%1-%2\n").arg(i).arg(n);
            expectedErr += QStringLiteral("err-%1-%2\n").arg(i).arg(n);
        }
        QCOMPARE(rec.results.value(call).exitCode.value_or(-1), 0);
        QCOMPARE(rec.stdoutOf.value(call), expectedOut);
        QCOMPARE(rec.stderrOf.value(call), expectedErr);
        QCOMPARE(rec.results.value(call).output.size(), expectedOut.size() + expectedErr.size());
    }
}

// SPEC §3 "Bounded, and queued rather than refused": past a running limit a call waits and then runs (its timeout
// starts when it runs); only past a queue bound is it refused with busy.
void TestSession::overTheLimitWaitsInTheQueue() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QStringLiteral("x"));
    config.maxCallsPerSession = 2;
    config.maxCallsTotal = 3;
    config.maxQueuedPerSession = 1;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    QStringList queued;
    QObject::connect(manager.get(), &SessionManager::callQueued, manager.get(),
                     [&queued](const QString& callId, int) { queued << callId; });
    const QString ws = makeWorkspace(m_dir, QStringLiteral("busy"));
    const QString a = rec.start(QStringLiteral("s1"), ws, QStringLiteral("sleep 3"));
    const QString b = rec.start(QStringLiteral("s1"), ws, QStringLiteral("sleep 3"));
    // Waits about 3 s, then runs for 1 s under a 2 s timeout: the timeout counts from its start.
    const QString third = rec.start(QStringLiteral("s1"), ws, QStringLiteral("sleep 1; echo third"), 2);
    const ExecResult overBound = rec.run(QStringLiteral("s1"), ws, QStringLiteral("true"));
    QCOMPARE(execErrorName(overBound.errorCode), QStringLiteral("busy"));
    QVERIFY2(overBound.errorMessage.contains(QStringLiteral("(the per-session queue bound)")),
             qPrintable(overBound.errorMessage));
    const QString c = rec.start(QStringLiteral("s2"), ws, QStringLiteral("sleep 3"));
    const QString global = rec.start(QStringLiteral("s3"), ws, QStringLiteral("echo global"));
    QCOMPARE(queued, (QStringList{third, global}));
    for (const QString& call : {a, b, c, third, global}) {
        QVERIFY(rec.waitFor(call, 60000));
        QCOMPARE(QString(execStatusName(rec.results.value(call).status)), QStringLiteral("ok"));
        QCOMPARE(rec.results.value(call).exitCode.value_or(-1), 0);
    }
    QCOMPARE(rec.stdoutOf.value(third), QStringLiteral("third\n"));
    QCOMPARE(rec.stdoutOf.value(global), QStringLiteral("global\n"));
    QCOMPARE(manager->queuedCalls(), 0);
}

void TestSession::shutdownRemovesEverything() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("shutdown"));
    QCOMPARE(rec.run(QStringLiteral("s1"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    QCOMPARE(rec.run(QStringLiteral("s2"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    QCOMPARE(containersOf(engine, m_owner).size(), 2);
    QSignalSpy done(manager.get(), &SessionManager::shutdownFinished);
    manager->shutdown();
    QVERIFY(done.wait(60000));
    QVERIFY(containersOf(engine, m_owner).isEmpty());
    QCOMPARE(execErrorName(rec.run(QStringLiteral("s1"), ws, QStringLiteral("true")).errorCode),
             QStringLiteral("container_failed"));
}

void TestSession::shutdownWhileCreating() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    QSignalSpy done(manager.get(), &SessionManager::shutdownFinished);
    // Quit while the first container is still being created (as on Ctrl-C right after start).
    const QString call =
        rec.start(QStringLiteral("s1"), makeWorkspace(m_dir, QStringLiteral("early")), QStringLiteral("echo never"));
    QTest::qWait(50);
    manager->shutdown();
    QVERIFY(rec.waitFor(call, 30000));
    QCOMPARE(QString(execStatusName(rec.results.value(call).status)), QStringLiteral("cancelled"));
    QVERIFY(done.wait(60000));
    QCOMPARE(done.size(), 1);
    QVERIFY2(containersOf(engine, m_owner).isEmpty(),
             "the container created during shutdown is removed before it ends");
}

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
