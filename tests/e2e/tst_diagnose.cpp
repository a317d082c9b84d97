// `zeus-desktop --diagnose [--json] [--runtime NAME]` as a user runs it: a separate process,
// no display, real engines (or none at all).
#include "runtime/detectionresult.h"
#include "testenvironment.h"

#include <zeus/buildinfo.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    qint64 ms = 0;
};

// The app without a display, with environment changes applied.
Run runApp(const QStringList& arguments, const QHash<QString, QString>& set = {}) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    for (auto it = set.constBegin(); it != set.constEnd(); ++it) {
        environment.insert(it.key(), it.value());
    }
    QProcess process;
    process.setProcessEnvironment(environment);
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral(ZEUS_APP_BINARY), arguments);
    Run run;
    if (!process.waitForStarted(10000) || !process.waitForFinished(30000)) {
        process.kill();
        process.waitForFinished(5000);
        return run;
    }
    run.ms = clock.elapsed();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QJsonObject parse(const Run& run) {
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        qWarning("not a JSON object: %s\nstdout: %s\nstderr: %s", qPrintable(error.errorString()), run.out.constData(),
                 run.err.constData());
        return {};
    }
    return document.object();
}

QString dockerServerVersion() {
    const zeus::test::ProcessOutput version = zeus::test::runProgram(
        QStringLiteral("docker"),
        {QStringLiteral("version"), QStringLiteral("--format"), QStringLiteral("{{.Server.Version}}")});
    return QString::fromUtf8(version.out).trimmed();
}

}  // namespace

class TestDiagnose : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void jsonWithRealDocker();
    void jsonWithNothingOnPath();
    void preferredRuntime_data();
    void preferredRuntime();
    void readableText();
    void badRuntimeName();
};

void TestDiagnose::jsonWithRealDocker() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const Run run = runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject report = parse(run);
    QVERIFY(!report.isEmpty());

    const QJsonObject app = report.value(QLatin1String("app")).toObject();
    QCOMPARE(app.value(QLatin1String("version")).toString(), QStringLiteral(ZEUS_VERSION));
    QCOMPARE(app.value(QLatin1String("qt")).toString(), QString::fromLatin1(qVersion()));
    QVERIFY(!report.value(QLatin1String("os")).toObject().value(QLatin1String("name")).toString().isEmpty());

    const QJsonObject runtime = report.value(QLatin1String("runtime")).toObject();
    QCOMPARE(runtime.value(QLatin1String("kind")).toString(), QStringLiteral("docker"));
    QCOMPARE(runtime.value(QLatin1String("usable")).toBool(), true);
    QCOMPARE(runtime.value(QLatin1String("server_version")).toString(), dockerServerVersion());
    QVERIFY(runtime.value(QLatin1String("reason")).isNull());
    QVERIFY(report.value(QLatin1String("guidance")).isNull());

    const QJsonArray probes = report.value(QLatin1String("probes")).toArray();
    QCOMPARE(probes.size(), 3);
    QStringList names;
    for (const QJsonValue& value : probes) {
        const QJsonObject probe = value.toObject();
        names << probe.value(QLatin1String("runtime")).toString();
        for (const char* key : {"state", "argv", "exit_code", "duration_ms", "stdout", "stderr", "version",
                                "server_version", "os", "arch", "rootless", "reason", "guidance"}) {
            QVERIFY2(probe.contains(QLatin1String(key)), key);
        }
    }
    QCOMPARE(names, (QStringList{QStringLiteral("apple"), QStringLiteral("docker"), QStringLiteral("podman")}));
    const QJsonObject docker = probes.at(1).toObject();
    QCOMPARE(docker.value(QLatin1String("state")).toString(), QStringLiteral("ready"));
    QCOMPARE(docker.value(QLatin1String("exit_code")).toInt(-1), 0);
    QCOMPARE(docker.value(QLatin1String("argv")).toArray().first().toString(), QStringLiteral("docker"));
    QVERIFY(docker.value(QLatin1String("stdout")).toString().contains(dockerServerVersion()));
    qInfo("--diagnose --json with a real engine: %lld ms", run.ms);
}

