// `zeus-desktop --diagnose [--json] [--runtime NAME]` as a user runs it: a separate process,
// no display, real engines (or none at all).
#include "runtime/detectionresult.h"
#include "sandbox/hostcertificates.h"
#include "testenvironment.h"

#include <zeus/buildinfo.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSslCertificate>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    qint64 ms = 0;
};

// The app without a display, with its own empty settings, with environment changes applied.
Run runApp(const QStringList& arguments, const QHash<QString, QString>& set = {}) {
    static QTemporaryDir config;  // never the user's settings
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
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
    // Generous: a report that reads the image's bundle starts a container, slow on a loaded engine; a run that
    // times out still says what it printed so far.
    if (!process.waitForStarted(10000) || !process.waitForFinished(90000)) {
        process.kill();
        process.waitForFinished(5000);
        run.out = process.readAllStandardOutput();
        run.err = process.readAllStandardError();
        qWarning("zeus-desktop %s did not finish in 90 s\nstdout: %s\nstderr: %s",
                 qPrintable(arguments.join(QLatin1Char(' '))), run.out.constData(), run.err.constData());
        return run;
    }
    run.ms = clock.elapsed();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

// What a failed expectation prints: everything the run said.
QByteArray said(const Run& run) {
    return "exit " + QByteArray::number(run.exitCode) + " after " + QByteArray::number(run.ms)
           + " ms\nstdout: " + run.out + "\nstderr: " + run.err;
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

// The checklist rows by id.
QHash<QString, QJsonObject> checksById(const QJsonObject& report) {
    QHash<QString, QJsonObject> checks;
    for (const QJsonValue& value : report.value(QLatin1String("checks")).toArray()) {
        checks.insert(value.toObject().value(QLatin1String("id")).toString(), value.toObject());
    }
    return checks;
}

QString testImage() {
    const QString image = qEnvironmentVariable("ZEUS_TEST_IMAGE");
    return image.isEmpty() ? QStringLiteral("zeus-desktop-sandbox:test") : image;
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
    void imageCheckWithRealDocker_data();
    void imageCheckWithRealDocker();
    void checksWithFakeRuntimes_data();
    void checksWithFakeRuntimes();
    void badRuntimeName();
    void networkPolicyInForce();
    void upstreamProxyWithoutCredentials();
    void exposedHostPorts();
    void hostRootsTheImageLacks();
};

void TestDiagnose::jsonWithRealDocker() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const Run run = runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, said(run).constData());
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

    // The checklist: the runtime and the engine pass; the image was asked about.
    const QJsonArray rows = report.value(QLatin1String("checks")).toArray();
    QCOMPARE(rows.first().toObject().value(QLatin1String("id")).toString(), QStringLiteral("runtime"));
    const QHash<QString, QJsonObject> checks = checksById(report);
    for (const char* id : {"runtime", "engine", "image", "resource_limits", "workspaces"}) {
        QVERIFY2(checks.contains(QLatin1String(id)), id);
    }
    QCOMPARE(checks.value(QStringLiteral("runtime")).value(QLatin1String("level")).toString(), QStringLiteral("ok"));
    QCOMPARE(checks.value(QStringLiteral("engine")).value(QLatin1String("level")).toString(), QStringLiteral("ok"));
    // The agent the sessions mount ran and answered this app's version (the build tree's, beside the app).
    QCOMPARE(checks.value(QStringLiteral("agent")).value(QLatin1String("level")).toString(), QStringLiteral("ok"));
    QVERIFY2(checks.value(QStringLiteral("agent"))
                 .value(QLatin1String("summary"))
                 .toString()
                 .startsWith(QStringLiteral("ok (version " ZEUS_VERSION ", ")),
             qPrintable(checks.value(QStringLiteral("agent")).value(QLatin1String("summary")).toString()));
    QVERIFY(checks.value(QStringLiteral("engine"))
                .value(QLatin1String("summary"))
                .toString()
                .contains(dockerServerVersion()));
    QVERIFY(report.value(QLatin1String("image")).toObject().value(QLatin1String("outcome")).toString()
            != QLatin1String("not_checked"));
    // The shared test engine enforces its limits (captured: docker info says so).
    QCOMPARE(checks.value(QStringLiteral("resource_limits")).value(QLatin1String("level")).toString(),
             QStringLiteral("ok"));
    // Empty settings: nothing approved yet.
    QCOMPARE(checks.value(QStringLiteral("workspaces")).value(QLatin1String("level")).toString(),
             QStringLiteral("warning"));
    qInfo("--diagnose --json with a real engine: %lld ms", run.ms);
}

