// The tray app's two doors into one SessionManager (SPEC §3 "own namespace", §12 "stdio"): the backend's
// ToolDispatcher and the MCP door (an McpLocalBackend with the local-mcp- prefix and a ToolDispatcher that takes
// only that namespace), as GuiMcpHost builds them. The backend plays the attacker: it names the MCP session, takes
// the MCP call's id, ends and cancels what is not its own, and must touch nothing and hear nothing of it. The
// container CLI is a fake script (`run` prints an id, `exec` runs on the host), as in tst_tooldispatcher.
#include "../../e2e/backendserver.h"
#include "backend/backendconnection.h"
#include "backend/tooldispatcher.h"
#include "engine/dockerruntime.h"
#include "mcp/mcpcodec.h"
#include "mcp/mcplocalbackend.h"
#include "sandbox/sessionmanager.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace zeus;
using zeus::test::BackendServer;

namespace {

const char kFakeEngine[] =
    "#!/bin/sh\n"
    "cmd=$1; shift\n"
    "case \"$cmd\" in\n"
    "  run) echo fakecontainer0123456789; exit 0 ;;\n"
    "  exec) [ \"$1\" = -i ] && shift; shift\n"
    "    case \"$*\" in *random/boot_id*) echo not-this-kernel; echo '1 1'; exit 0 ;; esac\n"
    "    exec \"$@\" ;;\n"
    "  rm) exit 0 ;;\n"
    "  inspect) echo '[{\"Id\":\"fakecontainer0123456789\",\"Name\":\"/f\",\"State\":{\"Status\":\"running\","
    "\"Running\":true},\"Config\":{\"Labels\":{}}}]'; exit 0 ;;\n"
    "  ps) exit 0 ;;\n"
    "  image) exit 0 ;;\n"
    "esac\n"
    "exit 1\n";

BackendConnection::Settings fastSettings() {
    BackendConnection::Settings s;
    s.pingIntervalMs = 200;
    s.pongTimeoutMs = 1000;
    s.handshakeTimeoutMs = 2000;
    s.reconnect.initialDelayMs = 50;
    s.reconnect.maxDelayMs = 200;
    s.reconnect.jitter = 0;
    return s;
}

RuntimeReport readyReport() {
    RuntimeReport report;
    report.kind = QStringLiteral("docker");
    report.version = QStringLiteral("20.10");
    report.ready = true;
    return report;
}

QByteArray mcpRequest(int id, const QString& method, const QJsonObject& params = {}) {
    return McpCodec::toBytes(McpCodec::makeRequest(QJsonValue(id), method, params));
}

QString typeOf(const QJsonObject& m) {
    return m.value(QStringLiteral("type")).toString();
}

}  // namespace

