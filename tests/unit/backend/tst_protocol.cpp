// Protocol v1 codec: every inbound message parsed and validated (each field missing, of the wrong type, out of
// range; unknown type; not an object; not JSON; huge and non-ASCII strings) and every message serialised.
#include "backend/protocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace zeus;

namespace {

QJsonObject validToolCall() {
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("tool_call")},
        {QStringLiteral("call_id"), QStringLiteral("call-1")},
        {QStringLiteral("session_id"), QStringLiteral("sess-1")},
        {QStringLiteral("tool"), QStringLiteral("desktop_exec")},
        {QStringLiteral("args"), QJsonObject{{QStringLiteral("command"), QStringLiteral("ls -la")},
                                             {QStringLiteral("working_directory"), QStringLiteral("/home/u/project")},
                                             {QStringLiteral("timeout_s"), 30}}},
    };
}

QJsonObject validMessage(const QString& type) {
    if (type == QLatin1String("welcome"))
        return QJsonObject{{QStringLiteral("type"), type},
                           {QStringLiteral("protocol"), 1},
                           {QStringLiteral("server"), QStringLiteral("zeus-backend/2.3")}};
    if (type == QLatin1String("tool_call"))
        return validToolCall();
    if (type == QLatin1String("session_end"))
        return QJsonObject{{QStringLiteral("type"), type}, {QStringLiteral("session_id"), QStringLiteral("sess-1")}};
    // cancel, ack
    return QJsonObject{{QStringLiteral("type"), type}, {QStringLiteral("call_id"), QStringLiteral("call-1")}};
}

// Sets (or with an undefined value removes) `field`, where "args.x" reaches into the args object.
QJsonObject mutate(QJsonObject object, const QString& field, const QJsonValue& value) {
    if (field.startsWith(QLatin1String("args."))) {
        QJsonObject args = object.value(QStringLiteral("args")).toObject();
        const QString inner = field.mid(5);
        if (value.isUndefined())
            args.remove(inner);
        else
            args.insert(inner, value);
        object.insert(QStringLiteral("args"), args);
        return object;
    }
    if (value.isUndefined())
        object.remove(field);
    else
        object.insert(field, value);
    return object;
}

QByteArray frame(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

const QJsonValue kMissing = QJsonValue(QJsonValue::Undefined);

}  // namespace

class TestProtocol : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rejects_data();
    void rejects();
    void acceptsValid_data();
    void acceptsValid();
    void nonAsciiCommandIntact();
    void timeoutConversion_data();
    void timeoutConversion();
    void nullTimeoutMeansDefault();
    void limitsAreInclusive_data();
    void limitsAreInclusive();
    void roundTripIncoming_data();
    void roundTripIncoming();
    void makeHello();
    void makeToolOutput();
    void makeToolResult_data();
    void makeToolResult();
    void toolOutputFrame_data();
    void toolOutputFrame();
    void toolResultFrame_data();
    void toolResultFrame();
    void jsonStringEscapesEveryByte();
    void makeSessionState();
    void makeCallState();
    void makeCallStateRows_data();
    void makeCallStateRows();
    void makePortOpened();
    void makeError();
    void errorCodeNames();
    void errorReplyOfRejectedMessageIsValid();
};

