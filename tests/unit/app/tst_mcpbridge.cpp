// The MCP bridge over the tray app's single-instance socket: the request and the answer as pure functions (every
// malformed request refused), then a real SingleInstance: a request is handed on with its folders, lines go both
// ways, another user's connection is refused before a byte is read, an endless line or garbage closes the
// connection, the bridges are bounded, and the peer's uid is the one SO_PEERCRED reports.
#include "mcpbridgechannel.h"
#include "singleinstance.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTemporaryFile>
#include <QUuid>
#include <QtTest>

#include <memory>

using namespace zeus;

namespace {

QString uniqueKey() {
    return QStringLiteral("zeus-test-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
}

// A client of the socket that keeps every line it gets.
struct Client {
    QLocalSocket* socket = new QLocalSocket;
    McpBridgeChannel channel{socket};
    QList<QByteArray> lines;
    bool closed = false;

    Client() {
        QObject::connect(&channel, &McpBridgeChannel::lineReceived, &channel,
                         [this](const QByteArray& line) { lines << line; });
        QObject::connect(&channel, &McpBridgeChannel::closed, &channel, [this] { closed = true; });
    }
    bool connectTo(const QString& server) {
        socket->connectToServer(server);
        return QTest::qWaitFor([this] { return socket->state() == QLocalSocket::ConnectedState; }, 5000);
    }
};

}  // namespace

class TestMcpBridge : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void requestRoundTrip() {
        const QStringList folders{QStringLiteral("/home/u/project"), QStringLiteral("/srv/a folder, with \"quotes\"")};
        const QByteArray bytes = McpBridgeChannel::requestBytes(folders);
        QVERIFY(bytes.endsWith('\n'));
        const QList<QByteArray> lines = bytes.split('\n');
        QCOMPARE(lines.size(), 3);  // greeting, request, and the empty rest after the last newline
        QCOMPARE(McpBridgeChannel::greeting(lines.at(0)), McpBridgeChannel::Greeting::Mcp);
        QCOMPARE(McpBridgeChannel::parseRequest(lines.at(1)), std::optional<QStringList>(folders));
        QCOMPARE(McpBridgeChannel::parseRequest(McpBridgeChannel::requestBytes({}).split('\n').at(1)),
                 std::optional<QStringList>(QStringList()));
    }

