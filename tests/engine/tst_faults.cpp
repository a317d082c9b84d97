// Faults on real engines: the container removed from outside mid-command, and the engine
// itself killed mid-command. The engine that is killed is this test's OWN: a private dockerd
// (own socket, data-root, exec-root, pidfile), or for Podman the test's own door to the CLI
// (PodmanOutage), never the shared engine.
#include "podmanoutage.h"
#include "privatedockerd.h"
#include "sessionfixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>

#include <algorithm>
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
    void engineKilledMidCommand_data();
    void engineKilledMidCommand();
    void engineAwayPastTheWait();
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

void TestFaults::engineKilledMidCommand_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("causeWords");  // the engine CLI's words while it is away, kept in the calls' errors
    QTest::newRow("docker: its private dockerd killed") << QStringLiteral("docker") << QStringLiteral("Docker daemon");
    QTest::newRow("podman: its CLI failing and the monitors killed")
        << QStringLiteral("podman") << QString(PodmanOutage::kWords);
}

// A burst when the engine dies (SPEC §3): the running calls fail with container_failed naming the cause, the waiting
// ones (and one that comes meanwhile) wait for the engine and run once it is back, each call gets exactly one result,
// and the containers that died with the engine are swept.
void TestFaults::engineKilledMidCommand() {
    QFETCH(QString, engine);
    QFETCH(QString, causeWords);
    std::unique_ptr<PrivateDockerd> dockerd;
    std::unique_ptr<PodmanOutage> podman;
    std::unique_ptr<ContainerRuntime> runtime;
    if (engine == QLatin1String("docker")) {
        ZEUS_REQUIRE_PRIVATE_DOCKERD();
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));  // the shared engine holds the test image
        dockerd = std::make_unique<PrivateDockerd>();
        QVERIFY2(dockerd->start(), "the private dockerd answers");
        QVERIFY(dockerd->loadImageFromSharedEngine(testImage()));
        runtime = ContainerRuntime::create(RuntimeKind::Docker);
    } else {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("podman"));
        podman = std::make_unique<PodmanOutage>();
        QVERIFY2(podman->setUp(), "the test's door to Podman");
        runtime = ContainerRuntime::create(RuntimeKind::Podman, podman->program());
    }

    // From here on this process (and the manager's CLI calls) talk to the private engine.
    if (dockerd) {
        qputenv("DOCKER_HOST", dockerd->host().toUtf8());
    }
    auto restoreHost = qScopeGuard([this] { qputenv("DOCKER_HOST", m_sharedDockerHost.toUtf8()); });
    const QString owner = uniqueOwner();
    SandboxConfig config = testConfig(owner);
    config.maxCallsPerSession = 2;
    config.maxCallsTotal = 4;
    auto manager = std::make_unique<SessionManager>(std::move(runtime), config);
    const auto cleanup = qScopeGuard([&] {
        manager.reset();
        if (podman) {
            podman->restore();
            removeContainersOf(engine, owner);
        }
    });
    Recorder rec(*manager);
    QSignalSpy queued(manager.get(), &SessionManager::callQueued);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("engine"));
    const QStringList sessions{QStringLiteral("s"), QStringLiteral("t")};
    for (const QString& session : sessions) {
        const ExecResult warm = rec.run(session, ws, QStringLiteral("echo warm"));
        QCOMPARE(warm.output, QStringLiteral("warm\n"));
    }
    // A burst: two running per session, the rest waiting in the queue when the engine dies.
    QStringList running;
    QStringList waiting;
    for (const QString& session : sessions) {
        for (int i = 0; i < 2; ++i) {
            running << rec.start(session, ws, QStringLiteral("echo started; sleep 100"));
        }
        for (int i = 0; i < 3; ++i) {
            waiting << rec.start(session, ws, QStringLiteral("echo waited-%1").arg(i));
        }
    }
    QVERIFY(QTest::qWaitFor(
        [&] {
            return std::all_of(running.cbegin(), running.cend(), [&](const QString& id) {
                return rec.stdoutOf.value(id).contains(QLatin1String("started"));
            });
        },
        30000));
    QCOMPARE(manager->queuedCalls(), 6);

    QElapsedTimer clock;
    clock.start();
    if (dockerd) {
        dockerd->crash();  // the engine dies at once (SIGKILL)
        QVERIFY(!dockerd->isRunning());
    } else {
        podman->crash(containersOf(engine, owner), ::getpid());
    }
    // The running calls fail with container_failed, within seconds, and say what happened.
    for (const QString& id : std::as_const(running)) {
        QVERIFY2(rec.waitFor(id, 30000), qPrintable(id));
        const ExecResult result = rec.results.value(id);
        QCOMPARE(execErrorName(result.errorCode), QStringLiteral("container_failed"));
        QVERIFY2(result.errorMessage.contains(QLatin1String("went away while the command ran"))
                     && result.errorMessage.contains(causeWords),
                 qPrintable(result.errorMessage));
    }
    QVERIFY2(clock.elapsed() < 15000, "the running calls end within seconds of the engine's death");
    // The waiting calls do not fail against a dead engine: they wait for it.
    QTRY_COMPARE_WITH_TIMEOUT(manager->engineState(), EngineWatch::State::Down, 15000);
    QTest::qWait(1000);
    for (const QString& id : std::as_const(waiting)) {
        QVERIFY2(!rec.results.contains(id), qPrintable(rec.results.value(id).errorMessage));
    }
    // So does a call that comes while it is away.
    const QString late = rec.start(QStringLiteral("s"), ws, QStringLiteral("echo late"));
    QVERIFY(QTest::qWaitFor([&] { return manager->queuedCalls() == 7; }, 5000));
    QCOMPARE(queued.count(), 7);  // call_state queued for each

    // The engine comes back: every waiting call runs, in a new container, and says so.
    if (dockerd) {
        QVERIFY2(dockerd->start(), "the private dockerd restarts");
    } else {
        podman->restore();
    }
    for (const QString& id : waiting + QStringList{late}) {
        QVERIFY2(rec.waitFor(id, 120000), qPrintable(id));
        const ExecResult result = rec.results.value(id);
        QVERIFY2(result.errorCode == ExecError::None, qPrintable(id + u' ' + result.errorMessage));
    }
    QCOMPARE(rec.results.value(late).output, QStringLiteral("late\n"));
    QCOMPARE(rec.results.value(waiting.first()).output, QStringLiteral("waited-0\n"));
    QCOMPARE(manager->engineState(), EngineWatch::State::Up);
    QCOMPARE(manager->sessionState(QStringLiteral("s")), SessionState::Running);
    QCOMPARE(rec.results.size(), 2 + running.size() + waiting.size() + 1);  // each call exactly one result

    // Nothing is left behind: the containers that died with the engine are swept once it is back.
    QStringList live;
    for (const QString& session : sessions) {
        live << manager->containerId(session);
    }
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const QStringList left = containersOf(engine, owner);
            return std::all_of(left.cbegin(), left.cend(), [&](const QString& id) {
                return std::any_of(live.cbegin(), live.cend(),
                                   [&](const QString& mine) { return !mine.isEmpty() && id.startsWith(mine); });
            });
        }(),
        60000);
}

