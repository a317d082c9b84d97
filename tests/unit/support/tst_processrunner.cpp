// ProcessRunner: real child processes (sh, sleep, cat) started with argument lists.
#include "support/processrunner.h"
#include "support/processterminator.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <sys/types.h>

using zeus::ProcessResult;
using zeus::ProcessRunner;
using zeus::ProcessTerminator;

namespace {

ProcessResult runToEnd(ProcessRunner& runner, int waitMs = 10000) {
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    if (!finished.wait(waitMs) || finished.size() != 1) {
        qWarning("runner did not finish exactly once");
        return {};
    }
    return finished.first().first().value<ProcessResult>();
}

}  // namespace

class TestProcessRunner : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exitCodeAndOutput_data();
    void exitCodeAndOutput();
    void argumentsStayLiteral();
    void childEnvironmentHasNoSecrets();
    void notFound();
    void notExecutable();
    void timeoutTerminates();
    void timeoutKillsWhenTermIgnored();
    void outputIsBounded();
    void standardInput();
    void environmentOverride();
    void crashed();
    void cancel();
    void findExecutable();
    void terminator_data();
    void terminator();
    void cancelIgnoringTermFinishesOnce();
    void oneGrace();
    void streamingPausedLosesNothing();
    void streamingStderrKept();
    void streamingMergedChannels_data();
    void streamingMergedChannels();
    void streamingFinishedOnceOnCancel();
    void interactiveStandardInput();
    void extraEnvironmentAndWorkingDirectory();
    void blockingCollects();
    void blockingStreamsInputAndOutput();
    void blockingOutputStops();
    void blockingTimeoutKills();
    void blockingNotFound();
};

void TestProcessRunner::exitCodeAndOutput_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("out");
    QTest::addColumn<QByteArray>("err");
    QTest::newRow("ok") << "echo hello" << 0 << QByteArray("hello\n") << QByteArray();
    QTest::newRow("stderr and exit 3") << "echo oops >&2; exit 3" << 3 << QByteArray() << QByteArray("oops\n");
    QTest::newRow("both") << "printf a; printf b >&2; exit 1" << 1 << QByteArray("a") << QByteArray("b");
}

void TestProcessRunner::exitCodeAndOutput() {
    QFETCH(QString, script);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, out);
    QFETCH(QByteArray, err);
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), script});
    const ProcessResult result = runToEnd(runner);
    QVERIFY(result.started);
    QVERIFY(!result.timedOut);
    QVERIFY(!result.crashed);
    QCOMPARE(result.exitCode, exitCode);
    QCOMPARE(result.standardOutput, out);
    QCOMPARE(result.standardError, err);
    QCOMPARE(result.succeeded(), exitCode == 0);
    QCOMPARE(result.argv(), (QStringList{QStringLiteral("sh"), QStringLiteral("-c"), script}));
    QVERIFY(result.resolvedPath.endsWith(QLatin1String("/sh")));
    QVERIFY(result.durationMs >= 0 && result.durationMs < 5000);
}

void TestProcessRunner::argumentsStayLiteral() {
    // Each argument is one argv entry: no host shell splits or expands it.
    const QStringList tricky{QStringLiteral("a b"), QStringLiteral("it's;rm -rf x"), QStringLiteral("$(id)"),
                             QStringLiteral("")};
    ProcessRunner runner(
        QStringLiteral("sh"),
        QStringList{QStringLiteral("-c"), QStringLiteral("printf '[%s]' \"$@\""), QStringLiteral("sh")} + tricky);
    const ProcessResult result = runToEnd(runner);
    QCOMPARE(result.standardOutput, QByteArray("[a b][it's;rm -rf x][$(id)][]"));
}

void TestProcessRunner::notFound() {
    ProcessRunner runner(QStringLiteral("zeus-no-such-program"), {QStringLiteral("--version")});
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    QCOMPARE(finished.size(), 0);  // always from the event loop, never inside start()
    QVERIFY(finished.wait(2000));
    const ProcessResult result = finished.first().first().value<ProcessResult>();
    QVERIFY(!result.started);
    QVERIFY(result.resolvedPath.isEmpty());
    QVERIFY(!result.errorString.isEmpty());
    QVERIFY(!result.succeeded());
}