void TestProtocol::rejects_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("messageContains");
    QTest::addColumn<QString>("callId");

    const QString invalidMessage = QStringLiteral("invalid_message");
    const QString none;

    // Not JSON, not an object, no or bad type.
    QTest::newRow("empty") << QByteArray() << invalidMessage << QStringLiteral("empty message") << none;
    QTest::newRow("whitespace") << QByteArray("  \n") << invalidMessage << QStringLiteral("empty message") << none;
    QTest::newRow("not json") << QByteArray("hello there") << invalidMessage << QStringLiteral("not valid JSON")
                              << none;
    QTest::newRow("truncated json") << QByteArray(R"({"type":"ack","call_id":"c)") << invalidMessage
                                    << QStringLiteral("not valid JSON") << none;
    QTest::newRow("trailing garbage") << QByteArray(R"({"type":"ack","call_id":"c"} x)") << invalidMessage
                                      << QStringLiteral("not valid JSON") << none;
    QTest::newRow("invalid utf8") << QByteArray("{\"type\":\"ack\",\"call_id\":\"\xff\xfe\"}") << invalidMessage
                                  << QStringLiteral("not valid JSON") << none;
    QTest::newRow("array") << QByteArray(R"([{"type":"ack","call_id":"c"}])") << invalidMessage
                           << QStringLiteral("must be a JSON object") << none;
    QTest::newRow("number") << QByteArray("42") << invalidMessage << QStringLiteral("not valid JSON") << none;
    QTest::newRow("string") << QByteArray("\"ack\"") << invalidMessage << QStringLiteral("not valid JSON") << none;
    QTest::newRow("null") << QByteArray("null") << invalidMessage << QStringLiteral("not valid JSON") << none;
    QTest::newRow("no type") << frame(QJsonObject{{QStringLiteral("call_id"), QStringLiteral("c7")}}) << invalidMessage
                             << QStringLiteral("\"type\" is missing") << QStringLiteral("c7");
    QTest::newRow("type number") << QByteArray(R"({"type":3})") << invalidMessage
                                 << QStringLiteral("\"type\" must be a string") << none;
    QTest::newRow("type null") << QByteArray(R"({"type":null})") << invalidMessage
                               << QStringLiteral("\"type\" must be a string") << none;
    QTest::newRow("unknown type") << QByteArray(R"({"type":"reboot","call_id":"c9"})") << invalidMessage
                                  << QStringLiteral("unknown message type \"reboot\"") << QStringLiteral("c9");
    QTest::newRow("app->backend type") << QByteArray(R"({"type":"tool_result","call_id":"c9"})") << invalidMessage
                                       << QStringLiteral("unknown message type") << QStringLiteral("c9");
    QTest::newRow("type wrong case") << QByteArray(R"({"type":"Tool_Call"})") << invalidMessage
                                     << QStringLiteral("unknown message type") << none;
    QTest::newRow("huge unknown type not echoed")
        << frame(QJsonObject{{QStringLiteral("type"), QString(100000, QLatin1Char('x'))}}) << invalidMessage
        << QStringLiteral("unknown message type") << none;

    // Every field of every message: missing, wrong type.
    struct Field {
        const char* type;
        const char* field;
        const char* expectedType;  // in the message: "a string", "a number", "an object"
        bool callIdKnown;          // call_id valid when this field fails
    };
    const Field fields[] = {
        {"welcome", "protocol", "a number", false},      {"welcome", "server", "a string", false},
        {"tool_call", "call_id", "a string", false},     {"tool_call", "session_id", "a string", true},
        {"tool_call", "tool", "a string", true},         {"tool_call", "args", "an object", true},
        {"tool_call", "args.command", "a string", true}, {"tool_call", "args.working_directory", "a string", true},
        {"cancel", "call_id", "a string", false},        {"session_end", "session_id", "a string", false},
        {"ack", "call_id", "a string", false},
    };
    const QJsonValue wrongValues[] = {QJsonValue(),
                                      QJsonValue(true),
                                      QJsonValue(7),
                                      QJsonValue(QStringLiteral("s")),
                                      QJsonValue(QJsonArray{1}),
                                      QJsonValue(QJsonObject{})};
    const char* wrongNames[] = {"null", "bool", "number", "string", "array", "object"};
    for (const Field& f : fields) {
        const QString type = QString::fromLatin1(f.type);
        const QString field = QString::fromLatin1(f.field);
        const QString callId = f.callIdKnown ? QStringLiteral("call-1") : QString();
        QTest::addRow("%s: %s missing", f.type, f.field)
            << frame(mutate(validMessage(type), field, kMissing)) << invalidMessage
            << QStringLiteral("\"%1\" is missing").arg(field) << callId;
        for (size_t i = 0; i < std::size(wrongValues); ++i) {
            const QJsonValue& wrong = wrongValues[i];
            const bool sameKind = (QLatin1String(f.expectedType) == QLatin1String("a string") && wrong.isString())
                                  || (QLatin1String(f.expectedType) == QLatin1String("a number") && wrong.isDouble())
                                  || (QLatin1String(f.expectedType) == QLatin1String("an object") && wrong.isObject());
            if (sameKind)
                continue;
            QTest::addRow("%s: %s is %s", f.type, f.field, wrongNames[i])
                << frame(mutate(validMessage(type), field, wrong)) << invalidMessage
                << QStringLiteral("\"%1\" must be %2").arg(field, QLatin1String(f.expectedType)) << callId;
        }
    }
    // timeout_s is optional but typed.
    QTest::newRow("timeout_s string") << frame(
        mutate(validToolCall(), QStringLiteral("args.timeout_s"), QStringLiteral("30")))
                                      << invalidMessage << QStringLiteral("\"args.timeout_s\" must be a number")
                                      << QStringLiteral("call-1");
    QTest::newRow("timeout_s bool") << frame(mutate(validToolCall(), QStringLiteral("args.timeout_s"), true))
                                    << invalidMessage << QStringLiteral("\"args.timeout_s\" must be a number")
                                    << QStringLiteral("call-1");
    QTest::newRow("timeout_s array") << frame(mutate(validToolCall(), QStringLiteral("args.timeout_s"), QJsonArray{5}))
                                     << invalidMessage << QStringLiteral("\"args.timeout_s\" must be a number")
                                     << QStringLiteral("call-1");

    // Out of range.
    const QString timeoutRange = QStringLiteral("greater than 0 and at most 3600");
    for (const double bad : {0.0, -1.0, -0.001, 3600.001, 3601.0, 1e300}) {
        QTest::addRow("timeout_s %g", bad) << frame(mutate(validToolCall(), QStringLiteral("args.timeout_s"), bad))
                                           << invalidMessage << timeoutRange << QStringLiteral("call-1");
    }
    // args.secrets (SPEC §9): an array of distinct environment-variable names.
    const QString secretNames = QStringLiteral("must hold names of the form [A-Z_][A-Z0-9_]*");
    QTest::newRow("secrets string") << frame(
        mutate(validToolCall(), QStringLiteral("args.secrets"), QStringLiteral("GITHUB_TOKEN")))
                                    << invalidMessage << QStringLiteral("\"args.secrets\" must be an array")
                                    << QStringLiteral("call-1");
    QTest::newRow("secrets lower case") << frame(
        mutate(validToolCall(), QStringLiteral("args.secrets"), QJsonArray{QStringLiteral("github_token")}))
                                        << invalidMessage << secretNames << QStringLiteral("call-1");
    QTest::newRow("secrets leading digit")
        << frame(mutate(validToolCall(), QStringLiteral("args.secrets"), QJsonArray{QStringLiteral("1TOKEN")}))
        << invalidMessage << secretNames << QStringLiteral("call-1");
    QTest::newRow("secrets with =") << frame(
        mutate(validToolCall(), QStringLiteral("args.secrets"), QJsonArray{QStringLiteral("A=B")}))
                                    << invalidMessage << secretNames << QStringLiteral("call-1");
    QTest::newRow("secrets number") << frame(mutate(validToolCall(), QStringLiteral("args.secrets"), QJsonArray{7}))
                                    << invalidMessage << secretNames << QStringLiteral("call-1");
    QTest::newRow("secrets twice") << frame(mutate(validToolCall(), QStringLiteral("args.secrets"),
                                                   QJsonArray{QStringLiteral("A_TOKEN"), QStringLiteral("A_TOKEN")}))
                                   << invalidMessage << QStringLiteral("names a secret twice")
                                   << QStringLiteral("call-1");
    QTest::newRow("secrets 129 characters")
        << frame(mutate(validToolCall(), QStringLiteral("args.secrets"), QJsonArray{QString(129, QLatin1Char('A'))}))
        << invalidMessage << secretNames << QStringLiteral("call-1");
    {
        QJsonArray many;
        for (int i = 0; i < 33; ++i) {
            many.append(QStringLiteral("T_%1").arg(i));
        }
        QTest::newRow("secrets 33 names")
            << frame(mutate(validToolCall(), QStringLiteral("args.secrets"), many)) << invalidMessage
            << QStringLiteral("more than 32 names") << QStringLiteral("call-1");
    }
    QTest::newRow("timeout_s 1e400 (out of double range: not JSON for Qt)") << QByteArray(
        R"({"type":"tool_call","call_id":"c","session_id":"s","tool":"desktop_exec","args":{"command":"x","working_directory":"/w","timeout_s":1e400}})")
                                                                            << invalidMessage
                                                                            << QStringLiteral("not valid JSON") << none;
    QTest::newRow("protocol 2") << frame(mutate(validMessage(QStringLiteral("welcome")), QStringLiteral("protocol"), 2))
                                << invalidMessage << QStringLiteral("unsupported protocol version") << none;
    QTest::newRow("protocol 0") << frame(mutate(validMessage(QStringLiteral("welcome")), QStringLiteral("protocol"), 0))
                                << invalidMessage << QStringLiteral("unsupported protocol version") << none;
    QTest::newRow("protocol 1.5") << frame(
        mutate(validMessage(QStringLiteral("welcome")), QStringLiteral("protocol"), 1.5))
                                  << invalidMessage << QStringLiteral("unsupported protocol version") << none;
    QTest::newRow("server too long") << frame(
        mutate(validMessage(QStringLiteral("welcome")), QStringLiteral("server"), QString(257, QLatin1Char('s'))))
                                     << invalidMessage << QStringLiteral("\"server\" is longer than 256") << none;

    // Empty strings where not allowed.
    for (const char* f : {"call_id", "session_id", "tool", "args.command", "args.working_directory"}) {
        const QString field = QString::fromLatin1(f);
        QTest::addRow("tool_call: %s empty", f)
            << frame(mutate(validToolCall(), field, QString())) << invalidMessage
            << QStringLiteral("\"%1\" must not be empty").arg(field)
            << (field == QLatin1String("call_id") ? QString() : QStringLiteral("call-1"));
    }
    QTest::newRow("cancel: call_id empty") << QByteArray(R"({"type":"cancel","call_id":""})") << invalidMessage
                                           << QStringLiteral("\"call_id\" must not be empty") << none;
    QTest::newRow("ack: call_id empty") << QByteArray(R"({"type":"ack","call_id":""})") << invalidMessage
                                        << QStringLiteral("\"call_id\" must not be empty") << none;
    QTest::newRow("session_end: session_id empty")
        << QByteArray(R"({"type":"session_end","session_id":""})") << invalidMessage
        << QStringLiteral("\"session_id\" must not be empty") << none;
    // open_port (SPEC §8 "Ports"): a container port 1..65535, as a whole number, and a session.
    const QString badPort = QStringLiteral("\"port\" must be a whole number from 1 to 65535");
    for (const char* port : {"0", "70000", "-1", "8000.5", "\"8000\"", "null", "[8000]", "1e9"}) {
        QTest::addRow("open_port: port %s", port)
            << QByteArray(R"({"type":"open_port","session_id":"s-1","port":)") + port + "}" << invalidMessage << badPort
            << none;
    }
    QTest::newRow("open_port: port missing")
        << QByteArray(R"({"type":"open_port","session_id":"s-1"})") << invalidMessage << badPort << none;
    QTest::newRow("open_port: session_id missing") << QByteArray(R"({"type":"open_port","port":8000})")
                                                   << invalidMessage << QStringLiteral("\"session_id\"") << none;

    // Identifiers: length and characters.
    const QString longId(129, QLatin1Char('a'));
    for (const char* t : {"tool_call", "cancel", "ack"}) {
        QTest::addRow("%s: call_id 129 chars", t)
            << frame(mutate(validMessage(QString::fromLatin1(t)), QStringLiteral("call_id"), longId)) << invalidMessage
            << QStringLiteral("\"call_id\" is longer than 128 characters") << none;
        QTest::addRow("%s: call_id 1 MB", t) << frame(
            mutate(validMessage(QString::fromLatin1(t)), QStringLiteral("call_id"), QString(1000000, QLatin1Char('a'))))
                                             << invalidMessage
                                             << QStringLiteral("\"call_id\" is longer than 128 characters") << none;
    }
    QTest::newRow("session_id 129 chars")
        << frame(mutate(validToolCall(), QStringLiteral("session_id"), longId)) << invalidMessage
        << QStringLiteral("\"session_id\" is longer than 128 characters") << QStringLiteral("call-1");
    const struct {
        const char* name;
        QString id;
    } badIds[] = {
        {"space", QStringLiteral("call 1")},
        {"tab", QStringLiteral("call\t1")},
        {"newline", QStringLiteral("call\n1")},
        {"nul", QString(QStringLiteral("call")) + QChar(0) + QStringLiteral("1")},
        {"escape", QStringLiteral("call\x1b[31m")},
        {"del", QStringLiteral("call\x7f")},
        {"non-ascii", QStringLiteral("caf\u00e9")},
        {"emoji", QStringLiteral("c\U0001F600")},
    };
    for (const auto& bad : badIds) {
        QTest::addRow("call_id with %s", bad.name)
            << frame(mutate(validToolCall(), QStringLiteral("call_id"), bad.id)) << invalidMessage
            << QStringLiteral("\"call_id\" must be printable ASCII") << none;
        QTest::addRow("session_id with %s", bad.name)
            << frame(mutate(validMessage(QStringLiteral("session_end")), QStringLiteral("session_id"), bad.id))
            << invalidMessage << QStringLiteral("\"session_id\" must be printable ASCII") << none;
    }

    // Huge strings and NUL in command and working directory.
    QTest::newRow("command over 256 KiB")
        << frame(mutate(validToolCall(), QStringLiteral("args.command"), QString(256 * 1024 + 1, QLatin1Char('x'))))
        << invalidMessage << QStringLiteral("\"args.command\" is longer than 262144 bytes") << QStringLiteral("call-1");
    // 100k three-byte characters: 100k UTF-16 units, 300k UTF-8 bytes.
    QTest::newRow("command over 256 KiB in UTF-8 only")
        << frame(mutate(validToolCall(), QStringLiteral("args.command"), QString(100000, QChar(0x4e2d))))
        << invalidMessage << QStringLiteral("\"args.command\" is longer than 262144 bytes") << QStringLiteral("call-1");
    QTest::newRow("working_directory over 4096 bytes")
        << frame(mutate(validToolCall(), QStringLiteral("args.working_directory"),
                        QString(QLatin1Char('/') + QString(4096, QLatin1Char('d')))))
        << invalidMessage << QStringLiteral("\"args.working_directory\" is longer than 4096 bytes")
        << QStringLiteral("call-1");
    QTest::newRow("command with NUL") << frame(
        mutate(validToolCall(), QStringLiteral("args.command"),
               QString(QStringLiteral("echo a") + QChar(0) + QStringLiteral("b"))))
                                      << invalidMessage << QStringLiteral("\"args.command\" must not contain NUL")
                                      << QStringLiteral("call-1");
    QTest::newRow("working_directory with NUL") << frame(
        mutate(validToolCall(), QStringLiteral("args.working_directory"), QString(QStringLiteral("/w") + QChar(0))))
                                                << invalidMessage
                                                << QStringLiteral("\"args.working_directory\" must not contain NUL")
                                                << QStringLiteral("call-1");

    // Another tool: unsupported_tool with the call named, whatever its args look like.
    QTest::newRow("tool shell") << frame(mutate(validToolCall(), QStringLiteral("tool"), QStringLiteral("shell")))
                                << QStringLiteral("unsupported_tool") << QStringLiteral("only offers \"desktop_exec\"")
                                << QStringLiteral("call-1");
    QTest::newRow("tool wrong case") << frame(
        mutate(validToolCall(), QStringLiteral("tool"), QStringLiteral("Desktop_Exec")))
                                     << QStringLiteral("unsupported_tool") << QStringLiteral("desktop_exec")
                                     << QStringLiteral("call-1");
    QTest::newRow("other tool without args")
        << frame(mutate(mutate(validToolCall(), QStringLiteral("tool"), QStringLiteral("browse")),
                        QStringLiteral("args"), kMissing))
        << QStringLiteral("unsupported_tool") << QStringLiteral("unsupported tool") << QStringLiteral("call-1");
}

