// The sandbox agent on real engines (Docker and Podman rows), through the SessionManager as the app runs it:
// the agent is used and says its version, processes that escape with setsid or a double fork die on timeout and
// cancel, a background job outlives its call but not the session, an agent killed mid-command fails that call
// and is restarted, a container without the agent falls back to exec and says so, and the command text is in no
// process's argv on the host or in the container.
#include "sessionfixture.h"

#include <zeus/buildinfo.h>

#include <QDirIterator>
#include <QFile>

#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

QStringList engines() {
    return {QStringLiteral("docker"), QStringLiteral("podman")};
}

// Every command line of every process in the container, NUL bytes as spaces.
QByteArray containerCommandLines(const QString& engine, const QString& container) {
    const ProcessOutput out = runProgram(
        engine, {QStringLiteral("exec"), container, QStringLiteral("sh"), QStringLiteral("-c"),
                 QStringLiteral("for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done")});
    return out.out;
}

// Every command line of every process on this host.
QByteArray hostCommandLines() {
    QByteArray all;
    QDirIterator it(QStringLiteral("/proc"), QDir::Dirs | QDir::NoDotAndDotDot);
    while (it.hasNext()) {
        QFile file(it.next() + QStringLiteral("/cmdline"));
        if (file.open(QIODevice::ReadOnly)) {
            all += file.readAll().replace('\0', ' ') + '\n';
        }
    }
    return all;
}

int countOf(const QByteArray& text, const char* needle) {
    return int(text.count(needle));
}

}  // namespace

class TestAgent : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void runsThroughTheAgent_data();
    void runsThroughTheAgent();
    void escapedProcessesDie_data();
    void escapedProcessesDie();
    void backgroundJobOutlivesItsCall_data();
    void backgroundJobOutlivesItsCall();
    void killedAgentFailsTheCallAndRestarts_data();
    void killedAgentFailsTheCallAndRestarts();
    void withoutTheAgentFallsBack_data();
    void withoutTheAgentFallsBack();
    void commandTextInNoArgv_data();
    void commandTextInNoArgv();
    void longCommandRuns_data();
    void longCommandRuns();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, SandboxConfig config);
    static void engineRows();
    QTemporaryDir m_dir;
    QString m_owner;
    QStringList m_owners;  // every manager's owner of the current test: all their containers go in cleanup()
    QString m_engine;
};

void TestAgent::initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFileInfo(QStringLiteral(ZEUS_AGENT_BINARY)).isExecutable(), "the agent is built with the project");
}

void TestAgent::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(m_engine, owner);
    }
}

void TestAgent::engineRows() {
    QTest::addColumn<QString>("engine");
    for (const QString& engine : engines()) {
        QTest::newRow(qPrintable(engine)) << engine;
    }
}

std::unique_ptr<SessionManager> TestAgent::makeManager(const QString& engine, SandboxConfig config) {
    m_engine = engine;
    m_owner = uniqueOwner();
    m_owners << m_owner;
    config.ownerId = m_owner;
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

void TestAgent::runsThroughTheAgent_data() {
    engineRows();
}

void TestAgent::runsThroughTheAgent() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("agent"));
    const ExecResult result = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo out; echo err >&2; exit 7"));
    QCOMPARE(result.exitCode.value_or(-1), 7);
    QCOMPARE(rec.stdoutOf.value(result.callId), QStringLiteral("out\n"));
    QCOMPARE(rec.stderrOf.value(result.callId), QStringLiteral("err\n"));
    QCOMPARE(manager->execPath(QStringLiteral("s")), QStringLiteral("agent " ZEUS_VERSION));
    bool logged = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        logged = logged || entry.message.contains(QStringLiteral("Sandbox agent " ZEUS_VERSION " ready"));
    }
    QVERIFY(logged);
}

void TestAgent::escapedProcessesDie_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("cancel");
    for (const QString& engine : engines()) {
        QTest::newRow(qPrintable(engine + QStringLiteral(" timeout"))) << engine << false;
        QTest::newRow(qPrintable(engine + QStringLiteral(" cancel"))) << engine << true;
    }
}

void TestAgent::escapedProcessesDie() {
    QFETCH(QString, engine);
    QFETCH(bool, cancel);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("escape"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QString container = manager->containerId(QStringLiteral("s"));
    // A new session (setsid), a double fork whose middle parent exits at once, and the hang itself.
    const QString call = rec.start(QStringLiteral("s"), ws,
                                   QStringLiteral("setsid sleep 1001 & (sleep 1002 &) & sleep 1003"), cancel ? 60 : 3);
    QVERIFY(QTest::qWaitFor(
        [&] {
            const QByteArray lines = containerCommandLines(engine, container);
            return countOf(lines, "sleep 1001") > 0 && countOf(lines, "sleep 1002") > 0
                   && countOf(lines, "sleep 1003") > 0;
        },
        20000));
    if (cancel) {
        QVERIFY(manager->cancel(call));
    }
    QVERIFY(rec.waitFor(call, 30000));
    QCOMPARE(QString(execStatusName(rec.results.value(call).status)),
             cancel ? QStringLiteral("cancelled") : QStringLiteral("timeout"));
    const QByteArray after = containerCommandLines(engine, container);
    QVERIFY2(countOf(after, "sleep 100") == 0, after.constData());
    // The session goes on.
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("echo next")).exitCode.value_or(-1), 0);
}

void TestAgent::backgroundJobOutlivesItsCall_data() {
    engineRows();
}

