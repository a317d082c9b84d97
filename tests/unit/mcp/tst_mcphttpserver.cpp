// The MCP HTTP transport from the outside, as an attacker on this computer or a web page would try it: raw HTTP
// over a real socket to a server on 127.0.0.1 (no core behind it: nothing here runs a command). Every request
// without the token, with another Origin or Host, or malformed is refused with its status, no CORS header is ever
// sent, the limits hold, a refusal loses no session, and the token never reaches a log line.
#include "mcp/mcphttpserver.h"
#include "mcp/mcplocalbackend.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <QtTest>

#include <memory>

using namespace zeus;

namespace {

const QByteArray kToken("s3cr3t-t0ken-for-the-test-0123456789abcdef");

struct Reply {
    int status = 0;
    QByteArray head;
    QByteArray body;
    bool closed = false;

    QByteArray header(const QByteArray& name) const {
        for (const QByteArray& line : head.split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0 && line.left(colon).trimmed().toLower() == name) {
                return line.mid(colon + 1).trimmed();
            }
        }
        return {};
    }
};

QStringList g_logLines;

void captureLog(QtMsgType, const QMessageLogContext&, const QString& message) {
    g_logLines << message;
}

}  // namespace

class TstMcpHttpServer : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<McpLocalBackend> backend;
    std::unique_ptr<McpHttpServer> server;

    QByteArray hostHeader() const { return "127.0.0.1:" + QByteArray::number(server->port()); }

    QByteArray request(const QByteArray& method, const QByteArray& body, const QByteArray& extra,
                       bool withToken = true) const {
        QByteArray text = method + " /mcp HTTP/1.1\r\nHost: " + hostHeader() + "\r\n";
        if (withToken) {
            text += "Authorization: Bearer " + kToken + "\r\n";
        }
        if (method == "POST") {
            text += "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
                    + QByteArray::number(body.size()) + "\r\n";
        }
        return text + extra + "\r\n" + body;
    }

    // Sends `bytes` on `socket` (a new one when null) and reads one response.
    Reply exchange(const QByteArray& bytes, QTcpSocket* socket = nullptr) {
        QTcpSocket own;
        QTcpSocket* s = socket ? socket : &own;
        if (s->state() != QAbstractSocket::ConnectedState) {
            s->connectToHost(QHostAddress::LocalHost, server->port());
            if (!s->waitForConnected(3000)) {
                return {};
            }
        }
        s->write(bytes);
        QByteArray data;
        Reply reply;
        const bool whole = QTest::qWaitFor(
            [&] {
                data += s->readAll();
                const qsizetype end = data.indexOf("\r\n\r\n");
                if (end < 0) {
                    return s->state() != QAbstractSocket::ConnectedState;
                }
                reply.head = data.left(end);
                const qsizetype length = reply.header("content-length").toLongLong();
                return data.size() >= end + 4 + length;
            },
            5000);
        const qsizetype end = data.indexOf("\r\n\r\n");
        if (whole && end >= 0) {
            reply.head = data.left(end);
            reply.body = data.mid(end + 4);
            reply.status = reply.head.mid(9, 3).toInt();
        }
        QTest::qWait(20);
        reply.closed = s->state() != QAbstractSocket::ConnectedState;
        return reply;
    }

    QByteArray initialize() {
        const Reply reply = exchange(request("POST",
                                             R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
                                             R"("protocolVersion":"2025-06-18","capabilities":{},)"
                                             R"("clientInfo":{"name":"t","version":"1"}}})",
                                             {}));
        return reply.status == 200 ? reply.header("mcp-session-id") : QByteArray();
    }

    Reply ping(const QByteArray& session, QTcpSocket* socket = nullptr) {
        return exchange(
            request("POST", R"({"jsonrpc":"2.0","id":7,"method":"ping"})", "Mcp-Session-Id: " + session + "\r\n"),
            socket);
    }