void TestProtocol::rejects() {
    QFETCH(QByteArray, input);
    QFETCH(QString, code);
    QFETCH(QString, messageContains);
    QFETCH(QString, callId);

    const IncomingMessage parsed = Protocol::parseIncoming(input);
    QVERIFY2(std::holds_alternative<ProtocolError>(parsed), "a bad message was accepted");
    const ProtocolError& error = std::get<ProtocolError>(parsed);
    QCOMPARE(QString(Protocol::errorCodeName(error.code)), code);
    QVERIFY2(error.message.contains(messageContains), qPrintable(error.message));
    QCOMPARE(error.callId, callId);
    // An error message stays short whatever came in: it is sent back and shown in diagnostics.
    QVERIFY2(error.message.size() < 300, qPrintable(error.message.left(400)));
}

void TestProtocol::acceptsValid_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<int>("index");  // variant alternative expected

    QTest::newRow("welcome") << frame(validMessage(QStringLiteral("welcome"))) << 1;
    QTest::newRow("welcome protocol 1.0") << QByteArray(R"({"type":"welcome","protocol":1.0,"server":""})") << 1;
    QTest::newRow("tool_call") << frame(validToolCall()) << 2;
    QTest::newRow("tool_call no timeout")
        << frame(mutate(validToolCall(), QStringLiteral("args.timeout_s"), kMissing)) << 2;
    QTest::newRow("tool_call extra fields ignored") << frame(
        mutate(mutate(validToolCall(), QStringLiteral("future"), 1), QStringLiteral("args.env"), QJsonObject{}))
                                                    << 2;
    QTest::newRow("cancel") << frame(validMessage(QStringLiteral("cancel"))) << 3;
    QTest::newRow("session_end") << frame(validMessage(QStringLiteral("session_end"))) << 4;
    QTest::newRow("ack") << frame(validMessage(QStringLiteral("ack"))) << 5;
    QTest::newRow("open_port") << QByteArray(R"({"type":"open_port","session_id":"s-1","port":8000})") << 6;
    QTest::newRow("open_port 65535") << QByteArray(R"({"type":"open_port","session_id":"s","port":65535})") << 6;
    QTest::newRow("leading whitespace") << QByteArray("\n  {\"type\":\"ack\",\"call_id\":\"x\"}  \n") << 5;
    QTest::newRow("id punctuation") << QByteArray(R"({"type":"ack","call_id":"A-z_0.9:~!{}[]"})") << 5;
}

