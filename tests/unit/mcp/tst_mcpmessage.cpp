// MCP's JSON-RPC 2.0 codec: every kind of message parsed, every error code with the id it is answered with,
// the limits at and over their bound, batches refused, and serialisation round trips.
#include "mcp/mcpcodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace zeus;

Q_DECLARE_METATYPE(QJsonValue)

namespace {

QByteArray nested(int depth) {
    return QByteArray(R"({"jsonrpc":"2.0","method":"m","params":{"a":)") + QByteArray(depth - 2, '[')
           + QByteArray(depth - 2, ']') + QByteArray("}}");
}

QByteArray requestWithId(const QByteArray& id) {
    return QByteArray(R"({"jsonrpc":"2.0","id":)") + id + QByteArray(R"(,"method":"ping"})");
}

const QJsonValue kNull = QJsonValue(QJsonValue::Null);

}  // namespace

class TestMcpMessage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rejects_data();
    void rejects();
    void accepts_data();
    void accepts();
    void messageSizeLimit_data();
    void messageSizeLimit();
    void depthLimit_data();
    void depthLimit();
    void nestingDepthIgnoresStrings();
    void roundTrip_data();
    void roundTrip();
    void serialises();
    void errorReplyIsOneLine();
};

void TestMcpMessage::rejects_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("messageContains");
    QTest::addColumn<QJsonValue>("id");

    const int parse = JsonRpcCode::kParseError;
    const int invalid = JsonRpcCode::kInvalidRequest;
    const int params = JsonRpcCode::kInvalidParams;

    // -32700: not JSON.
    QTest::newRow("empty") << QByteArray() << parse << QStringLiteral("empty message") << kNull;
    QTest::newRow("whitespace") << QByteArray(" \r\n\t") << parse << QStringLiteral("empty message") << kNull;
    QTest::newRow("not json") << QByteArray("hello") << parse << QStringLiteral("not valid JSON") << kNull;
    QTest::newRow("truncated") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"pi)") << parse
                               << QStringLiteral("not valid JSON") << kNull;
    QTest::newRow("trailing garbage") << QByteArray(R"({"jsonrpc":"2.0","method":"m"} x)") << parse
                                      << QStringLiteral("not valid JSON") << kNull;
    QTest::newRow("invalid utf8") << QByteArray("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}") << parse
                                  << QStringLiteral("not valid JSON") << kNull;
    QTest::newRow("two scalars") << QByteArray("1,2") << parse << QStringLiteral("not valid JSON") << kNull;
    QTest::newRow("two objects") << QByteArray(R"({"a":1}{"b":2})") << parse << QStringLiteral("not valid JSON")
                                 << kNull;

    // -32600: JSON, but not one request.
    QTest::newRow("number") << QByteArray("42") << invalid << QStringLiteral("must be a JSON object") << kNull;
    QTest::newRow("string") << QByteArray("\"ping\"") << invalid << QStringLiteral("must be a JSON object") << kNull;
    QTest::newRow("null") << QByteArray("null") << invalid << QStringLiteral("must be a JSON object") << kNull;
    QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])") << invalid
                           << QStringLiteral("batches are not supported") << kNull;
    QTest::newRow("empty batch") << QByteArray("[]") << invalid << QStringLiteral("batches are not supported") << kNull;
    QTest::newRow("batch of junk") << QByteArray("[1,2,3]") << invalid << QStringLiteral("batches are not supported")
                                   << kNull;
    QTest::newRow("no jsonrpc") << QByteArray(R"({"id":1,"method":"ping"})") << invalid
                                << QStringLiteral("\"jsonrpc\" must be \"2.0\"") << QJsonValue(1);
    QTest::newRow("jsonrpc 1.0") << QByteArray(R"({"jsonrpc":"1.0","id":"a","method":"ping"})") << invalid
                                 << QStringLiteral("\"jsonrpc\" must be \"2.0\"") << QJsonValue(QStringLiteral("a"));
    QTest::newRow("jsonrpc number") << QByteArray(R"({"jsonrpc":2.0,"id":1,"method":"ping"})") << invalid
                                    << QStringLiteral("\"jsonrpc\" must be \"2.0\"") << QJsonValue(1);
    QTest::newRow("null id") << requestWithId("null") << invalid << QStringLiteral("field \"id\" must be") << kNull;
    QTest::newRow("bool id") << requestWithId("true") << invalid << QStringLiteral("field \"id\" must be") << kNull;
    QTest::newRow("object id") << requestWithId("{}") << invalid << QStringLiteral("field \"id\" must be") << kNull;
    QTest::newRow("array id") << requestWithId("[1]") << invalid << QStringLiteral("field \"id\" must be") << kNull;
    QTest::newRow("fractional id") << requestWithId("1.5") << invalid << QStringLiteral("field \"id\" must be")
                                   << kNull;
    QTest::newRow("id over 2^53") << requestWithId("9007199254740994") << invalid
                                  << QStringLiteral("field \"id\" must be") << kNull;
    QTest::newRow("id string over limit") << requestWithId('"' + QByteArray(McpCodec::kMaxIdLength + 1, 'x') + '"')
                                          << invalid << QStringLiteral("field \"id\" must be") << kNull;
    QTest::newRow("method number") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":7})") << invalid
                                   << QStringLiteral("\"method\" must be a non-empty string") << QJsonValue(3);
    QTest::newRow("method empty") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":""})") << invalid
                                  << QStringLiteral("\"method\" must be a non-empty string") << QJsonValue(3);
    QTest::newRow("method over limit") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":")"
                                                     + QByteArray(McpCodec::kMaxMethodLength + 1, 'm') + "\"}")
                                       << invalid << QStringLiteral("longer than 128 characters") << QJsonValue(3);
    QTest::newRow("params string") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"m","params":"x"})") << invalid
                                   << QStringLiteral("\"params\" must be an object") << QJsonValue(3);
    QTest::newRow("params null") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"m","params":null})") << invalid
                                 << QStringLiteral("\"params\" must be an object") << QJsonValue(3);
    QTest::newRow("nothing") << QByteArray(R"({"jsonrpc":"2.0","id":3})") << invalid
                             << QStringLiteral("needs \"method\", \"result\" or \"error\"") << QJsonValue(3);
    QTest::newRow("result and error") << QByteArray(
        R"({"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}})")
                                      << invalid << QStringLiteral("not both") << QJsonValue(3);
    QTest::newRow("result without id") << QByteArray(R"({"jsonrpc":"2.0","result":{}})") << invalid
                                       << QStringLiteral("a response needs") << kNull;
    QTest::newRow("result null id") << QByteArray(R"({"jsonrpc":"2.0","id":null,"result":{}})") << invalid
                                    << QStringLiteral("a response needs") << kNull;
    QTest::newRow("error without id") << QByteArray(R"({"jsonrpc":"2.0","error":{"code":1,"message":"m"}})") << invalid
                                      << QStringLiteral("an error response needs") << kNull;
    QTest::newRow("error not object") << QByteArray(R"({"jsonrpc":"2.0","id":4,"error":"bad"})") << invalid
                                      << QStringLiteral("field \"error\" must be an object") << QJsonValue(4);
    QTest::newRow("error code string") << QByteArray(R"({"jsonrpc":"2.0","id":4,"error":{"code":"1","message":"m"}})")
                                       << invalid << QStringLiteral("field \"error\" must be") << QJsonValue(4);
    QTest::newRow("error code fraction") << QByteArray(R"({"jsonrpc":"2.0","id":4,"error":{"code":1.5,"message":"m"}})")
                                         << invalid << QStringLiteral("field \"error\" must be") << QJsonValue(4);
    QTest::newRow("error code huge") << QByteArray(R"({"jsonrpc":"2.0","id":4,"error":{"code":1e30,"message":"m"}})")
                                     << invalid << QStringLiteral("field \"error\" must be") << QJsonValue(4);
    QTest::newRow("error no message") << QByteArray(R"({"jsonrpc":"2.0","id":4,"error":{"code":1}})") << invalid
                                      << QStringLiteral("field \"error\" must be") << QJsonValue(4);
    QTest::newRow("error message over limit")
        << QByteArray(R"({"jsonrpc":"2.0","id":4,"error":{"code":1,"message":")"
                      + QByteArray(McpCodec::kMaxErrorMessageLength + 1, 'e') + "\"}}")
        << invalid << QStringLiteral("field \"error\" must be") << QJsonValue(4);

    // -32602: by-position params are JSON-RPC, but no MCP method takes them.
    QTest::newRow("params array") << QByteArray(R"({"jsonrpc":"2.0","id":"p","method":"m","params":[1]})") << params
                                  << QStringLiteral("\"params\" must be an object") << QJsonValue(QStringLiteral("p"));
}