void TestProcessRunner::notExecutable() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile file(dir.filePath(QStringLiteral("docker")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#!/bin/sh\necho hi\n");
    file.close();  // not chmod +x
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"), dir.path());
    ProcessRunner runner(QStringLiteral("docker"), {});
    runner.setEnvironment(environment);
    const ProcessResult result = runToEnd(runner);
    QVERIFY(!result.started);
}

void TestProcessRunner::timeoutTerminates() {
    ProcessRunner runner(QStringLiteral("sleep"), {QStringLiteral("30")});
    runner.setTimeoutMs(300);
    runner.setKillGraceMs(2000);
    QElapsedTimer clock;
    clock.start();
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    QTRY_VERIFY(runner.processId() > 0);
    const qint64 pid = runner.processId();
    QVERIFY(finished.wait(5000));
    const ProcessResult result = finished.first().first().value<ProcessResult>();
    QVERIFY(result.timedOut);
    QVERIFY(result.crashed);
    QVERIFY(!result.succeeded());
    QVERIFY2(clock.elapsed() < 1500, "SIGTERM is enough for sleep: no need to wait for the grace");
    QVERIFY(::kill(pid_t(pid), 0) == -1 && errno == ESRCH);
}

void TestProcessRunner::timeoutKillsWhenTermIgnored() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("trap '' TERM; exec sleep 30")});
    runner.setTimeoutMs(300);
    runner.setKillGraceMs(300);
    QElapsedTimer clock;
    clock.start();
    const ProcessResult result = runToEnd(runner);
    const qint64 elapsed = clock.elapsed();
    QVERIFY(result.timedOut);
    QVERIFY2(elapsed >= 600 && elapsed < 2500, qPrintable(QString::number(elapsed)));
}

void TestProcessRunner::outputIsBounded() {
    // 300000 bytes on stdout; keep 1000 and count the rest.
    ProcessRunner runner(QStringLiteral("sh"),
                         {QStringLiteral("-c"), QStringLiteral("head -c 300000 /dev/zero | tr '\\0' x")});
    runner.setOutputLimit(1000);
    const ProcessResult result = runToEnd(runner);
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(result.standardOutput, QByteArray(1000, 'x'));
    QCOMPARE(result.droppedOutputBytes, qint64(299000));
}

void TestProcessRunner::standardInput() {
    ProcessRunner runner(QStringLiteral("cat"), {});
    runner.setStandardInput("from stdin");
    const ProcessResult result = runToEnd(runner);
    QCOMPARE(result.standardOutput, QByteArray("from stdin"));

    // Without input, stdin is closed: cat ends at once instead of waiting forever.
    ProcessRunner closed(QStringLiteral("cat"), {});
    closed.setTimeoutMs(3000);
    const ProcessResult closedResult = runToEnd(closed);
    QVERIFY(!closedResult.timedOut);
    QCOMPARE(closedResult.exitCode, 0);
}

void TestProcessRunner::environmentOverride() {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("ZEUS_PROBE_MARKER"), QStringLiteral("marker-42"));
    ProcessRunner runner(QStringLiteral("sh"),
                         {QStringLiteral("-c"), QStringLiteral("printf %s \"$ZEUS_PROBE_MARKER\"")});
    runner.setEnvironment(environment);
    const ProcessResult result = runToEnd(runner);
    QCOMPARE(result.standardOutput, QByteArray("marker-42"));

    // An environment a caller builds itself is scrubbed as well (SPEC §3): no child gets the token that way either.
    environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("token-42"));
    ProcessRunner leaky(QStringLiteral("sh"),
                        {QStringLiteral("-c"), QStringLiteral("printf %s \"${ZEUS_DESKTOP_TOKEN:-none}\"")});
    leaky.setEnvironment(environment);
    QVERIFY(!leaky.environment().contains(QStringLiteral("ZEUS_DESKTOP_TOKEN")));
    QCOMPARE(runToEnd(leaky).standardOutput, QByteArray("none"));
}

