// Command execution on real engines (Docker and Podman rows): streaming, timeout and
// cancel really stop the command inside the container, output cap, invalid UTF-8.
#include "sessionfixture.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>

using namespace zeus;
using namespace zeus::test;

class TestExec : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void timeoutClamp();
    void streamsBeforeTheEnd_data();
    void streamsBeforeTheEnd();
    void stopLeavesNothingRunning_data();
    void stopLeavesNothingRunning();
    void truncatesAtTheCap_data();
    void truncatesAtTheCap();
    void invalidUtf8_data();
    void invalidUtf8();
    void pausedOutputBlocksTheCommand_data();
    void pausedOutputBlocksTheCommand();
    void longCommandRuns_data();
    void longCommandRuns();
    void commandTextStaysOutOfArgv_data();
    void commandTextStaysOutOfArgv();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, SandboxConfig config);
    QTemporaryDir m_dir;
    QString m_owner;
    QString m_engine;
};

void TestExec::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestExec::cleanup() {
    if (!m_owner.isEmpty()) {
        removeContainersOf(m_engine, m_owner);
    }
}

std::unique_ptr<SessionManager> TestExec::makeManager(const QString& engine, SandboxConfig config) {
    m_engine = engine;
    m_owner = uniqueOwner();
    config.ownerId = m_owner;
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

void TestExec::timeoutClamp() {
    SandboxConfig config;
    QCOMPARE(config.effectiveTimeoutSeconds(0), 600);
    QCOMPARE(config.effectiveTimeoutSeconds(-5), 600);
    QCOMPARE(config.effectiveTimeoutSeconds(30), 30);
    QCOMPARE(config.effectiveTimeoutSeconds(3600), 3600);
    QCOMPARE(config.effectiveTimeoutSeconds(99999), 3600);
}

void TestExec::streamsBeforeTheEnd_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

void TestExec::streamsBeforeTheEnd() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("stream"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);  // warm
    QElapsedTimer clock;
    clock.start();
    const QString call = rec.start(QStringLiteral("s"), ws, QStringLiteral("echo first; sleep 3; echo second"));
    QVERIFY(QTest::qWaitFor([&] { return rec.stdoutOf.value(call).contains(QLatin1String("first")); }, 20000));
    const qint64 firstAfter = clock.elapsed();
    QVERIFY2(!rec.results.contains(call), "the first line arrived before the command ended");
    QVERIFY(rec.waitFor(call, 30000));
    QVERIFY2(clock.elapsed() - firstAfter >= 2500, "the second line came about 3 s later");
    QCOMPARE(rec.results.value(call).output, QStringLiteral("first\nsecond\n"));
    QVERIFY(rec.chunks.value(call) >= 2);
}

void TestExec::stopLeavesNothingRunning_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("cancel");
    QTest::addColumn<QString>("command");
    const QStringList engines = {QStringLiteral("docker"), QStringLiteral("podman")};
    const QList<QPair<QString, QString>> commands = {
        {QStringLiteral("sleep"), QStringLiteral("sleep 1001")},
        {QStringLiteral("background"), QStringLiteral("sh -c 'sleep 1001 & sleep 1001'")},
        {QStringLiteral("ignores TERM"), QStringLiteral("trap '' TERM; sleep 1001; sleep 1001")},
    };
    for (const QString& engine : engines) {
        for (const auto& command : commands) {
            for (const bool cancel : {false, true}) {
                QTest::addRow("%s %s %s", qPrintable(engine), qPrintable(command.first), cancel ? "cancel" : "timeout")
                    << engine << cancel << command.second;
            }
        }
    }
}