void TestMcpMessage::rejects() {
    QFETCH(QByteArray, input);
    QFETCH(int, code);
    QFETCH(QString, messageContains);
    QFETCH(QJsonValue, id);

    const McpParsed parsed = McpCodec::parse(input);
    const auto* error = std::get_if<JsonRpcError>(&parsed);
    QVERIFY2(error, input.left(200).constData());
    QCOMPARE(error->code, code);
    QVERIFY2(error->message.contains(messageContains), qPrintable(error->message));
    QVERIFY(error->message.size() <= 300);
    QCOMPARE(error->id, id);
}

void TestMcpMessage::accepts_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QJsonValue>("id");
    QTest::addColumn<QString>("method");

    const int request = static_cast<int>(McpMessage::Kind::Request);
    const int notification = static_cast<int>(McpMessage::Kind::Notification);
    const int response = static_cast<int>(McpMessage::Kind::Response);
    const int errorResponse = static_cast<int>(McpMessage::Kind::ErrorResponse);
    const QString none;

    QTest::newRow("request number id") << requestWithId("1") << request << QJsonValue(1) << QStringLiteral("ping");
    QTest::newRow("request zero id") << requestWithId("0") << request << QJsonValue(0) << QStringLiteral("ping");
    QTest::newRow("request negative id") << requestWithId("-7") << request << QJsonValue(-7) << QStringLiteral("ping");
    QTest::newRow("request id 2^53") << requestWithId("9007199254740992") << request << QJsonValue(9007199254740992.0)
                                     << QStringLiteral("ping");
    QTest::newRow("request id 1.0") << requestWithId("1.0") << request << QJsonValue(1) << QStringLiteral("ping");
    QTest::newRow("request string id") << requestWithId("\"abc-1\"") << request << QJsonValue(QStringLiteral("abc-1"))
                                       << QStringLiteral("ping");
    QTest::newRow("request empty string id")
        << requestWithId("\"\"") << request << QJsonValue(QString()) << QStringLiteral("ping");
    QTest::newRow("request id at limit") << requestWithId('"' + QByteArray(McpCodec::kMaxIdLength, 'x') + '"')
                                         << request << QJsonValue(QString(McpCodec::kMaxIdLength, QLatin1Char('x')))
                                         << QStringLiteral("ping");
    QTest::newRow("request with params") << QByteArray(
        R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c"}})")
                                         << request << QJsonValue(2) << QStringLiteral("tools/list");
    QTest::newRow("unknown method is still a request") << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"x/y"})")
                                                       << request << QJsonValue(2) << QStringLiteral("x/y");
    QTest::newRow("method at limit") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":")"
                                                   + QByteArray(McpCodec::kMaxMethodLength, 'm') + "\"}")
                                     << request << QJsonValue(3)
                                     << QString(McpCodec::kMaxMethodLength, QLatin1Char('m'));
    QTest::newRow("extra members ignored") << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"ping","x":1})") << request
                                           << QJsonValue(2) << QStringLiteral("ping");
    QTest::newRow("whitespace around") << QByteArray(" \n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n")
                                       << request << QJsonValue(2) << QStringLiteral("ping");
    QTest::newRow("notification") << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
                                  << notification << QJsonValue(QJsonValue::Undefined)
                                  << QStringLiteral("notifications/initialized");
    QTest::newRow("response") << QByteArray(R"({"jsonrpc":"2.0","id":5,"result":{"a":1}})") << response << QJsonValue(5)
                              << none;
    QTest::newRow("response null result") << QByteArray(R"({"jsonrpc":"2.0","id":"r","result":null})") << response
                                          << QJsonValue(QStringLiteral("r")) << none;
    QTest::newRow("error response") << QByteArray(R"({"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"no"}})")
                                    << errorResponse << QJsonValue(5) << none;
    QTest::newRow("error response null id")
        << QByteArray(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p","data":[1]}})")
        << errorResponse << kNull << none;
}

