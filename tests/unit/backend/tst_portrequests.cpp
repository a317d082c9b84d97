// The backend's open_port (SPEC §8 "Ports") between a real BackendConnection (to an in-process QWebSocketServer on
// 127.0.0.1) and a real SessionManager whose container CLI is a fake script: `run` pretends, `exec` runs the
// command on this host, and `exec -i CONTAINER /run/zeus/agent` runs the real sandbox agent here, so a published
// port reaches a server on this host's loopback as it would the container's. Approval (headless --allow-publish),
// the session, the answers (port_opened, approval_denied, invalid_message, container_failed) and the port closing
// with the session are tested without an engine; tst_ports does it on real engines.
#include "../../e2e/backendserver.h"
#include "backend/backendconnection.h"
#include "backend/portrequests.h"
#include "backend/protocol.h"
#include "backend/tooldispatcher.h"
#include "engine/containerruntime.h"
#include "sandbox/sessionmanager.h"

#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace zeus;
using zeus::test::BackendServer;

namespace {

QByteArray fakeEngine() {
    return QByteArray(
               "#!/bin/sh\n"
               "cmd=$1; shift\n"
               "case \"$cmd\" in\n"
               "  run) echo fakecontainer0123456789; exit 0 ;;\n"
               "  exec) [ \"$1\" = -i ] && shift; shift\n"
               "    case \"$*\" in *random/boot_id*) echo not-this-kernel; echo '1 1'; exit 0 ;; esac\n"
               "    [ \"$1\" = /run/zeus/agent ] && exec '")
           + QByteArray(ZEUS_AGENT_BINARY)
           + QByteArray(
               "'\n"
               "    exec \"$@\" ;;\n"
               "  rm) exit 0 ;;\n"
               "  inspect) echo '[{\"Id\":\"fakecontainer0123456789\",\"Name\":\"/f\",\"State\":{\"Status\":"
               "\"running\",\"Running\":true},\"Config\":{\"Labels\":{}}}]'; exit 0 ;;\n"
               "  ps) exit 0 ;;\n"
               "  image) exit 0 ;;\n"
               "esac\n"
               "exit 1\n");
}

QJsonObject openPort(const QString& sessionId, int port) {
    return Protocol::toJson(OpenPortMessage{sessionId, port});
}

}  // namespace

class TestPortRequests : public QObject {
    Q_OBJECT

private:
    struct Rig {
        BackendServer server;
        BackendConnection connection;
        std::unique_ptr<SessionManager> manager;
        std::unique_ptr<ToolDispatcher> dispatcher;
        std::unique_ptr<PortRequests> ports;
    };

    std::unique_ptr<Rig> makeRig(ExecMode mode = ExecMode::Agent) {
        auto rig = std::make_unique<Rig>();
        if (!rig->server.listen()) {
            return nullptr;
        }
        rig->dispatcher = std::make_unique<ToolDispatcher>(&rig->connection);
        rig->dispatcher->setApprovedWorkspaces({m_workspace});
        SandboxConfig config;
        config.image = QStringLiteral("fake:image");
        config.ownerId = QStringLiteral("owner-test");
        config.agentHostPath = QStringLiteral(ZEUS_AGENT_BINARY);
        config.networkMode = NetworkMode::None;
        config.execMode = mode;
        rig->manager =
            std::make_unique<SessionManager>(ContainerRuntime::create(RuntimeKind::Docker, m_engine), config);
        rig->dispatcher->setSessionManager(rig->manager.get());
        RuntimeReport report;
        report.kind = QStringLiteral("docker");
        report.ready = true;
        rig->dispatcher->setRuntimeReport(report);
        SessionManager* manager = rig->manager.get();
        rig->ports = std::make_unique<PortRequests>(&rig->connection, [manager] { return manager; });
        rig->connection.setUrl(QUrl(rig->server.url()));
        rig->connection.setToken(QStringLiteral("t"));
        rig->connection.start();
        if (!rig->server.waitForType(QStringLiteral("hello"), 5000)) {
            return nullptr;
        }
        return rig;
    }

    // The error the backend got for the last request, by code.
    static QString lastErrorCode(const BackendServer& server) {
        const QList<QJsonObject> errors = server.ofType(QStringLiteral("error"));
        return errors.isEmpty() ? QString() : errors.last().value(QStringLiteral("code")).toString();
    }

    // Runs a command in session s so it has a container (and, in agent mode, its agent).
    static bool startSession(Rig& rig, const QString& workspace) {
        rig.server.send(
            BackendServer::toolCall(QStringLiteral("c1"), QStringLiteral("s1"), QStringLiteral("true"), workspace));
        return rig.server.waitForResult(QStringLiteral("c1"), 15000);
    }

