// Faults on real engines: the container removed from outside mid-command, and the engine
// itself killed mid-command. The engine that is killed is this test's OWN private dockerd
// (own socket, data-root, exec-root, pidfile), never the shared one.
#include "privatedockerd.h"
#include "sessionfixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>

#include <csignal>
#include <unistd.h>

using namespace zeus;
using namespace zeus::test;

class TestFaults : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void containerRemovedMidCommand_data();
    void containerRemovedMidCommand();
    void engineKilledMidCommand();

private:
    QTemporaryDir m_dir;
    QString m_sharedDockerHost;
};

void TestFaults::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_sharedDockerHost = qEnvironmentVariable("DOCKER_HOST");
}

void TestFaults::cleanupTestCase() {
    qputenv("DOCKER_HOST", m_sharedDockerHost.toUtf8());
}

void TestFaults::containerRemovedMidCommand_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

void TestFaults::containerRemovedMidCommand() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString owner = uniqueOwner();
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine)), testConfig(owner));
    Recorder rec(manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("removed"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QString first = manager.containerId(QStringLiteral("s"));
    const QString call = rec.start(QStringLiteral("s"), ws, QStringLiteral("echo started; sleep 100"));
    QVERIFY(QTest::qWaitFor([&] { return rec.stdoutOf.value(call).contains(QLatin1String("started")); }, 20000));
    QElapsedTimer clock;
    clock.start();
    QCOMPARE(runProgram(engine, {QStringLiteral("rm"), QStringLiteral("-f"), first}).exitCode, 0);
    QVERIFY(rec.waitFor(call, 30000));
    const ExecResult result = rec.results.value(call);
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("container_failed"));
    QVERIFY2(!result.errorMessage.isEmpty(), "a clear message");
    QVERIFY2(clock.elapsed() < 15000, "the call ends within seconds");
    QCOMPARE(manager.sessionState(QStringLiteral("s")), SessionState::Failed);
    // The next command recreates the container.
    const ExecResult next = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo back"));
    QCOMPARE(next.output, QStringLiteral("back\n"));
    QVERIFY(manager.containerId(QStringLiteral("s")) != first);
    QCOMPARE(manager.sessionState(QStringLiteral("s")), SessionState::Running);
    removeContainersOf(engine, owner);
}

void TestFaults::engineKilledMidCommand() {
    ZEUS_REQUIRE_PRIVATE_DOCKERD();
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));  // the shared engine holds the test image
    PrivateDockerd dockerd;
    QVERIFY2(dockerd.start(), "the private dockerd answers");
    QVERIFY(dockerd.loadImageFromSharedEngine(testImage()));

    // From here on this process (and the manager's CLI calls) talk to the private engine.
    qputenv("DOCKER_HOST", dockerd.host().toUtf8());
    const QString owner = uniqueOwner();
    auto manager = std::make_unique<SessionManager>(ContainerRuntime::create(RuntimeKind::Docker), testConfig(owner));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("engine"));
    const ExecResult warm = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo warm"));
    QCOMPARE(warm.output, QStringLiteral("warm\n"));
    const QString call = rec.start(QStringLiteral("s"), ws, QStringLiteral("echo started; sleep 100"));
    QVERIFY(QTest::qWaitFor([&] { return rec.stdoutOf.value(call).contains(QLatin1String("started")); }, 20000));

    QElapsedTimer clock;
    clock.start();
    dockerd.crash();  // the engine dies at once (SIGKILL)
    QVERIFY(!dockerd.isRunning());
    QVERIFY(rec.waitFor(call, 30000));
    const ExecResult result = rec.results.value(call);
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("container_failed"));
    QVERIFY2(clock.elapsed() < 15000, "the call ends within seconds of the engine's death");
    QCOMPARE(manager->sessionState(QStringLiteral("s")), SessionState::Failed);

    // While the engine is down, a command fails clearly (no hang).
    const ExecResult down = rec.run(QStringLiteral("s"), ws, QStringLiteral("true"), 0, 60000);
    QCOMPARE(execErrorName(down.errorCode), QStringLiteral("container_failed"));

    // The engine comes back: the next command works in a new container.
    QVERIFY2(dockerd.start(), "the private dockerd restarts");
    const ExecResult back = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo back"), 0, 90000);
    QVERIFY2(back.errorCode == ExecError::None, qPrintable(back.errorMessage));
    QCOMPARE(back.output, QStringLiteral("back\n"));
    QCOMPARE(manager->sessionState(QStringLiteral("s")), SessionState::Running);

    manager.reset();
    qputenv("DOCKER_HOST", m_sharedDockerHost.toUtf8());
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
