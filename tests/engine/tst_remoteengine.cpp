// A "remote" engine on this machine: the harness's second dockerd on loopback TCP (ensure_remote_docker in
// tests/harness/engines.sh, ZEUS_TEST_REMOTE_DOCKER_HOST), remote by its scheme (SPEC §10). Detection says so, and
// a call in direct mode is refused before anything reaches that engine: no container is made there.
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"
#include "testenvironment.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using zeus::DetectionResult;
using zeus::EngineLocation;
using zeus::RuntimeDetector;
using zeus::RuntimeKind;
using zeus::RuntimeProbe;
using namespace zeus::test;

// Fail under CI, skip elsewhere, when the harness did not start the remote-engine dockerd.
#define ZEUS_REQUIRE_REMOTE_DOCKER()                                                 \
    do {                                                                             \
        if (remoteHost().isEmpty()) {                                                \
            const char* why =                                                        \
                "ZEUS_TEST_REMOTE_DOCKER_HOST is not set (tests/harness/engines.sh " \
                "ensure_remote_docker starts it)";                                   \
            if (isCi())                                                              \
                QFAIL(why);                                                          \
            QSKIP(why);                                                              \
        }                                                                            \
    } while (false)

namespace {

QString remoteHost() {
    return qEnvironmentVariable("ZEUS_TEST_REMOTE_DOCKER_HOST");
}

QProcessEnvironment remoteEnvironment(const QString& configHome) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("DOCKER_HOST"), remoteHost());
    environment.remove(QStringLiteral("DOCKER_CONTEXT"));
    if (!configHome.isEmpty()) {
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);  // never the user's settings
    }
    environment.remove(QStringLiteral("QT_LOGGING_RULES"));
    return environment;
}

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runApp(const QProcessEnvironment& environment, const QStringList& arguments) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(ZEUS_APP_BINARY), arguments);
    Run run;
    if (!process.waitForStarted(10000) || !process.waitForFinished(90000)) {
        process.kill();
        process.waitForFinished(5000);
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

// Every container the remote engine has, running or not.
QStringList remoteContainers() {
    QProcess process;
    process.setProcessEnvironment(remoteEnvironment(QString()));
    process.start(QStringLiteral("docker"), {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q")});
    if (!process.waitForFinished(30000) || process.exitCode() != 0) {
        return {QStringLiteral("(docker ps -a failed: %1)").arg(QString::fromUtf8(process.readAllStandardError()))};
    }
    return QString::fromUtf8(process.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

}  // namespace

class TestRemoteEngine : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void detectionSaysRemote();
    void diagnoseShowsTheHost();
    void directModeIsRefused_data();
    void directModeIsRefused();

private:
    QTemporaryDir m_config;
    QTemporaryDir m_dir;
    QString m_ws;
};

void TestRemoteEngine::initTestCase() {
    QVERIFY(m_config.isValid() && m_dir.isValid());
    m_ws = QFileInfo(m_dir.path()).canonicalFilePath() + QStringLiteral("/work");
    QVERIFY(QDir().mkpath(m_ws));
}

void TestRemoteEngine::detectionSaysRemote() {
    ZEUS_REQUIRE_REMOTE_DOCKER();
    RuntimeDetector::Options options;
    options.environment = remoteEnvironment(QString());
    RuntimeDetector detector(options);
    QSignalSpy finished(&detector, &RuntimeDetector::detectionFinished);
    detector.recheck();
    QVERIFY(finished.wait(15000));
    const DetectionResult result = finished.first().first().value<DetectionResult>();
    const RuntimeProbe* docker = result.probe(RuntimeKind::Docker);
    QVERIFY(docker);
    QVERIFY2(docker->state == RuntimeProbe::State::Ready, qPrintable(docker->reason));
    QCOMPARE(docker->location.kind, EngineLocation::Kind::Remote);
    QCOMPARE(docker->location.host, remoteHost());
    QCOMPARE(docker->steps.size(), 1);  // DOCKER_HOST decides: no other process
    QVERIFY(result.chosen.has_value());
    QCOMPARE(*result.chosen, RuntimeKind::Docker);
}

void TestRemoteEngine::diagnoseShowsTheHost() {
    ZEUS_REQUIRE_REMOTE_DOCKER();
    const QProcessEnvironment environment = remoteEnvironment(m_config.path());
    const Run json = runApp(environment, {QStringLiteral("--diagnose"), QStringLiteral("--json"),
                                          QStringLiteral("--runtime"), QStringLiteral("docker")});
    QCOMPARE(json.exitCode, 0);
    const QJsonObject report = QJsonDocument::fromJson(json.out).object();
    const QJsonObject runtime = report.value(QLatin1String("runtime")).toObject();
    QCOMPARE(runtime.value(QLatin1String("location")).toString(), QStringLiteral("remote"));
    QCOMPARE(runtime.value(QLatin1String("host")).toString(), remoteHost());
    QCOMPARE(report.value(QLatin1String("workspace_mode")).toObject().value(QLatin1String("engine")).toString(),
             QStringLiteral("remote"));
    const Run text =
        runApp(environment, {QStringLiteral("--diagnose"), QStringLiteral("--runtime"), QStringLiteral("docker")});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains(QStringLiteral("Engine: remote (%1)").arg(remoteHost()).toUtf8()), text.out.constData());
}

void TestRemoteEngine::directModeIsRefused_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("direct by default") << QStringList()
                                       << QStringLiteral(
                                              "Direct mode is refused on a remote "
                                              "container engine (%1)");
    QTest::newRow("--workspace-mode direct")
        << QStringList{QStringLiteral("--workspace-mode"), QStringLiteral("direct")}
        << QStringLiteral("Direct mode is refused on a remote container engine (%1)");
    QTest::newRow("--workspace-mode review")
        << QStringList{QStringLiteral("--workspace-mode"), QStringLiteral("review")}
        << QStringLiteral("Review mode is not available in this build yet");
}

void TestRemoteEngine::directModeIsRefused() {
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    ZEUS_REQUIRE_REMOTE_DOCKER();
    QCOMPARE(remoteContainers(), QStringList());
    // The engine is on this machine, so a bind mount would even work here: only the refusal stops it.
    const Run run = runApp(
        remoteEnvironment(m_config.path()),
        QStringList{QStringLiteral("--workspace"), m_ws, QStringLiteral("--runtime"), QStringLiteral("docker"),
                    QStringLiteral("--profile"), QStringLiteral("hardened"), QStringLiteral("--image"), testImage()}
            + extra + QStringList{QStringLiteral("--exec"), QStringLiteral("echo never")});
    QCOMPARE(run.exitCode, 125);
    QVERIFY(!run.out.contains("never"));
    const QString err = QString::fromUtf8(run.err);
    QVERIFY2(err.contains(message.contains(QLatin1String("%1")) ? message.arg(remoteHost()) : message),
             qPrintable(err));
    QVERIFY2(err.contains(QLatin1String("[workspace_invalid]")), qPrintable(err));
    QVERIFY2(err.contains(m_ws), qPrintable(err));
    QCOMPARE(remoteContainers(), QStringList());
}

QTEST_GUILESS_MAIN(TestRemoteEngine)
#include "tst_remoteengine.moc"