void TestMcpMessage::accepts() {
    QFETCH(QByteArray, input);
    QFETCH(int, kind);
    QFETCH(QJsonValue, id);
    QFETCH(QString, method);

    const McpParsed parsed = McpCodec::parse(input);
    if (const auto* error = std::get_if<JsonRpcError>(&parsed)) {
        QFAIL(qPrintable(error->message));
    }
    const McpMessage message = std::get<McpMessage>(parsed);
    QCOMPARE(static_cast<int>(message.kind), kind);
    QCOMPARE(message.id, id);
    QCOMPARE(message.method, method);
}

void TestMcpMessage::messageSizeLimit_data() {
    QTest::addColumn<qsizetype>("size");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("at limit") << McpCodec::kMaxMessageBytes << true;
    QTest::newRow("one over") << McpCodec::kMaxMessageBytes + 1 << false;
}

void TestMcpMessage::messageSizeLimit() {
    QFETCH(qsizetype, size);
    QFETCH(bool, accepted);
    const QByteArray head(R"({"jsonrpc":"2.0","method":"m","params":{"s":")");
    const QByteArray tail("\"}}");
    const QByteArray text = head + QByteArray(size - head.size() - tail.size(), 'a') + tail;
    QCOMPARE(text.size(), size);
    const McpParsed parsed = McpCodec::parse(text);
    QCOMPARE(std::holds_alternative<McpMessage>(parsed), accepted);
    if (!accepted) {
        QCOMPARE(std::get<JsonRpcError>(parsed).code, JsonRpcCode::kInvalidRequest);
        QVERIFY(std::get<JsonRpcError>(parsed).message.contains(QLatin1String("larger than 4194304 bytes")));
    }
}