class TestMcpNamespaces : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_engine;
    QString m_workspace;

    // The tray's parts: one manager, the backend's dispatcher and the MCP door.
    struct Tray {
        std::unique_ptr<SessionManager> manager;
        BackendServer remote;
        BackendConnection remoteConnection;
        std::unique_ptr<ToolDispatcher> remoteDispatcher;
        McpLocalBackend mcp;
        BackendConnection doorConnection;
        std::unique_ptr<ToolDispatcher> door;
        QList<QJsonObject> mcpOut;
    };

    std::unique_ptr<Tray> makeTray() {
        auto tray = std::make_unique<Tray>();
        SandboxConfig config;
        config.image = QStringLiteral("fake:image");
        config.ownerId = QStringLiteral("owner-test");
        config.killGraceMs = 300;
        tray->manager =
            std::make_unique<SessionManager>(ContainerRuntime::create(RuntimeKind::Docker, m_engine), config);

        if (!tray->remote.listen()) {
            return nullptr;
        }
        tray->remoteConnection.setSettings(fastSettings());
        tray->remoteDispatcher = std::make_unique<ToolDispatcher>(&tray->remoteConnection);
        tray->remoteDispatcher->setApprovedWorkspaces({m_workspace});
        tray->remoteDispatcher->setSessionManager(tray->manager.get());
        tray->remoteDispatcher->setRuntimeReport(readyReport());
        tray->remoteConnection.setUrl(QUrl(tray->remote.url()));
        tray->remoteConnection.setToken(QStringLiteral("t"));
        tray->remoteConnection.start();

        tray->mcp.setIdPrefix(ToolDispatcher::mcpSessionPrefix());
        tray->mcp.setDefaultWorkingDirectory(m_workspace);
        if (!tray->mcp.listen()) {
            return nullptr;
        }
        QObject::connect(&tray->mcp, &McpLocalBackend::messageOut, &tray->mcp, [raw = tray.get()](const QByteArray& m) {
            raw->mcpOut << QJsonDocument::fromJson(m).object();
        });
        tray->doorConnection.setSettings(fastSettings());
        tray->door = std::make_unique<ToolDispatcher>(&tray->doorConnection);
        tray->door->setIdNamespace(ToolDispatcher::mcpSessionPrefix());
        tray->door->setApprovedWorkspaces({m_workspace});
        tray->door->setSessionManager(tray->manager.get());
        tray->door->setRuntimeReport(readyReport());
        tray->doorConnection.setUrl(tray->mcp.url());
        tray->doorConnection.setToken(tray->mcp.token());
        tray->doorConnection.start();
        if (!tray->remote.waitForType(QStringLiteral("hello"), 5000)
            || !QTest::qWaitFor([&] { return tray->mcp.isCoreConnected(); }, 5000)) {
            return nullptr;
        }
        tray->mcp.handleMessage(mcpRequest(
            0, QStringLiteral("initialize"),
            QJsonObject{
                {QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                {QStringLiteral("capabilities"), QJsonObject{}},
                {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                                           {QStringLiteral("version"), QStringLiteral("1")}}}}));
        return tray;
    }

    static QByteArray runCommand(int id, const QString& command, const QString& session = {}) {
        QJsonObject arguments{{QStringLiteral("command"), command}};
        if (!session.isEmpty()) {
            arguments.insert(QStringLiteral("session"), session);
        }
        return mcpRequest(id, QStringLiteral("tools/call"),
                          QJsonObject{{QStringLiteral("name"), QStringLiteral("run_command")},
                                      {QStringLiteral("arguments"), arguments}});
    }

    static bool refusedAsInvalid(BackendServer& server, const QString& callId, int from) {
        return server.waitFor(
            [callId](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("error") && m.value(QStringLiteral("call_id")).toString() == callId
                       && m.value(QStringLiteral("code")).toString() == QLatin1String("invalid_message");
            },
            5000, from);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_engine = m_dir.filePath(QStringLiteral("fake-docker"));
        QFile engine(m_engine);
        QVERIFY(engine.open(QIODevice::WriteOnly));
        engine.write(kFakeEngine);
        engine.close();
        QVERIFY(engine.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("work")));
        m_workspace = QDir(m_dir.filePath(QStringLiteral("work"))).canonicalPath();
    }

    void coreSessionIdsStayInTheNamespace_data() {
        QTest::addColumn<QString>("given");
        QTest::addColumn<QString>("core");
        QTest::newRow("own id") << QStringLiteral("mcp-1a2b") << QStringLiteral("local-mcp-1a2b");
        QTest::newRow("a client's name") << QStringLiteral("build") << QStringLiteral("local-mcp-build");
        QTest::newRow("the console's") << QStringLiteral("local-console") << QStringLiteral("local-mcp-local-console");
        QTest::newRow("a backend's") << QStringLiteral("backend-s1") << QStringLiteral("local-mcp-backend-s1");
        QTest::newRow("inside already") << QStringLiteral("local-mcp-x") << QStringLiteral("local-mcp-x");
        QTest::newRow("other case") << QStringLiteral("LOCAL-MCP-x") << QStringLiteral("local-mcp-LOCAL-MCP-x");
    }

    void coreSessionIdsStayInTheNamespace() {
        QFETCH(QString, given);
        QFETCH(QString, core);
        McpLocalBackend prefixed;
        prefixed.setIdPrefix(ToolDispatcher::mcpSessionPrefix());
        QCOMPARE(prefixed.coreSessionId(given), core);
        McpLocalBackend standalone;  // a process of its own: ids go as they are
        QCOMPARE(standalone.coreSessionId(given), given);
    }

    // The attack: a backend that learnt (or guessed) the MCP session's id and call id.
    void backendCannotReachAnMcpSession() {
        auto tray = makeTray();
        QVERIFY(tray);
        tray->mcp.handleMessage(runCommand(1, QStringLiteral("echo mcp-started; sleep 30")));
        const QString mcpSession = tray->mcp.coreSessionId(tray->mcp.sessionId());
        QVERIFY(mcpSession.startsWith(QLatin1String("local-mcp-")));
        QTRY_COMPARE_WITH_TIMEOUT(tray->door->runningCalls(), 1, 10000);
        const QString mcpCall = tray->door->runningCallIds().constFirst();
        QVERIFY(mcpCall.startsWith(QLatin1String("local-mcp-")));
        QTRY_COMPARE_WITH_TIMEOUT(tray->manager->sessionState(mcpSession), SessionState::Running, 10000);
        const QString container = tray->manager->containerId(mcpSession);

        QSignalSpy remoteStarted(tray->remoteDispatcher.get(), &ToolDispatcher::callStarted);
        int from = int(tray->remote.messages.size());
        // Its session, its call id, its call id in the backend's own session.
        tray->remote.send(
            BackendServer::toolCall(QStringLiteral("evil-1"), mcpSession, QStringLiteral("echo x"), m_workspace));
        QVERIFY(refusedAsInvalid(tray->remote, QStringLiteral("evil-1"), from));
        tray->remote.send(
            BackendServer::toolCall(mcpCall, QStringLiteral("backend-s1"), QStringLiteral("echo x"), m_workspace));
        QVERIFY(refusedAsInvalid(tray->remote, mcpCall, from));
        QCOMPARE(remoteStarted.size(), 0);
        QVERIFY(tray->remote.resultsFor(QStringLiteral("evil-1")).isEmpty());
        QVERIFY(tray->remote.resultsFor(mcpCall).isEmpty());

        // Ending or cancelling what is not its own changes nothing.
        from = int(tray->remote.messages.size());
        tray->remote.send(
            BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), mcpSession));
        QVERIFY(tray->remote.waitForType(QStringLiteral("error"), 5000, from));
        from = int(tray->remote.messages.size());
        tray->remote.send(BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), mcpCall));
        QVERIFY(tray->remote.waitForType(QStringLiteral("error"), 5000, from));
        QTest::qWait(300);
        QCOMPARE(tray->manager->sessionState(mcpSession), SessionState::Running);
        QCOMPARE(tray->manager->containerId(mcpSession), container);
        QCOMPARE(tray->door->runningCallIds(), QStringList{mcpCall});

        // Nothing of the MCP session reaches the backend, now or after a reconnect.
        const int before = int(tray->remote.messages.size());
        tray->remote.dropClient();
        QVERIFY(tray->remote.waitForType(QStringLiteral("hello"), 5000, before));
        QTest::qWait(300);
        for (const QJsonObject& m : std::as_const(tray->remote.messages)) {
            const QByteArray text = QJsonDocument(m).toJson(QJsonDocument::Compact);
            QVERIFY2(!text.contains(mcpSession.toUtf8()) || typeOf(m) == QLatin1String("error"), text.constData());
            QVERIFY2(!text.contains("mcp-started"), text.constData());
            QVERIFY2(typeOf(m) != QLatin1String("tool_result") || m.value(QStringLiteral("call_id")) != mcpCall,
                     text.constData());
        }
        tray->mcp.cancelAll();
        QTRY_COMPARE_WITH_TIMEOUT(tray->door->runningCalls(), 0, 10000);
    }

    // A client naming the console's session (or a backend's) gets a session inside its own namespace.
    void mcpClientCannotNameAnotherNamespace() {
        auto tray = makeTray();
        QVERIFY(tray);
        QSignalSpy doorStarted(tray->door.get(), &ToolDispatcher::callStarted);
        tray->mcp.handleMessage(runCommand(1, QStringLiteral("echo named"), QStringLiteral("local-console")));
        QVERIFY(doorStarted.wait(10000));
        QCOMPARE(doorStarted.first().at(1).toString(), QStringLiteral("local-mcp-local-console"));
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(tray->mcpOut.cbegin(), tray->mcpOut.cend(),
                        [](const QJsonObject& m) { return m.value(QStringLiteral("id")).toInt() == 1; }),
            10000);
        QVERIFY(!tray->manager->sessionIds().contains(QStringLiteral("local-console")));
        QVERIFY(!tray->manager->sessionIds().contains(QStringLiteral("local-mcp-mcp-")));
    }

    // The door itself takes nothing outside its namespace, whoever sends it (defence in depth: its only peer is
    // the in-process McpLocalBackend).
    void doorRefusesOtherNamespaces_data() {
        QTest::addColumn<QString>("callId");
        QTest::addColumn<QString>("sessionId");
        QTest::addColumn<bool>("runs");
        QTest::newRow("a backend's session") << QStringLiteral("local-mcp-c1") << QStringLiteral("backend-s1") << false;
        QTest::newRow("the console's session")
            << QStringLiteral("local-mcp-c2") << QStringLiteral("local-console") << false;
        QTest::newRow("another case") << QStringLiteral("local-mcp-c3") << QStringLiteral("LOCAL-MCP-s") << false;
        QTest::newRow("a backend's call id") << QStringLiteral("c4") << QStringLiteral("local-mcp-s") << false;
        QTest::newRow("its own") << QStringLiteral("local-mcp-c5") << QStringLiteral("local-mcp-s") << true;
    }

    void doorRefusesOtherNamespaces() {
        QFETCH(QString, callId);
        QFETCH(QString, sessionId);
        QFETCH(bool, runs);
        BackendServer server;
        QVERIFY(server.listen());
        BackendConnection connection;
        connection.setSettings(fastSettings());
        ToolDispatcher door(&connection);
        door.setIdNamespace(ToolDispatcher::mcpSessionPrefix());
        door.setApprovedWorkspaces({m_workspace});
        SandboxConfig config;
        config.image = QStringLiteral("fake:image");
        config.ownerId = QStringLiteral("owner-test");
        SessionManager manager(ContainerRuntime::create(RuntimeKind::Docker, m_engine), config);
        door.setSessionManager(&manager);
        door.setRuntimeReport(readyReport());
        connection.setUrl(QUrl(server.url()));
        connection.setToken(QStringLiteral("t"));
        connection.start();
        QVERIFY(server.waitForType(QStringLiteral("hello"), 5000));
        server.send(BackendServer::toolCall(callId, sessionId, QStringLiteral("echo ran"), m_workspace));
        if (runs) {
            QVERIFY(server.waitForResult(callId, 10000));
            QCOMPARE(server.resultsFor(callId).constFirst().value(QStringLiteral("status")).toString(),
                     QStringLiteral("ok"));
        } else {
            QVERIFY(refusedAsInvalid(server, callId, 0));
            QTest::qWait(200);
            QVERIFY(server.resultsFor(callId).isEmpty());
            QVERIFY(!manager.sessionIds().contains(sessionId));
        }
        const int from = int(server.messages.size());
        server.send(BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"),
                                          QStringLiteral("local-console")));
        QVERIFY(server.waitForType(QStringLiteral("error"), 5000, from));
    }

    // The backend's dispatcher refuses this computer's call ids, whatever the session.
    void backendCannotUseLocalCallIds() {
        auto tray = makeTray();
        QVERIFY(tray);
        for (const QString& callId : {QStringLiteral("local-mcp-9"), QStringLiteral("LOCAL-x")}) {
            tray->remote.send(
                BackendServer::toolCall(callId, QStringLiteral("backend-s1"), QStringLiteral("echo x"), m_workspace));
            QVERIFY(refusedAsInvalid(tray->remote, callId, 0));
        }
        // Its own ids still run.
        tray->remote.send(BackendServer::toolCall(QStringLiteral("c-ok"), QStringLiteral("backend-s1"),
                                                  QStringLiteral("echo fine"), m_workspace));
        QVERIFY(tray->remote.waitForResult(QStringLiteral("c-ok"), 10000));
    }
};

QTEST_GUILESS_MAIN(TestMcpNamespaces)
#include "tst_mcpnamespaces.moc"