void TestProcessRunner::crashed() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("kill -SEGV $$")});
    const ProcessResult result = runToEnd(runner);
    QVERIFY(result.started);
    QVERIFY(result.crashed);
    QVERIFY(!result.timedOut);
    QCOMPARE(result.exitCode, -1);
}

void TestProcessRunner::cancel() {
    ProcessRunner runner(QStringLiteral("sleep"), {QStringLiteral("30")});
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    QTRY_VERIFY(runner.isRunning() && runner.processId() > 0);
    runner.cancel();
    QVERIFY(finished.wait(3000));
    const ProcessResult result = finished.first().first().value<ProcessResult>();
    QVERIFY(result.crashed);
    QVERIFY(!result.timedOut);
    QVERIFY(!runner.isRunning());
}

void TestProcessRunner::findExecutable() {
    QProcessEnvironment empty;
    QVERIFY(ProcessRunner::findExecutable(QStringLiteral("sh"), empty).isEmpty());
    QProcessEnvironment bin;
    bin.insert(QStringLiteral("PATH"), QStringLiteral("/nonexistent:/bin"));
    QVERIFY(ProcessRunner::findExecutable(QStringLiteral("sh"), bin).endsWith(QLatin1String("/sh")));
    QCOMPARE(ProcessRunner::findExecutable(QStringLiteral("/bin/sh"), empty), QStringLiteral("/bin/sh"));
    QVERIFY(ProcessRunner::findExecutable(QStringLiteral("/nonexistent/sh"), bin).isEmpty());
    QVERIFY(ProcessRunner::findExecutable(QString(), bin).isEmpty());
}

QTEST_GUILESS_MAIN(TestProcessRunner)
void TestProcessRunner::terminator_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<bool>("cancelEarly");
    QTest::addColumn<bool>("killed");
    // A child that ends on TERM is never killed: no beforeKill, ends well within the grace.
    QTest::newRow("term is enough") << QStringLiteral("exec sleep 30") << false << false;
    // A child that ignores TERM is killed after the grace, and beforeKill runs first.
    QTest::newRow("term ignored") << QStringLiteral("trap '' TERM; exec sleep 30") << false << true;
    // cancel() (the owner saw the end some other way) means no kill follows.
    QTest::newRow("cancelled") << QStringLiteral("trap '' TERM; exec sleep 30") << true << false;
}

void TestProcessRunner::terminator() {
    QFETCH(QString, script);
    QFETCH(bool, cancelEarly);
    QFETCH(bool, killed);
    QProcess process;
    QSignalSpy started(&process, &QProcess::started);
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(QStringLiteral("sh"), {QStringLiteral("-c"), script});
    QVERIFY(started.wait(5000));
    QTest::qWait(100);  // let sh install its trap
    ProcessTerminator terminator;
    terminator.setGraceMs(400);
    int beforeKill = 0;
    terminator.setBeforeKill([&] { ++beforeKill; });
    QElapsedTimer clock;
    clock.start();
    terminator.terminate(&process);
    QVERIFY(terminator.isPending());
    terminator.terminate(&process);  // a second call does not restart the grace
    if (cancelEarly) {
        terminator.cancel();
        QVERIFY(!terminator.isPending());
        QVERIFY(!finished.wait(1000));  // still running: nobody killed it
        QCOMPARE(beforeKill, 0);
        process.kill();
        QVERIFY(finished.wait(5000));
        return;
    }
    QVERIFY(finished.wait(5000));
    const qint64 elapsed = clock.elapsed();
    QCOMPARE(beforeKill, killed ? 1 : 0);
    QCOMPARE(process.exitStatus(), QProcess::CrashExit);
    if (killed) {
        QCOMPARE(process.exitCode(), int(SIGKILL));
        QVERIFY2(elapsed >= 350 && elapsed < 3000, qPrintable(QString::number(elapsed)));
    } else {
        QCOMPARE(process.exitCode(), int(SIGTERM));
        QVERIFY2(elapsed < 350, qPrintable(QString::number(elapsed)));
    }
}