void TestProtocol::acceptsValid() {
    QFETCH(QByteArray, input);
    QFETCH(int, index);
    const IncomingMessage parsed = Protocol::parseIncoming(input);
    if (const auto* error = std::get_if<ProtocolError>(&parsed))
        QFAIL(qPrintable(error->message));
    QCOMPARE(int(parsed.index()), index);
}

void TestProtocol::nonAsciiCommandIntact() {
    const QString command = QStringLiteral("echo '\u4f60\u597d, caf\u00e9 \U0001F600' > \u6587\u4ef6.txt");
    const QString dir = QStringLiteral("/home/\u00e9l\u00e8ve/\u9879\u76ee with space");
    const QJsonObject object = mutate(mutate(validToolCall(), QStringLiteral("args.command"), command),
                                      QStringLiteral("args.working_directory"), dir);
    const IncomingMessage parsed = Protocol::parseIncoming(frame(object));
    QVERIFY(std::holds_alternative<ToolCallMessage>(parsed));
    const auto& call = std::get<ToolCallMessage>(parsed);
    QCOMPARE(call.command, command);
    QCOMPARE(call.workingDirectory, dir);
    QCOMPARE(call.command.toUtf8(), command.toUtf8());
}

void TestProtocol::timeoutConversion_data() {
    QTest::addColumn<double>("seconds");
    QTest::addColumn<qint64>("ms");
    QTest::newRow("1") << 1.0 << qint64(1000);
    QTest::newRow("0.5") << 0.5 << qint64(500);
    QTest::newRow("tiny rounds up") << 0.0001 << qint64(1);
    QTest::newRow("1.0004 rounds up") << 1.0004 << qint64(1001);
    QTest::newRow("max") << 3600.0 << qint64(3600000);
}