void TestDiagnose::jsonWithNothingOnPath() {
    QTemporaryDir empty;
    QVERIFY(empty.isValid());
    const Run run =
        runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")}, {{QStringLiteral("PATH"), empty.path()}});
    QVERIFY2(run.exitCode == 1, said(run).constData());
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
    // ...and first, as a failed check whose action is that guidance.
    const QJsonObject first = report.value(QLatin1String("checks")).toArray().first().toObject();
    QCOMPARE(first.value(QLatin1String("id")).toString(), QStringLiteral("runtime"));
    QCOMPARE(first.value(QLatin1String("level")).toString(), QStringLiteral("failed"));
    QCOMPARE(first.value(QLatin1String("summary")).toString(), QString(zeus::kNoRuntimeMessage));
    const QString action = first.value(QLatin1String("action")).toString();
    QVERIFY2(action.contains(guidance.value(QLatin1String("commands")).toArray().first().toString()),
             qPrintable(action));
    const QHash<QString, QJsonObject> checks = checksById(report);
    QCOMPARE(checks.value(QStringLiteral("image")).value(QLatin1String("level")).toString(), QStringLiteral("warning"));
    QVERIFY(checks.value(QStringLiteral("image"))
                .value(QLatin1String("summary"))
                .toString()
                .startsWith(QLatin1String("Not checked")));
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
    QVERIFY2(run.exitCode == exitCode, said(run).constData());
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
    QVERIFY2(none.exitCode == 1, said(none).constData());
    const QString text = QString::fromUtf8(none.out);
    // The checklist comes first, the failed runtime with its action indented under it.
    QVERIFY2(text.startsWith(QStringLiteral("Checks: ")), qPrintable(text.left(300)));
    QVERIFY2(text.contains(QStringLiteral("\n[!!] Container runtime: ") + QString(zeus::kNoRuntimeMessage)
                           + QStringLiteral("\n       ")),
             qPrintable(text.left(600)));
    QVERIFY(text.indexOf(QStringLiteral("[!!] Container runtime")) < text.indexOf(QStringLiteral("Using: none")));
    QVERIFY2(text.contains(QStringLiteral("Using: none")), qPrintable(text));
    QVERIFY(text.contains(QString(zeus::kNoRuntimeMessage)));
    QVERIFY(text.contains(QStringLiteral("What to do:")));
    QVERIFY(text.contains(QStringLiteral("-- Docker: Not installed --")));

    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const Run ready = runApp({QStringLiteral("--diagnose")});
    QVERIFY2(ready.exitCode == 0, said(ready).constData());
    const QString readyText = QString::fromUtf8(ready.out);
    QVERIFY2(readyText.contains(QStringLiteral("Using: Docker (server ") + dockerServerVersion() + QLatin1Char(')')),
             qPrintable(readyText.left(400)));
    QVERIFY(readyText.contains(QStringLiteral("$ docker info --format {{json .}}")));
}

void TestDiagnose::imageCheckWithRealDocker_data() {
    QTest::addColumn<QString>("image");
    QTest::addColumn<QString>("level");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("contains");  // in summary + action
    QTest::newRow("the offline test image") << testImage() << "warning"
                                            << "present"
                                            << "offline test image";
    QTest::newRow("a tag the engine does not have") << "zeus-desktop-sandbox:no-such-tag-e2e"
                                                    << "failed"
                                                    << "missing"
                                                    << "zeus-desktop --build-image";
}