void TestProcessRunner::cancelIgnoringTermFinishesOnce() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("trap '' TERM; exec sleep 30")});
    runner.setKillGraceMs(300);
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    QTRY_VERIFY(runner.processId() > 0);
    QTest::qWait(100);
    const qint64 pid = runner.processId();
    runner.cancel();
    runner.cancel();  // twice: still one terminate, one kill, one finished()
    QVERIFY(finished.wait(5000));
    QTest::qWait(500);
    QCOMPARE(finished.size(), 1);
    const ProcessResult result = finished.first().first().value<ProcessResult>();
    QVERIFY(result.crashed);
    QVERIFY(!result.timedOut);
    QVERIFY(::kill(pid_t(pid), 0) == -1 && errno == ESRCH);
}

void TestProcessRunner::oneGrace() {
    // Every wrapper's default grace is the terminator's one constant.
    QCOMPARE(ProcessRunner().killGraceMs(), ProcessTerminator::kGraceMs);
    QCOMPARE(ProcessTerminator().graceMs(), ProcessTerminator::kGraceMs);
}

// SPEC §3: engine CLIs never inherit the backend token or another ZEUS_* secret; the rest of the
// environment (PATH, DOCKER_HOST, test fakes' own ZEUS_ variables) is theirs, and a child really gets the scrubbed one.
void TestProcessRunner::childEnvironmentHasNoSecrets() {
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin"));
    environment.insert(QStringLiteral("DOCKER_HOST"), QStringLiteral("unix:///run/docker.sock"));
    environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("t0ken"));
    environment.insert(QStringLiteral("ZEUS_SECRET_GITHUB"), QStringLiteral("s"));
    environment.insert(QStringLiteral("ZEUS_API_KEY"), QStringLiteral("k"));
    environment.insert(QStringLiteral("zeus_password"), QStringLiteral("p"));
    environment.insert(QStringLiteral("ZEUS_AUTH_HEADER"), QStringLiteral("a"));
    environment.insert(QStringLiteral("ZEUS_FAKE_APPLE_STATE"), QStringLiteral("/tmp/x"));
    environment.insert(QStringLiteral("GITHUB_TOKEN"), QStringLiteral("the user's own, not the app's"));
    const QProcessEnvironment clean = ProcessRunner::scrubbed(environment);
    QStringList kept = clean.keys();
    kept.sort();
    QCOMPARE(kept, (QStringList{QStringLiteral("DOCKER_HOST"), QStringLiteral("GITHUB_TOKEN"), QStringLiteral("PATH"),
                                QStringLiteral("ZEUS_FAKE_APPLE_STATE")}));

    qputenv("ZEUS_DESKTOP_TOKEN", "t0ken-in-the-app");
    ProcessRunner runner(QStringLiteral("env"), {});
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    QVERIFY(finished.wait(10000));
    qunsetenv("ZEUS_DESKTOP_TOKEN");
    const auto result = finished.first().at(0).value<ProcessResult>();
    QVERIFY(result.standardOutput.contains("PATH="));
    QVERIFY(!result.standardOutput.contains("ZEUS_DESKTOP_TOKEN"));
    QVERIFY(!result.standardOutput.contains("t0ken-in-the-app"));
}

namespace {

// What a streaming runner handed out, per stream.
struct Streamed {
    QByteArray out;
    QByteArray err;
    int chunks = 0;
};

void collect(ProcessRunner& runner, Streamed& streamed) {
    QObject::connect(&runner, &ProcessRunner::outputReady, &runner,
                     [&streamed](zeus::OutputStream stream, const QByteArray& chunk) {
                         (stream == zeus::OutputStream::Stdout ? streamed.out : streamed.err) += chunk;
                         ++streamed.chunks;
                     });
}

QByteArray pattern(qsizetype size) {
    QByteArray data;
    data.reserve(size);
    while (data.size() < size) {
        data += "0123456789abcdef";
    }
    data.truncate(size);
    return data;
}

}  // namespace

