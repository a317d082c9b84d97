// RuntimeDetector against the real engines of the test harness (tests/harness/engines.sh):
// Docker and Podman must be detected as Ready with the versions their own CLIs report.
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"
#include "testenvironment.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>

using zeus::DetectionResult;
using zeus::RuntimeDetector;
using zeus::RuntimeKind;
using zeus::RuntimePreference;
using zeus::RuntimeProbe;
using State = zeus::RuntimeProbe::State;

namespace {

DetectionResult detectOnce(RuntimeDetector& detector) {
    QSignalSpy finished(&detector, &RuntimeDetector::detectionFinished);
    detector.recheck();
    // Each probe has its own timeout (5 s at most) plus the kill grace.
    if (!finished.wait(15000) || finished.size() != 1) {
        qWarning("detection did not finish");
        return {};
    }
    return finished.first().first().value<DetectionResult>();
}

QString firstLine(const QByteArray& output) {
    return QString::fromUtf8(output).trimmed().split(QLatin1Char('\n')).value(0).trimmed();
}

}  // namespace

class TestRuntimeDetection : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void dockerIsReady();
    void dockerClient2010IsReady();
    void podmanIsReady();
    void preferencePodman();
    void dockerHostUnreachable();
};

void TestRuntimeDetection::dockerIsReady() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const zeus::test::ProcessOutput version = zeus::test::runProgram(
        QStringLiteral("docker"),
        {QStringLiteral("version"), QStringLiteral("--format"), QStringLiteral("{{.Server.Version}}")});
    QCOMPARE(version.exitCode, 0);
    const QString expected = firstLine(version.out);
    QVERIFY(!expected.isEmpty());

    RuntimeDetector detector;
    const DetectionResult result = detectOnce(detector);
    const RuntimeProbe* docker = result.probe(RuntimeKind::Docker);
    QVERIFY(docker);
    QVERIFY2(docker->state == State::Ready, qPrintable(docker->reason));
    QCOMPARE(docker->serverVersion, expected);
    QVERIFY(!docker->os.isEmpty());
    QVERIFY(!docker->arch.isEmpty());
    QVERIFY(docker->rootless.has_value());
    QVERIFY(QFileInfo(docker->binaryPath).isExecutable());
    QCOMPARE(docker->steps.size(), 1);
    QCOMPARE(docker->steps.first().exitCode, 0);
    QVERIFY(docker->steps.first().standardOutput.contains(expected));
    // No Apple runtime on Linux: Docker wins by priority.
    if (result.probe(RuntimeKind::Apple)->state != State::Ready) {
        QVERIFY(result.chosen.has_value());
        QCOMPARE(*result.chosen, RuntimeKind::Docker);
    }
    qInfo("docker %s ready (client %s, runc %s); probe %lld ms, detection %lld ms", qPrintable(docker->serverVersion),
          qPrintable(docker->clientVersion), qPrintable(docker->runcVersion), docker->steps.first().durationMs,
          result.durationMs);
}

void TestRuntimeDetection::dockerClient2010IsReady() {
    // The Debian docker.io client (20.10) reports errors differently from client 23+; when
    // both are installed, the older one must read the same engine as Ready too.
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const QString oldClient = QStringLiteral("/usr/bin/docker");
    if (!QFileInfo(oldClient).isExecutable()) {
        QSKIP("no /usr/bin/docker client");
    }
    RuntimeDetector::Options options;
    options.dockerProgram = oldClient;
    RuntimeDetector detector(options);
    const DetectionResult result = detectOnce(detector);
    const RuntimeProbe* docker = result.probe(RuntimeKind::Docker);
    QVERIFY(docker);
    QVERIFY2(docker->state == State::Ready, qPrintable(docker->reason));
    QVERIFY(!docker->serverVersion.isEmpty());
    QCOMPARE(docker->binaryPath, oldClient);
}

void TestRuntimeDetection::podmanIsReady() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("podman"));
    const zeus::test::ProcessOutput version =
        zeus::test::runProgram(QStringLiteral("podman"), {QStringLiteral("--version")});
    QCOMPARE(version.exitCode, 0);
    const QString versionLine = firstLine(version.out);  // "podman version 4.3.1"

    RuntimeDetector detector;
    const DetectionResult result = detectOnce(detector);
    const RuntimeProbe* podman = result.probe(RuntimeKind::Podman);
    QVERIFY(podman);
    QVERIFY2(podman->state == State::Ready, qPrintable(podman->reason));
    QVERIFY(!podman->serverVersion.isEmpty());
    QVERIFY2(versionLine.endsWith(podman->serverVersion),
             qPrintable(versionLine + QStringLiteral(" / ") + podman->serverVersion));
    QVERIFY(!podman->arch.isEmpty());
    QVERIFY(podman->rootless.has_value());
    qInfo("podman %s ready (rootless %d, runtime %s); probe %lld ms", qPrintable(podman->serverVersion),
          int(*podman->rootless), qPrintable(podman->runcVersion.split(QLatin1Char('\n')).value(0)),
          podman->steps.first().durationMs);
}

void TestRuntimeDetection::preferencePodman() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    ZEUS_REQUIRE_ENGINE(QStringLiteral("podman"));
    RuntimeDetector detector;
    detector.setPreference(RuntimePreference::Podman);
    const DetectionResult result = detectOnce(detector);
    QVERIFY2(result.chosen.has_value(), qPrintable(result.reason));
    QCOMPARE(*result.chosen, RuntimeKind::Podman);
    // Docker was usable too: the preference, not availability, decided.
    QCOMPARE(result.probe(RuntimeKind::Docker)->state, State::Ready);
}

void TestRuntimeDetection::dockerHostUnreachable() {
    // The real CLI pointed at a socket that does not exist: installed but not running.
    if (zeus::test::runProgram(QStringLiteral("docker"), {QStringLiteral("--version")}).exitCode != 0) {
        if (zeus::test::isCi()) {
            QFAIL("docker CLI missing");
        }
        QSKIP("docker CLI missing");
    }
    RuntimeDetector::Options options;
    options.environment.insert(QStringLiteral("DOCKER_HOST"),
                               QStringLiteral("unix:///nonexistent/zeus-test/docker.sock"));
    options.environment.remove(QStringLiteral("DOCKER_CONTEXT"));
    RuntimeDetector detector(options);
    detector.setPreference(RuntimePreference::Docker);
    const DetectionResult result = detectOnce(detector);
    const RuntimeProbe* docker = result.probe(RuntimeKind::Docker);
    QVERIFY(docker);
    QCOMPARE(docker->state, State::NotRunning);
    QVERIFY2(docker->reason.contains(QLatin1String("Cannot connect to the Docker daemon")), qPrintable(docker->reason));
    QVERIFY(!result.isUsable());
}

QTEST_GUILESS_MAIN(TestRuntimeDetection)
#include "tst_runtimedetection.moc"