void TestMcpMessage::depthLimit_data() {
    QTest::addColumn<int>("depth");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("at limit") << McpCodec::kMaxDepth << true;
    QTest::newRow("one over") << McpCodec::kMaxDepth + 1 << false;
    QTest::newRow("far over") << 100000 << false;
}

void TestMcpMessage::depthLimit() {
    QFETCH(int, depth);
    QFETCH(bool, accepted);
    const QByteArray text = nested(depth);
    const int limit = 1 << 30;
    QCOMPARE(McpCodec::nestingDepth(text, limit), depth);
    const McpParsed parsed = McpCodec::parse(text);
    const bool parsedAsMessage = std::holds_alternative<McpMessage>(parsed);
    QCOMPARE(parsedAsMessage, accepted);
    if (!accepted) {
        QCOMPARE(std::get<JsonRpcError>(parsed).code, JsonRpcCode::kInvalidRequest);
        QVERIFY(std::get<JsonRpcError>(parsed).message.contains(QLatin1String("nested deeper than 64")));
    }
}

void TestMcpMessage::nestingDepthIgnoresStrings() {
    // Raw strings stay out of test macros: moc's preprocessor does not read them there.
    const QByteArray bracketsInStrings("{\"a\":\"[[[{{{\",\"b\":\"\\\"[[[\"}");
    const QByteArray escapedBackslash("{\"a\":\"\\\\\"}");
    QCOMPARE(McpCodec::nestingDepth(bracketsInStrings), 1);
    QCOMPARE(McpCodec::nestingDepth(escapedBackslash), 1);
    QCOMPARE(McpCodec::nestingDepth("]]]}}}{"), 1);
    QCOMPARE(McpCodec::nestingDepth(QByteArray(200, '['), 64), 65);
}

