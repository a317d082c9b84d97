// Faults on real engines: the container removed from outside mid-command, and the engine
// itself killed mid-command. The engine that is killed is this test's OWN private dockerd
// (own socket, data-root, exec-root, pidfile), never the shared one.
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
    bool startPrivateDockerd();
    void stopPrivateDockerd();
    QTemporaryDir m_dir;
    QString m_dockerdDir;
    QString m_sharedDockerHost;
    QString m_privateHost;
    std::unique_ptr<QProcess> m_dockerd;
};

void TestFaults::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_sharedDockerHost = qEnvironmentVariable("DOCKER_HOST");
}

void TestFaults::cleanupTestCase() {
    stopPrivateDockerd();
    if (!m_dockerdDir.isEmpty()) {
        // A killed engine leaves container shims of its own running: stop exactly those
        // (their command line names this test's private directory).
        runProgram(QStringLiteral("sh"),
                   {QStringLiteral("-c"),
                    QStringLiteral("for p in /proc/[0-9]*; do grep -q -F \"$1\" \"$p/cmdline\" 2>/dev/null && "
                                   "kill -9 \"${p#/proc/}\"; done; true"),
                    QStringLiteral("sh"), m_dockerdDir},
                   30000);
        // A killed engine leaves its mounts (netns, vfs layers) behind: unmount, then remove.
        runProgram(QStringLiteral("sh"),
                   {QStringLiteral("-c"),
                    QStringLiteral("awk -v d=\"$1\" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | "
                                   "xargs -r -n1 umount -l; rm -rf \"$1\""),
                    QStringLiteral("sh"), m_dockerdDir},
                   60000);
    }
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
    SessionManager manager(ContainerRuntime::create(engine), testConfig(owner));
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
    QCOMPARE(result.errorCode, QStringLiteral("container_failed"));
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

bool TestFaults::startPrivateDockerd() {
    // After a crash the engine's containerd pid file is stale and a restart would wait on it.
    QFile::remove(m_dockerdDir + QStringLiteral("/exec/containerd/containerd.pid"));
    m_dockerd = std::make_unique<QProcess>();
    m_dockerd->setProcessChannelMode(QProcess::MergedChannels);
    m_dockerd->setStandardOutputFile(m_dockerdDir + QStringLiteral("/log"), QIODevice::Append);
    m_dockerd->start(
        QStringLiteral("dockerd"),
        {QStringLiteral("--iptables=false"), QStringLiteral("--ip6tables=false"), QStringLiteral("--bridge=none"),
         QStringLiteral("--storage-driver=vfs"), QStringLiteral("--data-root"), m_dockerdDir + QStringLiteral("/data"),
         QStringLiteral("--exec-root"), m_dockerdDir + QStringLiteral("/exec"), QStringLiteral("--pidfile"),
         m_dockerdDir + QStringLiteral("/pid"), QStringLiteral("-H"), m_privateHost});
    if (!m_dockerd->waitForStarted(10000)) {
        return false;
    }
    return QTest::qWaitFor(
        [&] {
            return runProgram(QStringLiteral("docker"),
                              {QStringLiteral("-H"), m_privateHost, QStringLiteral("version"),
                               QStringLiteral("--format"), QStringLiteral("{{.Server.Version}}")},
                              5000)
                       .exitCode
                   == 0;
        },
        60000);
}

void TestFaults::stopPrivateDockerd() {
    if (m_dockerd && m_dockerd->state() != QProcess::NotRunning) {
        runProgram(QStringLiteral("sh"),
                   {QStringLiteral("-c"), QStringLiteral("docker -H \"$1\" ps -aq | xargs -r docker -H \"$1\" rm -f"),
                    QStringLiteral("sh"), m_privateHost},
                   30000);
        m_dockerd->terminate();
        if (!m_dockerd->waitForFinished(15000)) {
            m_dockerd->kill();
            m_dockerd->waitForFinished(5000);
        }
    }
}

void TestFaults::engineKilledMidCommand() {
    if (::geteuid() != 0 || QStandardPaths::findExecutable(QStringLiteral("dockerd")).isEmpty()) {
        if (isCi()) {
            QFAIL("the engine fault test needs root and dockerd");
        }
        QSKIP("needs root and dockerd to run a private engine that can be killed");
    }
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));  // the shared engine holds the test image
    // A short path: unix socket paths are limited to about 100 bytes.
    char tmpl[] = "/tmp/zf.XXXXXX";
    QVERIFY(::mkdtemp(tmpl) != nullptr);
    m_dockerdDir = QString::fromLocal8Bit(tmpl);
    m_privateHost = QStringLiteral("unix://") + m_dockerdDir + QStringLiteral("/docker.sock");
    QVERIFY2(startPrivateDockerd(), "the private dockerd answers");
    // Copy the test image from the shared engine.
    const ProcessOutput copy =
        runProgram(QStringLiteral("sh"),
                   {QStringLiteral("-c"), QStringLiteral("docker save \"$1\" | docker -H \"$2\" load"),
                    QStringLiteral("sh"), testImage(), m_privateHost},
                   120000);
    QVERIFY2(copy.exitCode == 0, copy.err.constData());

    // From here on this process (and the manager's CLI calls) talk to the private engine.
    qputenv("DOCKER_HOST", m_privateHost.toUtf8());
    const QString owner = uniqueOwner();
    auto manager =
        std::make_unique<SessionManager>(ContainerRuntime::create(QStringLiteral("docker")), testConfig(owner));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("engine"));
    const ExecResult warm = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo warm"));
    QCOMPARE(warm.output, QStringLiteral("warm\n"));
    const QString call = rec.start(QStringLiteral("s"), ws, QStringLiteral("echo started; sleep 100"));
    QVERIFY(QTest::qWaitFor([&] { return rec.stdoutOf.value(call).contains(QLatin1String("started")); }, 20000));

    QElapsedTimer clock;
    clock.start();
    ::kill(pid_t(m_dockerd->processId()), SIGKILL);  // the engine crashes
    QVERIFY(m_dockerd->waitForFinished(10000));
    QVERIFY(rec.waitFor(call, 30000));
    const ExecResult result = rec.results.value(call);
    QCOMPARE(result.errorCode, QStringLiteral("container_failed"));
    QVERIFY2(clock.elapsed() < 15000, "the call ends within seconds of the engine's death");
    QCOMPARE(manager->sessionState(QStringLiteral("s")), SessionState::Failed);

    // While the engine is down, a command fails clearly (no hang).
    const ExecResult down = rec.run(QStringLiteral("s"), ws, QStringLiteral("true"), 0, 60000);
    QCOMPARE(down.errorCode, QStringLiteral("container_failed"));

    // The engine comes back: the next command works in a new container.
    QVERIFY2(startPrivateDockerd(), "the private dockerd restarts");
    const ExecResult back = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo back"), 0, 90000);
    QVERIFY2(back.errorCode.isEmpty(), qPrintable(back.errorMessage));
    QCOMPARE(back.output, QStringLiteral("back\n"));
    QCOMPARE(manager->sessionState(QStringLiteral("s")), SessionState::Running);

    manager.reset();
    qputenv("DOCKER_HOST", m_sharedDockerHost.toUtf8());
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