void TestDiagnose::imageCheckWithRealDocker() {
    QFETCH(QString, image);
    QFETCH(QString, level);
    QFETCH(QString, outcome);
    QFETCH(QString, contains);
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const Run run = runApp({QStringLiteral("--diagnose"), QStringLiteral("--json"), QStringLiteral("--runtime"),
                            QStringLiteral("docker"), QStringLiteral("--image"), image});
    QVERIFY2(run.exitCode == 0, said(run).constData());  // a usable runtime, whatever the image
    const QJsonObject report = parse(run);
    const QJsonObject check = checksById(report).value(QStringLiteral("image"));
    QCOMPARE(check.value(QLatin1String("level")).toString(), level);
    const QString words = check.value(QLatin1String("summary")).toString() + QLatin1Char('\n')
                          + check.value(QLatin1String("action")).toString();
    QVERIFY2(words.contains(contains), qPrintable(words));
    QVERIFY(words.contains(image));
    const QJsonObject section = report.value(QLatin1String("image")).toObject();
    QCOMPARE(section.value(QLatin1String("image")).toString(), image);
    QCOMPARE(section.value(QLatin1String("outcome")).toString(), outcome);
    if (outcome == QLatin1String("present")) {
        QCOMPARE(section.value(QLatin1String("kind")).toString(), QStringLiteral("offline_test"));
        QVERIFY(!section.value(QLatin1String("id")).toString().isEmpty());
    }
}

void TestDiagnose::checksWithFakeRuntimes_data() {
    QTest::addColumn<QString>("path");  // relative to the fakes folder; "" = an empty folder
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("runtime");  // expected levels
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("image");
    QTest::addColumn<QString>("actionOf");  // the check whose action must not be empty
    QTest::newRow("no runtime at all") << "" << 1 << "failed"
                                       << "warning"
                                       << "warning"
                                       << "runtime";
    QTest::newRow("docker installed, daemon down") << "detect/daemon-down" << 1 << "ok"
                                                   << "failed"
                                                   << "warning"
                                                   << "engine";
    QTest::newRow("apple fake: image present") << "apple" << 0 << "ok"
                                               << "ok"
                                               << "ok"
                                               << "";
}

void TestDiagnose::checksWithFakeRuntimes() {
    QFETCH(QString, path);
    QFETCH(int, exitCode);
    QFETCH(QString, runtime);
    QFETCH(QString, engine);
    QFETCH(QString, image);
    QFETCH(QString, actionOf);
    QTemporaryDir empty;
    QTemporaryDir state;
    QString searchPath = path.isEmpty() ? empty.path() : QStringLiteral(ZEUS_TEST_FAKES_DIR "/") + path;
    if (path == QLatin1String("apple")) {
        searchPath += QStringLiteral(":/usr/bin:/bin");  // the fake is a shell script; Apple wins over Docker
    }
    const Run run =
        runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")},
               {{QStringLiteral("PATH"), searchPath}, {QStringLiteral("ZEUS_FAKE_APPLE_STATE"), state.path()}});
    QVERIFY2(run.exitCode == exitCode, said(run).constData());
    const QHash<QString, QJsonObject> checks = checksById(parse(run));
    QCOMPARE(checks.value(QStringLiteral("runtime")).value(QLatin1String("level")).toString(), runtime);
    QCOMPARE(checks.value(QStringLiteral("engine")).value(QLatin1String("level")).toString(), engine);
    QCOMPARE(checks.value(QStringLiteral("image")).value(QLatin1String("level")).toString(), image);
    if (!actionOf.isEmpty()) {
        QVERIFY(!checks.value(actionOf).value(QLatin1String("action")).toString().isEmpty());
    }
}

void TestDiagnose::badRuntimeName() {
    const Run run = runApp({QStringLiteral("--diagnose"), QStringLiteral("--runtime"), QStringLiteral("lxc")});
    QVERIFY2(run.exitCode == 2, said(run).constData());
    QVERIFY(run.out.isEmpty());
    QVERIFY(!run.err.isEmpty());
}

