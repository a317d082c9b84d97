// The tray app as a process: it starts (offscreen: no tray, so the dashboard is a window),
// a second launch asks the first to show its dashboard and exits 0 at once; with a backend
// URL, an approved folder and a token it serves the backend's tool calls in a real
// container, and SIGTERM quits like the Quit menu (containers removed). Started with
// --backend, --workspace and ZEUS_DESKTOP_TOKEN (as run.sh starts it) it serves a local
// backend with no settings, and writes neither to the settings; a refused --workspace is not
// approved. Without a sandbox agent it can use it does not call itself ready (hello says why, calls are
// refused with the fix named) unless --exec-mode exec asks for plain exec.
#include "appsettings.h"
#include "backendserver.h"
#include "testenvironment.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

class TestGuiMode : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void secondLaunchRaisesFirst();
    void servesToolCallsAndQuitsCleanly();
    void commandLineOverridesForOneRun();
    void refusedCommandLineWorkspaceIsNotApproved();
    void badBackendUrlIsAUsageError();
    void notReadyWithoutAnAgent();
};

namespace {

QStringList containersOfOwner(const QString& owner) {
    const zeus::test::ProcessOutput out = zeus::test::runProgram(
        QStringLiteral("docker"), {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q"),
                                   QStringLiteral("--filter"), QStringLiteral("label=zeus.desktop.owner=") + owner});
    QStringList ids;
    for (const QByteArray& line : out.out.split('\n')) {
        if (!line.trimmed().isEmpty()) {
            ids << QString::fromUtf8(line.trimmed());
        }
    }
    return ids;
}

// A fresh home with no settings and no keychain (no session bus: the keychain answers at
// once that it cannot be reached), offscreen.
QProcessEnvironment freshEnvironment(const QTemporaryDir& home) {
    QDir().mkpath(home.filePath(QStringLiteral("runtime")));
    QFile::setPermissions(home.filePath(QStringLiteral("runtime")),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral(".config")));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("runtime")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("zeus.*.info=true"));
    env.remove(QStringLiteral("ZEUS_DESKTOP_TOKEN"));
    env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    env.remove(QStringLiteral("DISPLAY"));
    return env;
}

QString settingsFileOf(const QTemporaryDir& home) {
    return home.filePath(QStringLiteral(".config/ZeusDesktop/zeus-desktop.conf"));
}

bool stopApp(QProcess& app, QByteArray& log) {
    app.terminate();
    const bool finished = app.waitForFinished(30000);
    log += app.readAll();
    if (!finished) {
        app.kill();
        app.waitForFinished(5000);
    }
    return finished && app.exitStatus() == QProcess::NormalExit;
}

}  // namespace

void TestGuiMode::secondLaunchRaisesFirst() {
    QTemporaryDir home;
    QVERIFY(home.isValid());
    QVERIFY(QDir().mkpath(home.filePath(QStringLiteral("runtime"))));
    QFile::setPermissions(home.filePath(QStringLiteral("runtime")),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral(".config")));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("runtime")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("zeus.*.info=true"));

    QProcess first;
    first.setProcessEnvironment(env);
    first.setProcessChannelMode(QProcess::MergedChannels);
    first.start(QStringLiteral(ZEUS_APP_BINARY), {});
    QVERIFY(first.waitForStarted(10000));
    // Up and running: it stays (the tray app only ends on Quit).
    if (first.waitForFinished(3000)) {
        const QByteArray output = first.readAll();
        if (output.contains("this build has no GUI")) {
            QSKIP("headless build: no tray app");
        }
        QFAIL(output.constData());
    }
    QCOMPARE(first.state(), QProcess::Running);

    QProcess second;
    second.setProcessEnvironment(env);
    second.setProcessChannelMode(QProcess::MergedChannels);
    QElapsedTimer clock;
    clock.start();
    second.start(QStringLiteral(ZEUS_APP_BINARY), {});
    QVERIFY(second.waitForFinished(10000));
    const QByteArray secondOutput = second.readAll();
    QVERIFY2(second.exitStatus() == QProcess::NormalExit && second.exitCode() == 0, secondOutput.constData());
    qInfo("second launch exited after %lld ms", static_cast<long long>(clock.elapsed()));

    QByteArray firstOutput;
    QTRY_VERIFY_WITH_TIMEOUT((firstOutput += first.readAll()).contains("another launch asked for the dashboard"), 5000);
    QCOMPARE(first.state(), QProcess::Running);
    first.terminate();
    if (!first.waitForFinished(10000)) {
        first.kill();
        first.waitForFinished(5000);
    }
}