void TestExec::stopLeavesNothingRunning() {
    QFETCH(QString, engine);
    QFETCH(bool, cancel);
    QFETCH(QString, command);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.killGraceMs = 1000;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("stop"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QString container = manager->containerId(QStringLiteral("s"));
    const auto sleepers = [&] {
        const ProcessOutput ps = runProgram(engine, {QStringLiteral("exec"), container, QStringLiteral("ps"),
                                                     QStringLiteral("-o"), QStringLiteral("pid,args")});
        return ps.out.count("sleep 1001");
    };

    QElapsedTimer clock;
    clock.start();
    const QString call = rec.start(QStringLiteral("s"), ws, command, cancel ? 60 : 2);
    QVERIFY(QTest::qWaitFor([&] { return sleepers() > 0; }, 20000));
    if (cancel) {
        QVERIFY(manager->cancel(call));
    }
    QVERIFY(rec.waitFor(call, 30000));
    const ExecResult result = rec.results.value(call);
    QCOMPARE(QString(execStatusName(result.status)), cancel ? QStringLiteral("cancelled") : QStringLiteral("timeout"));
    QVERIFY(!result.exitCode.has_value());
    QVERIFY2(clock.elapsed() < 20000, "stopping takes the grace period, not minutes");
    QCOMPARE(sleepers(), 0);
    // The container is still usable afterwards.
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("echo ok")).output, QStringLiteral("ok\n"));
    QCOMPARE(manager->containerId(QStringLiteral("s")), container);
}

void TestExec::truncatesAtTheCap_data() {
    streamsBeforeTheEnd_data();
}

void TestExec::truncatesAtTheCap() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));  // default cap: 1 MiB
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("cap"));
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("head -c 3000000 /dev/zero | tr '\\000' a; echo tail >&2"));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QVERIFY(result.truncated);
    QCOMPARE(result.stdoutBytes, qint64(3000000));
    QCOMPARE(result.stderrBytes, qint64(5));
    QCOMPARE(result.output.size(), 1024 * 1024);
    QVERIFY(!result.output.contains(QLatin1String("tail")));
    QCOMPARE(result.output.count(QLatin1Char('a')), 1024 * 1024);

    const ExecResult small = rec.run(QStringLiteral("s"), ws, QStringLiteral("head -c 1000 /dev/zero"));
    QVERIFY(!small.truncated);
    QCOMPARE(small.output.size(), 1000);
}

void TestExec::invalidUtf8_data() {
    streamsBeforeTheEnd_data();
}

void TestExec::invalidUtf8() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("utf8"));
    // Invalid bytes, then a 3-byte character written one byte at a time with pauses so it
    // is split across chunks, then a binary NUL.
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("printf '\\377\\376 ok '; printf '\\344'; sleep 0.3; printf '\\270'; sleep 0.3; "
                               "printf '\\255'; printf ' \\000 end'"));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(result.output, QStringLiteral("\uFFFD\uFFFD ok 中 ") + QChar(0) + QStringLiteral(" end"));
    QCOMPARE(rec.stdoutOf.value(result.callId), result.output);
}

void TestExec::pausedOutputBlocksTheCommand_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("cancelWhilePaused");
    for (const char* engine : {"docker", "podman"}) {
        QTest::addRow("%s, resumed", engine) << QString::fromLatin1(engine) << false;
        QTest::addRow("%s, cancelled while paused", engine) << QString::fromLatin1(engine) << true;
    }
}

