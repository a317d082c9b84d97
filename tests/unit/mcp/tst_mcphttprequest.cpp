// The MCP HTTP transport's request parser: every accepted shape, every refusal with its status, the limits at
// and over their bound, a request split at every byte, and kept-alive requests one after another.
#include "mcp/mcphttprequest.h"

#include <QtTest>

using namespace zeus;

namespace {

using Status = McpHttpRequestParser::Status;

QByteArray post(const QByteArray& body, const QByteArray& extra = {}) {
    return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\n" + extra + "\r\n" + body;
}

}  // namespace

class TstMcpHttpRequest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void refusals_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("status");
        QTest::newRow("bare LF") << QByteArray("GET /mcp HTTP/1.1\nHost: a\n\r\n\r\n") << 400;
        QTest::newRow("CR inside a line") << QByteArray("GET /mcp HTTP/1.1\r\nHost: a\rb\r\n\r\n") << 400;
        QTest::newRow("two spaces in the request line") << QByteArray("GET  /mcp HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
        QTest::newRow("absolute target") << QByteArray("GET http://x/mcp HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
        QTest::newRow("asterisk target") << QByteArray("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
        QTest::newRow("method not a token") << QByteArray("G(T /mcp HTTP/1.1\r\nHost: a\r\n\r\n") << 400;
        QTest::newRow("HTTP/2.0") << QByteArray("GET /mcp HTTP/2.0\r\nHost: a\r\n\r\n") << 505;
        QTest::newRow("not HTTP") << QByteArray("GET /mcp SPDY/1\r\nHost: a\r\n\r\n") << 400;
        QTest::newRow("no Host") << QByteArray("GET /mcp HTTP/1.1\r\nAccept: */*\r\n\r\n") << 400;
        QTest::newRow("two Hosts") << QByteArray("GET /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") << 400;
        QTest::newRow("header without colon") << QByteArray("GET /mcp HTTP/1.1\r\nHost: a\r\nBroken\r\n\r\n") << 400;
        QTest::newRow("space before colon") << QByteArray("GET /mcp HTTP/1.1\r\nHost : a\r\n\r\n") << 400;
        QTest::newRow("folded line") << QByteArray("GET /mcp HTTP/1.1\r\nHost: a\r\n b\r\n\r\n") << 400;
        static const char kNul[] = "GET /mcp HTTP/1.1\r\nHost: a\0b\r\n\r\n";
        QTest::newRow("NUL in a value") << QByteArray(kNul, sizeof(kNul) - 1) << 400;
        QTest::newRow("POST without length") << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n{}") << 411;
        QTest::newRow("chunked") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
                                 << 501;
        QTest::newRow("length and chunked")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}")
            << 501;
        QTest::newRow("two lengths") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}")
                                     << 400;
        QTest::newRow("negative length") << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n")
                                         << 400;
        QTest::newRow("length with sign")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: +2\r\n\r\n{}") << 400;
        QTest::newRow("length in hex") << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 0x2\r\n\r\n{}")
                                       << 400;
        QTest::newRow("huge length") << QByteArray(
            "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n")
                                     << 400;
        QTest::newRow("length over the limit")
            << QByteArray("POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: "
                          + QByteArray::number(McpHttpRequestParser::kMaxBodyBytes + 1) + "\r\n\r\n")
            << 413;
        QByteArray many("GET /mcp HTTP/1.1\r\nHost: a\r\n");
        for (int i = 0; i < McpHttpRequestParser::kMaxHeaders; ++i) {
            many += "X-A: b\r\n";
        }
        QTest::newRow("too many headers") << QByteArray(many + "\r\n") << 431;
        QTest::newRow("head too large") << QByteArray(
            "GET /mcp HTTP/1.1\r\nHost: a\r\nX-Big: " + QByteArray(McpHttpRequestParser::kMaxHeadBytes, 'a')
            + "\r\n\r\n") << 431;
        QTest::newRow("endless head") << QByteArray(McpHttpRequestParser::kMaxHeadBytes + 5, 'a') << 431;
    }

    void refusals() {
        QFETCH(QByteArray, input);
        QFETCH(int, status);
        McpHttpRequestParser parser;
        const McpHttpRequestParser::Result result = parser.feed(input);
        QCOMPARE(result.status, Status::Error);
        QCOMPARE(result.httpStatus, status);
        QVERIFY(!result.message.isEmpty());
        QVERIFY(!result.message.contains(QLatin1String("X-Big")));  // never echoes the input
        // Once failed, it stays failed: the framing of the connection is lost.
        QCOMPARE(parser.feed(post("{}")).status, Status::Error);
        QCOMPARE(parser.buffered(), 0);
    }

    void accepted_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("post") << post(R"({"jsonrpc":"2.0"})") << QByteArray("POST") << QByteArray("/mcp")
                              << QByteArray(R"({"jsonrpc":"2.0"})");
        QTest::newRow("empty body") << post("") << QByteArray("POST") << QByteArray("/mcp") << QByteArray();
        QTest::newRow("get") << QByteArray("GET /mcp?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n") << QByteArray("GET")
                             << QByteArray("/mcp") << QByteArray();
        QTest::newRow("delete") << QByteArray("DELETE /mcp HTTP/1.1\r\nhost: a\r\nmcp-session-id: x\r\n\r\n")
                                << QByteArray("DELETE") << QByteArray("/mcp") << QByteArray();
        QTest::newRow("HTTP/1.0") << QByteArray("GET / HTTP/1.0\r\nHost: a\r\n\r\n") << QByteArray("GET")
                                  << QByteArray("/") << QByteArray();
        QTest::newRow("value with tab and UTF-8")
            << QByteArray("GET /mcp HTTP/1.1\r\nHost: a\r\nX: \tb \xc3\xa9\r\n\r\n") << QByteArray("GET")
            << QByteArray("/mcp") << QByteArray();
        QTest::newRow("length at the limit")
            << post(QByteArray(McpHttpRequestParser::kMaxBodyBytes, 'x')) << QByteArray("POST") << QByteArray("/mcp")
            << QByteArray(McpHttpRequestParser::kMaxBodyBytes, 'x');
    }

    void accepted() {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(QByteArray, body);
        McpHttpRequestParser parser;
        QCOMPARE(parser.feed(input).status, Status::Complete);
        const McpHttpRequest request = parser.takeRequest();
        QCOMPARE(request.method, method);
        QCOMPARE(request.path(), path);
        QCOMPARE(request.body, body);
        QCOMPARE(parser.buffered(), 0);
    }

    void headersAreLowercasedAndTrimmed() {
        McpHttpRequestParser parser;
        QCOMPARE(parser.feed(post("{}", "Authorization:   Bearer abc  \r\nMcp-Session-Id: s1\r\n")).status,
                 Status::Complete);
        const McpHttpRequest request = parser.takeRequest();
        QCOMPARE(request.header("authorization"), QByteArray("Bearer abc"));
        QCOMPARE(request.header("mcp-session-id"), QByteArray("s1"));
        QCOMPARE(request.header("host"), QByteArray("127.0.0.1:8080"));
        QVERIFY(!request.hasHeader("origin"));
    }

    void splitAtEveryByte() {
        const QByteArray input = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "Origin: http://localhost\r\n");
        for (qsizetype cut = 0; cut <= input.size(); ++cut) {
            McpHttpRequestParser parser;
            const McpHttpRequestParser::Result first = parser.feed(input.left(cut));
            QCOMPARE(first.status, cut == input.size() ? Status::Complete : Status::NeedMore);
            if (cut < input.size()) {
                QCOMPARE(parser.feed(input.mid(cut)).status, Status::Complete);
            }
            QCOMPARE(parser.takeRequest().body, QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"));
        }
    }

    void keptAliveRequestsOneAfterAnother() {
        McpHttpRequestParser parser;
        QCOMPARE(parser.feed(post("{\"a\":1}") + post("{\"b\":2}") + "GET /m").status, Status::Complete);
        QCOMPARE(parser.takeRequest().body, QByteArray("{\"a\":1}"));
        QCOMPARE(parser.next().status, Status::Complete);
        QCOMPARE(parser.takeRequest().body, QByteArray("{\"b\":2}"));
        QCOMPARE(parser.next().status, Status::NeedMore);
        QCOMPARE(parser.feed("cp HTTP/1.1\r\nHost: a\r\n\r\n").status, Status::Complete);
        QCOMPARE(parser.takeRequest().method, QByteArray("GET"));
    }

    void aBadRequestAfterAGoodOne() {
        McpHttpRequestParser parser;
        QCOMPARE(parser.feed(post("{}") + "BROKEN\r\n\r\n").status, Status::Complete);
        QCOMPARE(parser.takeRequest().body, QByteArray("{}"));
        QCOMPARE(parser.next().status, Status::Error);
    }
};

QTEST_GUILESS_MAIN(TstMcpHttpRequest)
#include "tst_mcphttprequest.moc"
