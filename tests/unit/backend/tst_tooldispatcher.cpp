// ToolDispatcher between a real BackendConnection (to an in-process QWebSocketServer on 127.0.0.1) and a real
// SessionManager whose container CLI is a fake script: `run` prints an id and `exec` runs the command on the
// host, so the dispatch rules (approval, idempotency, results kept across reconnects, errors) are tested without
// an engine. The real engine is exercised by the e2e tests.
#include "../../e2e/backendserver.h"
#include "approval/approvalqueue.h"
#include "backend/backendconnection.h"
#include "backend/protocol.h"
#include "backend/resultjournal.h"
#include "backend/tooldispatcher.h"
#include "engine/dockerruntime.h"
#include "runtime/detectionresult.h"
#include "sandbox/sessionmanager.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace zeus;
using zeus::test::BackendServer;

namespace {

// A container CLI good enough for the SessionManager: containers are pretend, commands run on the host.
const char kFakeEngine[] =
    "#!/bin/sh\n"
    "cmd=$1; shift\n"
    "case \"$cmd\" in\n"
    "  run) echo fakecontainer0123456789; exit 0 ;;\n"
    "  exec) [ \"$1\" = -i ] && shift; shift\n"
    // The app's check of /workspace after `run`: answered as an engine in a VM would (nothing to compare).
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

QString typeOf(const QJsonObject& m) {
    return m.value(QStringLiteral("type")).toString();
}

// A backend that stops reading (SPEC §5 "Bounded outbound queue"): its first connection completes the upgrade by
// hand and then never reads again (Qt's read buffer is one byte, so the kernel buffers fill and the app's queue
// grows), while the test still sends frames to the app through it. Later connections are a normal backend that
// records what it gets and acks every result.
class StallingBackend {
public:
    StallingBackend() : m_ws(QStringLiteral("stalling"), QWebSocketServer::NonSecureMode) {
        QObject::connect(&m_tcp, &QTcpServer::newConnection, &m_tcp, [this] { onConnection(); });
        QObject::connect(&m_ws, &QWebSocketServer::newConnection, &m_ws, [this] {
            while (QWebSocket* socket = m_ws.nextPendingConnection()) {
                ++healthyConnections;
                QObject::connect(socket, &QWebSocket::textMessageReceived, socket, [this, socket](const QString& t) {
                    const QJsonObject m = QJsonDocument::fromJson(t.toUtf8()).object();
                    messages.append(m);
                    if (typeOf(m) == QLatin1String("tool_result")) {
                        socket->sendTextMessage(QString::fromUtf8(
                            QJsonDocument(BackendServer::simple(QStringLiteral("ack"), QStringLiteral("call_id"),
                                                                m.value(QStringLiteral("call_id")).toString()))
                                .toJson(QJsonDocument::Compact)));
                    }
                });
            }
        });
    }
    bool listen() { return m_tcp.listen(QHostAddress::LocalHost); }
    QString url() const { return QStringLiteral("ws://127.0.0.1:%1/").arg(m_tcp.serverPort()); }
    bool stalledUp() const { return m_stalled && m_upgraded; }

    // One unmasked text frame to the app on the stalled connection.
    void sendStalled(const QJsonObject& message) {
        const QByteArray payload = QJsonDocument(message).toJson(QJsonDocument::Compact);
        QByteArray frame(1, char(0x81));
        if (payload.size() < 126) {
            frame.append(char(payload.size()));
        } else if (payload.size() < 65536) {
            frame.append(char(126)).append(char(payload.size() >> 8)).append(char(payload.size() & 0xff));
        } else {
            frame.append(char(127));
            for (int shift = 56; shift >= 0; shift -= 8) {
                frame.append(char((quint64(payload.size()) >> shift) & 0xff));
            }
        }
        m_stalled->write(frame + payload);
    }

    QList<QJsonObject> messages;  // from the healthy connections
    int healthyConnections = 0;

private:
    void onConnection() {
        while (QTcpSocket* socket = m_tcp.nextPendingConnection()) {
            if (m_stalled) {
                m_ws.handleConnection(socket);
                continue;
            }
            m_stalled = socket;
            QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                if (m_upgraded) {
                    return;  // never read again
                }
                m_head += socket->readAll();
                if (!m_head.contains("\r\n\r\n")) {
                    return;
                }
                QByteArray key;
                for (const QByteArray& line : m_head.split('\n')) {
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
                socket->setReadBufferSize(1);
                socket->setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 4096);
                m_upgraded = true;
            });
        }
    }

    QTcpServer m_tcp;
    QWebSocketServer m_ws;
    QPointer<QTcpSocket> m_stalled;
    QByteArray m_head;
    bool m_upgraded = false;
};

}  // namespace

