// RuntimeDetector against fake CLIs (tests/fakes/detect/<scenario>/), each scenario alone on
// PATH: not installed, daemon down, permission denied, hangs, garbage, Apple running or
// stopped, Podman only. Real processes, fake engines.
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <sys/types.h>

using zeus::DetectionResult;
using zeus::RuntimeDetector;
using zeus::RuntimeKind;
using zeus::RuntimePreference;
using zeus::RuntimeProbe;
using State = zeus::RuntimeProbe::State;

namespace {

QString scenario(const QString& name) {
    return QStringLiteral(ZEUS_TEST_FAKES_DIR "/detect/") + name;
}

RuntimeDetector::Options optionsFor(const QString& pathDirectory, const QString& pidFile = {}) {
    RuntimeDetector::Options options;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PATH"), pathDirectory);  // the fakes and nothing else
    if (!pidFile.isEmpty()) {
        environment.insert(QStringLiteral("ZEUS_FAKE_PIDFILE"), pidFile);
    }
    options.environment = environment;
    return options;
}

// Runs one detection to its end; fails the test if it never ends.
DetectionResult detectOnce(RuntimeDetector& detector, int waitMs = 15000) {
    QSignalSpy finished(&detector, &RuntimeDetector::detectionFinished);
    detector.recheck();
    if (!finished.wait(waitMs) || finished.size() != 1) {
        qWarning("detection did not finish");
        return {};
    }
    return finished.first().first().value<DetectionResult>();
}

State stateOf(const DetectionResult& result, RuntimeKind kind) {
    const RuntimeProbe* probe = result.probe(kind);
    return probe ? probe->state : State::Unparseable;
}

bool processExists(qint64 pid) {
    return ::kill(pid_t(pid), 0) == 0 || errno != ESRCH;
}

qint64 readPid(const QString& pidFile) {
    QFile file(pidFile);
    if (!file.open(QIODevice::ReadOnly)) {
        return 0;
    }
    return file.readAll().trimmed().toLongLong();
}

}  // namespace

class TestRuntimeDetector : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void notInstalled();
    void failures_data();
    void failures();
    void appleRunningWinsByPriority();
    void appleStoppedFallsThroughToDocker();
    void preference_data();
    void preference();
    void hangIsStopped_data();
    void hangIsStopped();
    void hangAtDefaultTimeout();
    void cacheAndRecheck();
    void destroyedWhileProbing();
    void extraSearchPaths();
    void location_data();
    void location();
};

void TestRuntimeDetector::notInstalled() {
    QTemporaryDir empty;
    QVERIFY(empty.isValid());
    RuntimeDetector detector(optionsFor(empty.path()));
    QElapsedTimer clock;
    clock.start();
    const DetectionResult result = detectOnce(detector);
    QVERIFY2(clock.elapsed() < 2000, "nothing to start: detection must be immediate");
    QCOMPARE(result.probes.size(), 3);
    for (const RuntimeProbe& probe : result.probes) {
        QCOMPARE(probe.state, State::NotInstalled);
        QVERIFY(probe.binaryPath.isEmpty());
        QVERIFY(!probe.steps.isEmpty());
        QVERIFY(!probe.steps.first().started);
    }
    QVERIFY(!result.isUsable());
    QCOMPARE(result.reason, QString(zeus::kNoRuntimeMessage));
}

void TestRuntimeDetector::failures_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<State>("docker");
    QTest::addColumn<State>("podman");
    QTest::addColumn<QString>("dockerReason");
    QTest::newRow("daemon down") << "daemon-down" << State::NotRunning << State::NotInstalled
                                 << "Cannot connect to the Docker daemon";
    QTest::newRow("permission denied") << "permission-denied" << State::PermissionDenied << State::NotInstalled
                                       << "permission denied";
    QTest::newRow("garbage") << "garbage" << State::Unparseable << State::Unparseable << "JSON";
}

void TestRuntimeDetector::failures() {
    QFETCH(QString, name);
    QFETCH(State, docker);
    QFETCH(State, podman);
    QFETCH(QString, dockerReason);
    RuntimeDetector detector(optionsFor(scenario(name)));
    const DetectionResult result = detectOnce(detector);
    QCOMPARE(stateOf(result, RuntimeKind::Apple), State::NotInstalled);
    QCOMPARE(stateOf(result, RuntimeKind::Docker), docker);
    QCOMPARE(stateOf(result, RuntimeKind::Podman), podman);
    const RuntimeProbe* probe = result.probe(RuntimeKind::Docker);
    QVERIFY(probe);
    QVERIFY2(probe->reason.contains(dockerReason, Qt::CaseInsensitive), qPrintable(probe->reason));
    QCOMPARE(probe->binaryPath, scenario(name) + QStringLiteral("/docker"));
    QCOMPARE(probe->steps.size(), 1);
    QVERIFY(probe->steps.first().started);
    QVERIFY(!result.isUsable());
    QCOMPARE(result.reason, QString(zeus::kNoRuntimeMessage));
}