private Q_SLOTS:
    void init() {
        backend = std::make_unique<McpLocalBackend>();
        server = std::make_unique<McpHttpServer>(*backend, kToken);
        QVERIFY(server->listen(0));
    }

    void cleanup() {
        server.reset();
        backend.reset();
    }

    void originRule_data() {
        QTest::addColumn<QByteArray>("origin");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("absent") << QByteArray() << true;
        QTest::newRow("127.0.0.1") << QByteArray("http://127.0.0.1") << true;
        QTest::newRow("localhost with port") << QByteArray("http://localhost:6274") << true;
        QTest::newRow("https localhost") << QByteArray("https://localhost") << true;
        QTest::newRow("upper case") << QByteArray("HTTP://LOCALHOST:1") << true;
        QTest::newRow("another site") << QByteArray("http://evil.example") << false;
        QTest::newRow("rebinding name") << QByteArray("http://localhost.evil.example") << false;
        QTest::newRow("suffix") << QByteArray("http://127.0.0.1.evil.example:80") << false;
        QTest::newRow("user info") << QByteArray("http://localhost@evil.example") << false;
        QTest::newRow("null") << QByteArray("null") << false;
        QTest::newRow("file") << QByteArray("file://") << false;
        QTest::newRow("other address") << QByteArray("http://127.0.0.2") << false;
        QTest::newRow("IPv6 any") << QByteArray("http://[::]:80") << false;
        QTest::newRow("path") << QByteArray("http://localhost/x") << false;
        QTest::newRow("port too long") << QByteArray("http://localhost:123456") << false;
    }

    void originRule() {
        QFETCH(QByteArray, origin);
        QFETCH(bool, allowed);
        QCOMPARE(McpHttpServer::originAllowed(origin), allowed);
    }

    void hostRule_data() {
        QTest::addColumn<QByteArray>("host");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("127.0.0.1") << QByteArray("127.0.0.1:8080") << true;
        QTest::newRow("localhost") << QByteArray("localhost:8080") << true;
        QTest::newRow("Localhost") << QByteArray("LocalHost:8080") << true;
        QTest::newRow("no port") << QByteArray("localhost") << false;
        QTest::newRow("other port") << QByteArray("localhost:8081") << false;
        QTest::newRow("rebinding name") << QByteArray("evil.example:8080") << false;
        QTest::newRow("empty") << QByteArray() << false;
        QTest::newRow("0.0.0.0") << QByteArray("0.0.0.0:8080") << false;
    }

    void hostRule() {
        QFETCH(QByteArray, host);
        QFETCH(bool, allowed);
        QCOMPARE(McpHttpServer::hostAllowed(host, 8080), allowed);
    }

    void listensOnLoopbackOnly() {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, server->port());
        QVERIFY(socket.waitForConnected(3000));
        QCOMPARE(socket.peerAddress(), QHostAddress(QHostAddress::LocalHost));
        // Any other address of this machine is refused: nothing listens there.
        McpHttpServer other(*backend, kToken);
        QVERIFY(other.listen(0));
        QTcpSocket outside;
        outside.connectToHost(QHostAddress(QStringLiteral("127.0.0.2")), other.port());
        QVERIFY(!outside.waitForConnected(1000));
    }

    void refusals_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        const QByteArray ping(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
        const QByteArray len = "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(ping.size());
        const QByteArray bare(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
        const QByteArray bareLen =
            "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(bare.size());
        QTest::newRow("no token") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\n" + len + "\r\n\r\n" + ping)
                                  << 401;
        QTest::newRow("wrong token") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer nope\r\n"
                                                   + len + "\r\n\r\n" + ping)
                                     << 401;
        QTest::newRow("token prefix") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer "
                                                    + kToken.left(10) + "\r\n" + len + "\r\n\r\n" + ping)
                                      << 401;
        QTest::newRow("token longer") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\nAuthorization: Bearer "
                                                    + kToken + "x\r\n" + len + "\r\n\r\n" + ping)
                                      << 401;
        QTest::newRow("basic scheme") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\nAuthorization: Basic " + kToken
                                                    + "\r\n" + len + "\r\n\r\n" + ping)
                                      << 401;
        QTest::newRow("token in the query")
            << QByteArray("POST /mcp?token=" + kToken + " HTTP/1.1\r\nHost: HOST\r\n" + len + "\r\n\r\n" + ping) << 401;
        QTest::newRow("other origin") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\nOrigin: "
            "http://evil.example\r\n"
            + len + "\r\n\r\n" + ping) << 403;
        QTest::newRow("rebound host") << QByteArray("POST /mcp HTTP/1.1\r\nHost: evil.example:PORT\r\nAUTH\r\n" + len
                                                    + "\r\n\r\n" + ping)
                                      << 403;
        QTest::newRow("host with another port")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nAUTH\r\n" + len + "\r\n\r\n" + ping) << 403;
        QTest::newRow("other path") << QByteArray("POST /other HTTP/1.1\r\nHost: HOST\r\nAUTH\r\n" + len + "\r\n\r\n"
                                                  + ping)
                                    << 404;
        QTest::newRow("no session") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\n" + bareLen + "\r\n\r\n"
                                                  + bare)
                                    << 400;
        QTest::newRow("unknown session") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\nMcp-Session-Id: "
            "0123\r\n"
            + bareLen + "\r\n\r\n" + bare)
                                         << 404;
        QTest::newRow("not JSON") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\nContent-Type: "
            "application/json\r\nContent-Length: 3\r\n\r\n{x}")
                                  << 400;
        QTest::newRow("text body") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\nContent-Type: "
            "text/plain\r\nContent-Length: 2\r\n\r\n{}")
                                   << 415;
        QTest::newRow("chunked") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\nContent-Type: "
            "application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
                                 << 501;
        QTest::newRow("no length") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\n\r\n{}") << 411;
        QTest::newRow("too large") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\nContent-Length: 99999999\r\n\r\n")
                                   << 413;
        QTest::newRow("malformed head") << QByteArray("POST /mcp HTTP/1.1\r\nHost: HOST\r\nbroken header\r\n\r\n")
                                        << 400;
        QTest::newRow("GET stream") << QByteArray("GET /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\n\r\n") << 405;
        QTest::newRow("PUT") << QByteArray("PUT /mcp HTTP/1.1\r\nHost: HOST\r\nAUTH\r\nContent-Length: 0\r\n\r\n")
                             << 405;
    }

    void refusals() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        const QByteArray session = initialize();
        QVERIFY(!session.isEmpty());
        bytes.replace("HOST", hostHeader())
            .replace("PORT", QByteArray::number(server->port()))
            .replace("AUTH", QByteArray("Authorization: Bearer " + kToken));
        const Reply reply = exchange(bytes);
        QCOMPARE(reply.status, status);
        QVERIFY(!reply.head.toLower().contains("access-control-"));
        QVERIFY(!reply.body.contains(kToken));
        // A refusal loses nothing: the session still answers.
        QCOMPARE(ping(session).status, 200);
        QCOMPARE(server->sessionCount(), 1);
    }

    void malformedRequestClosesOnlyItsConnection() {
        const QByteArray session = initialize();
        QTcpSocket bad;
        const Reply refused = exchange("POST /mcp HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", &bad);
        QCOMPARE(refused.status, 400);
        QVERIFY(refused.closed);
        QVERIFY(refused.body.contains("folded"));  // a clear reason
        QTcpSocket good;
        QCOMPARE(ping(session, &good).status, 200);
        QCOMPARE(ping(session, &good).status, 200);  // kept alive
    }

    void preflightGetsNoCors() {
        const Reply reply = exchange("OPTIONS /mcp HTTP/1.1\r\nHost: " + hostHeader()
                                     + "\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\n"
                                       "Access-Control-Request-Headers: authorization\r\n\r\n");
        QCOMPARE(reply.status, 403);
        QVERIFY(!reply.head.toLower().contains("access-control-"));
        const Reply local =
            exchange("OPTIONS /mcp HTTP/1.1\r\nHost: " + hostHeader()
                     + "\r\nOrigin: http://localhost:3000\r\nAccess-Control-Request-Method: POST\r\n\r\n");
        QVERIFY(local.status >= 400);
        QVERIFY(!local.head.toLower().contains("access-control-"));
    }

    void sessionsAreSeparateAndDeleteEndsOne() {
        const QByteArray a = initialize();
        const QByteArray b = initialize();
        QVERIFY(!a.isEmpty() && !b.isEmpty() && a != b);
        QCOMPARE(a.size(), McpHttpServer::kSessionIdBytes * 2);
        QCOMPARE(server->sessionCount(), 2);
        QCOMPARE(exchange(request("DELETE", {}, "Mcp-Session-Id: " + a + "\r\n")).status, 200);
        QCOMPARE(ping(a).status, 404);
        QCOMPARE(ping(b).status, 200);
        QCOMPARE(exchange(request("DELETE", {}, "Mcp-Session-Id: " + a + "\r\n")).status, 404);
        QCOMPARE(exchange(request("DELETE", {}, {})).status, 400);
        QCOMPARE(exchange(request("DELETE", {}, "Mcp-Session-Id: " + b + "\r\n", false)).status, 401);
        QCOMPARE(server->sessionCount(), 1);
    }

    void notificationsGet202() {
        const QByteArray session = initialize();
        const Reply reply = exchange(request("POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                                             "Mcp-Session-Id: " + session + "\r\n"));
        QCOMPARE(reply.status, 202);
        QVERIFY(reply.body.isEmpty());
    }

    void unsupportedProtocolVersionHeader() {
        const QByteArray session = initialize();
        const Reply reply =
            exchange(request("POST", R"({"jsonrpc":"2.0","id":2,"method":"ping"})",
                             "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: 1999-01-01\r\n"));
        QCOMPARE(reply.status, 400);
    }

    void sessionLimitEvictsTheIdlest() {
        QList<QByteArray> sessions;
        for (int i = 0; i < McpHttpServer::kMaxSessions; ++i) {
            sessions << initialize();
        }
        QCOMPARE(server->sessionCount(), McpHttpServer::kMaxSessions);
        QCOMPARE(ping(sessions.first()).status, 200);  // now the most recently used
        const QByteArray newest = initialize();
        QVERIFY(!newest.isEmpty());
        QCOMPARE(server->sessionCount(), McpHttpServer::kMaxSessions);
        QCOMPARE(ping(sessions.at(1)).status, 404);  // the idlest went
        QCOMPARE(ping(sessions.first()).status, 200);
    }

    void connectionLimit() {
        std::vector<std::unique_ptr<QTcpSocket>> sockets;
        for (int i = 0; i < McpHttpServer::kMaxConnections; ++i) {
            sockets.push_back(std::make_unique<QTcpSocket>());
            sockets.back()->connectToHost(QHostAddress::LocalHost, server->port());
            QVERIFY(sockets.back()->waitForConnected(3000));
        }
        QTest::qWait(100);
        QTcpSocket extra;
        const Reply reply = exchange(request("POST", "{}", {}), &extra);
        QCOMPARE(reply.status, 503);
        sockets.clear();
        QTest::qWait(100);
        QVERIFY(!initialize().isEmpty());
    }

    void tokenIsNeverLogged() {
        g_logLines.clear();
        const QtMessageHandler previous = qInstallMessageHandler(captureLog);
        const QByteArray session = initialize();
        ping(session);
        exchange(request("POST", "{}", "Authorization: Bearer " + kToken + "x\r\n", false));
        for (int i = 0; i < McpHttpServer::kMaxConnections + 2; ++i) {
            exchange(request("POST", "{}", {}));
        }
        qInstallMessageHandler(previous);
        for (const QString& line : std::as_const(g_logLines)) {
            QVERIFY2(!line.contains(QString::fromLatin1(kToken)), qPrintable(line));
        }
    }
};

QTEST_GUILESS_MAIN(TstMcpHttpServer)
#include "tst_mcphttpserver.moc"