void TestGuiMode::servesToolCallsAndQuitsCleanly() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    zeus::test::BackendServer server;
    QVERIFY(server.listen());
    QTemporaryDir home;
    QTemporaryDir workspaceDir;
    QVERIFY(home.isValid() && workspaceDir.isValid());
    const QString workspace = QFileInfo(workspaceDir.path()).canonicalFilePath();
    QFile marker(workspace + QStringLiteral("/from-the-host.txt"));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();
    const QString configHome = home.filePath(QStringLiteral(".config"));
    QVERIFY(QDir().mkpath(home.filePath(QStringLiteral("runtime"))));
    QFile::setPermissions(home.filePath(QStringLiteral("runtime")),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);

    // The app's own settings file, as a user would have left it.
    QString owner;
    {
        zeus::AppSettings settings(configHome + QStringLiteral("/ZeusDesktop/zeus-desktop.conf"));
        QVERIFY(settings.setBackendUrl(server.url()));
        QVERIFY(settings.setRuntimePreference(QStringLiteral("docker")));
        QVERIFY(settings.setImage(zeus::test::testImage()));
        QVERIFY(settings.setHardeningProfile(QStringLiteral("hardened")));  // --network none: no bridge here
        settings.addRecentFolder(workspace);
        QVERIFY(settings.approveWorkspace(workspace));
        owner = settings.installId();
        settings.sync();
    }

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("runtime")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("zeus.*.info=true"));
    env.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("gui-e2e-token"));
    QProcess app;
    app.setProcessEnvironment(env);
    app.setProcessChannelMode(QProcess::MergedChannels);
    QByteArray log;
    QObject::connect(&app, &QProcess::readyRead, &app, [&] { log += app.readAll(); });
    app.start(QStringLiteral(ZEUS_APP_BINARY), {});
    QVERIFY(app.waitForStarted(10000));
    if (app.waitForFinished(1000)) {
        log += app.readAll();
        if (log.contains("this build has no GUI")) {
            QSKIP("headless build: no tray app");
        }
        QFAIL(log.constData());
    }

    QVERIFY2(server.waitForType(QStringLiteral("hello"), 30000), log.constData());
    const QJsonObject hello = server.ofType(QStringLiteral("hello")).constFirst();
    QVERIFY2(QJsonDocument(hello).toJson().contains(workspace.toUtf8()), QJsonDocument(hello).toJson().constData());
    // The first hello already names the runtime (the app connects once detection is done),
    // so a call sent right away runs.
    const QJsonObject runtime = hello.value(QStringLiteral("runtime")).toObject();
    QCOMPARE(runtime.value(QStringLiteral("kind")).toString(), QStringLiteral("docker"));
    QCOMPARE(runtime.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));

    const QString callId = QStringLiteral("gui-call-1");
    const QString sessionId = QStringLiteral("gui-session-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    server.send(zeus::test::BackendServer::toolCall(callId, sessionId,
                                                    QStringLiteral("ls /workspace; echo oops >&2; exit 3"), workspace));
    QVERIFY2(server.waitForResult(callId, 60000), log.constData());
    const QJsonObject result = server.resultsFor(callId).constFirst();
    QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    QCOMPARE(result.value(QStringLiteral("exit_code")).toInt(), 3);
    QVERIFY(result.value(QStringLiteral("output")).toString().contains(QStringLiteral("from-the-host.txt")));
    QVERIFY(result.value(QStringLiteral("output")).toString().contains(QStringLiteral("oops")));
    QCOMPARE(containersOfOwner(owner).size(), 1);

    // A folder the user did not approve is refused.
    server.send(zeus::test::BackendServer::toolCall(QStringLiteral("gui-call-2"), sessionId, QStringLiteral("true"),
                                                    home.path()));
    QVERIFY(server.waitForResult(QStringLiteral("gui-call-2"), 30000));
    QVERIFY(QJsonDocument(server.resultsFor(QStringLiteral("gui-call-2")).constFirst())
                .toJson()
                .contains("workspace_not_approved"));

    // SIGTERM quits like the Quit menu: the container is removed, the exit is clean.
    app.terminate();
    QVERIFY2(app.waitForFinished(30000), log.constData());
    log += app.readAll();
    QCOMPARE(app.exitStatus(), QProcess::NormalExit);
    QVERIFY2(log.contains("quitting"), log.constData());
    QVERIFY2(containersOfOwner(owner).isEmpty(), log.constData());
}

