// The agent's lane on real engines (Docker and Podman rows; docs/agent-protocol.md "The lane"): where the app's own
// agent is mounted, its frames leave the engine's exec pipe for a Unix socket of the app's, in a folder mounted
// read-only into the container. Egress, calls and a restarted agent work over it; the socket is gone once taken and
// nothing in the container can write to the folder.
#include "egressfixtures.h"
#include "sessionfixture.h"

#include <QScopeGuard>

#include <memory>
#include <utility>

using namespace zeus;
using namespace zeus::test;

class TestLane : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void cleanup();
    void framesTravelOnTheLane_data() { engineRows(); }
    void framesTravelOnTheLane();
    void restartedAgentGetsANewLane_data() { engineRows(); }
    void restartedAgentGetsANewLane();
    void withoutALaneTheExecPipeCarriesAndSaysSo_data() { engineRows(); }
    void withoutALaneTheExecPipeCarriesAndSaysSo();

private:
    static void engineRows();
    std::unique_ptr<SessionManager> makeManager(const QString& engine);
    static int laneLines(SessionManager& manager);
    QTemporaryDir m_dir;
    QStringList m_owners;
    QString m_engine;
    std::unique_ptr<FixtureServer> m_server;
};

void TestLane::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(m_engine, owner);
    }
    m_server.reset();
}

void TestLane::engineRows() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

std::unique_ptr<SessionManager> TestLane::makeManager(const QString& engine) {
    m_engine = engine;
    m_server = std::make_unique<FixtureServer>();
    const QString port = QString::number(m_server->port());
    SandboxConfig config = testConfig(uniqueOwner());
    m_owners << config.ownerId;
    config.networkMode = NetworkMode::Allowlist;
    QStringList errors;
    config.egress = EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"),
                                              {QStringLiteral("allowed.test:") + port}, {},
                                              {QStringLiteral("allowed.test:%1:127.0.0.1").arg(port)}, &errors);
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

int TestLane::laneLines(SessionManager& manager) {
    int lines = 0;
    for (const SessionLogEntry& entry : manager.sessionLog(QStringLiteral("s"))) {
        lines += entry.message.contains(QStringLiteral("travel on the lane")) ? 1 : 0;
    }
    return lines;
}

void TestLane::framesTravelOnTheLane() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("lane"));
    const QString port = QString::number(m_server->port());
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    // The switch is asynchronous: the first call may finish on the exec pipe.
    QTRY_COMPARE_WITH_TIMEOUT(laneLines(*manager), 1, 15000);
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("wget -q -O- http://allowed.test:%1/hello; "
                               "if [ -e /run/zeus/lane/socket ]; then echo socket-left; else echo socket-gone; fi; "
                               "if touch /run/zeus/lane/x 2>/dev/null; then echo writable; else echo read-only; fi; "
                               "ls -A /run/zeus/lane | wc -l")
                    .arg(port));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    const QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.startsWith(QStringLiteral("hello-from-fixture /hello\n")), qPrintable(out));
    // Taken by the agent: the socket is gone, so nothing else in the container can even connect; the folder is
    // read-only, so nothing can put a socket of its own there for a later agent.
    QVERIFY2(out.contains(QStringLiteral("socket-gone\nread-only\n0\n")), qPrintable(out));
    QCOMPARE(laneLines(*manager), 1);
    // Output of a call travels on the lane too, whole and in order (under the app's 1 MiB cap of a call's output).
    const ExecResult big =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("head -c 900000 /dev/zero | tr '\\0' a; echo end"));
    QCOMPARE(big.exitCode.value_or(-1), 0);
    const QString bigOut = rec.stdoutOf.value(big.callId);
    QCOMPARE(bigOut.size(), 900004);
    QVERIFY(bigOut.endsWith(QStringLiteral("aend\n")));
}

void TestLane::restartedAgentGetsANewLane() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("lane-restart"));
    const QString port = QString::number(m_server->port());
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    QTRY_COMPARE_WITH_TIMEOUT(laneLines(*manager), 1, 15000);
    // A command kills the agent (it may: same user). The next command starts a new one, with a new key and socket.
    rec.run(QStringLiteral("s"), ws, QStringLiteral("kill -KILL $PPID; sleep 5"));
    const ExecResult after =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -q -O- http://allowed.test:%1/again").arg(port));
    QCOMPARE(after.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(after.callId), QStringLiteral("hello-from-fixture /again\n"));
    QTRY_COMPARE_WITH_TIMEOUT(laneLines(*manager), 2, 15000);
}

void TestLane::withoutALaneTheExecPipeCarriesAndSaysSo() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    // A runtime folder whose zeus-lanes others may enter: the app makes no lane there.
    QTemporaryDir runtime;
    QVERIFY(QDir().mkdir(runtime.path() + QStringLiteral("/zeus-lanes")));
    QVERIFY(QFile::setPermissions(runtime.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    QVERIFY(QFile::setPermissions(
        runtime.path() + QStringLiteral("/zeus-lanes"),
        QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadOther | QFile::ExeOther));
    const QByteArray before = qgetenv("XDG_RUNTIME_DIR");
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));
    const auto restore = qScopeGuard([&before] { qputenv("XDG_RUNTIME_DIR", before); });
    auto manager = makeManager(engine);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("no-lane"));
    const QString port = QString::number(m_server->port());
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -q -O- http://allowed.test:%1/pipe").arg(port));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(result.callId), QStringLiteral("hello-from-fixture /pipe\n"));
    bool said = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        said = said
               || (entry.message.contains(QStringLiteral("lane is not available"))
                   && entry.message.contains(QStringLiteral("exec pipe")));
    }
    QVERIFY(said);
    QCOMPARE(laneLines(*manager), 0);
}

QTEST_GUILESS_MAIN(TestLane)
#include "tst_lane.moc"