// The engine stays away longer than a call may wait for it (sessions/engineWaitSeconds, 3 s here): the waiting calls
// end with container_failed saying how long they waited and what the engine said, without having run; nothing hangs,
// and once it is back the next call runs in a new container and the old one is swept. On Podman, whose outage the
// test controls without a daemon to restart.
void TestFaults::engineAwayPastTheWait() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("podman"));
    PodmanOutage podman;
    QVERIFY2(podman.setUp(), "the test's door to Podman");
    const QString owner = uniqueOwner();
    SandboxConfig config = testConfig(owner);
    config.maxCallsPerSession = 1;
    config.engineWaitMs = 3000;
    auto manager =
        std::make_unique<SessionManager>(ContainerRuntime::create(RuntimeKind::Podman, podman.program()), config);
    const auto cleanup = qScopeGuard([&] {
        manager.reset();
        podman.restore();
        removeContainersOf(QStringLiteral("podman"), owner);
    });
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("away"));
    const QString running = rec.start(QStringLiteral("s"), ws, QStringLiteral("echo started; sleep 100"));
    const QStringList waiting{rec.start(QStringLiteral("s"), ws, QStringLiteral("echo never-1")),
                              rec.start(QStringLiteral("s"), ws, QStringLiteral("echo never-2"))};
    QVERIFY(QTest::qWaitFor([&] { return rec.stdoutOf.value(running).contains(QLatin1String("started")); }, 30000));
    const QString first = manager->containerId(QStringLiteral("s"));

    QElapsedTimer clock;
    clock.start();
    podman.crash(containersOf(QStringLiteral("podman"), owner), ::getpid());
    QVERIFY(rec.waitFor(running, 15000));
    QCOMPARE(execErrorName(rec.results.value(running).errorCode), QStringLiteral("container_failed"));
    for (const QString& id : waiting) {
        QVERIFY2(rec.waitFor(id, 15000), qPrintable(id));
        const ExecResult result = rec.results.value(id);
        QCOMPARE(execErrorName(result.errorCode), QStringLiteral("container_failed"));
        QVERIFY2(result.errorMessage.contains(QLatin1String("did not answer within 3 s"))
                     && result.errorMessage.contains(PodmanOutage::kWords)
                     && result.errorMessage.contains(QLatin1String("the call did not run")),
                 qPrintable(result.errorMessage));
        QVERIFY(rec.stdoutOf.value(id).isEmpty());
    }
    // A coarse timer of 3 s may fire up to 5 % early.
    QVERIFY2(clock.elapsed() >= 2800, "the waiting calls waited for the engine first");
    QCOMPARE(manager->queuedCalls(), 0);

    podman.restore();
    const ExecResult next = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo back"));
    QCOMPARE(next.output, QStringLiteral("back\n"));
    QVERIFY(manager->containerId(QStringLiteral("s")) != first);
    QCOMPARE(rec.results.size(), 1 + waiting.size() + 1);  // each call exactly one result
    const QString live = manager->containerId(QStringLiteral("s"));
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const QStringList left = containersOf(QStringLiteral("podman"), owner);
            return left.size() == 1 && left.first().startsWith(live);
        }(),
        60000);
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