void TestProtocol::timeoutConversion() {
    QFETCH(double, seconds);
    QFETCH(qint64, ms);
    const IncomingMessage parsed =
        Protocol::parseIncoming(frame(mutate(validToolCall(), QStringLiteral("args.timeout_s"), seconds)));
    QVERIFY(std::holds_alternative<ToolCallMessage>(parsed));
    QCOMPARE(std::get<ToolCallMessage>(parsed).timeoutMs, std::optional<qint64>(ms));
}

void TestProtocol::nullTimeoutMeansDefault() {
    for (const QJsonValue& v : {QJsonValue(), kMissing}) {
        const IncomingMessage parsed =
            Protocol::parseIncoming(frame(mutate(validToolCall(), QStringLiteral("args.timeout_s"), v)));
        QVERIFY(std::holds_alternative<ToolCallMessage>(parsed));
        QVERIFY(!std::get<ToolCallMessage>(parsed).timeoutMs.has_value());
    }
}

void TestProtocol::limitsAreInclusive_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value");
    QTest::newRow("call_id 128") << QStringLiteral("call_id") << QJsonValue(QString(128, QLatin1Char('c')));
    QTest::newRow("session_id 128") << QStringLiteral("session_id") << QJsonValue(QString(128, QLatin1Char('s')));
    QTest::newRow("command 256 KiB") << QStringLiteral("args.command")
                                     << QJsonValue(QString(256 * 1024, QLatin1Char('x')));
    QTest::newRow("working_directory 4096")
        << QStringLiteral("args.working_directory") << QJsonValue(QLatin1Char('/') + QString(4095, QLatin1Char('d')));
    QTest::newRow("command of control characters")
        << QStringLiteral("args.command") << QJsonValue(QStringLiteral("printf '\\t\x01\x1b'\r\n"));
}

void TestProtocol::limitsAreInclusive() {
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    const QJsonObject object = mutate(validToolCall(), field, value);
    const IncomingMessage parsed = Protocol::parseIncoming(frame(object));
    if (const auto* error = std::get_if<ProtocolError>(&parsed))
        QFAIL(qPrintable(error->message));
    QCOMPARE(Protocol::toJson(std::get<ToolCallMessage>(parsed)), object);
}

void TestProtocol::roundTripIncoming_data() {
    QTest::addColumn<QJsonObject>("object");
    ToolCallMessage call;
    call.callId = QStringLiteral("c-42");
    call.sessionId = QStringLiteral("s-7");
    call.tool = QStringLiteral("desktop_exec");
    call.command = QStringLiteral("make -j2 && ./t\u00e9st \"a b\"");
    call.workingDirectory = QStringLiteral("/home/u/My Project, v2: \"q\"");
    call.timeoutMs = 1500;
    QTest::newRow("tool_call") << Protocol::toJson(call);
    call.timeoutMs.reset();
    QTest::newRow("tool_call default timeout") << Protocol::toJson(call);
    call.secrets = QStringList{QStringLiteral("GITHUB_TOKEN"), QStringLiteral("_X9")};
    QTest::newRow("tool_call with secrets") << Protocol::toJson(call);
    QTest::newRow("welcome") << Protocol::toJson(WelcomeMessage{1, QStringLiteral("backend 1.0")});
    QTest::newRow("cancel") << Protocol::toJson(CancelMessage{QStringLiteral("c-1")});
    QTest::newRow("session_end") << Protocol::toJson(SessionEndMessage{QStringLiteral("s-1")});
    QTest::newRow("ack") << Protocol::toJson(AckMessage{QStringLiteral("c-1")});
    QTest::newRow("open_port") << Protocol::toJson(OpenPortMessage{QStringLiteral("s-1"), 5173});
}

void TestProtocol::roundTripIncoming() {
    QFETCH(QJsonObject, object);
    const IncomingMessage parsed = Protocol::parseIncoming(Protocol::toFrame(object));
    if (const auto* error = std::get_if<ProtocolError>(&parsed))
        QFAIL(qPrintable(error->message));
    const QJsonObject again = std::visit(
        [](const auto& message) -> QJsonObject {
            using T = std::decay_t<decltype(message)>;
            if constexpr (std::is_same_v<T, ProtocolError>)
                return {};
            else
                return Protocol::toJson(message);
        },
        parsed);
    QCOMPARE(again, object);
    // And the typed message survives a second trip unchanged.
    QVERIFY(Protocol::parseIncoming(Protocol::toFrame(again)) == parsed);
}