class TestToolDispatcher : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_engine;
    QString m_workspace;  // approved
    QString m_other;      // exists, not approved

    struct Rig {
        BackendServer server;
        BackendConnection connection;
        std::unique_ptr<SessionManager> manager;
        std::unique_ptr<ToolDispatcher> dispatcher;
    };

    std::unique_ptr<Rig> makeRig(bool withRuntime = true, qint64 outputCap = OutputCollector::kDefaultCap,
                                 const std::function<void(SandboxConfig&)>& adjust = {}) {
        auto rig = std::make_unique<Rig>();
        if (!rig->server.listen()) {
            return nullptr;
        }
        rig->connection.setSettings(fastSettings());
        rig->dispatcher = std::make_unique<ToolDispatcher>(&rig->connection);
        HelloMessage client;
        client.clientName = QStringLiteral("Zeus Desktop");
        client.clientVersion = QStringLiteral("9.9.9");
        client.os = QStringLiteral("TestOS");
        client.arch = QStringLiteral("test64");
        client.deviceId = QStringLiteral("device-123");
        rig->dispatcher->setClientInfo(client);
        rig->dispatcher->setApprovedWorkspaces({m_workspace});
        if (withRuntime) {
            SandboxConfig config;
            config.image = QStringLiteral("fake:image");
            config.ownerId = QStringLiteral("owner-test");
            config.killGraceMs = 300;
            config.outputCapBytes = outputCap;
            if (adjust) {
                adjust(config);
            }
            rig->manager =
                std::make_unique<SessionManager>(ContainerRuntime::create(RuntimeKind::Docker, m_engine), config);
            rig->dispatcher->setSessionManager(rig->manager.get());
            RuntimeReport report;
            report.kind = QStringLiteral("docker");
            report.version = QStringLiteral("20.10");
            report.ready = true;
            rig->dispatcher->setRuntimeReport(report);
        } else {
            RuntimeReport report;
            report.ready = false;
            report.reason = QString(kNoRuntimeMessage);
            rig->dispatcher->setRuntimeReport(report);
        }
        rig->connection.setUrl(QUrl(rig->server.url()));
        rig->connection.setToken(QStringLiteral("t"));
        rig->connection.start();
        if (!rig->server.waitForType(QStringLiteral("hello"), 5000)) {
            return nullptr;
        }
        return rig;
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
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("work space")));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("other")));
        m_workspace = QDir(m_dir.filePath(QStringLiteral("work space"))).canonicalPath();
        m_other = QDir(m_dir.filePath(QStringLiteral("other"))).canonicalPath();
        QVERIFY(QFile::link(m_workspace, m_dir.filePath(QStringLiteral("link-to-workspace"))));
    }

    void helloOnConnect() {
        auto rig = makeRig();
        QVERIFY(rig);
        const QJsonObject hello = rig->server.ofType(QStringLiteral("hello")).first();
        QCOMPARE(hello.value(QStringLiteral("protocol")).toInt(), 1);
        QCOMPARE(hello.value(QStringLiteral("device_id")).toString(), QStringLiteral("device-123"));
        QCOMPARE(hello.value(QStringLiteral("client")).toObject().value(QStringLiteral("version")).toString(),
                 QStringLiteral("9.9.9"));
        const QJsonObject runtime = hello.value(QStringLiteral("runtime")).toObject();
        QCOMPARE(runtime.value(QStringLiteral("kind")).toString(), QStringLiteral("docker"));
        QCOMPARE(runtime.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
        const QJsonArray workspaces = hello.value(QStringLiteral("workspaces")).toArray();
        QCOMPARE(workspaces.size(), 1);
        QCOMPARE(workspaces.at(0).toObject().value(QStringLiteral("path")).toString(), m_workspace);
        QCOMPARE(hello.value(QStringLiteral("pending")).toArray().size(), 0);
    }

    void runStreamsAndFinishes() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(BackendServer::toolCall(QStringLiteral("c1"), QStringLiteral("s1"),
                                                 QStringLiteral("echo one; echo two >&2; echo three; exit 3"),
                                                 m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("c1"), 10000));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("c1")).first();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(result.value(QStringLiteral("exit_code")).toInt(), 3);
        const QString output = result.value(QStringLiteral("output")).toString();
        QVERIFY2(output.contains(QStringLiteral("one\n")) && output.contains(QStringLiteral("two\n"))
                     && output.contains(QStringLiteral("three\n")),
                 qPrintable(output));
        bool contiguous = false;
        QCOMPARE(rig->server.streamed(QStringLiteral("c1"), QStringLiteral("stdout"), &contiguous),
                 QStringLiteral("one\nthree\n"));
        QVERIFY(contiguous);
        QCOMPARE(rig->server.streamed(QStringLiteral("c1"), QStringLiteral("stderr")), QStringLiteral("two\n"));
        // Session states were reported: starting, then running with the container id.
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("session_state")
                       && m.value(QStringLiteral("state")).toString() == QLatin1String("running")
                       && m.value(QStringLiteral("container")).toString() == QLatin1String("fakecontainer0123456789");
            },
            1000));
        // Acked by the server: nothing pending any more.
        QTRY_COMPARE(rig->dispatcher->results().size(), 0);
    }

    void refusedWorkspaces_data() {
        QTest::addColumn<QString>("workingDirectory");
        QTest::newRow("another existing folder") << m_other;
        QTest::newRow("missing folder") << m_dir.filePath(QStringLiteral("missing"));
        QTest::newRow("parent of the workspace") << m_dir.path();
        QTest::newRow("relative path") << QStringLiteral("work space");
        QTest::newRow("escape with ..") << m_workspace + QStringLiteral("/../other");
        QTest::newRow("root") << QStringLiteral("/");
        QTest::newRow("empty") << QString();
    }

    void refusedWorkspaces() {
        QFETCH(QString, workingDirectory);
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(BackendServer::toolCall(QStringLiteral("w1"), QStringLiteral("s1"), QStringLiteral("true"),
                                                 workingDirectory));
        if (workingDirectory.isEmpty()) {
            // An empty working_directory is already a protocol error.
            QVERIFY(rig->server.waitForType(QStringLiteral("error"), 5000));
            QVERIFY(rig->server.resultsFor(QStringLiteral("w1")).isEmpty());
            return;
        }
        QVERIFY(rig->server.waitForResult(QStringLiteral("w1"), 5000));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("w1")).first();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("error"));
        QCOMPARE(result.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("workspace_not_approved"));
        QVERIFY(rig->server.ofType(QStringLiteral("tool_output")).isEmpty());
        QCOMPARE(rig->manager->sessionIds().size(), 0);  // nothing was started
    }

    // An approved folder deleted on the host (or replaced by a file) is the user's folder, gone: workspace_invalid
    // with words that say so, not workspace_not_approved. Also when it was gone before the approvals were loaded
    // (the app started after the folder was deleted).
    void deletedApprovedFolderIsInvalid_data() {
        QTest::addColumn<bool>("goneBeforeLoad");
        QTest::addColumn<bool>("replacedByFile");
        QTest::newRow("deleted while approved") << false << false;
        QTest::newRow("deleted before the approvals were loaded") << true << false;
        QTest::newRow("replaced by a file") << false << true;
    }

    void deletedApprovedFolderIsInvalid() {
        QFETCH(bool, goneBeforeLoad);
        QFETCH(bool, replacedByFile);
        const QString name = QStringLiteral("gone-")
                             + QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'));
        QVERIFY(QDir(m_dir.path()).mkpath(name));
        const QString gone = QDir(m_dir.filePath(name)).canonicalPath();
        auto rig = makeRig();
        QVERIFY(rig);
        if (!goneBeforeLoad) {
            rig->dispatcher->setApprovedWorkspaces({m_workspace, gone});
        }
        QVERIFY(QDir(gone).removeRecursively());
        if (replacedByFile) {
            QFile file(gone);
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        if (goneBeforeLoad) {
            rig->dispatcher->setApprovedWorkspaces({m_workspace, gone});
        }
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("g1"), QStringLiteral("s1"), QStringLiteral("true"), gone));
        QVERIFY(rig->server.waitForResult(QStringLiteral("g1"), 5000));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("g1")).first();
        const QJsonObject error = result.value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("workspace_invalid"));
        const QString message = error.value(QStringLiteral("message")).toString();
        QVERIFY2(message.contains(QLatin1String("no longer exists")), qPrintable(message));
        QVERIFY2(message.contains(gone), qPrintable(message));
        QCOMPARE(rig->manager->sessionIds().size(), 0);  // nothing was started
        QFile::remove(gone);
    }

    // SPEC §3 "Approvals are exact strings": a cleaned spelling of the approval matches; a symlink to it is another
    // path and does not (it could point anywhere by the time the engine mounts it).
    void approvedSpellingsAreLexical() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(BackendServer::toolCall(QStringLiteral("l1"), QStringLiteral("s1"), QStringLiteral("pwd"),
                                                 m_dir.filePath(QStringLiteral("link-to-workspace"))));
        rig->server.send(BackendServer::toolCall(QStringLiteral("l2"), QStringLiteral("s1"), QStringLiteral("true"),
                                                 m_workspace + QLatin1Char('/')));
        rig->server.send(BackendServer::toolCall(QStringLiteral("l3"), QStringLiteral("s1"), QStringLiteral("true"),
                                                 m_workspace + QStringLiteral("/./sub/..")));
        QVERIFY(rig->server.waitForResult(QStringLiteral("l1"), 10000));
        QVERIFY(rig->server.waitForResult(QStringLiteral("l2"), 10000));
        QVERIFY(rig->server.waitForResult(QStringLiteral("l3"), 10000));
        const QJsonObject viaLink = rig->server.resultsFor(QStringLiteral("l1")).first();
        QCOMPARE(viaLink.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("workspace_not_approved"));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("l2")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("ok"));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("l3")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("ok"));
    }

    // The attack: ~/work and ~/work/app approved (older settings), a command in ~/work runs
    // `mv app app.o; ln -s ~/.local/bin app`. After the approvals are loaded again (a restart, any approval change)
    // ~/.local/bin must not be approved, announced, or mounted. Nested approvals stored before nesting was refused
    // are both inactive, so the swap cannot even be made from ~/work; and ~/work/app reads "changed" once alone.
    void symlinkSwapOfANestedApproval() {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString root = QDir(home.path()).canonicalPath();
        QVERIFY(QDir(root).mkpath(QStringLiteral("work/app")));
        QVERIFY(QDir(root).mkpath(QStringLiteral(".local/bin")));
        const QString work = root + QStringLiteral("/work");
        const QString app = work + QStringLiteral("/app");
        const QString bin = root + QStringLiteral("/.local/bin");
        auto rig = makeRig();
        QVERIFY(rig);
        rig->dispatcher->setApprovedWorkspaces({work, app});
        QVERIFY(!rig->dispatcher->hello().workspaces.contains(work));  // nested: neither is active
        QVERIFY(!rig->dispatcher->hello().workspaces.contains(app));
        QVERIFY(QDir(work).rename(QStringLiteral("app"), QStringLiteral("app.o")));
        QVERIFY(QFile::link(bin, app));
        rig->dispatcher->setApprovedWorkspaces({work, app});  // as after a restart

        const QStringList announced = rig->dispatcher->hello().workspaces;
        QVERIFY2(!announced.contains(bin), qPrintable(announced.join(QLatin1Char(' '))));
        QVERIFY(!announced.contains(app));
        QVERIFY(!announced.contains(work));
        QSignalSpy started(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("x1"), QStringLiteral("s1"), QStringLiteral("true"), app));
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("x2"), QStringLiteral("s1"), QStringLiteral("true"), bin));
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("x3"), QStringLiteral("s1"), QStringLiteral("true"), work));
        for (const QString& id : {QStringLiteral("x1"), QStringLiteral("x2"), QStringLiteral("x3")}) {
            QVERIFY(rig->server.waitForResult(id, 5000));
            const QJsonObject error = rig->server.resultsFor(id).first().value(QStringLiteral("error")).toObject();
            QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("workspace_not_approved"));
        }
        const auto messageOf = [&rig](const QString& id) {
            return rig->server.resultsFor(id)
                .first()
                .value(QStringLiteral("error"))
                .toObject()
                .value(QStringLiteral("message"))
                .toString();
        };
        QVERIFY2(messageOf(QStringLiteral("x3")).contains(QLatin1String("inside or around another approved folder")),
                 qPrintable(messageOf(QStringLiteral("x3"))));
        QCOMPARE(started.size(), 0);
        QCOMPARE(rig->manager->sessionIds().size(), 0);

        // Alone, the swapped approval is "changed since approval", still never ~/.local/bin.
        rig->dispatcher->setApprovedWorkspaces({app});
        QVERIFY(!rig->dispatcher->hello().workspaces.contains(bin));
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("x4"), QStringLiteral("s1"), QStringLiteral("true"), app));
        QVERIFY(rig->server.waitForResult(QStringLiteral("x4"), 5000));
        QVERIFY2(messageOf(QStringLiteral("x4")).contains(QLatin1String("changed since it was approved")),
                 qPrintable(messageOf(QStringLiteral("x4"))));
        // And the outer one alone is active again.
        rig->dispatcher->setApprovedWorkspaces({work});
        QVERIFY(rig->dispatcher->hello().workspaces.contains(work));
        QCOMPARE(started.size(), 0);
    }

    // The app touches no path the backend chose before it matched an approval. Network spellings are
    // refused outright (on Linux `//host/...` used to be cleaned into a local path and approved); nothing that did
    // not match an approval reaches the resolver.
    void unmatchedPathsAreNeverResolved_data() {
        QTest::addColumn<QString>("workingDirectory");
        QTest::newRow("//host spelling of the approval") << QStringLiteral("/") + m_workspace;
        QTest::newRow("UNC") << QStringLiteral("\\\\attacker\\s");
        QTest::newRow("UNC with forward slashes") << QStringLiteral("//attacker/s");
        QTest::newRow("automounter") << QStringLiteral("/net/attacker/share");
        QTest::newRow("another folder") << m_other;
        QTest::newRow("through a symlink") << m_dir.filePath(QStringLiteral("link-to-workspace"));
    }
    void unmatchedPathsAreNeverResolved() {
        QFETCH(QString, workingDirectory);
        auto rig = makeRig();
        QVERIFY(rig);
        QStringList resolved;
        WorkspaceApproval::Resolver resolver;
        const WorkspaceApproval::Resolver host = WorkspaceApproval::hostResolver();
        resolver.canonicalDirectory = [&resolved, host](const QString& path) {
            resolved << path;
            return host.canonicalDirectory(path);
        };
        rig->dispatcher->setPathResolver(resolver);
        rig->server.send(BackendServer::toolCall(QStringLiteral("n1"), QStringLiteral("s1"), QStringLiteral("true"),
                                                 workingDirectory));
        QVERIFY(rig->server.waitForResult(QStringLiteral("n1"), 5000));
        const QJsonObject error =
            rig->server.resultsFor(QStringLiteral("n1")).first().value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("workspace_not_approved"));
        for (const QString& path : std::as_const(resolved)) {
            QCOMPARE(path, m_workspace);  // only the approval itself, for the refusal's list of approved folders
        }
        QCOMPARE(rig->manager->sessionIds().size(), 0);
    }

    // callStarted names the folder the call runs in (the approval's own string, whatever the backend's
    // spelling), so a view needs no second look at the message; a refused call never starts.
    void callStartedCarriesTheWorkspace_data() {
        QTest::addColumn<QString>("workingDirectory");
        QTest::addColumn<bool>("started");
        QTest::newRow("canonical") << m_workspace << true;
        QTest::newRow("trailing slash") << m_workspace + QLatin1Char('/') << true;
        QTest::newRow("through a symlink") << m_dir.filePath(QStringLiteral("link-to-workspace")) << false;
        QTest::newRow("not approved") << m_other << false;
        QTest::newRow("missing") << m_dir.filePath(QStringLiteral("missing")) << false;
    }

    void callStartedCarriesTheWorkspace() {
        QFETCH(QString, workingDirectory);
        QFETCH(bool, started);
        auto rig = makeRig();
        QVERIFY(rig);
        QSignalSpy spy(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        rig->server.send(BackendServer::toolCall(QStringLiteral("ws1"), QStringLiteral("s1"), QStringLiteral("true"),
                                                 workingDirectory));
        QVERIFY(rig->server.waitForResult(QStringLiteral("ws1"), 10000));
        QCOMPARE(spy.size(), started ? 1 : 0);
        if (started) {
            QCOMPARE(spy.first().at(0).toString(), QStringLiteral("ws1"));
            QCOMPARE(spy.first().at(1).toString(), QStringLiteral("s1"));
            QCOMPARE(spy.first().at(2).toString(), QStringLiteral("true"));
            QCOMPARE(spy.first().at(3).toString(), m_workspace);
        }
    }

    void noRuntimeRefusesWithTheSpecText() {
        auto rig = makeRig(false);
        QVERIFY(rig);
        const QJsonObject hello = rig->server.ofType(QStringLiteral("hello")).first();
        QVERIFY(hello.value(QStringLiteral("runtime")).toObject().value(QStringLiteral("kind")).isNull());
        QCOMPARE(hello.value(QStringLiteral("runtime")).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("unavailable"));
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("n1"), QStringLiteral("s1"), QStringLiteral("ls"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("n1"), 5000));
        const QJsonObject error =
            rig->server.resultsFor(QStringLiteral("n1")).first().value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("no_runtime"));
        QCOMPARE(error.value(QStringLiteral("message")).toString(),
                 QStringLiteral("No container runtime detected. Please install Docker Desktop or upgrade to macOS 26 "
                                "for Apple Containerization."));
    }

    void badMessagesGetAnErrorAndTheConnectionLives_data() {
        QTest::addColumn<QString>("frame");
        QTest::addColumn<QString>("code");
        QTest::newRow("not json") << QStringLiteral("{not json") << QStringLiteral("invalid_message");
        QTest::newRow("array") << QStringLiteral("[1,2]") << QStringLiteral("invalid_message");
        QTest::newRow("unknown type") << QStringLiteral("{\"type\":\"launch_missiles\"}")
                                      << QStringLiteral("invalid_message");
        QTest::newRow("missing args") << QStringLiteral(
            "{\"type\":\"tool_call\",\"call_id\":\"x\",\"session_id\":\"s\",\"tool\":\"desktop_exec\"}")
                                      << QStringLiteral("invalid_message");
        QTest::newRow("wrong type of command") << QStringLiteral(
            "{\"type\":\"tool_call\",\"call_id\":\"x\",\"session_id\":\"s\",\"tool\":\"desktop_exec\","
            "\"args\":{\"command\":42,\"working_directory\":\"/tmp\"}}")
                                               << QStringLiteral("invalid_message");
        QTest::newRow("unsupported tool") << QStringLiteral(
            "{\"type\":\"tool_call\",\"call_id\":\"x\",\"session_id\":\"s\",\"tool\":\"rm_rf\","
            "\"args\":{\"command\":\"ls\",\"working_directory\":\"/tmp\"}}")
                                          << QStringLiteral("unsupported_tool");
    }

    void badMessagesGetAnErrorAndTheConnectionLives() {
        QFETCH(QString, frame);
        QFETCH(QString, code);
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.sendText(frame);
        QVERIFY(rig->server.waitForType(QStringLiteral("error"), 5000));
        QCOMPARE(rig->server.ofType(QStringLiteral("error")).first().value(QStringLiteral("code")).toString(), code);
        // The same connection still serves the next good message.
        rig->server.send(BackendServer::toolCall(QStringLiteral("g1"), QStringLiteral("s1"), QStringLiteral("echo ok"),
                                                 m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("g1"), 10000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("g1")).first().value(QStringLiteral("output")).toString(),
                 QStringLiteral("ok\n"));
        QCOMPARE(rig->server.connections(), 1);
    }

    void duplicateCallIdRunsOnce() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.autoAck = false;
        const QString counter = m_dir.filePath(QStringLiteral("counter"));
        QFile::remove(counter);
        const QJsonObject call =
            BackendServer::toolCall(QStringLiteral("d1"), QStringLiteral("s1"),
                                    QStringLiteral("echo run >> '%1'; sleep 0.5").arg(counter), m_workspace);
        rig->server.send(call);
        rig->server.send(call);  // while running: ignored
        QVERIFY(rig->server.waitForResult(QStringLiteral("d1"), 10000));
        const int before = int(rig->server.messages.size());
        rig->server.send(call);  // finished, not acked: the result is sent again, not re-run
        QVERIFY(rig->server.waitForResult(QStringLiteral("d1"), 5000, before));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("d1")).size(), 2);
        QFile file(counter);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("run\n"));
        // Acked: a further repeat is an error naming the call, still not run.
        rig->server.send(BackendServer::simple(QStringLiteral("ack"), QStringLiteral("call_id"), QStringLiteral("d1")));
        QTRY_COMPARE(rig->dispatcher->results().size(), 0);
        rig->server.send(call);
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("error")
                       && m.value(QStringLiteral("call_id")).toString() == QLatin1String("d1");
            },
            5000));
        QTest::qWait(700);
        file.seek(0);
        QCOMPARE(file.readAll(), QByteArray("run\n"));
    }

    void resultKeptAcrossReconnect() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(BackendServer::toolCall(QStringLiteral("r1"), QStringLiteral("s1"),
                                                 QStringLiteral("echo early; sleep 1; echo late"), m_workspace));
        QVERIFY(rig->server.waitForType(QStringLiteral("tool_output"), 5000));
        const quint16 port = rig->server.port();
        rig->server.close();  // the backend goes away mid-command
        QTest::qWait(1500);   // the command finishes while disconnected
        QCOMPARE(rig->dispatcher->runningCalls(), 0);
        QCOMPARE(rig->dispatcher->results().pendingIds(), QStringList{QStringLiteral("r1")});
        QVERIFY(rig->dispatcher->droppedOutputChunks() >= 1);  // "late" was produced while disconnected
        rig->server.messages.clear();
        QVERIFY(rig->server.listen(port));
        QVERIFY(rig->server.waitForResult(QStringLiteral("r1"), 10000));
        const QJsonObject hello = rig->server.ofType(QStringLiteral("hello")).first();
        QCOMPARE(hello.value(QStringLiteral("pending")).toArray(), QJsonArray{QStringLiteral("r1")});
        const QList<QJsonObject> results = rig->server.resultsFor(QStringLiteral("r1"));
        QCOMPARE(results.size(), 1);
        QCOMPARE(results.first().value(QStringLiteral("output")).toString(), QStringLiteral("early\nlate\n"));
        QTRY_COMPARE(rig->dispatcher->results().size(), 0);  // acked after the reconnect
    }

    void outputStreamsPastTheCapWithFlowControl() {
        // tool_output carries every byte, also past the output cap (which bounds the result only), in seq order;
        // with a tiny write-queue threshold the dispatcher pauses and resumes the command's output many times and
        // nothing is lost or reordered.
        constexpr qint64 kCap = 64 * 1024;
        constexpr qint64 kBytes = 6000000;
        auto rig = makeRig(true, kCap);
        QVERIFY(rig);
        rig->dispatcher->setFlowControl({64 * 1024, 16 * 1024});
        rig->server.send(BackendServer::toolCall(
            QStringLiteral("f1"), QStringLiteral("s1"),
            QStringLiteral("head -c %1 /dev/zero | tr '\\000' a; echo end >&2").arg(kBytes), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("f1"), 30000));
        qint64 stdoutChars = 0;
        QString stderrText;
        qint64 expectedSeq = 0;
        for (const QJsonObject& m : rig->server.ofType(QStringLiteral("tool_output"))) {
            QCOMPARE(m.value(QStringLiteral("seq")).toInteger(), expectedSeq++);
            const QString data = m.value(QStringLiteral("data")).toString();
            if (m.value(QStringLiteral("stream")).toString() == QLatin1String("stdout")) {
                QCOMPARE(data.count(QLatin1Char('a')), data.size());
                stdoutChars += data.size();
            } else {
                stderrText += data;
            }
        }
        QCOMPARE(stdoutChars, kBytes);
        QCOMPARE(stderrText, QStringLiteral("end\n"));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("f1")).first();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(result.value(QStringLiteral("truncated")).toBool(), true);
        QCOMPARE(result.value(QStringLiteral("output")).toString().size(), kCap);
        QVERIFY2(rig->dispatcher->outputPauses() > 0, "a 64 KiB threshold must pause 6 MB of output");
        QTRY_VERIFY(!rig->dispatcher->isOutputPaused());
        QCOMPARE(rig->dispatcher->droppedOutputChunks(), qint64(0));
    }

    // SPEC §5 "Bounded outbound queue": a backend that stops reading while repeating a tool_call for a finished
    // call gets that result queued at most once at a time; other traffic past the cap closes the connection with
    // 1013; after the reconnect every result is there.
    void stalledBackendKeepsTheQueueBounded() {
        constexpr qint64 kCap = 256 * 1024;
        constexpr qint64 kOutput = 200000;
        StallingBackend backend;
        QVERIFY(backend.listen());
        BackendConnection connection;
        BackendConnection::Settings settings = fastSettings();
        settings.pingIntervalMs = 60000;  // a stalled backend answers no ping: this test is about the queue
        settings.pongTimeoutMs = 60000;
        settings.maxPendingWriteBytes = kCap;
        connection.setSettings(settings);
        ToolDispatcher dispatcher(&connection);
        dispatcher.setApprovedWorkspaces({m_workspace});
        SandboxConfig config;
        config.image = QStringLiteral("fake:image");
        config.ownerId = QStringLiteral("owner-test");
        config.outputCapBytes = 1024 * 1024;
        SessionManager manager(ContainerRuntime::create(RuntimeKind::Docker, m_engine), config);
        dispatcher.setSessionManager(&manager);
        RuntimeReport report;
        report.ready = true;
        dispatcher.setRuntimeReport(report);

        qint64 maxPending = 0;
        int received = 0;
        // After the dispatcher's own handler: what each message left in the queue.
        QObject::connect(&connection, &BackendConnection::messageReceived, &connection, [&] {
            ++received;
            maxPending = qMax(maxPending, connection.pendingWriteBytes());
        });
        connection.setUrl(QUrl(backend.url()));
        connection.setToken(QStringLiteral("t"));
        connection.start();
        QTRY_VERIFY(backend.stalledUp() && connection.state() == BackendConnection::State::Connected);

        const QJsonObject big =
            BackendServer::toolCall(QStringLiteral("big"), QStringLiteral("s1"),
                                    QStringLiteral("head -c %1 /dev/zero | tr '\\000' x").arg(kOutput), m_workspace);
        QSignalSpy finished(&dispatcher, &ToolDispatcher::callFinished);
        backend.sendStalled(big);
        QVERIFY(finished.wait(20000));
        constexpr int kRepeats = 300;
        for (int i = 0; i < kRepeats; ++i) {
            backend.sendStalled(big);
        }
        QTRY_COMPARE_WITH_TIMEOUT(received, 1 + kRepeats, 20000);
        // Without the bound each repeat queued 200 kB again: tens of megabytes.
        QVERIFY2(maxPending <= kCap + kOutput + 4096, qPrintable(QString::number(maxPending)));
        QVERIFY(dispatcher.repeatsAbsorbed() > 0);
        QCOMPARE(connection.state(), BackendConnection::State::Connected);

        // Results of new calls wait for room; replies to bad messages pass the cap: 1013, and a reconnect.
        QStringList refused;
        for (int i = 0; i < 5; ++i) {
            refused << QStringLiteral("refused-%1").arg(i);
            backend.sendStalled(
                BackendServer::toolCall(refused.constLast(), QStringLiteral("s1"), QStringLiteral("true"), m_other));
        }
        for (int i = 0; i < 4000; ++i) {
            backend.sendStalled(QJsonObject{{QStringLiteral("type"), QStringLiteral("no_such_type")}});
        }
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const BackendConnection::HistoryEntry& entry : connection.history()) {
                    if (entry.closeCode == BackendConnection::kCloseQueueFull) {
                        return true;
                    }
                }
                return false;
            }(),
            20000);
        QVERIFY2(maxPending <= kCap + kOutput + 4096, qPrintable(QString::number(maxPending)));

        // The reconnect reaches the healthy backend: every unacknowledged result is listed and re-sent.
        QTRY_VERIFY_WITH_TIMEOUT(backend.healthyConnections > 0, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!backend.messages.isEmpty(), 10000);
        const QJsonObject hello = backend.messages.constFirst();
        QCOMPARE(typeOf(hello), QStringLiteral("hello"));
        QStringList pending;
        for (const QJsonValue& id : hello.value(QStringLiteral("pending")).toArray()) {
            pending << id.toString();
        }
        QCOMPARE(pending, QStringList{QStringLiteral("big")} + refused);
        QTRY_COMPARE_WITH_TIMEOUT(dispatcher.results().size(), 0, 10000);  // each arrived and was acked
        QStringList resent;
        for (const QJsonObject& m : std::as_const(backend.messages)) {
            if (typeOf(m) == QLatin1String("tool_result")) {
                resent << m.value(QStringLiteral("call_id")).toString();
            }
        }
        QCOMPARE(resent, pending);
    }

    void cancelStopsTheCall() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(BackendServer::toolCall(QStringLiteral("k1"), QStringLiteral("s1"),
                                                 QStringLiteral("echo started; sleep 30"), m_workspace));
        QVERIFY(rig->server.waitForType(QStringLiteral("tool_output"), 5000));
        rig->server.send(
            BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), QStringLiteral("k1")));
        QVERIFY(rig->server.waitForResult(QStringLiteral("k1"), 10000));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("k1")).first();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
        QVERIFY(result.value(QStringLiteral("exit_code")).isNull());
        // A cancel for a call that does not exist is an error naming it.
        rig->server.send(
            BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), QStringLiteral("nope")));
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("error")
                       && m.value(QStringLiteral("call_id")).toString() == QLatin1String("nope");
            },
            5000));
    }

    // SPEC §3/§5: a call past the session's running limit is `queued` (with its place in the session's queue), then
    // `running` before its first output; a cancel takes a queued call out (cancelled, never ran). A call that runs
    // at once gets no call_state.
    void queuedCallsReportTheirState() {
        auto rig = makeRig(true, OutputCollector::kDefaultCap, [](SandboxConfig& c) { c.maxCallsPerSession = 1; });
        QVERIFY(rig);
        const QString first = QStringLiteral("q1");
        rig->server.send(
            BackendServer::toolCall(first, QStringLiteral("s1"), QStringLiteral("sleep 0.5"), m_workspace));
        rig->server.send(BackendServer::toolCall(QStringLiteral("q2"), QStringLiteral("s1"), QStringLiteral("echo two"),
                                                 m_workspace));
        rig->server.send(BackendServer::toolCall(QStringLiteral("q3"), QStringLiteral("s1"),
                                                 QStringLiteral("echo three"), m_workspace));
        const auto stateOf = [](const QString& callId, const QString& state) {
            return [callId, state](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("call_state")
                       && m.value(QStringLiteral("call_id")).toString() == callId
                       && m.value(QStringLiteral("state")).toString() == state;
            };
        };
        QVERIFY(rig->server.waitFor(stateOf(QStringLiteral("q3"), QStringLiteral("queued")), 5000));
        rig->server.send(
            BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), QStringLiteral("q3")));
        QVERIFY(rig->server.waitForResult(QStringLiteral("q3"), 5000));
        QVERIFY(rig->server.waitForResult(QStringLiteral("q2"), 10000));
        QVERIFY(rig->server.waitForResult(first, 10000));
        const QJsonObject cancelled = rig->server.resultsFor(QStringLiteral("q3")).first();
        QCOMPARE(cancelled.value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("q2")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("ok"));
        QStringList seen;  // "id state position" of every call_state, and "id output" of the first tool_output
        for (const QJsonObject& m : std::as_const(rig->server.messages)) {
            const QString id = m.value(QStringLiteral("call_id")).toString();
            if (typeOf(m) == QLatin1String("call_state")) {
                seen << id + u' ' + m.value(QStringLiteral("state")).toString()
                            + (m.contains(QStringLiteral("position"))
                                   ? u' ' + QString::number(m.value(QStringLiteral("position")).toInt())
                                   : QString());
            } else if (typeOf(m) == QLatin1String("tool_output") && id == QLatin1String("q2")
                       && !seen.contains(QStringLiteral("q2 output"))) {
                seen << QStringLiteral("q2 output");
            }
        }
        QCOMPARE(seen, (QStringList{QStringLiteral("q2 queued 1"), QStringLiteral("q3 queued 2"),
                                    QStringLiteral("q2 running"), QStringLiteral("q2 output")}));
    }

    // SPEC §5 "Results survive the app": a call that waits in the queue is journaled as started, like a running one,
    // so a crash while it waits reports it as interrupted on the next start.
    void queuedCallIsJournaledAsStarted() {
        auto rig = makeRig(true, OutputCollector::kDefaultCap, [](SandboxConfig& c) { c.maxCallsPerSession = 1; });
        QVERIFY(rig);
        const QString journal = m_dir.filePath(QStringLiteral("queued-journal"));
        rig->dispatcher->setJournalPath(journal);
        rig->server.send(BackendServer::toolCall(QStringLiteral("j1"), QStringLiteral("sj"), QStringLiteral("sleep 5"),
                                                 m_workspace));
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("j2"), QStringLiteral("sj"), QStringLiteral("true"), m_workspace));
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("call_state")
                       && m.value(QStringLiteral("call_id")).toString() == QLatin1String("j2");
            },
            5000));
        const ResultJournal::Loaded loaded = ResultJournal(journal).load();
        QCOMPARE(loaded.interrupted, (QStringList{QStringLiteral("j1"), QStringLiteral("j2")}));
        rig->dispatcher->cancelAll();
        QVERIFY(rig->server.waitForResult(QStringLiteral("j1"), 10000));
        QVERIFY(rig->server.waitForResult(QStringLiteral("j2"), 10000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("j2")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("cancelled"));
    }

    // SPEC §8: each denial of a backend session's egress is a network_event, naming the call when it is the
    // session's only one, and so is a refused certificate (tls_untrusted); allowed requests and the local console's
    // are never reported.
    void networkEventForDenials() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(BackendServer::toolCall(QStringLiteral("n1"), QStringLiteral("s1"),
                                                 QStringLiteral("echo started; sleep 30"), m_workspace));
        QVERIFY(rig->server.waitForType(QStringLiteral("tool_output"), 5000));
        EgressEvent event;
        event.sessionId = QStringLiteral("s1");
        event.host = QStringLiteral("evil.test");
        event.port = 443;
        event.rule = QStringLiteral("no rule");
        Q_EMIT rig->manager->egressDecided(event);
        EgressEvent allowed = event;
        allowed.allowed = true;
        allowed.host = QStringLiteral("ok.test");
        Q_EMIT rig->manager->egressDecided(allowed);
        EgressEvent console = event;
        console.sessionId = QStringLiteral("local-console");
        console.host = QStringLiteral("console.test");
        Q_EMIT rig->manager->egressDecided(console);
        EgressEvent stranger = event;
        stranger.sessionId = QStringLiteral("never-seen");
        stranger.host = QStringLiteral("stranger.test");
        Q_EMIT rig->manager->egressDecided(stranger);
        // An allowed tunnel whose client refused the server's certificate is reported too, as tls_untrusted.
        EgressEvent untrusted = allowed;
        untrusted.host = QStringLiteral("inspected.test");
        untrusted.rule = QStringLiteral("inspected.test");
        untrusted.tlsUntrusted = true;
        Q_EMIT rig->manager->egressDecided(untrusted);
        QVERIFY(rig->server.waitForType(QStringLiteral("network_event"), 5000));
        // a marker after them: once it arrives, everything sent before it has too
        rig->server.send(
            BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), QStringLiteral("n1")));
        QVERIFY(rig->server.waitForResult(QStringLiteral("n1"), 10000));
        const QList<QJsonObject> events = rig->server.ofType(QStringLiteral("network_event"));
        QCOMPARE(events.size(), 2);
        const QJsonObject tls = events.last();
        QCOMPARE(tls.value(QStringLiteral("host")).toString(), QStringLiteral("inspected.test"));
        QCOMPARE(tls.value(QStringLiteral("decision")).toString(), QStringLiteral("tls_untrusted"));
        QCOMPARE(tls.value(QStringLiteral("rule")).toString(), QStringLiteral("inspected.test"));
        QCOMPARE(tls.value(QStringLiteral("call_id")).toString(), QStringLiteral("n1"));
        const QJsonObject e = events.first();
        QCOMPARE(e.value(QStringLiteral("session_id")).toString(), QStringLiteral("s1"));
        QCOMPARE(e.value(QStringLiteral("call_id")).toString(), QStringLiteral("n1"));
        QCOMPARE(e.value(QStringLiteral("host")).toString(), QStringLiteral("evil.test"));
        QCOMPARE(e.value(QStringLiteral("port")).toInt(), 443);
        QCOMPARE(e.value(QStringLiteral("decision")).toString(), QStringLiteral("denied"));
        QCOMPARE(e.value(QStringLiteral("rule")).toString(), QStringLiteral("no rule"));
        // With no call running the event still comes, without a call_id.
        Q_EMIT rig->manager->egressDecided(event);
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("network_event") && !m.contains(QStringLiteral("call_id"));
            },
            5000));
    }

    void sessionEndReportsStopped() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("e1"), QStringLiteral("s9"), QStringLiteral("true"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("e1"), 10000));
        const int before = int(rig->server.messages.size());
        rig->server.send(
            BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), QStringLiteral("s9")));
        auto stopped = [](const QString& id) {
            return [id](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("session_state")
                       && m.value(QStringLiteral("session_id")).toString() == id
                       && m.value(QStringLiteral("state")).toString() == QLatin1String("stopped");
            };
        };
        QVERIFY(rig->server.waitFor(stopped(QStringLiteral("s9")), 5000, before));
        QCOMPARE(rig->manager->sessionState(QStringLiteral("s9")), SessionState::Stopped);
        // An unknown session is confirmed as stopped too.
        rig->server.send(
            BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), QStringLiteral("zz")));
        QVERIFY(rig->server.waitFor(stopped(QStringLiteral("zz")), 5000, before));
    }

    // Command approval (SPEC §11): the gate between the workspace check and the sessions.
    static QString errorCodeOf(const QJsonObject& result) {
        return result.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
    }
    static bool isCallState(const QJsonObject& m, const QString& callId) {
        return typeOf(m) == QLatin1String("call_state") && m.value(QStringLiteral("call_id")).toString() == callId
               && m.value(QStringLiteral("state")).toString() == QLatin1String("waiting_approval");
    }

    void denyRuleRefusesInAutoMode() {
        auto rig = makeRig();
        QVERIFY(rig);
        ApprovalPolicy policy;
        policy.deny = {QStringLiteral("rm")};
        rig->dispatcher->setApprovalPolicies({{m_workspace, policy}});
        QSignalSpy started(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        QSignalSpy decided(rig->dispatcher.get(), &ToolDispatcher::approvalDecided);
        rig->server.send(BackendServer::toolCall(QStringLiteral("d1"), QStringLiteral("s1"),
                                                 QStringLiteral("ls && sudo /bin/rm -rf x"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("d1"), 5000));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("d1")).first();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("error"));
        QCOMPARE(errorCodeOf(result), QStringLiteral("approval_denied"));
        QVERIFY(result.value(QStringLiteral("error"))
                    .toObject()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("deny rule “rm”")));
        QCOMPARE(started.size(), 0);  // never reached the sessions
        QCOMPARE(decided.size(), 1);
        QCOMPARE(decided.first().first().value<ApprovalRecord>().rule, QStringLiteral("rm"));
        // Everything else still runs without asking (auto).
        rig->server.send(BackendServer::toolCall(QStringLiteral("d2"), QStringLiteral("s1"), QStringLiteral("echo ok"),
                                                 m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("d2"), 10000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("d2")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("ok"));
        QCOMPARE(rig->dispatcher->approvalHistory().size(), 1);
    }

    void withNobodyToAskWhatWouldBeAskedIsDenied() {
        auto rig = makeRig();
        QVERIFY(rig);
        ApprovalPolicy rules;
        rules.allow = {QStringLiteral("echo")};
        rig->dispatcher->setApprovalOverrides(rules, ApprovalMode::AskAll);
        QSignalSpy started(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        rig->server.send(BackendServer::toolCall(QStringLiteral("n1"), QStringLiteral("s1"),
                                                 QStringLiteral("echo hi && id"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("n1"), 5000));
        const QJsonObject refused = rig->server.resultsFor(QStringLiteral("n1")).first();
        QCOMPARE(errorCodeOf(refused), QStringLiteral("approval_denied"));
        QVERIFY(refused.value(QStringLiteral("error"))
                    .toObject()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("--allow-command")));
        QCOMPARE(started.size(), 0);
        QVERIFY(rig->server.ofType(QStringLiteral("call_state")).isEmpty());  // nobody is asked: no waiting
        rig->server.send(BackendServer::toolCall(QStringLiteral("n2"), QStringLiteral("s1"),
                                                 QStringLiteral("echo allowed"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("n2"), 10000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("n2")).first().value(QStringLiteral("output")).toString(),
                 QStringLiteral("allowed\n"));
    }

    void askedCallRunsOnceApprovedAndItsTimeoutStartsThen() {
        auto rig = makeRig();
        QVERIFY(rig);
        ApprovalQueue queue;
        queue.setInteractive(true);
        rig->dispatcher->setApprovalQueue(&queue);
        ApprovalPolicy policy;
        policy.mode = ApprovalMode::AskUnsafe;
        rig->dispatcher->setApprovalPolicies({{m_workspace, policy}});
        QSignalSpy added(&queue, &ApprovalQueue::questionAdded);
        QSignalSpy started(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        // timeout_s 1: if the clock ran while waiting, the sleep below would time out.
        rig->server.send(BackendServer::toolCall(QStringLiteral("a1"), QStringLiteral("s1"),
                                                 QStringLiteral("mkdir -p d; sleep 0.3; echo ran"), m_workspace, 1));
        QVERIFY(rig->server.waitFor([](const QJsonObject& m) { return isCallState(m, QStringLiteral("a1")); }, 5000));
        QTRY_COMPARE(added.size(), 1);
        const ApprovalQuestion question = added.first().first().value<ApprovalQuestion>();
        QCOMPARE(question.folder, m_workspace);
        QCOMPARE(question.decision.uncovered, QStringLiteral("mkdir -p d"));
        QCOMPARE(question.decision.suggestedPrefix, QStringLiteral("mkdir"));
        QCOMPARE(rig->dispatcher->waitingCallIds(), QStringList{QStringLiteral("a1")});
        // A repeated tool_call while it waits is not asked again.
        rig->server.send(BackendServer::toolCall(QStringLiteral("a1"), QStringLiteral("s1"),
                                                 QStringLiteral("mkdir -p d; sleep 0.3; echo ran"), m_workspace, 1));
        QTest::qWait(1200);
        QCOMPARE(started.size(), 0);
        QCOMPARE(queue.pending().size(), 1);
        ApprovalAnswer once;
        once.kind = ApprovalAnswer::Kind::RunOnce;
        queue.answer(QStringLiteral("a1"), once);
        QVERIFY(rig->server.waitForResult(QStringLiteral("a1"), 10000));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("a1")).first();
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(result.value(QStringLiteral("output")).toString(), QStringLiteral("ran\n"));
        QCOMPARE(started.size(), 1);
        QVERIFY(queue.pending().isEmpty());
        QVERIFY(rig->dispatcher->waitingCallIds().isEmpty());
        // Run once is not a rule: the same command is asked again.
        rig->server.send(BackendServer::toolCall(QStringLiteral("a2"), QStringLiteral("s1"),
                                                 QStringLiteral("mkdir -p d; sleep 0.3; echo ran"), m_workspace));
        QVERIFY(rig->server.waitFor([](const QJsonObject& m) { return isCallState(m, QStringLiteral("a2")); }, 5000));
        // A read-only command runs without asking in ask-unsafe.
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("a3"), QStringLiteral("s1"), QStringLiteral("pwd"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("a3"), 10000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("a3")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("ok"));
    }

    void alwaysAllowAddsTheRuleForTheNextCall() {
        auto rig = makeRig();
        QVERIFY(rig);
        ApprovalQueue queue;
        queue.setInteractive(true);
        rig->dispatcher->setApprovalQueue(&queue);
        rig->dispatcher->setApprovalOverrides({}, ApprovalMode::AskAll);
        QSignalSpy ruleAdded(rig->dispatcher.get(), &ToolDispatcher::approvalRuleAdded);
        QSignalSpy matched(rig->dispatcher.get(), &ToolDispatcher::approvalRulesMatched);
        rig->server.send(BackendServer::toolCall(QStringLiteral("r1"), QStringLiteral("s1"),
                                                 QStringLiteral("echo first"), m_workspace));
        QVERIFY(rig->server.waitFor([](const QJsonObject& m) { return isCallState(m, QStringLiteral("r1")); }, 5000));
        ApprovalAnswer always;
        always.kind = ApprovalAnswer::Kind::AlwaysAllow;
        always.prefix = QStringLiteral(" echo ");
        queue.answer(QStringLiteral("r1"), always);
        QVERIFY(rig->server.waitForResult(QStringLiteral("r1"), 10000));
        QCOMPARE(ruleAdded.size(), 1);
        QCOMPARE(ruleAdded.first().at(0).toString(), m_workspace);
        QCOMPARE(ruleAdded.first().at(1).toString(), QStringLiteral("echo"));
        QCOMPARE(rig->dispatcher->approvalPolicyFor(m_workspace).allow, QStringList{QStringLiteral("echo")});
        const int before = int(rig->server.messages.size());
        rig->server.send(BackendServer::toolCall(QStringLiteral("r2"), QStringLiteral("s1"),
                                                 QStringLiteral("echo second"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("r2"), 10000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("r2")).first().value(QStringLiteral("output")).toString(),
                 QStringLiteral("second\n"));
        QVERIFY(
            !rig->server.waitFor([](const QJsonObject& m) { return isCallState(m, QStringLiteral("r2")); }, 1, before));
        QCOMPARE(matched.size(), 1);
        QCOMPARE(matched.first().at(1).toStringList(), QStringList{QStringLiteral("echo")});
    }

    void unansweredQuestionIsDeniedAfterTheTimeout() {
        auto rig = makeRig();
        QVERIFY(rig);
        ApprovalQueue queue;
        queue.setInteractive(true);
        queue.setTimeoutMs(300);
        rig->dispatcher->setApprovalQueue(&queue);
        rig->dispatcher->setApprovalOverrides({}, ApprovalMode::AskAll);
        QSignalSpy started(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("t1"), QStringLiteral("s1"), QStringLiteral("true"), m_workspace));
        QVERIFY(rig->server.waitForResult(QStringLiteral("t1"), 5000));
        const QJsonObject result = rig->server.resultsFor(QStringLiteral("t1")).first();
        QCOMPARE(errorCodeOf(result), QStringLiteral("approval_denied"));
        QVERIFY(result.value(QStringLiteral("error"))
                    .toObject()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QStringLiteral("in time")));
        QCOMPARE(started.size(), 0);
        QVERIFY(queue.pending().isEmpty());
        // An answer after the deadline changes nothing.
        queue.answer(QStringLiteral("t1"), ApprovalAnswer{ApprovalAnswer::Kind::RunOnce, ApprovalAnswer::By::User, {}});
        QTest::qWait(200);
        QCOMPARE(started.size(), 0);
        QCOMPARE(rig->server.resultsFor(QStringLiteral("t1")).size(), 1);
    }

    void cancelAndSessionEndWhileWaiting() {
        auto rig = makeRig();
        QVERIFY(rig);
        ApprovalQueue queue;
        queue.setInteractive(true);
        rig->dispatcher->setApprovalQueue(&queue);
        rig->dispatcher->setApprovalOverrides({}, ApprovalMode::AskAll);
        QSignalSpy started(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("w1"), QStringLiteral("s1"), QStringLiteral("true"), m_workspace));
        rig->server.send(
            BackendServer::toolCall(QStringLiteral("w2"), QStringLiteral("s2"), QStringLiteral("true"), m_workspace));
        QTRY_COMPARE(queue.pending().size(), 2);
        rig->server.send(
            BackendServer::simple(QStringLiteral("cancel"), QStringLiteral("call_id"), QStringLiteral("w1")));
        QVERIFY(rig->server.waitForResult(QStringLiteral("w1"), 5000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("w1")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("cancelled"));
        rig->server.send(
            BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), QStringLiteral("s2")));
        QVERIFY(rig->server.waitForResult(QStringLiteral("w2"), 5000));
        QCOMPARE(rig->server.resultsFor(QStringLiteral("w2")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("cancelled"));
        QVERIFY(queue.pending().isEmpty());
        QCOMPARE(started.size(), 0);
    }

    // Revoking an approval ends every session on that folder within 2 s (the container is removed,
    // background loops with it), not at the idle timeout; the backend hears the result and session_state stopped.
    void revokingAnApprovalEndsItsSessions() {
        auto rig = makeRig();
        QVERIFY(rig);
        rig->server.send(BackendServer::toolCall(QStringLiteral("rv1"), QStringLiteral("s-rv"),
                                                 QStringLiteral("sleep 30"), m_workspace));
        QTRY_COMPARE(rig->dispatcher->runningCalls(), 1);
        QTRY_COMPARE(rig->manager->runningCalls(), 1);
        QElapsedTimer clock;
        clock.start();
        rig->dispatcher->setApprovedWorkspaces({m_other});  // the user revoked the workspace
        QVERIFY(rig->server.waitForResult(QStringLiteral("rv1"), 2000));
        QVERIFY(clock.elapsed() < 2000);
        QCOMPARE(rig->manager->sessionState(QStringLiteral("s-rv")), SessionState::Stopped);
        QVERIFY(rig->server.waitFor(
            [](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("session_state")
                       && m.value(QStringLiteral("session_id")).toString() == QLatin1String("s-rv")
                       && m.value(QStringLiteral("state")).toString() == QLatin1String("stopped");
            },
            2000));
        rig->dispatcher->setApprovedWorkspaces({m_workspace});
    }

    // The backend cannot join, end or hear about the local console's session ("local-console", and
    // any id in that namespace); the console's own calls never reach the backend.
    void localConsoleSessionIsNotTheBackends() {
        auto rig = makeRig();
        QVERIFY(rig);
        const QString console = QStringLiteral("local-console");
        QSignalSpy finished(rig->manager.get(), &SessionManager::callFinished);
        ExecRequest request;
        request.callId = QStringLiteral("console-1");
        request.sessionId = console;
        request.workspace = m_workspace;
        request.command = QStringLiteral("echo typed by the user");
        rig->manager->execute(request);  // what the dashboard's console does
        QVERIFY(finished.wait(10000));

        QSignalSpy started(rig->dispatcher.get(), &ToolDispatcher::callStarted);
        for (const QString& id : {console, QStringLiteral("LOCAL-console"), QStringLiteral("local-other")}) {
            const QString callId = QStringLiteral("join-") + QString::number(qHash(id));
            rig->server.send(BackendServer::toolCall(callId, id, QStringLiteral("cat /proc/1/cmdline"), m_workspace));
            QVERIFY(rig->server.waitFor(
                [callId](const QJsonObject& m) {
                    return typeOf(m) == QLatin1String("error")
                           && m.value(QStringLiteral("call_id")).toString() == callId
                           && m.value(QStringLiteral("code")).toString() == QLatin1String("invalid_message");
                },
                5000));
            QVERIFY(rig->server.resultsFor(callId).isEmpty());
        }
        QCOMPARE(started.size(), 0);
        const int before = int(rig->server.messages.size());
        rig->server.send(BackendServer::simple(QStringLiteral("session_end"), QStringLiteral("session_id"), console));
        QVERIFY(rig->server.waitForType(QStringLiteral("error"), 5000, before));
        QVERIFY(rig->manager->sessionIds().contains(console));
        QVERIFY(rig->manager->sessionState(console) != SessionState::Stopped);

        // Nothing of the console's session reaches the backend, now or after a reconnect.
        rig->server.dropClient();
        QVERIFY(rig->server.waitForType(QStringLiteral("hello"), 5000, before + 1));
        QTest::qWait(300);
        for (const QJsonObject& m : std::as_const(rig->server.messages)) {
            QVERIFY2(m.value(QStringLiteral("session_id")).toString() != console,
                     QJsonDocument(m).toJson().constData());
            QVERIFY(m.value(QStringLiteral("call_id")).toString() != QLatin1String("console-1"));
        }
    }

    void toResultMessageMapsEveryStatus_data() {
        QTest::addColumn<int>("execStatus");
        QTest::addColumn<int>("errorCode");
        QTest::addColumn<QString>("wireStatus");
        QTest::addColumn<QString>("wireCode");
        const int none = int(ExecError::None);
        QTest::newRow("ok") << int(ExecStatus::Ok) << none << QStringLiteral("ok") << QString();
        QTest::newRow("timeout") << int(ExecStatus::Timeout) << none << QStringLiteral("timeout") << QString();
        QTest::newRow("cancelled") << int(ExecStatus::Cancelled) << none << QStringLiteral("cancelled") << QString();
        // Every execution error has its own protocol code (an exhaustive switch, no fallback).
        QTest::newRow("workspace invalid") << int(ExecStatus::Error) << int(ExecError::WorkspaceInvalid)
                                           << QStringLiteral("error") << QStringLiteral("workspace_invalid");
        QTest::newRow("image missing") << int(ExecStatus::Error) << int(ExecError::ImageMissing)
                                       << QStringLiteral("error") << QStringLiteral("image_missing");
        QTest::newRow("container failed") << int(ExecStatus::Error) << int(ExecError::ContainerFailed)
                                          << QStringLiteral("error") << QStringLiteral("container_failed");
        QTest::newRow("busy") << int(ExecStatus::Error) << int(ExecError::Busy) << QStringLiteral("error")
                              << QStringLiteral("busy");
        QTest::newRow("no runtime") << int(ExecStatus::Error) << int(ExecError::NoRuntime) << QStringLiteral("error")
                                    << QStringLiteral("no_runtime");
        QTest::newRow("error without a code")
            << int(ExecStatus::Error) << none << QStringLiteral("error") << QStringLiteral("container_failed");
    }

    void toResultMessageMapsEveryStatus() {
        QFETCH(int, execStatus);
        QFETCH(int, errorCode);
        QFETCH(QString, wireStatus);
        QFETCH(QString, wireCode);
        ExecResult exec;
        exec.callId = QStringLiteral("x");
        exec.status = ExecStatus(execStatus);
        exec.errorCode = ExecError(errorCode);
        exec.errorMessage = QStringLiteral("why");
        exec.output = QStringLiteral("out");
        exec.truncated = true;
        exec.durationMs = 42;
        const QJsonObject json = Protocol::makeToolResult(ToolDispatcher::toResultMessage(exec));
        QCOMPARE(json.value(QStringLiteral("status")).toString(), wireStatus);
        QCOMPARE(json.value(QStringLiteral("output")).toString(), QStringLiteral("out"));
        QCOMPARE(json.value(QStringLiteral("truncated")).toBool(), true);
        QCOMPARE(json.value(QStringLiteral("duration_ms")).toInt(), 42);
        QCOMPARE(json.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(), wireCode);
    }
};

QTEST_GUILESS_MAIN(TestToolDispatcher)
#include "tst_tooldispatcher.moc"