    QTemporaryDir m_dir;
    QString m_engine;
    QString m_workspace;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_engine = m_dir.filePath(QStringLiteral("fake-docker"));
        QFile engine(m_engine);
        QVERIFY(engine.open(QIODevice::WriteOnly));
        engine.write(fakeEngine());
        engine.close();
        QVERIFY(engine.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("ws")));
        m_workspace = QDir(m_dir.filePath(QStringLiteral("ws"))).canonicalPath();
    }

    void refusedWithoutApproval() {
        auto rig = makeRig();
        QVERIFY(rig);
        QVERIFY(startSession(*rig, m_workspace));
        rig->server.send(openPort(QStringLiteral("s1"), 8000));
        QVERIFY(rig->server.waitForType(QStringLiteral("error"), 5000));
        QCOMPARE(lastErrorCode(rig->server), QStringLiteral("approval_denied"));
        QVERIFY(rig->server.ofType(QStringLiteral("error"))
                    .last()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("--allow-publish")));
        QVERIFY(rig->server.ofType(QStringLiteral("port_opened")).isEmpty());
    }

    void theUserDecidesInTheTrayApp() {
        auto rig = makeRig();
        QVERIFY(rig);
        QList<int> asked;
        bool yes = false;
        rig->ports->setAsker([&](const OpenPortMessage& request, const std::function<void(bool)>& answer) {
            asked << request.port;
            answer(yes);
        });
        rig->server.send(openPort(QStringLiteral("s1"), 8000));
        QVERIFY(rig->server.waitForType(QStringLiteral("error"), 5000));
        QCOMPARE(asked, QList<int>{8000});
        QCOMPARE(lastErrorCode(rig->server), QStringLiteral("approval_denied"));
        yes = true;  // approved: on to the session, which has no container yet
        rig->server.send(openPort(QStringLiteral("s1"), 8001));
        QVERIFY(QTest::qWaitFor([&] { return rig->server.ofType(QStringLiteral("error")).size() == 2; }, 5000));
        QCOMPARE(asked, (QList<int>{8000, 8001}));
        QCOMPARE(lastErrorCode(rig->server), QStringLiteral("container_failed"));
    }

    void badRequestsAreRefused() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->ports->setApproved(true);
        // Ports outside 1..65535 and non-numbers never reach the session: the protocol refuses them.
        const QList<QByteArray> bad{R"({"type":"open_port","session_id":"s1","port":0})",
                                    R"({"type":"open_port","session_id":"s1","port":70000})",
                                    R"({"type":"open_port","session_id":"s1","port":"8000"})"};
        for (const QByteArray& frame : bad) {
            const int before = int(rig->server.ofType(QStringLiteral("error")).size());
            rig->server.sendText(QString::fromUtf8(frame));
            QVERIFY(QTest::qWaitFor([&] { return rig->server.ofType(QStringLiteral("error")).size() > before; }, 5000));
            QCOMPARE(lastErrorCode(rig->server), QStringLiteral("invalid_message"));
        }
        // This computer's own sessions are out of the backend's reach.
        rig->server.send(openPort(ToolDispatcher::localSessionPrefix() + QStringLiteral("console"), 8000));
        QVERIFY(QTest::qWaitFor([&] { return rig->server.ofType(QStringLiteral("error")).size() == 4; }, 5000));
        QCOMPARE(lastErrorCode(rig->server), QStringLiteral("invalid_message"));
        // A session with no container yet.
        rig->server.send(openPort(QStringLiteral("nobody"), 8000));
        QVERIFY(QTest::qWaitFor([&] { return rig->server.ofType(QStringLiteral("error")).size() == 5; }, 5000));
        QCOMPARE(lastErrorCode(rig->server), QStringLiteral("container_failed"));
        QVERIFY(rig->server.ofType(QStringLiteral("port_opened")).isEmpty());
    }

    void execModeSaysPortsNeedTheAgent() {
        auto rig = makeRig(ExecMode::Exec);
        QVERIFY(rig);
        rig->ports->setApproved(true);
        QVERIFY(startSession(*rig, m_workspace));
        rig->server.send(openPort(QStringLiteral("s1"), 8000));
        QVERIFY(rig->server.waitForType(QStringLiteral("error"), 5000));
        QCOMPARE(lastErrorCode(rig->server), QStringLiteral("container_failed"));
        const QString message =
            rig->server.ofType(QStringLiteral("error")).last().value(QStringLiteral("message")).toString();
        QVERIFY2(message.contains(QStringLiteral("ports need the sandbox agent")), qPrintable(message));
    }

    void approvedPortIsOpenedAndClosesWithTheSession() {
        QTcpServer service;  // the server "in the container" (the agent runs on this host here)
        QVERIFY(service.listen(QHostAddress(QHostAddress::LocalHost), 0));
        connect(&service, &QTcpServer::newConnection, &service, [&service] {
            while (QTcpSocket* socket = service.nextPendingConnection()) {
                socket->write("served\n");
                socket->disconnectFromHost();
            }
        });
        auto rig = makeRig();
        QVERIFY(rig);
        rig->ports->setApproved(true);
        QVERIFY(startSession(*rig, m_workspace));
        rig->server.send(openPort(QStringLiteral("s1"), service.serverPort()));
        QVERIFY(rig->server.waitForType(QStringLiteral("port_opened"), 5000));
        const QJsonObject opened = rig->server.ofType(QStringLiteral("port_opened")).constFirst();
        QCOMPARE(opened.value(QStringLiteral("session_id")).toString(), QStringLiteral("s1"));
        QCOMPARE(opened.value(QStringLiteral("port")).toInt(), int(service.serverPort()));
        const int hostPort = opened.value(QStringLiteral("host_port")).toInt();
        QVERIFY(hostPort > 0 && hostPort < 65536);
        QCOMPARE(opened.value(QStringLiteral("url")).toString(), QStringLiteral("http://127.0.0.1:%1/").arg(hostPort));

        QTcpSocket browser;
        browser.connectToHost(QHostAddress(QHostAddress::LocalHost), quint16(hostPort));
        QVERIFY(browser.waitForConnected(5000));
        QByteArray got;
        QVERIFY(QTest::qWaitFor(
            [&] {
                got += browser.readAll();
                return got.size() >= 7;
            },
            10000));
        QCOMPARE(got, QByteArray("served\n"));

        rig->server.send(
            BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), QStringLiteral("s1")));
        QVERIFY(QTest::qWaitFor(
            [&] {
                QTcpSocket after;
                after.connectToHost(QHostAddress(QHostAddress::LocalHost), quint16(hostPort));
                return !after.waitForConnected(1000);
            },
            10000));
    }
};

QTEST_GUILESS_MAIN(TestPortRequests)
#include "tst_portrequests.moc"