void TestRuntimeDetector::appleRunningWinsByPriority() {
    RuntimeDetector detector(optionsFor(scenario(QStringLiteral("apple-running"))));
    const DetectionResult result = detectOnce(detector);
    QCOMPARE(stateOf(result, RuntimeKind::Apple), State::Ready);
    QCOMPARE(stateOf(result, RuntimeKind::Docker), State::Ready);
    QVERIFY(result.chosen.has_value());
    QCOMPARE(*result.chosen, RuntimeKind::Apple);
    const RuntimeProbe* apple = result.chosenProbe();
    QVERIFY(apple);
    QCOMPARE(apple->clientVersion, QStringLiteral("1.2.2"));
    QCOMPARE(apple->serverVersion, QStringLiteral("1.2.2"));
    QCOMPARE(apple->steps.size(), 2);
    QCOMPARE(apple->steps.at(1).argv,
             (QStringList{QStringLiteral("container"), QStringLiteral("system"), QStringLiteral("status"),
                          QStringLiteral("--format"), QStringLiteral("json")}));
}

void TestRuntimeDetector::appleStoppedFallsThroughToDocker() {
    RuntimeDetector detector(optionsFor(scenario(QStringLiteral("apple-stopped"))));
    const DetectionResult result = detectOnce(detector);
    QCOMPARE(stateOf(result, RuntimeKind::Apple), State::NotRunning);
    QVERIFY(result.chosen.has_value());
    QCOMPARE(*result.chosen, RuntimeKind::Docker);
    QCOMPARE(result.chosenProbe()->serverVersion, QStringLiteral("20.10.24+dfsg1"));
    QCOMPARE(result.probe(RuntimeKind::Apple)->steps.size(), 2);
    QCOMPARE(result.probe(RuntimeKind::Apple)->steps.at(1).exitCode, 1);
}

void TestRuntimeDetector::location_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("dockerHost");     // empty: unset
    QTest::addColumn<QString>("containerHost");  // empty: unset
    QTest::addColumn<QString>("docker");         // "kind host"
    QTest::addColumn<int>("dockerSteps");
    QTest::addColumn<QString>("podman");
    QTest::addColumn<int>("podmanSteps");

    QTest::newRow("default context, local Podman service")
        << "docker-ready"
        << ""
        << ""
        << "local unix:///var/run/docker.sock" << 1 << "local unix:///run/podman/podman.sock" << 1;
    QTest::newRow("a named remote context is inspected; a Podman machine is local")
        << "remote-context"
        << ""
        << ""
        << "remote ssh://build.example:2222" << 2 << "local ssh://127.0.0.1:53741/run/user/501/podman/podman.sock" << 2;
    QTest::newRow("DOCKER_HOST and CONTAINER_HOST decide without another process")
        << "remote-context"
        << "tcp://u:pw@127.0.0.1:23750"
        << "ssh://bob@srv/run/podman.sock"
        << "remote tcp://127.0.0.1:23750" << 1 << "remote ssh://srv/run/podman.sock" << 1;
}