void TestGuiMode::commandLineOverridesForOneRun() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    zeus::test::BackendServer server;
    QVERIFY(server.listen());
    QTemporaryDir home;
    QTemporaryDir workspaceDir;
    QVERIFY(home.isValid() && workspaceDir.isValid());
    const QString workspace = QFileInfo(workspaceDir.path()).canonicalFilePath();
    QFile marker(workspace + QStringLiteral("/given-on-the-command-line.txt"));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();

    // What run.sh does: no settings, everything on the command line, the test backend's token in the
    // environment (a loopback backend needs one like any other).
    QProcess app;
    QProcessEnvironment environment = freshEnvironment(home);
    environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("run-token"));
    app.setProcessEnvironment(environment);
    app.setProcessChannelMode(QProcess::MergedChannels);
    QByteArray log;
    QObject::connect(&app, &QProcess::readyRead, &app, [&] { log += app.readAll(); });
    app.start(QStringLiteral(ZEUS_APP_BINARY),
              {QStringLiteral("--backend"), server.url(), QStringLiteral("--workspace"), workspaceDir.path(),
               QStringLiteral("--runtime"), QStringLiteral("docker"), QStringLiteral("--image"),
               zeus::test::testImage(), QStringLiteral("--profile"), QStringLiteral("hardened")});
    QVERIFY(app.waitForStarted(10000));
    if (app.waitForFinished(1000)) {
        log += app.readAll();
        if (log.contains("this build has no GUI")) {
            QSKIP("headless build: no tray app");
        }
        QFAIL(log.constData());
    }

    // Connected with the token, the folder approved for this run.
    QVERIFY2(server.waitForType(QStringLiteral("hello"), 30000), log.constData());
    QVERIFY2(server.authorizations().value(0) == "Bearer run-token", log.constData());
    const QJsonObject hello = server.ofType(QStringLiteral("hello")).constFirst();
    const QJsonArray workspaces = hello.value(QStringLiteral("workspaces")).toArray();
    QCOMPARE(workspaces.size(), 1);
    QCOMPARE(workspaces.first().toObject().value(QStringLiteral("path")).toString(), workspace);
    QCOMPARE(hello.value(QStringLiteral("runtime")).toObject().value(QStringLiteral("status")).toString(),
             QStringLiteral("ready"));

    const QString sessionId = QStringLiteral("gui-cli-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    server.send(zeus::test::BackendServer::toolCall(QStringLiteral("cli-call-1"), sessionId,
                                                    QStringLiteral("ls /workspace; id -u"), workspace));
    QVERIFY2(server.waitForResult(QStringLiteral("cli-call-1"), 60000), log.constData());
    const QJsonObject result = server.resultsFor(QStringLiteral("cli-call-1")).constFirst();
    QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    QCOMPARE(result.value(QStringLiteral("exit_code")).toInt(), 0);
    QVERIFY(
        result.value(QStringLiteral("output")).toString().contains(QStringLiteral("given-on-the-command-line.txt")));

    QVERIFY2(stopApp(app, log), log.constData());
    // Nothing of the command line was kept: no backend URL, no approval.
    zeus::AppSettings settings(settingsFileOf(home));
    QCOMPARE(settings.backendUrl(), QString());
    QVERIFY(!settings.isWorkspaceApproved(workspace));
    QVERIFY(settings.approvedWorkspaces().isEmpty());
}

