// Faults on real engines: the container removed from outside mid-command, and the engine
// itself killed mid-command. The engine that is killed is this test's OWN private dockerd
// (own socket, data-root, exec-root, pidfile), never the shared one.
#include "privatedockerd.h"
#include "sessionfixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
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
    void startFailureLeavesNothingBehind_data();
    void startFailureLeavesNothingBehind();
    void containerDiesAtStart_data();
    void containerDiesAtStart();

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

void TestFaults::startFailureLeavesNothingBehind_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("cause");        // image: /home/zeus is a file in the image; rlimits: see below
    QTest::addColumn<QString>("engineWords");  // what the engine said, kept in the call's error
    QTest::newRow("docker: home is a file")
        << QStringLiteral("docker") << QStringLiteral("image") << QStringLiteral("not a directory");
    QTest::newRow("podman: home is a file")
        << QStringLiteral("podman") << QStringLiteral("image") << QStringLiteral("not a directory");
    // Podman without the harness' containers.conf: on hosts that refuse raising the open-files limit, `run`
    // creates the container and the runtime fails to start it.
    QTest::newRow("podman: rlimits refused")
        << QStringLiteral("podman") << QStringLiteral("rlimits") << QStringLiteral("rlimit");
}

// `run -d` creates the container, then its start fails: the container is removed at once (by the name the app
// gave it), and the call's error keeps the engine's own words.
void TestFaults::startFailureLeavesNothingBehind() {
    QFETCH(QString, engine);
    QFETCH(QString, cause);
    QFETCH(QString, engineWords);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(uniqueOwner());
    const QString variant =
        QStringLiteral("zeus-desktop-sandbox:test-homefile-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    const QByteArray savedConf = qgetenv("CONTAINERS_CONF");
    QTemporaryDir confDir;
    if (cause == QLatin1String("image")) {
        // The tmpfs for HOME cannot be mounted over a file: create succeeds, start fails.
        QVERIFY(makeVariantImage(engine, variant, QStringLiteral("rm -rf /home/zeus && echo x >/home/zeus")));
        config.image = variant;
    } else {
        QVERIFY(confDir.isValid());
        const QString conf = confDir.filePath(QStringLiteral("containers.conf"));
        QFile file(conf);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("[engine]\nruntime = \"runc\"\n");
        file.close();
        qputenv("CONTAINERS_CONF", conf.toUtf8());
    }
    const auto restore = qScopeGuard([&] {
        qputenv("CONTAINERS_CONF", savedConf);
        removeContainersOf(engine, config.ownerId);
        if (cause == QLatin1String("image")) {
            removeImage(engine, variant);
        }
    });
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    Recorder rec(manager);
    const QString session = QStringLiteral("start-fails-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    const ExecResult result =
        rec.run(session, makeWorkspace(m_dir, QStringLiteral("startfails")), QStringLiteral("echo hi"));
    if (cause == QLatin1String("rlimits") && result.errorCode == ExecError::None) {
        QSKIP("this host lets Podman set its default rlimits: nothing fails to start");
    }
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("container_failed"));
    QVERIFY2(result.errorMessage.contains(engineWords), qPrintable(result.errorMessage));
    QCOMPARE(manager.sessionState(session), SessionState::Failed);
    const QStringList left = containersOfSession(engine, session);
    QVERIFY2(left.isEmpty(), qPrintable(QStringLiteral("left behind: ") + left.join(QLatin1Char(' '))));
}

void TestFaults::containerDiesAtStart_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("exitCode");      // of the engine's init (tini / catatonit) when it cannot exec sleep
    QTest::addColumn<QString>("logWords");  // the init's complaint in the container's log
    QTest::newRow("docker") << QStringLiteral("docker") << 127 << QStringLiteral("exec sleep failed");
    QTest::newRow("podman") << QStringLiteral("podman") << 1 << QStringLiteral("failed to exec");
}

// An image without `sleep`: the container exits as soon as it starts. No command ran, and the message says so,
// with the exit code, the end of the container's log and the image setting to look at.
void TestFaults::containerDiesAtStart() {
    QFETCH(QString, engine);
    QFETCH(int, exitCode);
    QFETCH(QString, logWords);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(uniqueOwner());
    const QString variant =
        QStringLiteral("zeus-desktop-sandbox:test-nosleep-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    QVERIFY(makeVariantImage(engine, variant, QStringLiteral("rm -f /bin/sleep")));
    config.image = variant;
    auto manager = std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    const auto cleanup = qScopeGuard([&] {
        manager.reset();
        removeContainersOf(engine, config.ownerId);
        removeImage(engine, variant);
    });
    Recorder rec(*manager);
    const ExecResult result =
        rec.run(QStringLiteral("s"), makeWorkspace(m_dir, QStringLiteral("nosleep")), QStringLiteral("echo hi"));
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("container_failed"));
    QVERIFY2(result.errorMessage.contains(QLatin1String("exited right after it started")),
             qPrintable(result.errorMessage));
    QVERIFY2(!result.errorMessage.contains(QLatin1String("while the command ran")), qPrintable(result.errorMessage));
    QVERIFY2(result.errorMessage.contains(QStringLiteral("exit code %1").arg(exitCode)),
             qPrintable(result.errorMessage));
    QVERIFY2(result.errorMessage.contains(logWords), qPrintable(result.errorMessage));
    QVERIFY2(result.errorMessage.contains(variant), qPrintable(result.errorMessage));
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