// SPEC §8: --diagnose says which network policy the sessions would get, the command line's rules added.
void TestDiagnose::networkPolicyInForce() {
    QTemporaryDir empty;
    QVERIFY(empty.isValid());
    const QStringList args{
        QStringLiteral("--diagnose"),          QStringLiteral("--allow-host"), QStringLiteral("extra.test"),
        QStringLiteral("--deny-host"),         QStringLiteral("bad.test"),     QStringLiteral("--resolve"),
        QStringLiteral("a.test:443:127.0.0.1")};
    const Run run = runApp(args + QStringList{QStringLiteral("--json")}, {{QStringLiteral("PATH"), empty.path()}});
    const QJsonObject network = parse(run).value(QLatin1String("network")).toObject();
    QCOMPARE(network.value(QLatin1String("mode")).toString(), QStringLiteral("allowlist"));  // the default
    QCOMPARE(network.value(QLatin1String("chosen_by")).toString(), QStringLiteral("profile"));
    QCOMPARE(network.value(QLatin1String("preset")).toString(), QStringLiteral("dev"));
    QVERIFY(network.value(QLatin1String("preset_hosts")).toArray().contains(QStringLiteral("registry.npmjs.org")));
    QCOMPARE(network.value(QLatin1String("allow")).toArray(), QJsonArray{QStringLiteral("extra.test")});
    QCOMPARE(network.value(QLatin1String("deny")).toArray(), QJsonArray{QStringLiteral("bad.test")});
    QCOMPARE(network.value(QLatin1String("resolve")).toArray(), QJsonArray{QStringLiteral("a.test:443:127.0.0.1")});
    const Run text = runApp(args, {{QStringLiteral("PATH"), empty.path()}});
    const QString out = QString::fromUtf8(text.out);
    QVERIFY2(out.contains(QStringLiteral("allowlist: no network but the app's proxy; preset dev")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("Deny: bad.test")), qPrintable(out));
    // The hardened profile keeps no network unless the user picks the allowlist.
    const Run hardened = runApp({QStringLiteral("--diagnose"), QStringLiteral("--json"), QStringLiteral("--profile"),
                                 QStringLiteral("hardened")},
                                {{QStringLiteral("PATH"), empty.path()}});
    QCOMPARE(parse(hardened).value(QLatin1String("network")).toObject().value(QLatin1String("mode")).toString(),
             QStringLiteral("none"));
    const Run picked = runApp({QStringLiteral("--diagnose"), QStringLiteral("--json"), QStringLiteral("--profile"),
                               QStringLiteral("hardened"), QStringLiteral("--network"), QStringLiteral("allowlist")},
                              {{QStringLiteral("PATH"), empty.path()}});
    const QJsonObject pickedNetwork = parse(picked).value(QLatin1String("network")).toObject();
    QCOMPARE(pickedNetwork.value(QLatin1String("mode")).toString(), QStringLiteral("allowlist"));
    QCOMPARE(pickedNetwork.value(QLatin1String("chosen_by")).toString(), QStringLiteral("setting"));
}

