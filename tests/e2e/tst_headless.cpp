// End to end: the real zeus-desktop binary in --headless mode, a real Docker engine (DOCKER_HOST) with the
// offline test image, and an in-process backend on 127.0.0.1 (BackendServer) that can be killed and restarted on
// the same port. Every test uses its own settings folder (so its own install id) and its own session ids, and
// is bounded to tens of seconds.
#include "backendserver.h"
#include "diagnosticsections.h"
#include "engine/containerruntime.h"
#include "modes.h"
#include "podmanoutage.h"
#include "privatedockerd.h"
#include "sandbox/workspaceguard.h"
#include "testenvironment.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <algorithm>
#include <memory>

using zeus::test::BackendServer;

namespace {

QString typeOf(const QJsonObject& m) {
    return m.value(QStringLiteral("type")).toString();
}

QString uniqueId(const char* prefix) {
    return QString::fromLatin1(prefix) + QUuid::createUuid().toString(QUuid::Id128).left(10);
}

QStringList containersOfSession(const QString& sessionId, const QString& engine = QStringLiteral("docker")) {
    const zeus::test::ProcessOutput out = zeus::test::runProgram(
        engine, {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q"), QStringLiteral("--filter"),
                 QStringLiteral("label=zeus.desktop.session=") + sessionId});
    QStringList ids;
    for (const QByteArray& line : out.out.split('\n')) {
        if (!line.trimmed().isEmpty()) {
            ids << QString::fromUtf8(line.trimmed());
        }
    }
    return ids;
}

// The app under test, its stderr collected as it comes (so the pipe never fills).
class HeadlessApp {
public:
    HeadlessApp() {
        QObject::connect(&process, &QProcess::readyReadStandardError, &process,
                         [this] { log += process.readAllStandardError(); });
        QObject::connect(&process, &QProcess::readyReadStandardOutput, &process,
                         [this] { out += process.readAllStandardOutput(); });
    }
    ~HeadlessApp() {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }

    void start(const QString& url, const QString& workspace, const QString& configHome,
               const QList<QPair<QString, QString>>& extraEnvironment = {}, const QStringList& extraArguments = {}) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
        // The result journal lives in the data folder: the test's own, kept with its settings.
        environment.insert(QStringLiteral("XDG_DATA_HOME"), configHome + QStringLiteral("/data"));
        environment.insert(QStringLiteral("ZEUS_TEST_RECONNECT_MS"), QStringLiteral("100"));
        // Every backend needs a token, a loopback one too; a test that wants none sets it empty.
        environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("e2e-token"));
        for (const auto& entry : extraEnvironment) {
            environment.insert(entry.first, entry.second);
        }
        process.setProcessEnvironment(environment);
        process.setProgram(program);
        process.setArguments({QStringLiteral("--headless"), QStringLiteral("--backend"), url,
                              QStringLiteral("--workspace"), workspace, QStringLiteral("--runtime"), runtime,
                              QStringLiteral("--image"), zeus::test::testImage(), QStringLiteral("--profile"),
                              QStringLiteral("hardened")});
        process.setArguments(process.arguments() + extraArguments);
        process.start();
    }

    bool waitForExit(int timeoutMs) {
        return QTest::qWaitFor([this] { return process.state() == QProcess::NotRunning; }, timeoutMs);
    }
    QString logText() const { return QString::fromUtf8(log); }
    QString outText() const { return QString::fromUtf8(out); }

    QString program = QStringLiteral(ZEUS_APP_BINARY);
    QString runtime = QStringLiteral("docker");  // the engine the app is told to use (--runtime)
    QProcess process;
    QByteArray log;
    QByteArray out;  // the session lines (docs/headless.md "What the console shows")
};

// A SandboxSetup as SandboxSetup::from() makes it for a local Docker engine, without the host's agent.
zeus::SandboxSetup localSetup() {
    zeus::SandboxSetup setup;
    setup.runtime = zeus::ContainerRuntime::create(zeus::RuntimeKind::Docker, QStringLiteral("docker"));
    setup.config.image = QStringLiteral("some-image:1");
    return setup;
}

zeus::ImageInspection presentImage(const QString& title) {
    zeus::ImageInspection image;
    image.outcome = zeus::ImageInspection::Outcome::Present;
    image.image = QStringLiteral("some-image:1");
    image.labels.insert(QStringLiteral("org.opencontainers.image.title"), title);
    return image;
}

// A backend that completes the WebSocket upgrade and then never answers anything (no pong): a black hole.
// Or, with `refuseStatus`, answers the upgrade with that HTTP status.
class RawBackend {
public:
    explicit RawBackend(int refuseStatus = 0) : m_refuseStatus(refuseStatus) {
        QObject::connect(&server, &QTcpServer::newConnection, &server, [this] {
            while (QTcpSocket* socket = server.nextPendingConnection()) {
                ++connections;
                auto buffer = std::make_shared<QByteArray>();
                auto upgraded = std::make_shared<bool>(false);
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer, upgraded] {
                    const QByteArray data = socket->readAll();
                    if (*upgraded) {
                        return;  // swallowed: pings go unanswered
                    }
                    buffer->append(data);
                    if (!buffer->contains("\r\n\r\n")) {
                        return;
                    }
                    *upgraded = true;
                    if (m_refuseStatus) {
                        socket->write("HTTP/1.1 " + QByteArray::number(m_refuseStatus)
                                      + " Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                        socket->disconnectFromHost();
                        return;
                    }
                    QByteArray key;
                    for (const QByteArray& line : buffer->split('\n')) {
                        if (line.toLower().startsWith("sec-websocket-key:")) {
                            key = line.mid(18).trimmed();
                        }
                    }
                    const QByteArray accept =
                        QCryptographicHash::hash(QByteArray(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"),
                                                 QCryptographicHash::Sha1)
                            .toBase64();
                    socket->write(
                        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Accept: "
                        + accept + "\r\n\r\n");
                });
            }
        });
    }
    bool listen() { return server.listen(QHostAddress::LocalHost); }
    QString url() const { return QStringLiteral("ws://127.0.0.1:%1/").arg(server.serverPort()); }

    QTcpServer server;
    int connections = 0;

private:
    int m_refuseStatus;
};

}  // namespace