    void greetings_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("greeting");
        QTest::newRow("mcp") << QByteArray("mcp 1") << int(McpBridgeChannel::Greeting::Mcp);
        QTest::newRow("mcp, carriage return") << QByteArray("mcp 1\r") << int(McpBridgeChannel::Greeting::Mcp);
        QTest::newRow("activate") << QByteArray("activate") << int(McpBridgeChannel::Greeting::Activate);
        QTest::newRow("another version") << QByteArray("mcp 2") << int(McpBridgeChannel::Greeting::Unknown);
        QTest::newRow("mcp without version") << QByteArray("mcp") << int(McpBridgeChannel::Greeting::Unknown);
        QTest::newRow("empty") << QByteArray() << int(McpBridgeChannel::Greeting::Unknown);
        QTest::newRow("json") << QByteArray("{\"workspaces\":[]}") << int(McpBridgeChannel::Greeting::Unknown);
    }

    void greetings() {
        QFETCH(QByteArray, line);
        QFETCH(int, greeting);
        QCOMPARE(int(McpBridgeChannel::greeting(line)), greeting);
    }

    void malformedRequestsAreRefused_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("not json") << QByteArray("workspaces: /a");
        QTest::newRow("an array") << QByteArray("[\"/a\"]");
        QTest::newRow("no workspaces") << QByteArray("{}");
        QTest::newRow("workspaces a string") << QByteArray("{\"workspaces\":\"/a\"}");
        QTest::newRow("a number in it") << QByteArray("{\"workspaces\":[1]}");
        QTest::newRow("an empty path") << QByteArray("{\"workspaces\":[\"\"]}");
        QTest::newRow("null") << QByteArray("{\"workspaces\":null}");
        QJsonArray many;
        for (int i = 0; i <= McpBridgeChannel::kMaxWorkspaces; ++i) {
            many.append(QStringLiteral("/f%1").arg(i));
        }
        QTest::newRow("too many")
            << QJsonDocument(QJsonObject{{QStringLiteral("workspaces"), many}}).toJson(QJsonDocument::Compact);
    }

    void malformedRequestsAreRefused() {
        QFETCH(QByteArray, line);
        QVERIFY(!McpBridgeChannel::parseRequest(line));
    }

    void answers() {
        const auto accepted =
            McpBridgeChannel::parseAnswer(McpBridgeChannel::acceptLine(QStringLiteral("local-mcp-1")));
        QVERIFY(accepted && accepted->ok);
        QCOMPARE(accepted->session, QStringLiteral("local-mcp-1"));
        const auto refused = McpBridgeChannel::parseAnswer(
            McpBridgeChannel::refuseLine(QStringLiteral("workspace_not_approved"), QStringLiteral("why")));
        QVERIFY(refused && !refused->ok);
        QCOMPARE(refused->code, QStringLiteral("workspace_not_approved"));
        QCOMPARE(refused->message, QStringLiteral("why"));
        QVERIFY(!McpBridgeChannel::parseAnswer("{\"jsonrpc\":\"2.0\"}"));
        QVERIFY(!McpBridgeChannel::parseAnswer("not json"));
        QVERIFY(!McpBridgeChannel::acceptLine(QStringLiteral("a\nb")).contains('\n'));
    }

    void bridgeIsHandedOnAndCarriesLines() {
        SingleInstance tray(uniqueKey());
        QVERIFY(tray.claim());
        McpBridgeChannel* served = nullptr;
        QStringList asked;
        bool sameUser = false;
        connect(&tray, &SingleInstance::mcpBridgeRequested, this,
                [&](McpBridgeChannel* channel, const QStringList& workspaces) {
                    served = channel;
                    asked = workspaces;
                    sameUser = SingleInstance::isSameUser(channel->descriptor());
                    channel->setParent(this);
                    channel->sendLine(McpBridgeChannel::acceptLine(QStringLiteral("local-mcp-t")));
                    connect(channel, &McpBridgeChannel::lineReceived, channel,
                            [channel](const QByteArray& line) { channel->sendLine("echo:" + line); });
                });
        Client client;
        QVERIFY(client.connectTo(tray.serverName()));
        QVERIFY(SingleInstance::isSameUser(client.socket->socketDescriptor()));
        client.socket->write(McpBridgeChannel::requestBytes({QStringLiteral("/srv/project")}));
        QTRY_VERIFY_WITH_TIMEOUT(served, 5000);
        QCOMPARE(asked, QStringList{QStringLiteral("/srv/project")});
        QVERIFY(sameUser);
        QCOMPARE(tray.bridgeCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(client.lines.size(), 1, 5000);
        QVERIFY(McpBridgeChannel::parseAnswer(client.lines.at(0))->ok);
        client.channel.sendLine(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
        QTRY_COMPARE_WITH_TIMEOUT(client.lines.size(), 2, 5000);
        QCOMPARE(client.lines.at(1), QByteArray(R"(echo:{"jsonrpc":"2.0","id":1,"method":"ping"})"));

        QSignalSpy closed(served, &McpBridgeChannel::closed);
        client.channel.close();
        QVERIFY(closed.wait(5000));
        delete served;
        QCOMPARE(tray.bridgeCount(), 0);
    }

    void anotherUserIsRefused() {
        SingleInstance tray(uniqueKey());
        QVERIFY(tray.claim());
        int checked = 0;
        tray.setPeerCheck([&checked](qintptr) {
            ++checked;
            return false;  // as for a peer of another uid
        });
        QSignalSpy activated(&tray, &SingleInstance::activationRequested);
        QSignalSpy bridged(&tray, &SingleInstance::mcpBridgeRequested);
        for (const QByteArray& request :
             {QByteArray("activate\n"), McpBridgeChannel::requestBytes({QStringLiteral("/srv/project")})}) {
            Client client;
            QVERIFY(client.connectTo(tray.serverName()));
            client.socket->write(request);
            QTRY_VERIFY_WITH_TIMEOUT(client.closed, 5000);
            QVERIFY(client.lines.isEmpty());
        }
        QCOMPARE(checked, 2);
        QCOMPARE(activated.size(), 0);
        QCOMPARE(bridged.size(), 0);
    }

    void isSameUserNeedsASocket() {
        QTemporaryFile file;
        QVERIFY(file.open());
        QVERIFY(!SingleInstance::isSameUser(file.handle()));
        QVERIFY(!SingleInstance::isSameUser(-1));
    }

    void badRequestsCloseTheConnection_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("answered");
        QTest::newRow("unknown greeting") << QByteArray("hello\n") << false;
        QTest::newRow("garbage request") << QByteArray("mcp 1\n{not json\n") << true;
        QTest::newRow("endless greeting") << QByteArray(McpBridgeChannel::kMaxLineBytes + 16, 'a') << false;
    }

    void badRequestsCloseTheConnection() {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, answered);
        SingleInstance tray(uniqueKey());
        QVERIFY(tray.claim());
        QSignalSpy bridged(&tray, &SingleInstance::mcpBridgeRequested);
        connect(&tray, &SingleInstance::mcpBridgeRequested, this, [](McpBridgeChannel* channel) { channel->close(); });
        Client client;
        QVERIFY(client.connectTo(tray.serverName()));
        client.socket->write(bytes);
        QTRY_VERIFY_WITH_TIMEOUT(client.closed, 10000);
        QCOMPARE(bridged.size(), 0);
        QCOMPARE(client.lines.size(), answered ? 1 : 0);
        if (answered) {
            const auto answer = McpBridgeChannel::parseAnswer(client.lines.constFirst());
            QVERIFY(answer && !answer->ok);
            QCOMPARE(answer->code, QStringLiteral("invalid_message"));
        }
    }

    // A peer that reads nothing: the lines wait in the socket up to the cap, then the channel is closed.
    void aPeerThatDoesNotReadIsClosed() {
        SingleInstance tray(uniqueKey());
        QVERIFY(tray.claim());
        McpBridgeChannel* served = nullptr;
        connect(&tray, &SingleInstance::mcpBridgeRequested, this, [&](McpBridgeChannel* channel) {
            channel->setParent(this);
            channel->setMaxPendingBytes(4 * 1024 * 1024);
            served = channel;
        });
        auto* reader = new QLocalSocket;
        reader->setReadBufferSize(1);  // reads (almost) nothing: the kernel's buffers fill
        QSignalSpy readerClosed(reader, &QLocalSocket::disconnected);
        reader->connectToServer(tray.serverName());
        QTRY_COMPARE_WITH_TIMEOUT(reader->state(), QLocalSocket::ConnectedState, 5000);
        reader->write(McpBridgeChannel::requestBytes({}));
        QTRY_VERIFY_WITH_TIMEOUT(served, 5000);
        QSignalSpy closed(served, &McpBridgeChannel::closed);
        const QByteArray line(64 * 1024, 'x');
        for (int i = 0; i < 200 && closed.isEmpty(); ++i) {
            served->sendLine(line);
            QVERIFY(served->socket()->bytesToWrite() <= served->maxPendingBytes());
            QCoreApplication::processEvents();
        }
        QVERIFY(closed.wait(5000) || !closed.isEmpty());
        delete served;
        delete reader;
    }

    void bridgesAreBounded() {
        SingleInstance tray(uniqueKey());
        QVERIFY(tray.claim());
        QList<McpBridgeChannel*> served;
        connect(&tray, &SingleInstance::mcpBridgeRequested, this, [&](McpBridgeChannel* channel) {
            channel->setParent(this);
            served << channel;
            channel->sendLine(McpBridgeChannel::acceptLine(QStringLiteral("s")));
        });
        std::vector<std::unique_ptr<Client>> clients;
        for (int i = 0; i < SingleInstance::kMaxBridges; ++i) {
            clients.push_back(std::make_unique<Client>());
            QVERIFY(clients.back()->connectTo(tray.serverName()));
            clients.back()->socket->write(McpBridgeChannel::requestBytes({}));
            QTRY_COMPARE_WITH_TIMEOUT(clients.back()->lines.size(), 1, 5000);
        }
        QCOMPARE(tray.bridgeCount(), SingleInstance::kMaxBridges);
        Client extra;
        QVERIFY(extra.connectTo(tray.serverName()));
        extra.socket->write(McpBridgeChannel::requestBytes({}));
        QTRY_VERIFY_WITH_TIMEOUT(extra.closed, 5000);
        QCOMPARE(extra.lines.size(), 1);
        QCOMPARE(McpBridgeChannel::parseAnswer(extra.lines.constFirst())->code, QStringLiteral("busy"));
        QCOMPARE(served.size(), SingleInstance::kMaxBridges);
        // One leaves: a new one is taken.
        served.takeFirst()->close();
        QTRY_COMPARE_WITH_TIMEOUT(tray.bridgeCount(), SingleInstance::kMaxBridges - 1, 5000);
        Client next;
        QVERIFY(next.connectTo(tray.serverName()));
        next.socket->write(McpBridgeChannel::requestBytes({}));
        QTRY_COMPARE_WITH_TIMEOUT(next.lines.size(), 1, 5000);
        QVERIFY(McpBridgeChannel::parseAnswer(next.lines.constFirst())->ok);
        qDeleteAll(served);
    }
};

QTEST_GUILESS_MAIN(TestMcpBridge)
#include "tst_mcpbridge.moc"