// SPEC §8 "Ports": the network section says which host services the sandbox reaches, none by default.
void TestDiagnose::exposedHostPorts() {
    const auto exposedOf = [](const Run& run) {
        return parse(run)
            .value(QLatin1String("network"))
            .toObject()
            .value(QLatin1String("exposed_host_ports"))
            .toObject();
    };
    const QJsonObject none = exposedOf(runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")}));
    QCOMPARE(none.value(QLatin1String("run")).toArray().size(), 0);
    const QStringList flags = {QStringLiteral("--expose-host"), QStringLiteral("5432"), QStringLiteral("--expose-host"),
                               QStringLiteral("18080:8080")};
    const QJsonObject two =
        exposedOf(runApp(QStringList{QStringLiteral("--diagnose"), QStringLiteral("--json")} + flags));
    QCOMPARE(two.value(QLatin1String("run")).toArray(),
             (QJsonArray{QStringLiteral("5432"), QStringLiteral("18080:8080")}));
    const Run text = runApp(QStringList{QStringLiteral("--diagnose")} + flags);
    QVERIFY2(text.out.contains("Host services reachable in the sandbox: every folder: 5432, 18080:8080"),
             text.out.constData());
}

// SPEC §8 "Upstream": the network section says where allowed connections leave (flag, setting, environment,
// system, none), the proxy as http://host:port, whether credentials are set and NO_PROXY; never the credentials.
void TestDiagnose::upstreamProxyWithoutCredentials() {
    QTemporaryDir empty;
    QVERIFY(empty.isValid());
    QHash<QString, QString> environment{{QStringLiteral("PATH"), empty.path()}};
    for (const char* name : {"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"}) {
        environment.insert(QString::fromLatin1(name), QString());  // this machine's own proxy plays no part
    }
    const auto upstreamOf = [](const Run& run) {
        return parse(run).value(QLatin1String("network")).toObject().value(QLatin1String("upstream_proxy")).toObject();
    };
    QJsonObject upstream = upstreamOf(runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")}, environment));
    QCOMPARE(upstream.value(QLatin1String("source")).toString(), QStringLiteral("none"));
    QCOMPARE(upstream.value(QLatin1String("proxy")).toString(), QString());
    QCOMPARE(upstream.value(QLatin1String("credentials")).toBool(), false);

    QHash<QString, QString> corporate = environment;
    corporate.insert(QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://carol:s3cret-pw@proxy.corp:3128"));
    corporate.insert(QStringLiteral("NO_PROXY"), QStringLiteral("localhost,.corp"));
    const Run json = runApp({QStringLiteral("--diagnose"), QStringLiteral("--json")}, corporate);
    upstream = upstreamOf(json);
    QCOMPARE(upstream.value(QLatin1String("source")).toString(), QStringLiteral("environment"));
    QCOMPARE(upstream.value(QLatin1String("proxy")).toString(), QStringLiteral("http://proxy.corp:3128"));
    QCOMPARE(upstream.value(QLatin1String("credentials")).toBool(), true);
    QCOMPARE(upstream.value(QLatin1String("no_proxy")).toString(), QStringLiteral("localhost,.corp"));
    const Run text = runApp({QStringLiteral("--diagnose")}, corporate);
    QVERIFY2(text.out.contains("Upstream proxy: http://proxy.corp:3128 (from: environment; credentials: yes; "
                               "NO_PROXY: localhost,.corp)"),
             text.out.constData());
    for (const Run* run : {&json, &text}) {
        QVERIFY2(!run->out.contains("s3cret-pw") && !run->out.contains("carol"), run->out.constData());
        QVERIFY2(!run->err.contains("s3cret-pw"), run->err.constData());
    }

    // The flag comes first; `none` goes straight to the host whatever the environment says.
    upstream = upstreamOf(runApp({QStringLiteral("--diagnose"), QStringLiteral("--json"),
                                  QStringLiteral("--upstream-proxy"), QStringLiteral("http://flag.corp:8080")},
                                 corporate));
    QCOMPARE(upstream.value(QLatin1String("source")).toString(), QStringLiteral("flag"));
    QCOMPARE(upstream.value(QLatin1String("proxy")).toString(), QStringLiteral("http://flag.corp:8080"));
    QCOMPARE(upstream.value(QLatin1String("credentials")).toBool(), false);
    upstream = upstreamOf(runApp({QStringLiteral("--diagnose"), QStringLiteral("--json"),
                                  QStringLiteral("--upstream-proxy"), QStringLiteral("none")},
                                 corporate));
    QCOMPARE(upstream.value(QLatin1String("source")).toString(), QStringLiteral("flag"));
    QCOMPARE(upstream.value(QLatin1String("proxy")).toString(), QString());
}

// SPEC §8 "Certificates": --diagnose reads the image's own bundle (one throwaway container) and names this
// computer's roots it lacks: a fresh root of the test's own (given as the host's with ZEUS_TEST_CA_BUNDLE) is named,
// the roots the image has are not; an image without a bundle is said as a failure to read it; --no-host-ca reads
// nothing.
void TestDiagnose::hostRootsTheImageLacks() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString root = dir.filePath(QStringLiteral("root.pem"));
    const zeus::test::ProcessOutput made = zeus::test::runProgram(
        QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
         QStringLiteral("-nodes"), QStringLiteral("-keyout"), dir.filePath(QStringLiteral("root.key")),
         QStringLiteral("-out"), root, QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
         QStringLiteral("/CN=Zeus Diagnose Test Root")});
    QVERIFY2(made.exitCode == 0, made.err.constData());

    // An image whose bundle is this computer's roots as the app reads them (without the test's root).
    const QByteArray systemRoots = zeus::HostCertificates::system().pem;
    QVERIFY(zeus::HostCertificates::system().count > 10);
    QFile bundle(dir.filePath(QStringLiteral("ca-certificates.crt")));
    QVERIFY(bundle.open(QIODevice::WriteOnly) && bundle.write(systemRoots) == systemRoots.size());
    bundle.close();
    QFile dockerfile(dir.filePath(QStringLiteral("Dockerfile")));
    QVERIFY(dockerfile.open(QIODevice::WriteOnly));
    dockerfile.write("FROM " + testImage().toUtf8()
                     + "\nCOPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt\n");
    dockerfile.close();
    const QString image =
        QStringLiteral("zeus-desktop-sandbox:diagnose-roots-%1").arg(QCoreApplication::applicationPid());
    const zeus::test::ProcessOutput built = zeus::test::runProgram(
        QStringLiteral("docker"),
        {QStringLiteral("build"), QStringLiteral("-q"), QStringLiteral("-t"), image, dir.path()}, 120000);
    QVERIFY2(built.exitCode == 0, built.err.constData());
    const auto removeImage = qScopeGuard([&image] {
        zeus::test::runProgram(QStringLiteral("docker"), {QStringLiteral("rmi"), QStringLiteral("-f"), image});
    });

    const QHash<QString, QString> knob{{QStringLiteral("ZEUS_TEST_CA_BUNDLE"), root}};
    const QStringList diagnose{QStringLiteral("--diagnose"), QStringLiteral("--runtime"), QStringLiteral("docker"),
                               QStringLiteral("--image")};
    const Run run = runApp(diagnose + QStringList{image, QStringLiteral("--json")}, knob);
    QVERIFY2(run.exitCode == 0, said(run).constData());
    const QJsonObject certificates =
        parse(run).value(QLatin1String("network")).toObject().value(QLatin1String("host_certificates")).toObject();
    QCOMPARE(certificates.value(QLatin1String("not_in_image")).toArray(),
             QJsonArray{QStringLiteral("Zeus Diagnose Test Root")});
    QCOMPARE(certificates.value(QLatin1String("not_in_image_count")).toInt(), 1);
    QVERIFY(!certificates.contains(QLatin1String("image_bundle_error")));
    const QString firstSystemRoot =
        QSslCertificate::fromData(systemRoots).value(0).subjectInfo(QSslCertificate::CommonName).value(0);
    QVERIFY(!firstSystemRoot.isEmpty());
    QVERIFY(!certificates.value(QLatin1String("not_in_image")).toArray().contains(firstSystemRoot));

    const Run text = runApp(diagnose + QStringList{image}, knob);
    const QString out = QString::fromUtf8(text.out);
    QVERIFY2(out.contains(QStringLiteral("1 of them are not in the image's own bundle: Zeus Diagnose Test Root.")),
             qPrintable(out));
    QVERIFY(!out.contains(firstSystemRoot + QLatin1Char(',')));

    // The test image has no bundle at all: said as a failure to read it, with the engine's words.
    const QJsonObject none = parse(runApp(diagnose + QStringList{testImage(), QStringLiteral("--json")}, knob))
                                 .value(QLatin1String("network"))
                                 .toObject()
                                 .value(QLatin1String("host_certificates"))
                                 .toObject();
    QVERIFY2(none.value(QLatin1String("image_bundle_error")).toString().contains(QStringLiteral("ca-certificates.crt")),
             qPrintable(none.value(QLatin1String("image_bundle_error")).toString()));
    QVERIFY(!none.contains(QLatin1String("not_in_image")));

    // Not passed: nothing is read.
    const QJsonObject off =
        parse(runApp(diagnose + QStringList{image, QStringLiteral("--json"), QStringLiteral("--no-host-ca")}, knob))
            .value(QLatin1String("network"))
            .toObject()
            .value(QLatin1String("host_certificates"))
            .toObject();
    QCOMPARE(off.value(QLatin1String("passed")).toBool(true), false);
    QVERIFY(!off.contains(QLatin1String("not_in_image")));
    QVERIFY(!off.contains(QLatin1String("image_bundle_error")));
}

QTEST_GUILESS_MAIN(TestDiagnose)
#include "tst_diagnose.moc"