void TestProtocol::makeHello() {
    HelloMessage hello;
    hello.clientName = QStringLiteral("Zeus Desktop");
    hello.clientVersion = QStringLiteral("0.1.0");
    hello.os = QStringLiteral("linux");
    hello.arch = QStringLiteral("x86_64");
    hello.deviceId = QStringLiteral("dev-1");
    hello.runtime = RuntimeReport{QStringLiteral("docker"), QStringLiteral("20.10.24"), true, {}};
    hello.workspaces = QStringList{QStringLiteral("/home/u/a"), QStringLiteral("/home/u/b c")};
    hello.pending = QStringList{QStringLiteral("c1"), QStringLiteral("c2")};

    const QJsonObject o = QJsonDocument::fromJson(Protocol::toFrame(Protocol::makeHello(hello))).object();
    QCOMPARE(o.value(QStringLiteral("type")).toString(), QStringLiteral("hello"));
    QCOMPARE(o.value(QStringLiteral("protocol")).toInt(), 1);
    const QJsonObject client = o.value(QStringLiteral("client")).toObject();
    QCOMPARE(client.value(QStringLiteral("name")).toString(), hello.clientName);
    QCOMPARE(client.value(QStringLiteral("version")).toString(), hello.clientVersion);
    QCOMPARE(client.value(QStringLiteral("os")).toString(), hello.os);
    QCOMPARE(client.value(QStringLiteral("arch")).toString(), hello.arch);
    QCOMPARE(o.value(QStringLiteral("device_id")).toString(), hello.deviceId);
    const QJsonObject runtime = o.value(QStringLiteral("runtime")).toObject();
    QCOMPARE(runtime.value(QStringLiteral("kind")).toString(), QStringLiteral("docker"));
    QCOMPARE(runtime.value(QStringLiteral("version")).toString(), QStringLiteral("20.10.24"));
    QCOMPARE(runtime.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
    const QJsonArray workspaces = o.value(QStringLiteral("workspaces")).toArray();
    QCOMPARE(workspaces.size(), 2);
    QCOMPARE(workspaces.at(1).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("/home/u/b c"));
    QCOMPARE(o.value(QStringLiteral("pending")).toArray(), QJsonArray({QStringLiteral("c1"), QStringLiteral("c2")}));

    hello.runtime = RuntimeReport{{}, {}, false, QStringLiteral("No container runtime detected.")};
    hello.pending.clear();
    const QJsonObject none = Protocol::makeHello(hello);
    const QJsonObject noRuntime = none.value(QStringLiteral("runtime")).toObject();
    QVERIFY(noRuntime.value(QStringLiteral("kind")).isNull());
    QCOMPARE(noRuntime.value(QStringLiteral("status")).toString(), QStringLiteral("unavailable"));
    QCOMPARE(noRuntime.value(QStringLiteral("reason")).toString(), QStringLiteral("No container runtime detected."));
    QVERIFY(none.value(QStringLiteral("pending")).isArray());
    QVERIFY(none.value(QStringLiteral("pending")).toArray().isEmpty());
}

void TestProtocol::makeToolOutput() {
    const QString data = QStringLiteral("line \u00e9\n\uFFFD\x01");
    const QJsonObject o = QJsonDocument::fromJson(Protocol::toFrame(Protocol::makeToolOutput(
                                                      QStringLiteral("c1"), OutputStream::Stderr, 7, data)))
                              .object();
    QCOMPARE(o.value(QStringLiteral("type")).toString(), QStringLiteral("tool_output"));
    QCOMPARE(o.value(QStringLiteral("call_id")).toString(), QStringLiteral("c1"));
    QCOMPARE(o.value(QStringLiteral("stream")).toString(), QStringLiteral("stderr"));
    QCOMPARE(o.value(QStringLiteral("seq")).toInteger(), qint64(7));
    QCOMPARE(o.value(QStringLiteral("data")).toString(), data);
    QCOMPARE(Protocol::makeToolOutput(QStringLiteral("c"), OutputStream::Stdout, 0, {})
                 .value(QStringLiteral("stream"))
                 .toString(),
             QStringLiteral("stdout"));
}

void TestProtocol::makeToolResult_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("statusName");
    QTest::addColumn<bool>("hasExitCode");
    QTest::newRow("ok") << int(ExecStatus::Ok) << QStringLiteral("ok") << true;
    QTest::newRow("error") << int(ExecStatus::Error) << QStringLiteral("error") << false;
    QTest::newRow("timeout") << int(ExecStatus::Timeout) << QStringLiteral("timeout") << false;
    QTest::newRow("cancelled") << int(ExecStatus::Cancelled) << QStringLiteral("cancelled") << false;
}

void TestProtocol::makeToolResult() {
    QFETCH(int, status);
    QFETCH(QString, statusName);
    QFETCH(bool, hasExitCode);
    ToolResultMessage result;
    result.callId = QStringLiteral("c-9");
    result.status = ExecStatus(status);
    if (hasExitCode)
        result.exitCode = 3;
    result.output = QStringLiteral("out\nerr\n");
    result.truncated = true;
    result.durationMs = 12345678901LL;
    result.errorCode = ProtocolErrorCode::WorkspaceNotApproved;
    result.errorMessage = QStringLiteral("not approved");

    const QJsonObject o = QJsonDocument::fromJson(Protocol::toFrame(Protocol::makeToolResult(result))).object();
    QCOMPARE(o.value(QStringLiteral("type")).toString(), QStringLiteral("tool_result"));
    QCOMPARE(o.value(QStringLiteral("call_id")).toString(), result.callId);
    QCOMPARE(o.value(QStringLiteral("status")).toString(), statusName);
    if (hasExitCode)
        QCOMPARE(o.value(QStringLiteral("exit_code")).toInt(-1), 3);
    else
        QVERIFY(o.value(QStringLiteral("exit_code")).isNull());
    QCOMPARE(o.value(QStringLiteral("output")).toString(), result.output);
    QCOMPARE(o.value(QStringLiteral("truncated")).toBool(), true);
    QCOMPARE(o.value(QStringLiteral("duration_ms")).toInteger(), result.durationMs);
    QCOMPARE(o.value(QStringLiteral("redacted")).toInteger(), result.redacted);
    if (result.status == ExecStatus::Error) {
        const QJsonObject error = o.value(QStringLiteral("error")).toObject();
        QCOMPARE(error.value(QStringLiteral("code")).toString(), QStringLiteral("workspace_not_approved"));
        QCOMPARE(error.value(QStringLiteral("message")).toString(), QStringLiteral("not approved"));
    } else {
        QVERIFY(!o.contains(QStringLiteral("error")));
    }
}