void TestProcessRunner::streamingPausedLosesNothing() {
    // 4 MiB: more than any pipe buffer (1 MiB at most), so the writer blocks while reading is paused.
    constexpr qsizetype kSize = 4 * 1024 * 1024;
    ProcessRunner runner(QStringLiteral("sh"),
                         {QStringLiteral("-c"), QStringLiteral("yes 0123456789abcdef | tr -d '\\n' | head -c %1; "
                                                               "echo done >&2")
                                                    .arg(kSize)});
    runner.setStreaming(true);
    runner.setPausable(true);
    Streamed streamed;
    collect(runner, streamed);
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    runner.setReadingPaused(true);
    QVERIFY(runner.isReadingPaused());
    QTest::qWait(500);
    QVERIFY2(streamed.out.size() < kSize, "paused: the child is held by its full pipe");
    QVERIFY(runner.isRunning());
    QCOMPARE(finished.size(), 0);
    runner.setReadingPaused(false);
    QVERIFY(finished.wait(10000));
    QTest::qWait(50);
    QCOMPARE(finished.size(), 1);
    const ProcessResult result = finished.first().first().value<ProcessResult>();
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(streamed.out.size(), kSize);
    QVERIFY(streamed.out == pattern(kSize));
    QCOMPARE(streamed.err, QByteArray("done\n"));
    QVERIFY2(result.standardOutput.isEmpty(), "streamed stdout is handed out, not kept");
}

void TestProcessRunner::streamingStderrKept() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("printf out; printf err >&2; "
                                                                                     "exit 4")});
    runner.setStreaming(true);
    runner.setOutputLimit(2);
    Streamed streamed;
    collect(runner, streamed);
    const ProcessResult result = runToEnd(runner);
    QCOMPARE(result.exitCode, 4);
    QCOMPARE(streamed.out, QByteArray("out"));
    QCOMPARE(streamed.err, QByteArray("err"));
    QCOMPARE(result.standardError, QByteArray("er"));
}

void TestProcessRunner::streamingMergedChannels_data() {
    QTest::addColumn<bool>("pausable");
    QTest::newRow("QProcess's pipes") << false;
    QTest::newRow("own pipes") << true;
}

void TestProcessRunner::streamingMergedChannels() {
    QFETCH(bool, pausable);
    ProcessRunner runner(QStringLiteral("sh"),
                         {QStringLiteral("-c"), QStringLiteral("printf a; sleep 0.05; printf b >&2; sleep 0.05; "
                                                               "printf c")});
    runner.setStreaming(true);
    runner.setPausable(pausable);
    runner.setMergedChannels(true);
    Streamed streamed;
    collect(runner, streamed);
    const ProcessResult result = runToEnd(runner);
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(streamed.out, QByteArray("abc"));
    QVERIFY(streamed.err.isEmpty());
}

void TestProcessRunner::streamingFinishedOnceOnCancel() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("echo hi; exec sleep 30")});
    runner.setStreaming(true);
    runner.setPausable(true);
    runner.setKillGraceMs(300);
    Streamed streamed;
    collect(runner, streamed);
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    QSignalSpy started(&runner, &ProcessRunner::started);
    runner.start();
    QTRY_COMPARE(streamed.out, QByteArray("hi\n"));
    QCOMPARE(started.size(), 1);
    runner.setReadingPaused(true);
    runner.cancel();  // also resumes reading: a stopped child may write its last output
    QVERIFY(!runner.isReadingPaused());
    QVERIFY(finished.wait(5000));
    runner.cancel();
    QTest::qWait(400);
    QCOMPARE(finished.size(), 1);
    QVERIFY(finished.first().first().value<ProcessResult>().crashed);
}

