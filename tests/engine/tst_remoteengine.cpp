// A "remote" engine on this machine: the harness's second dockerd on loopback TCP (ensure_remote_docker in
// tests/harness/engines.sh, ZEUS_TEST_REMOTE_DOCKER_HOST), remote by its scheme (SPEC §10). Detection says so, and
// a call in direct mode is refused before anything reaches that engine (no container is made there), and review mode
// works end to end through the command line.
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"
#include "testenvironment.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
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
    if (!configHome.isEmpty()) {
        environment.insert(QStringLiteral("XDG_DATA_HOME"), configHome + QStringLiteral("/data"));  // review records
    }
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
    void reviewModeEndToEnd_data();
    void reviewModeEndToEnd();

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
    QTest::newRow("--workspace-mode direct")
        << QStringList{QStringLiteral("--workspace-mode"), QStringLiteral("direct")}
        << QStringLiteral("Direct mode is refused on a remote container engine (%1)");
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

void TestRemoteEngine::reviewModeEndToEnd_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<bool>("apply");
    // A folder with no mode of its own is in review mode on a remote engine; asking for it works the same.
    QTest::newRow("default, then --apply") << QStringList() << true;
    QTest::newRow("--workspace-mode review, then --discard")
        << QStringList{QStringLiteral("--workspace-mode"), QStringLiteral("review")} << false;
}

// SPEC §10 on a remote engine: the folder is copied in (nothing of this computer is mounted there), the agent's
// change is kept for review when the run ends, `--changes` lists it, `--apply` writes it, `--discard` drops it,
// and nothing is left on the engine.
void TestRemoteEngine::reviewModeEndToEnd() {
    QFETCH(QStringList, extra);
    QFETCH(bool, apply);
    ZEUS_REQUIRE_REMOTE_DOCKER();
    QCOMPARE(remoteContainers(), QStringList());
    const QString ws = m_ws + (apply ? QStringLiteral("-apply") : QStringLiteral("-discard"));
    QVERIFY(QDir().mkpath(ws));
    QFile hello(ws + QStringLiteral("/hello.txt"));
    QVERIFY(hello.open(QIODevice::WriteOnly));
    hello.write("hello from the host\n");
    hello.close();
    // The applied run's folder is a git repository, and the agent commits: the commit comes home over the remote
    // engine's exec too.
    const QStringList identity = {QStringLiteral("-c"), QStringLiteral("user.name=User"), QStringLiteral("-c"),
                                  QStringLiteral("user.email=user@example.org")};
    const auto hostGit = [&ws, &identity](const QStringList& arguments) {
        return runProgram(QStringLiteral("git"), QStringList{QStringLiteral("-C"), ws} + identity + arguments);
    };
    QString command = QStringLiteral("cat hello.txt && echo made > made.txt");
    if (apply) {
        QCOMPARE(hostGit({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")})
                     .exitCode,
                 0);
        QCOMPARE(hostGit({QStringLiteral("add"), QStringLiteral("hello.txt")}).exitCode, 0);
        QCOMPARE(hostGit({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("one")})
                     .exitCode,
                 0);
        command += QStringLiteral(
            " && git add made.txt && git -c user.name=Agent -c user.email=agent@example.org "
            "commit -q -m agent-made");
    }
    const QProcessEnvironment environment = remoteEnvironment(m_config.path());
    const Run run = runApp(environment, QStringList{QStringLiteral("--workspace"), ws, QStringLiteral("--runtime"),
                                                    QStringLiteral("docker"), QStringLiteral("--profile"),
                                                    QStringLiteral("hardened"), QStringLiteral("--image"), testImage()}
                                            + extra + QStringList{QStringLiteral("--exec"), command});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("hello from the host"), run.out.constData());
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/made.txt")));  // nothing written to the host yet
    const QRegularExpressionMatch session =
        QRegularExpression(QStringLiteral("kept for review in session (exec-[0-9a-f]+)"))
            .match(QString::fromUtf8(run.err));
    QVERIFY2(session.hasMatch(), run.err.constData());
    const QString id = session.captured(1);
    QCOMPARE(remoteContainers().size(), 1);  // stopped, kept

    const Run changes = runApp(environment, {QStringLiteral("--changes"), QStringLiteral("--json"), id});
    QVERIFY2(changes.exitCode == 0, changes.err.constData());
    const QJsonObject listed = QJsonDocument::fromJson(changes.out).object();
    QCOMPARE(listed.value(QLatin1String("workspace")).toString(), ws);
    QJsonArray items;
    const QJsonArray all = listed.value(QLatin1String("changes")).toArray();
    for (const QJsonValue item : all) {
        if (!item.toObject().value(QLatin1String("path")).toString().startsWith(QLatin1String(".git/"))) {
            items.append(item);  // the commit's objects and refs are listed under .git, never applied as files
        }
    }
    QCOMPARE(items.size(), 1);
    QCOMPARE(items.at(0).toObject().value(QLatin1String("kind")).toString(), QStringLiteral("A"));
    QCOMPARE(items.at(0).toObject().value(QLatin1String("path")).toString(), QStringLiteral("made.txt"));

    if (apply) {
        const Run applied = runApp(environment, {QStringLiteral("--apply"), id});
        QVERIFY2(applied.exitCode == 0, applied.err.constData());
        QVERIFY2(applied.out.contains("applied: made.txt"), applied.out.constData());
        QFile made(ws + QStringLiteral("/made.txt"));
        QVERIFY(made.open(QIODevice::ReadOnly));
        QCOMPARE(made.readAll(), QByteArray("made\n"));
        const QString prefix = QStringLiteral("refs/zeus/") + id + QLatin1Char('/');
        QVERIFY2(applied.out.contains(prefix.toUtf8()), applied.out.constData());
        const ProcessOutput log = hostGit({QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s"),
                                           prefix + QStringLiteral("heads/main")});
        QCOMPARE(log.out, QByteArray("agent-made\n"));
        QCOMPARE(hostGit({QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s"),
                          QStringLiteral("main")})
                     .out,
                 QByteArray("one\n"));  // the user's branch is untouched
        // With the commit home the copy's .git is done with: nothing is left.
        QVERIFY2(applied.out.contains("Nothing is left to review"), applied.out.constData());
    } else {
        const Run discarded = runApp(environment, {QStringLiteral("--discard"), id});
        QVERIFY2(discarded.exitCode == 0, discarded.err.constData());
        QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/made.txt")));
    }
    QCOMPARE(remoteContainers(), QStringList());
    const Run none = runApp(environment, {QStringLiteral("--changes"), id});
    QCOMPARE(none.exitCode, 2);  // no such review copy any more
}

QTEST_GUILESS_MAIN(TestRemoteEngine)
#include "tst_remoteengine.moc"