void TestAgent::backgroundJobOutlivesItsCall() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("background"));
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("sleep 1004 >/dev/null 2>&1 & echo started"));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QVERIFY2(result.durationMs < 5000, "the call ends when its shell does, not when its background job does");
    const QString container = manager->containerId(QStringLiteral("s"));
    QCOMPARE(countOf(containerCommandLines(engine, container), "sleep 1004"), 1);
    // A second call, stopped, does not take the first call's job with it.
    const QString other = rec.start(QStringLiteral("s"), ws, QStringLiteral("sleep 1005"), 60);
    QVERIFY(
        QTest::qWaitFor([&] { return countOf(containerCommandLines(engine, container), "sleep 1005") > 0; }, 20000));
    QVERIFY(manager->cancel(other));
    QVERIFY(rec.waitFor(other, 30000));
    const QByteArray lines = containerCommandLines(engine, container);
    QCOMPARE(countOf(lines, "sleep 1004"), 1);
    QCOMPARE(countOf(lines, "sleep 1005"), 0);
    manager->endSession(QStringLiteral("s"));
    QVERIFY(QTest::qWaitFor([&] { return containersOf(engine, m_owner).isEmpty(); }, 30000));
}

void TestAgent::killedAgentFailsTheCallAndRestarts_data() {
    engineRows();
}

void TestAgent::killedAgentFailsTheCallAndRestarts() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("killed"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QString container = manager->containerId(QStringLiteral("s"));
    const QString call = rec.start(QStringLiteral("s"), ws, QStringLiteral("sleep 1006"), 60);
    QVERIFY(
        QTest::qWaitFor([&] { return countOf(containerCommandLines(engine, container), "sleep 1006") > 0; }, 20000));
    // kill -9 of the agent from inside the container, by another process than the command.
    const ProcessOutput kill =
        runProgram(engine, {QStringLiteral("exec"), container, QStringLiteral("sh"), QStringLiteral("-c"),
                            QStringLiteral("for f in /proc/[0-9]*; do grep -qx /run/zeus/agent $f/cmdline 2>/dev/null "
                                           "&& kill -9 ${f#/proc/}; done; true")});
    QCOMPARE(kill.exitCode, 0);
    QVERIFY(rec.waitFor(call, 30000));
    const ExecResult failed = rec.results.value(call);
    QCOMPARE(failed.status, ExecStatus::Error);
    QCOMPARE(failed.errorCode, ExecError::ContainerFailed);
    QVERIFY2(failed.errorMessage.contains(QStringLiteral("sandbox agent stopped")), qPrintable(failed.errorMessage));
    const ExecResult next = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo again"));
    QCOMPARE(next.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(next.callId), QStringLiteral("again\n"));
    QVERIFY(manager->execPath(QStringLiteral("s")).startsWith(QStringLiteral("agent ")));
    QCOMPARE(manager->containerId(QStringLiteral("s")), container);  // the same container, a new agent
}

void TestAgent::withoutTheAgentFallsBack_data() {
    engineRows();
}

void TestAgent::withoutTheAgentFallsBack() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.agentHostPath.clear();  // the test image has no agent of its own
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("fallback"));
    const ExecResult result = rec.run(QStringLiteral("s"), ws, QStringLiteral("echo plain"));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(result.callId), QStringLiteral("plain\n"));
    QVERIFY2(manager->execPath(QStringLiteral("s")).startsWith(QStringLiteral("exec: the agent could not start")),
             qPrintable(manager->execPath(QStringLiteral("s"))));
    bool said = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        said = said || entry.message.contains(QStringLiteral("commands run with plain exec"));
    }
    QVERIFY(said);

    config.execMode = ExecMode::Exec;
    config.agentHostPath = QStringLiteral(ZEUS_AGENT_BINARY);
    auto forced = makeManager(engine, config);
    Recorder forcedRec(*forced);
    QCOMPARE(forcedRec.run(QStringLiteral("f"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    QCOMPARE(forced->execPath(QStringLiteral("f")), QStringLiteral("exec (forced)"));
}

void TestAgent::commandTextInNoArgv_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("mode");
    for (const QString& engine : engines()) {
        QTest::newRow(qPrintable(engine + QStringLiteral(" agent"))) << engine << int(ExecMode::Agent);
    }
}

void TestAgent::commandTextInNoArgv() {
    QFETCH(QString, engine);
    QFETCH(int, mode);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.execMode = ExecMode(mode);
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("argv"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QString container = manager->containerId(QStringLiteral("s"));
    const QByteArray marker = "zeus-secret-marker-" + QUuid::createUuid().toString(QUuid::Id128).left(8).toLatin1();
    const QString call =
        rec.start(QStringLiteral("s"), ws, QStringLiteral(": %1; sleep 1007").arg(QString::fromLatin1(marker)), 60);
    QVERIFY(
        QTest::qWaitFor([&] { return countOf(containerCommandLines(engine, container), "sleep 1007") > 0; }, 20000));
    QCOMPARE(countOf(containerCommandLines(engine, container), marker.constData()), 0);
    QCOMPARE(countOf(hostCommandLines(), marker.constData()), 0);
    QVERIFY(manager->cancel(call));
    QVERIFY(rec.waitFor(call, 30000));
}

void TestAgent::longCommandRuns_data() {
    engineRows();
}

void TestAgent::longCommandRuns() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("long"));
    // 200 KB: over Linux's 128 KiB limit of one argument, under the protocol's 256 KiB.
    const QString command =
        QStringLiteral("x='") + QString(200 * 1024, QLatin1Char('x')) + QStringLiteral("'; echo ${#x}");
    const ExecResult result = rec.run(QStringLiteral("s"), ws, command);
    QVERIFY2(result.errorMessage.isEmpty(), qPrintable(result.errorMessage));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(result.callId), QString::number(200 * 1024) + QLatin1Char('\n'));
}

QTEST_GUILESS_MAIN(TestAgent)
#include "tst_agent.moc"