void TestProcessRunner::interactiveStandardInput() {
    ProcessRunner runner(QStringLiteral("cat"), {});
    runner.setStreaming(true);
    runner.setPausable(true);
    runner.setCoalescing(false);
    runner.setInteractive(true);
    runner.setStandardInput("first ");
    Streamed streamed;
    collect(runner, streamed);
    QSignalSpy written(&runner, &ProcessRunner::inputWritten);
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    runner.start();
    QTRY_COMPARE(streamed.out, QByteArray("first "));
    runner.write("second");
    QTRY_COMPARE(streamed.out, QByteArray("first second"));
    qint64 total = 0;
    for (const QList<QVariant>& args : std::as_const(written)) {
        total += args.first().toLongLong();
    }
    QCOMPARE(total, qint64(12));
    QCOMPARE(finished.size(), 0);
    runner.closeStandardInput();  // cat sees the end of its input and exits
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.first().first().value<ProcessResult>().exitCode, 0);
}

void TestProcessRunner::extraEnvironmentAndWorkingDirectory() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("printf '%s %s' \"$PWD\" "
                                                                                     "\"$ZEUS_SECRET_X\"")});
    // Added after the scrubbing: a secret passed on by name reaches this one child.
    runner.setExtraEnvironment({{QStringLiteral("ZEUS_SECRET_X"), QByteArray("v")}});
    runner.setWorkingDirectory(dir.path());
    const ProcessResult result = runToEnd(runner);
    QCOMPARE(QString::fromUtf8(result.standardOutput),
             QFileInfo(dir.path()).canonicalFilePath() + QStringLiteral(" v"));
}

void TestProcessRunner::blockingCollects() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("cat; echo oops >&2; exit 2")});
    runner.setStandardInput("in");
    QSignalSpy finished(&runner, &ProcessRunner::finished);
    const ProcessResult result = runner.runBlocking();
    QVERIFY(result.started);
    QCOMPARE(result.exitCode, 2);
    QCOMPARE(result.standardOutput, QByteArray("in"));
    QCOMPARE(result.standardError, QByteArray("oops\n"));
    QTest::qWait(20);
    QCOMPARE(finished.size(), 0);
}

void TestProcessRunner::blockingStreamsInputAndOutput() {
    // More than the input backlog and a pipe, in both directions at once.
    constexpr qsizetype kSize = 3 * ProcessRunner::kMaxInputBacklog / 2;
    const QByteArray data = pattern(kSize);
    qsizetype offset = 0;
    QByteArray out;
    ProcessRunner runner(QStringLiteral("cat"), {});
    ProcessRunner::BlockingIo io;
    io.input = [&](QByteArray* chunk) {
        *chunk = data.mid(offset, 300000);
        offset += chunk->size();
        return true;
    };
    io.output = [&out](const QByteArray& chunk) {
        out += chunk;
        return true;
    };
    const ProcessResult result = runner.runBlocking(io);
    QCOMPARE(result.exitCode, 0);
    QCOMPARE(out.size(), kSize);
    QVERIFY(out == data);
    QVERIFY(result.standardOutput.isEmpty());
}

void TestProcessRunner::blockingOutputStops() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("echo one; exec sleep 30")});
    QElapsedTimer clock;
    clock.start();
    ProcessRunner::BlockingIo io;
    io.output = [](const QByteArray&) { return false; };
    const ProcessResult result = runner.runBlocking(io);
    QVERIFY(clock.elapsed() < 5000);
    QVERIFY(result.crashed);
    QVERIFY(!result.timedOut);
}

void TestProcessRunner::blockingTimeoutKills() {
    ProcessRunner runner(QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("trap '' TERM; exec sleep 30")});
    runner.setTimeoutMs(300);
    runner.setKillGraceMs(300);
    QElapsedTimer clock;
    clock.start();
    const ProcessResult result = runner.runBlocking();
    const qint64 elapsed = clock.elapsed();
    QVERIFY(result.timedOut);
    QVERIFY(result.crashed);
    QVERIFY2(elapsed >= 600 && elapsed < 2500, qPrintable(QString::number(elapsed)));
}

void TestProcessRunner::blockingNotFound() {
    ProcessRunner runner(QStringLiteral("zeus-no-such-program"), {});
    const ProcessResult result = runner.runBlocking();
    QVERIFY(!result.started);
    QVERIFY(!result.errorString.isEmpty());
}

#include "tst_processrunner.moc"
