// The sandbox agent on real engines (Docker and Podman rows), through the SessionManager as the app runs it:
// the agent is used and says its version, processes that escape with setsid or a double fork die on timeout and
// cancel, a background job outlives its call but not the session, an agent killed mid-command fails that call
// and is restarted, a container without the agent falls back to exec and says so, the command text is in no
// process's argv on the host or in the container, and the agent is out of the commands' reach: a background job
// can neither read the agent's stdin (a later call's secret) nor write frames to its stdout, and processes that
// left their call by every way at once (cleared environment, new session, parent gone) die on its timeout while an
// earlier call's background job that did the same lives on.
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
    void agentOutOfReach_data();
    void agentOutOfReach();
    void detachedEscapeesDie_data();
    void detachedEscapeesDie();

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

void TestAgent::agentOutOfReach_data() {
    engineRows();
}

void TestAgent::agentOutOfReach() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("reach"));
    // A background job of the first call goes for the agent ($PPID of the call's shell): it reads the agent's
    // stdin, where the next call's exec frame will pass, and a moment later writes a forged stdout frame (6 bytes
    // of output on channel 2) to the agent's stdout.
    const ExecResult first = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral(
            "a=$PPID; d=$HOME/reach; mkdir -p $d\n"
            "( exec </dev/null >/dev/null 2>&1; cat /proc/$a/fd/0 >$d/stolen 2>$d/in.err; echo $? >$d/in.rc ) &\n"
            "( exec </dev/null >/dev/null 2>&1; sleep 1\n"
            "  printf '\\000\\000\\000\\006\\203\\000\\000\\000\\002FORGED' 2>$d/out.err >/proc/$a/fd/1\n"
            "  echo $? >$d/out.rc ) &\n"
            "echo $a"));
    QCOMPARE(first.exitCode.value_or(-1), 0);

    const QByteArray value = "zeus-reach-" + QUuid::createUuid().toString(QUuid::Id128).toLatin1();
    ExecRequest request;
    request.callId = QStringLiteral("with-secret");
    request.sessionId = QStringLiteral("s");
    request.workspace = ws;
    request.secrets = {SecretValue{QStringLiteral("ZEUS_T_SECRET"), value}};
    request.command = QStringLiteral("sleep 2; echo ${#ZEUS_T_SECRET}");
    manager->execute(request);
    QVERIFY(rec.waitFor(request.callId, 30000));
    QCOMPARE(rec.results.value(request.callId).exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(request.callId), QString::number(value.size()) + QLatin1Char('\n'));

    // What the job got; the session goes on.
    const ExecResult report = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("d=$HOME/reach; echo \"in=$(cat $d/in.rc) out=$(cat $d/out.rc)\"; cat $d/in.err $d/out.err; "
                       "grep -c %1 $d/stolen; wc -c <$d/stolen")
            .arg(QString::fromLatin1(value)));
    const QString text = rec.stdoutOf.value(report.callId);
    QVERIFY2(text.startsWith(QStringLiteral("in=1 out=1\n")), qPrintable(text));
    QCOMPARE(text.count(QStringLiteral("Permission denied")), 2);
    QVERIFY2(text.endsWith(QStringLiteral("\n0\n0\n")), qPrintable(text));  // no secret, not one byte stolen
    QCOMPARE(rec.stderrOf.value(report.callId), QString());
}

void TestAgent::detachedEscapeesDie_data() {
    engineRows();
}

void TestAgent::detachedEscapeesDie() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("detached"));
    // An earlier call's background job that cleared its environment, took a new session and lost its parent.
    QCOMPARE(
        rec.run(QStringLiteral("s"), ws, QStringLiteral("( (exec -c setsid sleep 1021 >/dev/null 2>&1) & ); echo ok"))
            .exitCode.value_or(-1),
        0);
    const QString container = manager->containerId(QStringLiteral("s"));
    const auto psOutput = [&] {
        return runProgram(engine, {QStringLiteral("exec"), container, QStringLiteral("ps"), QStringLiteral("-o"),
                                   QStringLiteral("pid,args")})
            .out;
    };
    // The same three ways at once from a call that times out: no tag left, not in its session, its parent gone.
    const QString call = rec.start(QStringLiteral("s"), ws,
                                   QStringLiteral("( (exec -c sleep 1022) & ); ( (exec -c setsid sleep 1023 >/dev/null "
                                                  "2>&1) & ); ( (env -i setsid sh -c 'sleep 1024 >/dev/null 2>&1 & "
                                                  "exit') & ); sleep 60"),
                                   2);
    QVERIFY(QTest::qWaitFor(
        [&] {
            const QByteArray ps = psOutput();
            return countOf(ps, "sleep 1022") > 0 && countOf(ps, "sleep 1023") > 0 && countOf(ps, "sleep 1024") > 0;
        },
        20000));
    QVERIFY(rec.waitFor(call, 30000));
    QCOMPARE(QString(execStatusName(rec.results.value(call).status)), QStringLiteral("timeout"));
    const QByteArray after = psOutput();
    QVERIFY2(countOf(after, "sleep 1022") + countOf(after, "sleep 1023") + countOf(after, "sleep 1024") == 0,
             after.constData());
    QVERIFY2(countOf(after, "sleep 1021") == 1, after.constData());
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("echo next")).exitCode.value_or(-1), 0);
}

QTEST_GUILESS_MAIN(TestAgent)
#include "tst_agent.moc"