void TestMcpMessage::roundTrip_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("request") << QByteArray(
        R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"run_command","arguments":{"command":"ls"}}})");
    QTest::newRow("request no params") << requestWithId("12");
    QTest::newRow("notification") << QByteArray(
        R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})");
    QTest::newRow("response") << QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{"ok":true}})");
    QTest::newRow("error") << QByteArray(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}})");
    QTest::newRow("error with data") << QByteArray(
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m","data":{"k":"é"}}})");
}

void TestMcpMessage::roundTrip() {
    QFETCH(QByteArray, input);
    const McpParsed first = McpCodec::parse(input);
    QVERIFY(std::holds_alternative<McpMessage>(first));
    const QByteArray again = McpCodec::toBytes(McpCodec::toJson(std::get<McpMessage>(first)));
    const McpParsed second = McpCodec::parse(again);
    QVERIFY(std::holds_alternative<McpMessage>(second));
    QVERIFY(std::get<McpMessage>(first) == std::get<McpMessage>(second));
    QCOMPARE(QJsonDocument::fromJson(again).object(), QJsonDocument::fromJson(input).object());
}

void TestMcpMessage::serialises() {
    QCOMPARE(McpCodec::toBytes(McpCodec::makeResult(QJsonValue(7), QJsonObject{})),
             QByteArray(R"({"id":7,"jsonrpc":"2.0","result":{}})"));
    QCOMPARE(McpCodec::toBytes(McpCodec::makeError(JsonRpcCode::kMethodNotFound, QStringLiteral("nope"),
                                                   QJsonValue(QStringLiteral("a")))),
             QByteArray(R"({"error":{"code":-32601,"message":"nope"},"id":"a","jsonrpc":"2.0"})"));
    QCOMPARE(McpCodec::toBytes(McpCodec::makeError(JsonRpcError{JsonRpcCode::kParseError, QStringLiteral("p"),
                                                                QJsonValue(QJsonValue::Undefined),
                                                                QJsonValue(QJsonValue::Undefined)})),
             QByteArray(R"({"error":{"code":-32700,"message":"p"},"id":null,"jsonrpc":"2.0"})"));
    QCOMPARE(McpCodec::toBytes(McpCodec::makeNotification(QStringLiteral("notifications/initialized"))),
             QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
    QCOMPARE(McpCodec::toBytes(McpCodec::makeRequest(QJsonValue(1), QStringLiteral("ping"))),
             QByteArray(R"({"id":1,"jsonrpc":"2.0","method":"ping"})"));
}

void TestMcpMessage::errorReplyIsOneLine() {
    // A stdio transport frames messages by newline: a reply must hold none, even about input that does.
    const McpParsed parsed = McpCodec::parse("{\n\"jsonrpc\":\"2.0\",\n\"id\":\"a\\nb\",\n\"method\":7}");
    const QByteArray reply = McpCodec::toBytes(McpCodec::makeError(std::get<JsonRpcError>(parsed)));
    QVERIFY(!reply.contains('\n'));
    QCOMPARE(QJsonDocument::fromJson(reply).object().value(QLatin1String("id")), QJsonValue(QStringLiteral("a\nb")));
}

QTEST_APPLESS_MAIN(TestMcpMessage)
#include "tst_mcpmessage.moc"