void TestProtocol::toolOutputFrame_data() {
    QTest::addColumn<QString>("data");
    QTest::addColumn<int>("stream");
    QTest::addColumn<qint64>("seq");
    QTest::newRow("empty") << QString() << int(OutputStream::Stdout) << qint64(0);
    QTest::newRow("plain") << QStringLiteral("hello world\n") << int(OutputStream::Stdout) << qint64(1);
    QTest::newRow("quotes and backslashes")
        << QStringLiteral("say \"hi\" \\ C:\\path\\") << int(OutputStream::Stderr) << qint64(42);
    QTest::newRow("named escapes") << QStringLiteral("\b\f\n\r\t/") << int(OutputStream::Stdout) << qint64(7);
    QTest::newRow("other controls and NUL")
        << QString::fromUtf8("\x00\x01\x1b[31mred\x1b[0m\x1f\x7f", 16) << int(OutputStream::Stderr) << qint64(3);
    QTest::newRow("non-ASCII and replacement")
        << QStringLiteral("项目 é 😀 \uFFFD \u2028") << int(OutputStream::Stdout) << qint64(1LL << 40);
    QString big;
    for (int i = 0; i < 5000; ++i)
        big += QStringLiteral("line %1 \"x\"\t\u00e9\n").arg(i);
    QTest::newRow("big") << big << int(OutputStream::Stdout) << qint64(99);
}

void TestProtocol::toolOutputFrame() {
    // The hand-written frame is byte for byte QJsonDocument's, and parses back to the same message.
    QFETCH(QString, data);
    QFETCH(int, stream);
    QFETCH(qint64, seq);
    const auto channel = OutputStream(stream);
    const QString callId = QStringLiteral("call-\u0041_1");
    const QByteArray frame = Protocol::toolOutputFrame(callId, channel, seq, data.toUtf8());
    QCOMPARE(frame, Protocol::toFrame(Protocol::makeToolOutput(callId, channel, seq, data)));
    QJsonParseError error{};
    const QJsonObject o = QJsonDocument::fromJson(frame, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(o.value(QStringLiteral("type")).toString(), QStringLiteral("tool_output"));
    QCOMPARE(o.value(QStringLiteral("call_id")).toString(), callId);
    QCOMPARE(o.value(QStringLiteral("stream")).toString(), QString(Protocol::streamName(channel)));
    QCOMPARE(o.value(QStringLiteral("seq")).toInteger(), seq);
    QCOMPARE(o.value(QStringLiteral("data")).toString(), data);
}

void TestProtocol::toolResultFrame_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("hasExitCode");
    QTest::addColumn<QString>("output");
    QTest::addColumn<QString>("errorMessage");
    QTest::newRow("ok") << int(ExecStatus::Ok) << true << QStringLiteral("out\nerr\n") << QString();
    QTest::newRow("ok, negative exit") << int(ExecStatus::Ok) << true << QString() << QString();
    QTest::newRow("error") << int(ExecStatus::Error) << false << QString()
                           << QStringLiteral("The folder \"a\\b\" is not approved.\n");
    QTest::newRow("timeout") << int(ExecStatus::Timeout) << false << QStringLiteral("partial \x01 项\t")
                             << QStringLiteral("timed out");
    QTest::newRow("cancelled") << int(ExecStatus::Cancelled) << false << QStringLiteral("\uFFFD😀") << QString();
}

void TestProtocol::toolResultFrame() {
    QFETCH(int, status);
    QFETCH(bool, hasExitCode);
    QFETCH(QString, output);
    QFETCH(QString, errorMessage);
    ToolResultMessage result;
    result.callId = QStringLiteral("c-9");
    result.status = ExecStatus(status);
    if (hasExitCode)
        result.exitCode = output.isEmpty() ? -2 : 3;
    result.output = output;
    result.truncated = status == int(ExecStatus::Timeout);
    result.durationMs = 12345678901LL;
    result.redacted = status == int(ExecStatus::Ok) ? 3 : 0;
    result.errorCode = ProtocolErrorCode::ContainerFailed;
    result.errorMessage = errorMessage;
    const QByteArray frame = Protocol::toolResultFrame(result);
    QCOMPARE(frame, Protocol::toFrame(Protocol::makeToolResult(result)));
    const QJsonObject o = QJsonDocument::fromJson(frame).object();
    QCOMPARE(o.value(QStringLiteral("output")).toString(), output);
    QCOMPARE(o.value(QStringLiteral("duration_ms")).toInteger(), result.durationMs);
}

void TestProtocol::jsonStringEscapesEveryByte() {
    // Every ASCII byte, alone and in a run: parses back to itself, the same escapes as QJsonDocument.
    QByteArray all;
    for (int c = 0; c < 0x80; ++c)
        all.append(char(c));
    for (int c = 0; c < 0x80; ++c) {
        const QByteArray one(1, char(c));
        QByteArray literal;
        Protocol::appendJsonString(literal, one);
        const QByteArray viaQt = QJsonDocument(QJsonArray{QString::fromLatin1(one)}).toJson(QJsonDocument::Compact);
        QCOMPARE(QByteArray('[' + literal + ']'), viaQt);
    }
    QByteArray literal("prefix:");
    Protocol::appendJsonString(literal, all);
    QVERIFY(literal.startsWith("prefix:\""));
    const QJsonArray parsed = QJsonDocument::fromJson('[' + literal.mid(7) + ']').array();
    QCOMPARE(parsed.at(0).toString().toLatin1(), all);
}