void TestDiagnose::jsonWithNothingOnPath() {
    QTemporaryDir empty;
    QVERIFY(empty.isValid());
    const Run run =
        runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")}, {{QStringLiteral("PATH"), empty.path()}});
    QCOMPARE(run.exitCode, 1);
    const QJsonObject report = parse(run);
    const QJsonObject runtime = report.value(QLatin1String("runtime")).toObject();
    QVERIFY(runtime.value(QLatin1String("kind")).isNull());
    QCOMPARE(runtime.value(QLatin1String("usable")).toBool(true), false);
    QCOMPARE(runtime.value(QLatin1String("reason")).toString(), QString(zeus::kNoRuntimeMessage));
    const QJsonArray probes = report.value(QLatin1String("probes")).toArray();
    QCOMPARE(probes.size(), 3);
    for (const QJsonValue& value : probes) {
        const QJsonObject probe = value.toObject();
        QCOMPARE(probe.value(QLatin1String("state")).toString(), QStringLiteral("not_installed"));
        QVERIFY(probe.value(QLatin1String("reason")).toString().contains(QLatin1String("not installed")));
        QVERIFY(probe.value(QLatin1String("exit_code")).isNull());
        QVERIFY(
            !probe.value(QLatin1String("guidance")).toObject().value(QLatin1String("commands")).toArray().isEmpty());
    }
    // What to do about it, as data.
    const QJsonObject guidance = report.value(QLatin1String("guidance")).toObject();
    QVERIFY(!guidance.value(QLatin1String("summary")).toString().isEmpty());
    QVERIFY(!guidance.value(QLatin1String("commands")).toArray().isEmpty());
}

void TestDiagnose::preferredRuntime_data() {
    QTest::addColumn<QString>("runtime");
    QTest::addColumn<bool>("emptyPath");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("kind");  // "" = null
    QTest::addColumn<QString>("reasonContains");
    QTest::newRow("podman wanted, available") << "podman" << false << 0 << "podman"
                                              << "";
    QTest::newRow("docker wanted, nothing installed") << "docker" << true << 1 << ""
                                                      << "Docker is not installed";
    QTest::newRow("auto, nothing installed") << "auto" << true << 1 << "" << QString(zeus::kNoRuntimeMessage);
}

void TestDiagnose::preferredRuntime() {
    QFETCH(QString, runtime);
    QFETCH(bool, emptyPath);
    QFETCH(int, exitCode);
    QFETCH(QString, kind);
    QFETCH(QString, reasonContains);
    if (!kind.isEmpty()) {
        ZEUS_REQUIRE_ENGINE(kind);
    }
    QTemporaryDir empty;
    QHash<QString, QString> set;
    if (emptyPath) {
        set.insert(QStringLiteral("PATH"), empty.path());
    }
    const Run run =
        runApp({QStringLiteral("--diagnose"), QStringLiteral("--json"), QStringLiteral("--runtime"), runtime}, set);
    QCOMPARE(run.exitCode, exitCode);
    const QJsonObject report = parse(run);
    const QJsonObject runtimeJson = report.value(QLatin1String("runtime")).toObject();
    QCOMPARE(runtimeJson.value(QLatin1String("kind")).toString(), kind);
    QCOMPARE(runtimeJson.value(QLatin1String("kind")).isNull(), kind.isEmpty());
    QCOMPARE(runtimeJson.value(QLatin1String("preference")).toString(), runtime);
    QVERIFY2(runtimeJson.value(QLatin1String("reason")).toString().contains(reasonContains),
             qPrintable(runtimeJson.value(QLatin1String("reason")).toString()));
}

void TestDiagnose::readableText() {
    QTemporaryDir empty;
    const Run none = runApp({QStringLiteral("--diagnose")}, {{QStringLiteral("PATH"), empty.path()}});
    QCOMPARE(none.exitCode, 1);
    const QString text = QString::fromUtf8(none.out);
    QVERIFY2(text.contains(QStringLiteral("Using: none")), qPrintable(text));
    QVERIFY(text.contains(QString(zeus::kNoRuntimeMessage)));
    QVERIFY(text.contains(QStringLiteral("What to do:")));
    QVERIFY(text.contains(QStringLiteral("-- Docker: Not installed --")));

    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const Run ready = runApp({QStringLiteral("--diagnose")});
    QCOMPARE(ready.exitCode, 0);
    const QString readyText = QString::fromUtf8(ready.out);
    QVERIFY2(readyText.contains(QStringLiteral("Using: Docker (server ") + dockerServerVersion() + QLatin1Char(')')),
             qPrintable(readyText.left(400)));
    QVERIFY(readyText.contains(QStringLiteral("$ docker info --format {{json .}}")));
}

void TestDiagnose::badRuntimeName() {
    const Run run = runApp({QStringLiteral("--diagnose"), QStringLiteral("--runtime"), QStringLiteral("lxc")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY(!run.err.isEmpty());
}

QTEST_GUILESS_MAIN(TestDiagnose)
#include "tst_diagnose.moc"