class TestHeadless : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_workspace;
    QString m_canary;
    QStringList m_sessions;  // removed at the end whatever happens

    QString configHome() {
        const QString dir = m_root.filePath(uniqueId("config-"));
        QDir().mkpath(dir);
        return dir;
    }
    QString session() {
        m_sessions << uniqueId("e2e-");
        return m_sessions.last();
    }

    // App + backend, connected (hello received).
    struct Rig {
        BackendServer server;
        HeadlessApp app;
    };
    std::unique_ptr<Rig> connectedRig(const QList<QPair<QString, QString>>& environment = {},
                                      const QStringList& arguments = {},
                                      const QString& runtime = QStringLiteral("docker")) {
        auto rig = std::make_unique<Rig>();
        if (!rig->server.listen()) {
            return nullptr;
        }
        rig->app.runtime = runtime;
        rig->app.start(rig->server.url(), m_workspace, configHome(), environment, arguments);
        if (!rig->server.waitForType(QStringLiteral("hello"), 20000)) {
            qWarning().noquote() << rig->app.logText();
            return nullptr;
        }
        return rig;
    }

    // The rows of a test that runs on both real engines.
    static void engineRows() {
        QTest::addColumn<QString>("engine");
        QTest::newRow("docker") << QStringLiteral("docker");
        QTest::newRow("podman") << QStringLiteral("podman");
    }

    static QJsonObject firstResult(const BackendServer& server, const QString& callId) {
        const QList<QJsonObject> results = server.resultsFor(callId);
        return results.isEmpty() ? QJsonObject() : results.first();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_root.isValid());
        QVERIFY(QDir(m_root.path()).mkpath(QStringLiteral("workspace")));
        m_workspace = QDir(m_root.filePath(QStringLiteral("workspace"))).canonicalPath();
        QFile seed(m_workspace + QStringLiteral("/inside.txt"));
        QVERIFY(seed.open(QIODevice::WriteOnly));
        seed.write("visible-inside\n");
        seed.close();
        m_canary = m_root.filePath(QStringLiteral("canary-%1.txt").arg(QUuid::createUuid().toString(QUuid::Id128)));
        QFile canary(m_canary);
        QVERIFY(canary.open(QIODevice::WriteOnly));
        canary.write("host-secret-canary\n");
    }

    void cleanupTestCase() {
        for (const QString& engine : {QStringLiteral("docker"), QStringLiteral("podman")}) {
            if (QStandardPaths::findExecutable(engine).isEmpty()) {
                continue;
            }
            for (const QString& sessionId : std::as_const(m_sessions)) {
                const QStringList ids = containersOfSession(sessionId, engine);
                if (!ids.isEmpty()) {
                    zeus::test::runProgram(engine, QStringList{QStringLiteral("rm"), QStringLiteral("-f")} + ids);
                }
            }
        }
    }

    void refusedWorkspaceExits125() {
        QProcess app;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome());
        app.setProcessEnvironment(environment);
        app.start(QStringLiteral(ZEUS_APP_BINARY),
                  {QStringLiteral("--headless"), QStringLiteral("--backend"), QStringLiteral("ws://127.0.0.1:1/"),
                   QStringLiteral("--workspace"), QStringLiteral("/")});
        QVERIFY(app.waitForFinished(10000));
        QCOMPARE(app.exitCode(), 125);
        const QString error = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(error.contains(zeus::WorkspaceGuard::ruleName(zeus::WorkspaceGuard::Rule::FileSystemRoot)),
                 qPrintable(error));
    }

    // SPEC §5 "Results survive the app": SIGKILL between a result and its ack, and while a call runs; the next
    // start lists both in hello.pending and sends them: the finished one's result, and the running one as
    // interrupted.
    void resultsSurviveAKill() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const QString config = configHome();
        const QString s = session();
        BackendServer server;
        QVERIFY(server.listen());
        server.autoAck = false;  // the backend never gets to ack before the kill
        {
            HeadlessApp app;
            app.start(server.url(), m_workspace, config);
            QVERIFY2(server.waitForType(QStringLiteral("hello"), 20000), qPrintable(app.logText()));
            server.send(BackendServer::toolCall(QStringLiteral("kept1"), s, QStringLiteral("echo kept-across-a-kill"),
                                                m_workspace));
            QVERIFY2(server.waitForResult(QStringLiteral("kept1"), 30000), qPrintable(app.logText()));
            server.send(BackendServer::toolCall(QStringLiteral("cut1"), s, QStringLiteral("echo started; sleep 60"),
                                                m_workspace));
            QVERIFY(server.waitFor(
                [](const QJsonObject& m) {
                    return typeOf(m) == QLatin1String("tool_output")
                           && m.value(QStringLiteral("call_id")).toString() == QLatin1String("cut1");
                },
                30000));
            app.process.kill();  // SIGKILL: no shutdown, no cancelled result
            QVERIFY(app.waitForExit(10000));
        }
        const QString journalFolder = config + QStringLiteral("/data/ZeusDesktop/zeus-desktop/journal");
        const QStringList journals = QDir(journalFolder).entryList(QDir::Files);
        QCOMPARE(journals.size(), 1);
        QCOMPARE(QFileInfo(journalFolder + QLatin1Char('/') + journals.first()).permissions(),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);

        server.messages.clear();
        server.autoAck = true;
        HeadlessApp again;
        again.start(server.url(), m_workspace, config);
        QVERIFY2(server.waitForType(QStringLiteral("hello"), 20000), qPrintable(again.logText()));
        const QJsonObject hello = server.ofType(QStringLiteral("hello")).first();
        QCOMPARE(hello.value(QStringLiteral("pending")).toArray(),
                 (QJsonArray{QStringLiteral("kept1"), QStringLiteral("cut1")}));
        QVERIFY2(server.waitForResult(QStringLiteral("cut1"), 20000), qPrintable(again.logText()));
        const QJsonObject kept = firstResult(server, QStringLiteral("kept1"));
        QCOMPARE(kept.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(kept.value(QStringLiteral("output")).toString(), QStringLiteral("kept-across-a-kill\n"));
        const QJsonObject cut = firstResult(server, QStringLiteral("cut1"));
        QCOMPARE(cut.value(QStringLiteral("status")).toString(), QStringLiteral("error"));
        QCOMPARE(cut.value(QStringLiteral("exit_code")), QJsonValue());
        const QJsonObject error = cut.value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("container_failed"));
        QCOMPARE(error.value(QStringLiteral("message")).toString(),
                 QStringLiteral("interrupted: the app stopped while this ran"));
        QVERIFY2(again.logText().contains(QStringLiteral("was running when the app stopped")),
                 qPrintable(again.logText()));
        // Acknowledged now: a third start owes nothing.
        QTest::qWait(500);
        again.process.terminate();
        QVERIFY(again.waitForExit(30000));
        server.messages.clear();
        HeadlessApp third;
        third.start(server.url(), m_workspace, config);
        QVERIFY2(server.waitForType(QStringLiteral("hello"), 20000), qPrintable(third.logText()));
        QCOMPARE(server.ofType(QStringLiteral("hello")).first().value(QStringLiteral("pending")).toArray(),
                 QJsonArray());
        third.process.terminate();
        QVERIFY(third.waitForExit(30000));
    }

    void startupRefusals_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        // No token anywhere (no ZEUS_DESKTOP_TOKEN, no keychain entry for this URL).
        QTest::newRow("no token for a remote backend")
            << QStringLiteral("wss://backend.invalid/v1/desktop") << 3 << QStringLiteral("no sign-in token");
        // SPEC §5 "No anonymous backends": another local user can bind a loopback port first.
        QTest::newRow("no token for a loopback backend")
            << QStringLiteral("ws://127.0.0.1:1/v1/desktop") << 3 << QStringLiteral("no sign-in token");
        QTest::newRow("plain ws to a remote host")
            << QStringLiteral("ws://backend.invalid/") << 2 << QStringLiteral("only to this computer");
        // The rule of the tray app's settings: the token belongs in the keychain, never in the URL.
        QTest::newRow("token in the url") << QStringLiteral("wss://backend.invalid/v1/desktop?token=abc") << 2
                                          << QStringLiteral("must not carry a token");
        QTest::newRow("api key in a loopback url") << QStringLiteral("ws://127.0.0.1:1/v1/desktop?api_key=abc") << 2
                                                   << QStringLiteral("must not carry a token");
        QTest::newRow("token in the fragment")
            << QStringLiteral("ws://127.0.0.1:1/v1/desktop#token=abc") << 2 << QStringLiteral("must not carry a token");
        QTest::newRow("not a websocket url")
            << QStringLiteral("https://backend.invalid/") << 2 << QStringLiteral("wss://");
    }

    void startupRefusals() {
        QFETCH(QString, backend);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        HeadlessApp app;
        app.start(backend, m_workspace, configHome(), {{QStringLiteral("ZEUS_DESKTOP_TOKEN"), QString()}});
        QVERIFY2(app.waitForExit(30000), qPrintable(app.logText()));
        QCOMPARE(app.process.exitCode(), exitCode);
        QVERIFY2(app.logText().contains(message), qPrintable(app.logText()));
    }

    // SPEC §7: without an agent it can use the run does not call itself ready, unless plain exec was asked for.
    void missingAgentProblem_data() {
        QTest::addColumn<QString>("hostAgent");
        QTest::addColumn<QString>("execMode");
        QTest::addColumn<bool>("remote");
        QTest::addColumn<QString>("imageTitle");  // "-": not inspected; "missing": no such image
        QTest::addColumn<QString>("problem");     // a part of the refusal; empty: none
        const QString offline = zeus::DiagnosticSections::offlineTestImageTitle();
        const QString sandbox = zeus::DiagnosticSections::sandboxImageTitle();
        QTest::newRow("no host agent, offline test image")
            << QString() << "agent" << false << offline << "is the offline test image, which has none";
        QTest::newRow("no host agent, custom image") << QString() << "agent" << false << "mine"
                                                     << "is not the Zeus sandbox image";
        QTest::newRow("no host agent, image missing") << QString() << "agent" << false << "missing"
                                                      << "no image";
        QTest::newRow("no host agent, not inspected") << QString() << "agent" << false << "-"
                                                      << "could not say";
        QTest::newRow("no host agent, the sandbox image carries one")
            << QString() << "agent" << false << sandbox << QString();
        QTest::newRow("host agent") << "/opt/zeus-sandbox-agent"
                                    << "agent" << false << offline << QString();
        QTest::newRow("exec mode asked for") << QString() << "exec" << false << offline << QString();
        QTest::newRow("remote engine: the fallback is said per session")
            << QString() << "agent" << true << offline << QString();
    }

    void missingAgentProblem() {
        QFETCH(QString, hostAgent);
        QFETCH(QString, execMode);
        QFETCH(bool, remote);
        QFETCH(QString, imageTitle);
        QFETCH(QString, problem);
        zeus::SandboxSetup setup = localSetup();
        setup.config.agentHostPath = hostAgent;
        setup.config.execMode = *zeus::execModeFromName(execMode);
        setup.config.engineRemote = remote;
        std::optional<zeus::ImageInspection> image;
        if (imageTitle == QLatin1String("missing")) {
            image = zeus::ImageInspection{};
            image->outcome = zeus::ImageInspection::Outcome::Missing;
        } else if (imageTitle != QLatin1String("-")) {
            image = presentImage(imageTitle);
        }
        const QString text = zeus::missingAgentProblem(setup, image);
        if (problem.isEmpty()) {
            QVERIFY2(text.isEmpty(), qPrintable(text));
            return;
        }
        QVERIFY(zeus::agentNeedsImageCheck(setup));
        QVERIFY2(text.contains(problem), qPrintable(text));
        // It names the fix.
        QVERIFY2(text.contains(QStringLiteral("--target zeus_sandbox_agent")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("--exec-mode exec")), qPrintable(text));
    }

    // What the console shows about a session (docs/headless.md): the path first, then the network and the image.
    void sessionNoticeLines() {
        zeus::SessionNoticeFacts facts;
        facts.sessionId = QStringLiteral("local");
        facts.execPath = QStringLiteral("agent 0.1.0");
        facts.cli = QStringLiteral("docker");
        QStringList errors;
        facts.policy = zeus::EgressPolicy::fromStrings(zeus::NetworkMode::Allowlist, QStringLiteral("dev"),
                                                       {QStringLiteral("fixture.test:8080")},
                                                       {QStringLiteral("github.com")}, {}, &errors);
        QVERIFY(errors.isEmpty());
        facts.image = QStringLiteral("some-image:1");
        facts.inspection = presentImage(zeus::DiagnosticSections::offlineTestImageTitle());
        QStringList lines = zeus::sessionNoticeLines(facts, true);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("session local: commands run through the sandbox agent 0.1.0 (one channel "
                                          "per session)"));
        QVERIFY2(lines[1].contains(QStringLiteral("network allowlist")) && lines[1].contains(QStringLiteral("dev"))
                     && lines[1].contains(QStringLiteral("fixture.test:8080"))
                     && lines[1].contains(QStringLiteral("denied github.com"))
                     && lines[1].contains(QStringLiteral("403")),
                 qPrintable(lines[1]));
        QVERIFY2(lines[2].contains(QStringLiteral("offline test image")), qPrintable(lines[2]));

        // The agent fell back: said with its reason, and an allowlist without the agent has no network.
        facts.execPath = QStringLiteral("exec: the agent could not start");
        lines = zeus::sessionNoticeLines(facts, false);
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines[0].contains(QStringLiteral("plain docker exec"))
                     && lines[0].contains(QStringLiteral("the agent could not start")),
                 qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith(QStringLiteral("session local: no network: the sandbox agent is not available")),
                 qPrintable(lines[1]));

        // Exec mode asked for; the hardened profile's network.
        facts.execPath = QStringLiteral("exec (forced)");
        facts.policy.mode = zeus::NetworkMode::None;
        facts.inspection = presentImage(zeus::DiagnosticSections::sandboxImageTitle());
        lines = zeus::sessionNoticeLines(facts, true);
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[0].contains(QStringLiteral("--exec-mode exec")), qPrintable(lines[0]));
        QCOMPARE(lines[1], QStringLiteral("session local: network none: the container has no network"));
        QVERIFY2(lines[2].contains(QStringLiteral("the Zeus sandbox image")), qPrintable(lines[2]));
    }

    // The app refuses to start without an agent it can use (exit 5, the fix named), and starts with
    // --exec-mode exec. A copy of the binary has no agent beside it; the offline test image has none either.
    void refusesWithoutAnAgent() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const QString lonely = m_root.filePath(uniqueId("lonely-"));
        QVERIFY(QDir().mkpath(lonely + QStringLiteral("/app")));
        const QString program = lonely + QStringLiteral("/app/zeus-desktop");
        QVERIFY(QFile::copy(QStringLiteral(ZEUS_APP_BINARY), program));
        {
            BackendServer server;
            QVERIFY(server.listen());
            HeadlessApp app;
            app.program = program;
            app.start(server.url(), m_workspace, configHome(), {{QStringLiteral("ZEUS_SANDBOX_AGENT"), QString()}});
            QVERIFY2(app.waitForExit(30000), qPrintable(app.logText()));
            QCOMPARE(app.process.exitCode(), 5);
            QVERIFY2(app.logText().contains(QStringLiteral("no sandbox agent to run commands through")),
                     qPrintable(app.logText()));
            QVERIFY2(app.logText().contains(QStringLiteral("--exec-mode exec")), qPrintable(app.logText()));
            QVERIFY2(server.ofType(QStringLiteral("hello")).isEmpty(), "it never said hello: not ready");
        }
        BackendServer server;
        QVERIFY(server.listen());
        HeadlessApp app;
        app.program = program;
        app.start(server.url(), m_workspace, configHome(), {{QStringLiteral("ZEUS_SANDBOX_AGENT"), QString()}},
                  {QStringLiteral("--exec-mode"), QStringLiteral("exec")});
        QVERIFY2(server.waitForType(QStringLiteral("hello"), 20000), qPrintable(app.logText()));
        const QString s = session();
        server.send(BackendServer::toolCall(QStringLiteral("plain1"), s, QStringLiteral("echo plain"), m_workspace));
        QVERIFY2(server.waitForResult(QStringLiteral("plain1"), 30000), qPrintable(app.logText()));
        QCOMPARE(firstResult(server, QStringLiteral("plain1")).value(QStringLiteral("output")).toString(),
                 QStringLiteral("plain\n"));
        QTRY_VERIFY2_WITH_TIMEOUT(app.outText().contains(QStringLiteral("session %1: commands run with a plain docker "
                                                                        "exec each (--exec-mode exec)")
                                                             .arg(s)),
                                  qPrintable(app.outText()), 5000);
        app.process.terminate();
        QVERIFY(app.waitForExit(30000));
    }

    void runsStreamsAndIsolates() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QJsonObject hello = rig->server.ofType(QStringLiteral("hello")).first();
        QCOMPARE(hello.value(QStringLiteral("runtime")).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("ready"));
        QCOMPARE(hello.value(QStringLiteral("workspaces"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("path"))
                     .toString(),
                 m_workspace);
        const QString s = session();
        rig->server.send(BackendServer::toolCall(
            QStringLiteral("run1"), s,
            QStringLiteral(
                "for i in 1 2 3; do echo line$i; sleep 0.2; done; cat /workspace/inside.txt; echo oops >&2; exit 4"),
            m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("run1"), 30000));
        const QJsonObject result = firstResult(rig->server, QStringLiteral("run1"));
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(result.value(QStringLiteral("exit_code")).toInt(), 4);
        bool contiguous = false;
        QCOMPARE(rig->server.streamed(QStringLiteral("run1"), QStringLiteral("stdout"), &contiguous),
                 QStringLiteral("line1\nline2\nline3\nvisible-inside\n"));
        QVERIFY(contiguous);
        QCOMPARE(rig->server.streamed(QStringLiteral("run1"), QStringLiteral("stderr")), QStringLiteral("oops\n"));
        // Streamed, not batched: the three sleeps produced more than one chunk.
        int chunks = 0;
        for (const QJsonObject& m : rig->server.ofType(QStringLiteral("tool_output"))) {
            chunks += m.value(QStringLiteral("call_id")).toString() == QLatin1String("run1") ? 1 : 0;
        }
        QVERIFY2(chunks >= 3, qPrintable(QString::number(chunks)));

        // Isolation: the canary beside the workspace is nowhere in the container.
        const QString canaryName = QFileInfo(m_canary).fileName();
        rig->server.send(BackendServer::toolCall(
            QStringLiteral("iso1"), s,
            QStringLiteral("cat '%1' 2>&1; find / -name '%2' 2>/dev/null; cat /workspace/../%2 2>&1; echo end")
                .arg(m_canary, canaryName),
            m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("iso1"), 30000));
        const QString output =
            firstResult(rig->server, QStringLiteral("iso1")).value(QStringLiteral("output")).toString();
        QVERIFY2(output.endsWith(QStringLiteral("end\n")), qPrintable(output));
        QVERIFY2(!output.contains(QStringLiteral("host-secret-canary")), qPrintable(output));
        QVERIFY2(!output.contains(QLatin1Char('/') + canaryName + QLatin1Char('\n')), qPrintable(output));

        // What runs is said on stdout once for the session: the agent, the hardened profile's network, the image.
        const QString said = rig->app.outText();
        QVERIFY2(said.contains(QStringLiteral("session %1: commands run through the sandbox agent ").arg(s)),
                 qPrintable(said));
        QVERIFY2(said.contains(QStringLiteral("session %1: network none").arg(s)), qPrintable(said));
        QVERIFY2(said.contains(QStringLiteral("session %1: image %2").arg(s, zeus::test::testImage())),
                 qPrintable(said));
        QCOMPARE(said.count(QStringLiteral("session %1: commands").arg(s)), 1);
    }

    // Command approval (SPEC §11) headless: nobody can be asked, so what would be asked is denied, and a refused
    // call never reaches the engine.
    void commandApproval() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const auto errorCode = [](const QJsonObject& result) {
            return result.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
        };
        const QString marker = m_workspace + QStringLiteral("/approval-marker");
        {
            auto rig = connectedRig({}, {QStringLiteral("--approval"), QStringLiteral("ask-all")});
            QVERIFY(rig);
            const QString s = session();
            rig->server.send(BackendServer::toolCall(QStringLiteral("ap1"), s,
                                                     QStringLiteral("touch /workspace/approval-marker"), m_workspace));
            QVERIFY(rig->server.waitForResult(QStringLiteral("ap1"), 20000));
            const QJsonObject result = firstResult(rig->server, QStringLiteral("ap1"));
            QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("error"));
            QCOMPARE(errorCode(result), QStringLiteral("approval_denied"));
            QVERIFY(!QFile::exists(marker));
            QVERIFY(containersOfSession(s).isEmpty());  // no container was even created
            for (const QJsonObject& m : rig->server.ofType(QStringLiteral("session_state"))) {
                QVERIFY(m.value(QStringLiteral("session_id")).toString() != s);
            }
            QVERIFY2(rig->app.logText().contains(QStringLiteral("zeus.approval")), qPrintable(rig->app.logText()));
        }
        {
            auto rig = connectedRig({}, {QStringLiteral("--approval"), QStringLiteral("ask-all"),
                                         QStringLiteral("--allow-command"), QStringLiteral("ls")});
            QVERIFY(rig);
            const QString s = session();
            rig->server.send(BackendServer::toolCall(QStringLiteral("ap2"), s, QStringLiteral("ls -la"), m_workspace));
            QVERIFY(rig->server.waitForResult(QStringLiteral("ap2"), 30000));
            const QJsonObject ran = firstResult(rig->server, QStringLiteral("ap2"));
            QCOMPARE(ran.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
            QVERIFY2(ran.value(QStringLiteral("output")).toString().contains(QStringLiteral("inside.txt")),
                     qPrintable(ran.value(QStringLiteral("output")).toString()));
            rig->server.send(
                BackendServer::toolCall(QStringLiteral("ap3"), s, QStringLiteral("ls && id"), m_workspace));
            QVERIFY(rig->server.waitForResult(QStringLiteral("ap3"), 20000));
            QCOMPARE(errorCode(firstResult(rig->server, QStringLiteral("ap3"))), QStringLiteral("approval_denied"));
        }
        {
            // A deny rule refuses in auto mode too; everything else runs without asking.
            auto rig = connectedRig({}, {QStringLiteral("--deny-command"), QStringLiteral("touch")});
            QVERIFY(rig);
            const QString s = session();
            rig->server.send(BackendServer::toolCall(QStringLiteral("ap4"), s,
                                                     QStringLiteral("echo hi; /bin/touch /workspace/approval-marker"),
                                                     m_workspace));
            QVERIFY(rig->server.waitForResult(QStringLiteral("ap4"), 20000));
            const QJsonObject denied = firstResult(rig->server, QStringLiteral("ap4"));
            QCOMPARE(errorCode(denied), QStringLiteral("approval_denied"));
            QVERIFY(denied.value(QStringLiteral("error"))
                        .toObject()
                        .value(QStringLiteral("message"))
                        .toString()
                        .contains(QStringLiteral("touch")));
            QVERIFY(!QFile::exists(marker));
            rig->server.send(BackendServer::toolCall(QStringLiteral("ap5"), s, QStringLiteral("echo hi"), m_workspace));
            QVERIFY(rig->server.waitForResult(QStringLiteral("ap5"), 30000));
            QCOMPARE(firstResult(rig->server, QStringLiteral("ap5")).value(QStringLiteral("output")).toString(),
                     QStringLiteral("hi\n"));
        }
    }

    void timeoutAndCancel() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        QElapsedTimer clock;
        clock.start();
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("to1"), s, QStringLiteral("echo go; sleep 30"), m_workspace, 1));
        QVERIFY(rig->server.waitForResult(QStringLiteral("to1"), 20000));
        QCOMPARE(firstResult(rig->server, QStringLiteral("to1")).value(QStringLiteral("status")).toString(),
                 QStringLiteral("timeout"));
        QVERIFY2(clock.elapsed() < 15000, qPrintable(QString::number(clock.elapsed())));

        rig->server.send(
            BackendServer::toolCall(QStringLiteral("ca1"), s, QStringLiteral("echo go; sleep 30"), m_workspace));
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("tool_output")
                       && m.value(QStringLiteral("call_id")).toString() == QLatin1String("ca1");
            },
            20000));
        clock.restart();
        rig->server.send(
            BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), QStringLiteral("ca1")));
        QVERIFY(rig->server.waitForResult(QStringLiteral("ca1"), 15000));
        QCOMPARE(firstResult(rig->server, QStringLiteral("ca1")).value(QStringLiteral("status")).toString(),
                 QStringLiteral("cancelled"));
        // Nothing of either command is left in the container.
        rig->server.send(BackendServer::toolCall(
            QStringLiteral("ps1"), s, QStringLiteral("ps -o args | grep -c '[s]leep 30'; true"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("ps1"), 20000));
        QCOMPARE(firstResult(rig->server, QStringLiteral("ps1")).value(QStringLiteral("output")).toString().trimmed(),
                 QStringLiteral("0"));
    }

    void sessionEndRemovesTheContainer() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        rig->server.send(BackendServer::toolCall(QStringLiteral("se1"), s, QStringLiteral("true"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("se1"), 30000));
        QCOMPARE(containersOfSession(s).size(), 1);
        const int before = int(rig->server.messages.size());
        rig->server.send(BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), s));
        QVERIFY(rig->server.waitFor(
            [s](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("session_state")
                       && m.value(QStringLiteral("session_id")).toString() == s
                       && m.value(QStringLiteral("state")).toString() == QLatin1String("stopped")
                       && m.value(QStringLiteral("container")).isNull();
            },
            10000, before));
        QVERIFY(QTest::qWaitFor([&] { return containersOfSession(s).isEmpty(); }, 15000));
    }

    void resultArrivesOnceAfterTheBackendRestarts() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        rig->server.send(BackendServer::toolCall(QStringLiteral("rc1"), s,
                                                 QStringLiteral("echo before; sleep 3; echo after"), m_workspace));
        QVERIFY(
            rig->server.waitFor([](const QJsonObject& m) { return typeOf(m) == QLatin1String("tool_output"); }, 30000));
        const quint16 port = rig->server.port();
        rig->server.close();  // killed mid-command
        QTest::qWait(4000);   // the command finishes while the backend is away
        rig->server.messages.clear();
        QVERIFY(rig->server.listen(port));
        QVERIFY(rig->server.waitForResult(QStringLiteral("rc1"), 15000));
        const QJsonObject hello = rig->server.ofType(QStringLiteral("hello")).value(0);
        QVERIFY(hello.value(QStringLiteral("pending")).toArray().contains(QStringLiteral("rc1")));
        QTest::qWait(1000);  // anything duplicated would have arrived by now
        const QList<QJsonObject> results = rig->server.resultsFor(QStringLiteral("rc1"));
        QCOMPARE(results.size(), 1);
        QCOMPARE(results.first().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(results.first().value(QStringLiteral("output")).toString(), QStringLiteral("before\nafter\n"));
    }

    void duplicateCallIdRunsOnce() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        const QString counter = uniqueId("count-");
        const QJsonObject call = BackendServer::toolCall(
            QStringLiteral("dup1"), s, QStringLiteral("echo ran >> /workspace/%1; sleep 1").arg(counter), m_workspace);
        rig->server.send(call);
        rig->server.send(call);
        QVERIFY(rig->server.waitForResult(QStringLiteral("dup1"), 30000));
        rig->server.send(call);  // after the ack: refused with an error, not run
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("error")
                       && m.value(QStringLiteral("call_id")).toString() == QLatin1String("dup1");
            },
            10000));
        QTest::qWait(1500);
        QCOMPARE(rig->server.resultsFor(QStringLiteral("dup1")).size(), 1);
        QFile file(m_workspace + QLatin1Char('/') + counter);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("ran\n"));
    }

    void unapprovedDirectoryAndMalformedJson() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        rig->server.send(BackendServer::toolCall(QStringLiteral("un1"), s, QStringLiteral("ls"), m_root.path()));
        QVERIFY(rig->server.waitForResult(QStringLiteral("un1"), 10000));
        QCOMPARE(firstResult(rig->server, QStringLiteral("un1"))
                     .value(QStringLiteral("error"))
                     .toObject()
                     .value(QStringLiteral("code"))
                     .toString(),
                 QStringLiteral("workspace_not_approved"));
        QVERIFY(containersOfSession(s).isEmpty());

        rig->server.sendText(QStringLiteral("{\"type\": \"tool_call\", oops"));
        QVERIFY(rig->server.waitForType(QStringLiteral("error"), 10000));
        QCOMPARE(rig->server.ofType(QStringLiteral("error")).first().value(QStringLiteral("code")).toString(),
                 QStringLiteral("invalid_message"));
        rig->server.send(BackendServer::toolCall(QStringLiteral("ok1"), s, QStringLiteral("echo fine"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("ok1"), 30000));
        QCOMPARE(firstResult(rig->server, QStringLiteral("ok1")).value(QStringLiteral("output")).toString(),
                 QStringLiteral("fine\n"));
        QCOMPARE(rig->server.connections(), 1);
    }

    void concurrentCallsNeverMix() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        rig->server.send(BackendServer::toolCall(QStringLiteral("mixA"), s,
                                                 QStringLiteral("for i in 1 2 3 4 5; do echo A$i; sleep 0.1; done"),
                                                 m_workspace));
        rig->server.send(BackendServer::toolCall(QStringLiteral("mixB"), s,
                                                 QStringLiteral("for i in 1 2 3 4 5; do echo B$i >&2; sleep 0.1; done"),
                                                 m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("mixA"), 30000));
        QVERIFY(rig->server.waitForResult(QStringLiteral("mixB"), 30000));
        bool contiguousA = false;
        bool contiguousB = false;
        QCOMPARE(rig->server.streamed(QStringLiteral("mixA"), QString(), &contiguousA),
                 QStringLiteral("A1\nA2\nA3\nA4\nA5\n"));
        QCOMPARE(rig->server.streamed(QStringLiteral("mixB"), QString(), &contiguousB),
                 QStringLiteral("B1\nB2\nB3\nB4\nB5\n"));
        QVERIFY(contiguousA && contiguousB);
        QCOMPARE(firstResult(rig->server, QStringLiteral("mixB")).value(QStringLiteral("output")).toString(),
                 QStringLiteral("B1\nB2\nB3\nB4\nB5\n"));
    }

    // SPEC §3 "Bounded, and queued rather than refused": a burst of 40 calls in two sessions, past both running
    // limits (4 per session, 8 in all). Every call ends ok with its own output; the calls past the limits are
    // `queued` with their places (1, 2, ... per session) and then `running`, in the order they arrived.
    void burstIsQueuedAndEveryCallRunsInOrder_data() { engineRows(); }
    void burstIsQueuedAndEveryCallRunsInOrder() {
        QFETCH(QString, engine);
        ZEUS_REQUIRE_ENGINE(engine);
        auto rig = connectedRig({}, {}, engine);
        QVERIFY(rig);
        const QStringList sessions{session(), session()};
        QHash<QString, QStringList> callsOf;
        for (int i = 0; i < 20; ++i) {
            for (const QString& s : sessions) {
                const QString callId = QStringLiteral("burst-%1-%2").arg(sessions.indexOf(s)).arg(i);
                callsOf[s] << callId;
                rig->server.send(
                    BackendServer::toolCall(callId, s, QStringLiteral("sleep 0.2; echo ") + callId, m_workspace));
            }
        }
        for (const QString& s : sessions) {
            for (const QString& callId : std::as_const(callsOf[s])) {
                QVERIFY2(rig->server.waitForResult(callId, 120000), qPrintable(rig->app.logText().right(2000)));
                const QJsonObject result = firstResult(rig->server, callId);
                QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
                QCOMPARE(result.value(QStringLiteral("output")).toString(), callId + u'\n');
            }
        }
        for (const QString& s : sessions) {
            const QStringList calls = callsOf.value(s);
            QStringList queued;
            QList<int> positions;
            QStringList running;
            for (const QJsonObject& m : rig->server.ofType(QStringLiteral("call_state"))) {
                const QString callId = m.value(QStringLiteral("call_id")).toString();
                if (!calls.contains(callId)) {
                    continue;
                }
                if (m.value(QStringLiteral("state")).toString() == QLatin1String("queued")) {
                    queued << callId;
                    positions << m.value(QStringLiteral("position")).toInt();
                } else if (m.value(QStringLiteral("state")).toString() == QLatin1String("running")) {
                    running << callId;
                }
            }
            // The first 4 ran at once; the others waited, and started in the order they came.
            QCOMPARE(queued, calls.mid(4));
            QCOMPARE(running, calls.mid(4));
            QCOMPARE(positions.first(), 1);
            QVERIFY(std::all_of(positions.cbegin(), positions.cend(), [](int p) { return p >= 1 && p <= 16; }));
        }
        QCOMPARE(rig->server.ofType(QStringLiteral("tool_result")).size(), 40);
    }

    // SPEC §3's bounds through the real backend path: while one session has 4 calls running and 64 waiting (the
    // per-session bound), its next call is refused with `busy` naming the bound; another session's call still runs
    // at once (its session has a slot and there are slots in all: no starving); a queued call cancelled ends
    // `cancelled` without running; the session's end takes the rest out, each with exactly one result.
    void queueBoundsCancelAndFairness_data() { engineRows(); }
    void queueBoundsCancelAndFairness() {
        QFETCH(QString, engine);
        ZEUS_REQUIRE_ENGINE(engine);
        auto rig = connectedRig({}, {}, engine);
        QVERIFY(rig);
        const QString busy = session();
        const QString other = session();
        QStringList calls;
        for (int i = 0; i < 4 + 64; ++i) {
            calls << QStringLiteral("full-%1").arg(i);
            rig->server.send(BackendServer::toolCall(calls.last(), busy, QStringLiteral("sleep 60"), m_workspace));
        }
        rig->server.send(BackendServer::toolCall(QStringLiteral("over"), busy, QStringLiteral("true"), m_workspace));
        QVERIFY2(rig->server.waitForResult(QStringLiteral("over"), 60000), qPrintable(rig->app.logText().right(2000)));
        const QJsonObject over = firstResult(rig->server, QStringLiteral("over"));
        const QJsonObject error = over.value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("busy"));
        QVERIFY2(error.value(QStringLiteral("message")).toString().contains(QLatin1String("per-session queue bound")),
                 qPrintable(error.value(QStringLiteral("message")).toString()));

        rig->server.send(
            BackendServer::toolCall(QStringLiteral("fair"), other, QStringLiteral("echo fair"), m_workspace));
        QVERIFY2(rig->server.waitForResult(QStringLiteral("fair"), 60000), qPrintable(rig->app.logText().right(2000)));
        QCOMPARE(firstResult(rig->server, QStringLiteral("fair")).value(QStringLiteral("output")).toString(),
                 QStringLiteral("fair\n"));

        rig->server.send(BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), calls.at(10)));
        QVERIFY(rig->server.waitForResult(calls.at(10), 10000));
        const QJsonObject cancelled = firstResult(rig->server, calls.at(10));
        QCOMPARE(cancelled.value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
        QVERIFY(cancelled.value(QStringLiteral("exit_code")).isNull());

        rig->server.send(BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), busy));
        for (const QString& callId : std::as_const(calls)) {
            QVERIFY2(rig->server.waitForResult(callId, 60000), qPrintable(callId));
            QCOMPARE(rig->server.resultsFor(callId).size(), 1);
        }
        QVERIFY(QTest::qWaitFor([&] { return containersOfSession(busy, engine).isEmpty(); }, 30000));
    }

    // The engine dies mid-burst and comes back (SPEC §3): Docker's is the test's private dockerd, killed with SIGKILL;
    // Podman's is the test's own door to the CLI, failing while the app's Podman CLIs and the session's conmon monitor
    // are killed (PodmanOutage). Through the real backend path the running calls end with container_failed naming the
    // cause, the waiting ones are not failed against the dead engine but run once it is back, every call gets exactly
    // one result, and no container of the app's is left on the engine but the session's live one.
    void engineRestartMidBurst_data() {
        QTest::addColumn<QString>("engine");
        QTest::addColumn<QString>("causeWords");
        QTest::newRow("docker") << QStringLiteral("docker") << QStringLiteral("Docker daemon");
        QTest::newRow("podman") << QStringLiteral("podman") << QString(zeus::test::PodmanOutage::kWords);
    }
    void engineRestartMidBurst() {
        QFETCH(QString, engine);
        QFETCH(QString, causeWords);
        ZEUS_REQUIRE_ENGINE(engine);  // the shared engine holds the test image
        std::unique_ptr<zeus::test::PrivateDockerd> dockerd;
        zeus::test::PodmanOutage podman;
        QList<QPair<QString, QString>> environment;
        if (engine == QLatin1String("docker")) {
            ZEUS_REQUIRE_PRIVATE_DOCKERD();
            dockerd = std::make_unique<zeus::test::PrivateDockerd>();
            QVERIFY2(dockerd->start(), "the private dockerd answers");
            QVERIFY(dockerd->loadImageFromSharedEngine(zeus::test::testImage()));
            environment << qMakePair(QStringLiteral("DOCKER_HOST"), dockerd->host());
        } else {
            QVERIFY2(podman.setUp(), "the test's door to Podman");
            environment << qMakePair(QStringLiteral("PATH"), podman.folder() + u':' + qEnvironmentVariable("PATH"));
        }
        const auto restore = qScopeGuard([&] { podman.restore(); });
        auto rig = connectedRig(environment, {}, engine);
        QVERIFY(rig);
        const QString s = session();
        QStringList running;
        QStringList waiting;
        for (int i = 0; i < 4; ++i) {
            running << QStringLiteral("die-%1").arg(i);
            rig->server.send(
                BackendServer::toolCall(running.last(), s, QStringLiteral("echo started; sleep 100"), m_workspace));
        }
        for (int i = 0; i < 4; ++i) {
            waiting << QStringLiteral("wait-%1").arg(i);
            rig->server.send(
                BackendServer::toolCall(waiting.last(), s, QStringLiteral("echo ") + waiting.last(), m_workspace));
        }
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return std::all_of(running.cbegin(), running.cend(), [&](const QString& id) {
                             return rig->server.streamed(id, QString()).contains(QLatin1String("started"));
                         });
                     },
                     60000),
                 qPrintable(rig->app.logText().right(2000)));

        if (dockerd) {
            dockerd->crash();
        } else {
            podman.crash(containersOfSession(s, engine), pid_t(rig->app.process.processId()));
        }
        for (const QString& id : std::as_const(running)) {
            QVERIFY2(rig->server.waitForResult(id, 30000), qPrintable(id));
            const QJsonObject error = firstResult(rig->server, id).value(QStringLiteral("error")).toObject();
            QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("container_failed"));
            QVERIFY2(error.value(QStringLiteral("message")).toString().contains(causeWords),
                     qPrintable(error.value(QStringLiteral("message")).toString()));
        }
        QTest::qWait(3000);
        for (const QString& id : std::as_const(waiting)) {
            QVERIFY2(rig->server.resultsFor(id).isEmpty(), qPrintable(firstResult(rig->server, id)
                                                                          .value(QStringLiteral("error"))
                                                                          .toObject()
                                                                          .value(QStringLiteral("message"))
                                                                          .toString()));
        }

        if (dockerd) {
            QVERIFY2(dockerd->start(), "the private dockerd restarts");
        } else {
            podman.restore();
        }
        for (const QString& id : std::as_const(waiting)) {
            QVERIFY2(rig->server.waitForResult(id, 120000), qPrintable(rig->app.logText().right(3000)));
            const QJsonObject result = firstResult(rig->server, id);
            QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
            QCOMPARE(result.value(QStringLiteral("output")).toString(), id + u'\n');
        }
        for (const QString& id : running + waiting) {
            QCOMPARE(rig->server.resultsFor(id).size(), 1);
        }
        const auto onEngine = [&] {
            const QStringList host = dockerd ? QStringList{QStringLiteral("-H"), dockerd->host()} : QStringList();
            return zeus::test::runProgram(engine, host
                                                      + QStringList{QStringLiteral("ps"), QStringLiteral("-aq"),
                                                                    QStringLiteral("--filter"),
                                                                    QStringLiteral("label=zeus.desktop.session=") + s})
                .out.trimmed()
                .split('\n')
                .size();
        };
        QVERIFY2(QTest::qWaitFor([&] { return onEngine() == 1; }, 60000), "only the session's live container is left");
    }

    void oversizedFrameReconnectsAndLosesNothing() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        rig->server.send(BackendServer::toolCall(QStringLiteral("big1"), s,
                                                 QStringLiteral("echo first; sleep 2; echo second"), m_workspace));
        QVERIFY(
            rig->server.waitFor([](const QJsonObject& m) { return typeOf(m) == QLatin1String("tool_output"); }, 30000));
        // Over the 1 MiB inbound limit: the app closes with 1009 and reconnects; the call runs on.
        rig->server.sendText(QString(2 * 1024 * 1024, QLatin1Char('x')));
        QVERIFY2(QTest::qWaitFor([&] { return rig->server.connections() >= 2; }, 15000),
                 qPrintable(rig->app.logText()));
        QVERIFY(rig->server.waitForResult(QStringLiteral("big1"), 20000));
        QTest::qWait(500);
        const QList<QJsonObject> results = rig->server.resultsFor(QStringLiteral("big1"));
        QCOMPARE(results.size(), 1);
        QCOMPARE(results.first().value(QStringLiteral("output")).toString(), QStringLiteral("first\nsecond\n"));
        QVERIFY2(rig->app.logText().contains(QStringLiteral("1009")), qPrintable(rig->app.logText()));
    }

    void authFailedWithoutRetryStorm() {
        RawBackend backend(401);
        QVERIFY(backend.listen());
        HeadlessApp app;
        app.start(backend.url(), m_workspace, configHome(),
                  {{QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("wrong-token-7f3a")}});
        QVERIFY2(app.waitForExit(20000), qPrintable(app.logText()));
        QCOMPARE(app.process.exitCode(), 4);
        QCOMPARE(backend.connections, 1);
        QVERIFY2(!app.logText().contains(QStringLiteral("wrong-token-7f3a")), "the token must never be logged");
    }

    void blackHoledBackendIsDetectedByTheHeartbeat() {
        RawBackend backend;
        QVERIFY(backend.listen());
        HeadlessApp app;
        app.start(backend.url(), m_workspace, configHome(),
                  {{QStringLiteral("ZEUS_TEST_HEARTBEAT_MS"), QStringLiteral("300")}});
        // Connected once, then the missing pongs end the connection and the app tries again.
        QVERIFY2(QTest::qWaitFor([&] { return backend.connections >= 2; }, 20000), qPrintable(app.logText()));
        QVERIFY2(app.logText().contains(QStringLiteral("no answer to ping")), qPrintable(app.logText()));
        app.process.terminate();
        QVERIFY(app.waitForExit(15000));
        QCOMPARE(app.process.exitCode(), 0);
    }

    void sigtermMidCommandCleansUp() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        auto rig = connectedRig();
        QVERIFY(rig);
        const QString s = session();
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("st1"), s, QStringLiteral("echo go; sleep 60"), m_workspace));
        QVERIFY(
            rig->server.waitFor([](const QJsonObject& m) { return typeOf(m) == QLatin1String("tool_output"); }, 30000));
        QCOMPARE(containersOfSession(s).size(), 1);
        QElapsedTimer clock;
        clock.start();
        rig->app.process.terminate();  // SIGTERM
        QVERIFY2(rig->app.waitForExit(20000), qPrintable(rig->app.logText()));
        QCOMPARE(rig->app.process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(rig->app.process.exitCode(), 0);
        QVERIFY(rig->server.waitForResult(QStringLiteral("st1"), 2000));
        QCOMPARE(firstResult(rig->server, QStringLiteral("st1")).value(QStringLiteral("status")).toString(),
                 QStringLiteral("cancelled"));
        QVERIFY(containersOfSession(s).isEmpty());
        qInfo() << "SIGTERM to exit:" << clock.elapsed() << "ms";
    }
};

QTEST_GUILESS_MAIN(TestHeadless)
#include "tst_headless.moc"