void TestExec::pausedOutputBlocksTheCommand() {
    // Flow control: once reading is paused the command's pipe fills and the command blocks (it does not run on
    // with its output piling up in the app); resumed, every byte arrives; a cancel while paused still stops it.
    QFETCH(QString, engine);
    QFETCH(bool, cancelWhilePaused);
    ZEUS_REQUIRE_ENGINE(engine);
    constexpr qint64 kTotal = 32LL * 1024 * 1024;
    SandboxConfig config = testConfig(QString());
    config.outputCapBytes = 2 * kTotal;  // everything kept, so the result shows every byte arrived
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("flow"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);

    qint64 streamed = 0;
    QString paused;
    QObject::connect(
        manager.get(), &SessionManager::outputUtf8, [&](const QString& callId, OutputStream, const QByteArray& utf8) {
            streamed += utf8.size();
            if (paused.isEmpty()) {
                paused = callId;
                manager->setOutputPaused(callId, true);  // from inside the delivery, as the dispatcher does
            }
        });
    const QString call =
        rec.start(QStringLiteral("s"), ws, QStringLiteral("head -c %1 /dev/zero; echo finished >&2").arg(kTotal));
    QVERIFY(QTest::qWaitFor([&] { return !paused.isEmpty(); }, 20000));
    QCOMPARE(paused, call);
    // Unpaused, 32 MiB take well under a second here; paused, nothing more may arrive and the call may not end.
    QTest::qWait(1500);
    const qint64 whilePaused = streamed;
    QVERIFY2(!rec.results.contains(call), "the command must block while its output is not read");
    QVERIFY2(whilePaused <= 2 * 1024 * 1024,
             qPrintable(QStringLiteral("%1 bytes arrived while paused").arg(whilePaused)));
    QTest::qWait(500);
    QCOMPARE(streamed, whilePaused);

    if (cancelWhilePaused) {
        QVERIFY(manager->cancel(call));
        QVERIFY(rec.waitFor(call, 30000));
        QCOMPARE(QString(execStatusName(rec.results.value(call).status)), QStringLiteral("cancelled"));
        return;
    }
    manager->setOutputPaused(call, false);
    QVERIFY(rec.waitFor(call, 60000));
    const ExecResult result = rec.results.value(call);
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(result.stdoutBytes, kTotal);
    QCOMPARE(streamed, kTotal + qint64(sizeof("finished") - 1 + 1));
    QVERIFY(!result.truncated);
    QCOMPARE(qint64(result.output.size()), kTotal + 9);
    // stdout and stderr are two pipes: their relative order is not guaranteed, only that nothing is lost.
    QCOMPARE(result.output.count(QLatin1String("finished\n")), 1);
    QCOMPARE(result.stderrBytes, qint64(9));
}

void TestExec::longCommandRuns_data() {
    streamsBeforeTheEnd_data();
}

// The protocol accepts commands up to 256 KiB; Linux caps one argv or environment string at 128 KiB. A 200 KB
// command travels over the exec's stdin and runs.
void TestExec::longCommandRuns() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString command =
        QStringLiteral("# ") + QString(200 * 1024, QLatin1Char('x')) + QStringLiteral("\necho done");
    const ExecResult result = rec.run(QStringLiteral("s"), makeWorkspace(m_dir, QStringLiteral("long")), command);
    QVERIFY2(result.errorCode == ExecError::None, qPrintable(result.errorMessage));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(result.output, QStringLiteral("done\n"));
}

// SPEC §3: the command text is in no process's argv, on the host (the engine CLI) or in the container (the shell
// that runs it), so other local users cannot read it with ps.
void TestExec::commandTextStaysOutOfArgv_data() {
    streamsBeforeTheEnd_data();
}

void TestExec::commandTextStaysOutOfArgv() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString marker = QStringLiteral("zeus-argv-marker-") + QUuid::createUuid().toString(QUuid::Id128);
    const QString call = rec.start(QStringLiteral("s"), makeWorkspace(m_dir, QStringLiteral("argv")),
                                   QStringLiteral("echo started; sleep 30 # ") + marker, 60);
    QVERIFY(QTest::qWaitFor([&] { return rec.stdoutOf.value(call).contains(QLatin1String("started")); }, 30000));
    QStringList holders;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& pid : pids) {
        bool numeric = false;
        pid.toInt(&numeric);
        QFile cmdline(QStringLiteral("/proc/") + pid + QStringLiteral("/cmdline"));
        if (numeric && cmdline.open(QIODevice::ReadOnly)) {
            const QByteArray args = cmdline.readAll();
            if (args.contains(marker.toUtf8())) {
                holders << pid + QLatin1Char(':')
                               + QString::fromUtf8(args.left(80)).replace(QChar(0), QLatin1Char(' '));
            }
        }
    }
    QVERIFY(manager->cancel(call));
    QVERIFY(rec.waitFor(call, 30000));
    QVERIFY2(holders.isEmpty(), qPrintable(holders.join(QStringLiteral(" | "))));
}

QTEST_GUILESS_MAIN(TestExec)
#include "tst_exec.moc"