void TestRuntimeDetector::location() {
    QFETCH(QString, name);
    QFETCH(QString, dockerHost);
    QFETCH(QString, containerHost);
    QFETCH(QString, docker);
    QFETCH(int, dockerSteps);
    QFETCH(QString, podman);
    QFETCH(int, podmanSteps);
    RuntimeDetector::Options options = optionsFor(scenario(name));
    for (const char* variable : {"DOCKER_HOST", "DOCKER_CONTEXT", "CONTAINER_HOST", "CONTAINER_CONNECTION"}) {
        options.environment.remove(QLatin1String(variable));
    }
    if (!dockerHost.isEmpty()) {
        options.environment.insert(QStringLiteral("DOCKER_HOST"), dockerHost);
    }
    if (!containerHost.isEmpty()) {
        options.environment.insert(QStringLiteral("CONTAINER_HOST"), containerHost);
    }
    RuntimeDetector detector(options);
    const DetectionResult result = detectOnce(detector);
    const auto describe = [](const RuntimeProbe* probe) {
        return probe
                   ? zeus::EngineLocation::kindToString(probe->location.kind) + QLatin1Char(' ') + probe->location.host
                   : QStringLiteral("not probed");
    };
    QCOMPARE(describe(result.probe(RuntimeKind::Docker)), docker);
    QCOMPARE(describe(result.probe(RuntimeKind::Podman)), podman);
    QCOMPARE(result.probe(RuntimeKind::Docker)->steps.size(), dockerSteps);
    QCOMPARE(result.probe(RuntimeKind::Podman)->steps.size(), podmanSteps);
    QCOMPARE(result.probe(RuntimeKind::Docker)->state, State::Ready);
    // The evidence shown in diagnostics keeps the endpoints, never the users or key files.
    for (const RuntimeProbe& probe : result.probes) {
        for (const zeus::ProbeStep& step : probe.steps) {
            QVERIFY2(!step.standardOutput.contains(QLatin1String("alice")), qPrintable(step.standardOutput));
            QVERIFY2(!step.standardOutput.contains(QLatin1String(".ssh")), qPrintable(step.standardOutput));
        }
    }
}

void TestRuntimeDetector::preference_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<RuntimePreference>("preference");
    QTest::addColumn<QString>("chosen");
    QTest::addColumn<QString>("reasonContains");
    QTest::newRow("auto, podman only") << "podman-only" << RuntimePreference::Auto << "podman"
                                       << "";
    QTest::newRow("docker wanted, not installed") << "podman-only" << RuntimePreference::Docker << ""
                                                  << "not installed";
    QTest::newRow("auto, docker and podman: docker") << "docker-ready" << RuntimePreference::Auto << "docker"
                                                     << "";
    QTest::newRow("podman wanted over docker") << "docker-ready" << RuntimePreference::Podman << "podman"
                                               << "";
    QTest::newRow("apple wanted, stopped") << "apple-stopped" << RuntimePreference::Apple << ""
                                           << "not running";
}

void TestRuntimeDetector::preference() {
    QFETCH(QString, name);
    QFETCH(RuntimePreference, preference);
    QFETCH(QString, chosen);
    QFETCH(QString, reasonContains);
    RuntimeDetector detector(optionsFor(scenario(name)));
    detector.setPreference(preference);
    const DetectionResult result = detectOnce(detector);
    QCOMPARE(result.preference, preference);
    QCOMPARE(result.chosen ? zeus::runtimeKindToString(*result.chosen) : QString(), chosen);
    QVERIFY2(result.reason.contains(reasonContains), qPrintable(result.reason));
    if (chosen.isEmpty()) {
        QVERIFY(result.reason != QString(zeus::kNoRuntimeMessage));
    }
}

void TestRuntimeDetector::hangIsStopped_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("needsKill");
    QTest::newRow("stops on SIGTERM") << "hang" << false;
    QTest::newRow("ignores SIGTERM: killed after the grace") << "hang-ignores-term" << true;
}

void TestRuntimeDetector::hangIsStopped() {
    QFETCH(QString, name);
    QFETCH(bool, needsKill);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(QStringLiteral("pid"));
    RuntimeDetector::Options options = optionsFor(scenario(name), pidFile);
    options.dockerTimeoutMs = 1000;
    options.killGraceMs = 400;
    RuntimeDetector detector(options);

    QSignalSpy finished(&detector, &RuntimeDetector::detectionFinished);
    QElapsedTimer clock;
    clock.start();
    detector.recheck();
    QTRY_VERIFY_WITH_TIMEOUT(readPid(pidFile) > 0, 3000);
    const qint64 pid = readPid(pidFile);
    QVERIFY(processExists(pid));
    QVERIFY(finished.wait(5000));
    const qint64 elapsed = clock.elapsed();

    const DetectionResult result = finished.first().first().value<DetectionResult>();
    QCOMPARE(stateOf(result, RuntimeKind::Docker), State::TimedOut);
    QVERIFY(result.probe(RuntimeKind::Docker)->steps.first().timedOut);
    QVERIFY2(elapsed >= 1000, qPrintable(QString::number(elapsed)));
    if (needsKill) {
        QVERIFY2(elapsed >= 1400, qPrintable(QString::number(elapsed)));
    }
    // Timeout + grace, plus scheduling slack on a busy machine.
    QVERIFY2(elapsed < 1000 + 400 + 1000, qPrintable(QString::number(elapsed)));
    QVERIFY2(!processExists(pid), "the hanging probe is still alive");
    qInfo("hang '%s' detected as timed out after %lld ms", qPrintable(name), elapsed);
}