void TestGuiMode::refusedCommandLineWorkspaceIsNotApproved() {
    zeus::test::BackendServer server;
    QVERIFY(server.listen());
    QTemporaryDir home;
    QVERIFY(home.isValid());
    // The home folder itself: the workspace guard refuses it. The token as run.sh hands it over.
    QProcess app;
    QProcessEnvironment environment = freshEnvironment(home);
    environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("run-token"));
    app.setProcessEnvironment(environment);
    app.setProcessChannelMode(QProcess::MergedChannels);
    QByteArray log;
    QObject::connect(&app, &QProcess::readyRead, &app, [&] { log += app.readAll(); });
    app.start(QStringLiteral(ZEUS_APP_BINARY),
              {QStringLiteral("--backend"), server.url(), QStringLiteral("--workspace"), home.path()});
    QVERIFY(app.waitForStarted(10000));
    if (app.waitForFinished(1000)) {
        log += app.readAll();
        if (log.contains("this build has no GUI")) {
            QSKIP("headless build: no tray app");
        }
        QFAIL(log.constData());
    }
    QVERIFY2(server.waitForType(QStringLiteral("hello"), 30000), log.constData());
    QVERIFY2(log.contains("refused workspace"), log.constData());
    QVERIFY2(log.contains("home"), log.constData());
    const QJsonObject hello = server.ofType(QStringLiteral("hello")).constFirst();
    QVERIFY(hello.value(QStringLiteral("workspaces")).toArray().isEmpty());

    server.send(zeus::test::BackendServer::toolCall(QStringLiteral("cli-refused-1"), QStringLiteral("s1"),
                                                    QStringLiteral("true"), home.path()));
    QVERIFY2(server.waitForResult(QStringLiteral("cli-refused-1"), 30000), log.constData());
    const QByteArray result = QJsonDocument(server.resultsFor(QStringLiteral("cli-refused-1")).constFirst()).toJson();
    QVERIFY2(result.contains("workspace_not_approved") || result.contains("no_runtime"), result.constData());

    QVERIFY2(stopApp(app, log), log.constData());
    zeus::AppSettings settings(settingsFileOf(home));
    QVERIFY(settings.approvedWorkspaces().isEmpty());
}

void TestGuiMode::badBackendUrlIsAUsageError() {
    QTemporaryDir home;
    QVERIFY(home.isValid());
    QProcess app;
    app.setProcessEnvironment(freshEnvironment(home));
    app.setProcessChannelMode(QProcess::MergedChannels);
    app.start(QStringLiteral(ZEUS_APP_BINARY),
              {QStringLiteral("--backend"), QStringLiteral("ws://backend.example.com/desktop")});
    QVERIFY(app.waitForFinished(10000));
    const QByteArray output = app.readAll();
    if (output.contains("this build has no GUI")) {
        QSKIP("headless build: no tray app");
    }
    QCOMPARE(app.exitCode(), 2);
    QVERIFY2(output.contains("--backend") && output.contains("backend.example.com"), output.constData());
    QVERIFY(!QFile::exists(settingsFileOf(home)) || zeus::AppSettings(settingsFileOf(home)).backendUrl().isEmpty());
}