void TestProtocol::makeSessionState() {
    const QJsonObject running =
        Protocol::makeSessionState(QStringLiteral("s1"), SessionState::Running, QStringLiteral("abc123"));
    QCOMPARE(running.value(QStringLiteral("type")).toString(), QStringLiteral("session_state"));
    QCOMPARE(running.value(QStringLiteral("session_id")).toString(), QStringLiteral("s1"));
    QCOMPARE(running.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
    QCOMPARE(running.value(QStringLiteral("container")).toString(), QStringLiteral("abc123"));
    const QJsonObject stopped = Protocol::makeSessionState(QStringLiteral("s1"), SessionState::Stopped, {});
    QCOMPARE(stopped.value(QStringLiteral("state")).toString(), QStringLiteral("stopped"));
    QVERIFY(stopped.value(QStringLiteral("container")).isNull());
    QCOMPARE(sessionStateName(SessionState::Starting), QLatin1String("starting"));
    QCOMPARE(sessionStateName(SessionState::Failed), QLatin1String("failed"));
}

void TestProtocol::makeCallState() {
    const QJsonObject waiting = Protocol::makeCallState(QStringLiteral("c7"), CallState::WaitingApproval);
    QCOMPARE(waiting, (QJsonObject{{QStringLiteral("type"), QStringLiteral("call_state")},
                                   {QStringLiteral("call_id"), QStringLiteral("c7")},
                                   {QStringLiteral("state"), QStringLiteral("waiting_approval")}}));
    QCOMPARE(Protocol::toFrame(waiting),
             QByteArray(R"({"call_id":"c7","state":"waiting_approval","type":"call_state"})"));
}

void TestProtocol::makeCallStateRows_data() {
    QTest::addColumn<int>("state");
    QTest::addColumn<int>("position");
    QTest::addColumn<QByteArray>("frame");
    QTest::newRow("waiting_approval") << int(CallState::WaitingApproval) << 0
                                      << QByteArray(
                                             R"({"call_id":"c7","state":"waiting_approval","type":"call_state"})");
    QTest::newRow("queued, first") << int(
        CallState::Queued) << 1 << QByteArray(R"({"call_id":"c7","position":1,"state":"queued","type":"call_state"})");
    QTest::newRow("queued, 64th") << int(CallState::Queued) << 64
                                  << QByteArray(
                                         R"({"call_id":"c7","position":64,"state":"queued","type":"call_state"})");
    QTest::newRow("running (no position)")
        << int(CallState::Running) << 3 << QByteArray(R"({"call_id":"c7","state":"running","type":"call_state"})");
}

void TestProtocol::makeCallStateRows() {
    QFETCH(int, state);
    QFETCH(int, position);
    QFETCH(QByteArray, frame);
    QCOMPARE(Protocol::toFrame(Protocol::makeCallState(QStringLiteral("c7"), CallState(state), position)), frame);
}

void TestProtocol::makePortOpened() {
    const QJsonObject message =
        Protocol::makePortOpened(QStringLiteral("s-1"), 8000, 18000, QStringLiteral("http://127.0.0.1:18000/"));
    QCOMPARE(message.value(QStringLiteral("type")).toString(), QStringLiteral("port_opened"));
    QCOMPARE(message.value(QStringLiteral("session_id")).toString(), QStringLiteral("s-1"));
    QCOMPARE(message.value(QStringLiteral("port")).toInt(), 8000);
    QCOMPARE(message.value(QStringLiteral("host_port")).toInt(), 18000);
    QCOMPARE(message.value(QStringLiteral("url")).toString(), QStringLiteral("http://127.0.0.1:18000/"));
    QCOMPARE(message.size(), 5);
}

void TestProtocol::makeError() {
    const QJsonObject withCall =
        Protocol::makeError(ProtocolErrorCode::Busy, QStringLiteral("too many calls"), QStringLiteral("c1"));
    QCOMPARE(withCall, (QJsonObject{{QStringLiteral("type"), QStringLiteral("error")},
                                    {QStringLiteral("code"), QStringLiteral("busy")},
                                    {QStringLiteral("message"), QStringLiteral("too many calls")},
                                    {QStringLiteral("call_id"), QStringLiteral("c1")}}));
    const QJsonObject withoutCall =
        Protocol::makeError(ProtocolError{ProtocolErrorCode::InvalidMessage, QStringLiteral("not valid JSON"), {}});
    QVERIFY(!withoutCall.contains(QStringLiteral("call_id")));
    QCOMPARE(withoutCall.value(QStringLiteral("code")).toString(), QStringLiteral("invalid_message"));
}

void TestProtocol::errorCodeNames() {
    const QStringList names{QStringLiteral("invalid_message"),   QStringLiteral("unsupported_tool"),
                            QStringLiteral("no_runtime"),        QStringLiteral("workspace_not_approved"),
                            QStringLiteral("workspace_invalid"), QStringLiteral("image_missing"),
                            QStringLiteral("container_failed"),  QStringLiteral("busy"),
                            QStringLiteral("secret_denied"),     QStringLiteral("secret_unknown"),
                            QStringLiteral("approval_denied")};
    for (const QString& name : names) {
        const std::optional<ProtocolErrorCode> code = Protocol::errorCodeFromName(name);
        QVERIFY2(code.has_value(), qPrintable(name));
        QCOMPARE(QString(Protocol::errorCodeName(*code)), name);
    }
    QVERIFY(!Protocol::errorCodeFromName(QStringLiteral("Busy")).has_value());
}

void TestProtocol::errorReplyOfRejectedMessageIsValid() {
    // The reply to garbage is itself a well-formed, small frame naming the call.
    const QByteArray garbage = R"({"type":"tool_call","call_id":"c-5","session_id":"s","tool":"desktop_exec"})";
    const IncomingMessage parsed = Protocol::parseIncoming(garbage);
    QVERIFY(std::holds_alternative<ProtocolError>(parsed));
    const QByteArray reply = Protocol::toFrame(Protocol::makeError(std::get<ProtocolError>(parsed)));
    const QJsonObject o = QJsonDocument::fromJson(reply).object();
    QCOMPARE(o.value(QStringLiteral("type")).toString(), QStringLiteral("error"));
    QCOMPARE(o.value(QStringLiteral("code")).toString(), QStringLiteral("invalid_message"));
    QCOMPARE(o.value(QStringLiteral("call_id")).toString(), QStringLiteral("c-5"));
    QVERIFY(o.value(QStringLiteral("message")).toString().contains(QStringLiteral("\"args\" is missing")));
}

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