void TestRuntimeDetector::hangAtDefaultTimeout() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(QStringLiteral("pid"));
    RuntimeDetector detector(optionsFor(scenario(QStringLiteral("hang")), pidFile));
    QCOMPARE(detector.options().dockerTimeoutMs, 5000);
    QCOMPARE(detector.options().appleTimeoutMs, 3000);
    QCOMPARE(detector.options().podmanTimeoutMs, 5000);
    QElapsedTimer clock;
    clock.start();
    const DetectionResult result = detectOnce(detector, 12000);
    const qint64 elapsed = clock.elapsed();
    QCOMPARE(stateOf(result, RuntimeKind::Docker), State::TimedOut);
    QVERIFY2(elapsed >= 5000 && elapsed < 5000 + 1000 + 1000, qPrintable(QString::number(elapsed)));
    QVERIFY(!processExists(readPid(pidFile)));
    qInfo("default docker timeout: detection ended after %lld ms", elapsed);
}

void TestRuntimeDetector::cacheAndRecheck() {
    RuntimeDetector detector(optionsFor(scenario(QStringLiteral("docker-ready"))));
    QVERIFY(!detector.hasResult());
    QSignalSpy finished(&detector, &RuntimeDetector::detectionFinished);
    QSignalSpy started(&detector, &RuntimeDetector::detectionStarted);
    detector.detect();
    QVERIFY(detector.isRunning());
    detector.detect();  // no second run while one is in progress
    QVERIFY(finished.wait(10000));
    QCOMPARE(started.size(), 1);
    QVERIFY(detector.hasResult());
    const DetectionResult first = detector.result();
    QCOMPARE(*first.chosen, RuntimeKind::Docker);

    // Cached: detect() answers again without probing.
    detector.detect();
    QVERIFY(finished.wait(2000));
    QCOMPARE(started.size(), 1);
    QCOMPARE(finished.last().first().value<DetectionResult>().finishedAt, first.finishedAt);

    // A preference change re-chooses from the cache.
    detector.setPreference(RuntimePreference::Podman);
    QCOMPARE(*detector.result().chosen, RuntimeKind::Podman);
    QCOMPARE(started.size(), 1);

    // recheck() probes again.
    QTest::qWait(20);
    detector.recheck();
    QVERIFY(finished.wait(10000));
    QCOMPARE(started.size(), 2);
    QVERIFY(detector.result().finishedAt > first.finishedAt);
    QCOMPARE(*detector.result().chosen, RuntimeKind::Podman);
}

void TestRuntimeDetector::destroyedWhileProbing() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(QStringLiteral("pid"));
    auto* detector = new RuntimeDetector(optionsFor(scenario(QStringLiteral("hang-ignores-term")), pidFile));
    detector->recheck();
    QTRY_VERIFY_WITH_TIMEOUT(readPid(pidFile) > 0, 3000);
    const qint64 pid = readPid(pidFile);
    QVERIFY(processExists(pid));
    delete detector;
    QTRY_VERIFY_WITH_TIMEOUT(!processExists(pid), 3000);
}

void TestRuntimeDetector::extraSearchPaths() {
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"), QStringLiteral("/a:/b"));
    const QProcessEnvironment extended =
        RuntimeDetector::withSearchPaths(environment, {QStringLiteral("/b"), QStringLiteral("/c")});
    QCOMPARE(extended.value(QStringLiteral("PATH")), QStringLiteral("/a:/b:/c"));  // the user's order first
    QCOMPARE(
        RuntimeDetector::withSearchPaths(QProcessEnvironment(), {QStringLiteral("/c")}).value(QStringLiteral("PATH")),
        QStringLiteral("/c"));
    QCOMPARE(RuntimeDetector::withSearchPaths(environment, {}).value(QStringLiteral("PATH")), QStringLiteral("/a:/b"));

    // A CLI that is only in an extra location is found.
    RuntimeDetector::Options options = optionsFor(QStringLiteral("/nonexistent"));
    options.extraSearchPaths = {scenario(QStringLiteral("podman-only"))};
    RuntimeDetector detector(options);
    const DetectionResult result = detectOnce(detector);
    QCOMPARE(stateOf(result, RuntimeKind::Podman), State::Ready);
#ifdef Q_OS_LINUX
    QVERIFY(RuntimeDetector::defaultExtraSearchPaths().isEmpty());
#endif
}

QTEST_GUILESS_MAIN(TestRuntimeDetector)
#include "tst_runtimedetector.moc"