// A copy of the binary has no agent beside it and the offline test image has none either (SPEC §7): the first
// hello says "unavailable" with the fix, a call is refused with the same words and no container is made; with
// --exec-mode exec the same setup is ready and runs the call.
void TestGuiMode::notReadyWithoutAnAgent() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    QTemporaryDir home;
    QTemporaryDir workspaceDir;
    QTemporaryDir lonely;
    QVERIFY(home.isValid() && workspaceDir.isValid() && lonely.isValid());
    const QString workspace = QFileInfo(workspaceDir.path()).canonicalFilePath();
    QVERIFY(QDir().mkpath(lonely.filePath(QStringLiteral("app"))));
    const QString program = lonely.filePath(QStringLiteral("app/zeus-desktop"));
    QVERIFY(QFile::copy(QStringLiteral(ZEUS_APP_BINARY), program));

    for (const bool plainExec : {false, true}) {
        zeus::test::BackendServer server;
        QVERIFY(server.listen());
        QProcess app;
        QProcessEnvironment environment = freshEnvironment(home);
        environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("run-token"));
        environment.insert(QStringLiteral("ZEUS_SANDBOX_AGENT"), QString());
        app.setProcessEnvironment(environment);
        app.setProcessChannelMode(QProcess::MergedChannels);
        QByteArray log;
        QObject::connect(&app, &QProcess::readyRead, &app, [&] { log += app.readAll(); });
        QStringList arguments{QStringLiteral("--backend"),   server.url(),
                              QStringLiteral("--workspace"), workspace,
                              QStringLiteral("--runtime"),   QStringLiteral("docker"),
                              QStringLiteral("--image"),     zeus::test::testImage()};
        if (plainExec) {
            arguments << QStringLiteral("--exec-mode") << QStringLiteral("exec");
        }
        app.start(program, arguments);
        QVERIFY(app.waitForStarted(10000));
        if (app.waitForFinished(1000)) {
            log += app.readAll();
            if (log.contains("this build has no GUI")) {
                QSKIP("headless build: no tray app");
            }
            QFAIL(log.constData());
        }
        QVERIFY2(server.waitForType(QStringLiteral("hello"), 30000), log.constData());
        const QJsonObject runtime =
            server.ofType(QStringLiteral("hello")).constFirst().value(QStringLiteral("runtime")).toObject();
        QCOMPARE(runtime.value(QStringLiteral("kind")).toString(), QStringLiteral("docker"));

        const QString sessionId = QStringLiteral("gui-noagent-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        server.send(zeus::test::BackendServer::toolCall(QStringLiteral("noagent-1"), sessionId,
                                                        QStringLiteral("echo ran"), workspace));
        QVERIFY2(server.waitForResult(QStringLiteral("noagent-1"), 60000), log.constData());
        const QJsonObject result = server.resultsFor(QStringLiteral("noagent-1")).constFirst();
        if (plainExec) {
            QCOMPARE(runtime.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
            QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
            QCOMPARE(result.value(QStringLiteral("output")).toString(), QStringLiteral("ran\n"));
        } else {
            QCOMPARE(runtime.value(QStringLiteral("status")).toString(), QStringLiteral("unavailable"));
            QVERIFY2(runtime.value(QStringLiteral("reason"))
                         .toString()
                         .contains(QStringLiteral("no sandbox agent to run commands through")),
                     qPrintable(runtime.value(QStringLiteral("reason")).toString()));
            QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("error"));
            const QJsonObject error = result.value(QStringLiteral("error")).toObject();
            QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("no_runtime"));
            QVERIFY2(error.value(QStringLiteral("message")).toString().contains(QStringLiteral("--exec-mode exec")),
                     qPrintable(error.value(QStringLiteral("message")).toString()));
            QVERIFY2(log.contains("the sandbox is not ready"), log.constData());
        }
        QVERIFY2(stopApp(app, log), log.constData());
    }
}

QTEST_GUILESS_MAIN(TestGuiMode)
#include "tst_guimode.moc"
