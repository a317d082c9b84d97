// The protocol state of one MCP connection: the handshake and version negotiation, requests refused before it,
// ping, tools/list's schemas, tools/call validated into an McpToolCall (every argument's rows), cancellation of a
// running call, and progress notifications.
#include "mcp/mcpcodec.h"
#include "mcp/mcpserverstate.h"
#include "mcp/mcptools.h"

#include <zeus/buildinfo.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace zeus;

Q_DECLARE_METATYPE(QJsonValue)
Q_DECLARE_METATYPE(zeus::McpToolCall)

namespace {

QByteArray text(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray request(const QJsonValue& id, const QString& method, const QJsonObject& params = {}) {
    return text(McpCodec::makeRequest(id, method, params));
}

QByteArray initializeRequest(const QString& version = QStringLiteral("2025-06-18")) {
    return request(
        QJsonValue(0), QStringLiteral("initialize"),
        QJsonObject{{QStringLiteral("protocolVersion"), version},
                    {QStringLiteral("capabilities"), QJsonObject{}},
                    {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("c")},
                                                               {QStringLiteral("version"), QStringLiteral("1")}}}});
}

// A state past the handshake, as a client leaves it.
void initialise(McpServerState& state) {
    state.handle(initializeRequest());
    state.handle(text(McpCodec::makeNotification(QStringLiteral("notifications/initialized"))));
}

QByteArray toolsCall(const QJsonValue& id, const QString& name, const QJsonValue& arguments,
                     const QJsonObject& extra = {}) {
    QJsonObject params = extra;
    params.insert(QStringLiteral("name"), name);
    if (!arguments.isUndefined()) {
        params.insert(QStringLiteral("arguments"), arguments);
    }
    return request(id, QStringLiteral("tools/call"), params);
}

int errorCode(const QJsonObject& reply) {
    return reply.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt();
}

QString errorMessage(const QJsonObject& reply) {
    return reply.value(QLatin1String("error")).toObject().value(QLatin1String("message")).toString();
}

QJsonObject result(const QJsonObject& reply) {
    return reply.value(QLatin1String("result")).toObject();
}

QJsonObject object(std::initializer_list<QPair<QString, QJsonValue>> members) {
    return QJsonObject(members);
}

}  // namespace

class TestMcpServerState : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void versionNegotiation_data();
    void versionNegotiation();
    void initializeResult();
    void initializeRejects_data();
    void initializeRejects();
    void secondInitializeRefused();
    void beforeInitialize_data();
    void beforeInitialize();
    void pingAnswersEmptyResult();
    void unknownMethod();
    void codecErrorsAreAnswered();
    void notificationsAndResponsesAreNotAnswered();
    void toolsListSchemas();
    void toolsCallAccepted_data();
    void toolsCallAccepted();
    void toolsCallRejected_data();
    void toolsCallRejected();
    void duplicateRunningIdRefused();
    void runningCallsBounded();
    void cancel_data();
    void cancel();
    void progress();
};

void TestMcpServerState::versionNegotiation_data() {
    QTest::addColumn<QString>("requested");
    QTest::addColumn<QString>("answered");
    QTest::newRow("current") << QStringLiteral("2025-06-18") << QStringLiteral("2025-06-18");
    QTest::newRow("previous") << QStringLiteral("2025-03-26") << QStringLiteral("2025-03-26");
    QTest::newRow("first") << QStringLiteral("2024-11-05") << QStringLiteral("2024-11-05");
    QTest::newRow("future") << QStringLiteral("2099-01-01") << QStringLiteral("2025-06-18");
    QTest::newRow("older") << QStringLiteral("2024-10-07") << QStringLiteral("2025-06-18");
    QTest::newRow("garbage") << QStringLiteral("latest") << QStringLiteral("2025-06-18");
    QTest::newRow("empty") << QString() << QStringLiteral("2025-06-18");
}

void TestMcpServerState::versionNegotiation() {
    QFETCH(QString, requested);
    QFETCH(QString, answered);
    McpServerState state;
    const McpServerState::Outcome outcome = state.handle(initializeRequest(requested));
    QCOMPARE(result(outcome.reply).value(QLatin1String("protocolVersion")).toString(), answered);
    QCOMPARE(state.protocolVersion(), answered);
    QCOMPARE(state.phase(), McpServerState::Phase::Initialized);
}

void TestMcpServerState::initializeResult() {
    McpServerState state;
    const QJsonObject params{
        {QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
        {QStringLiteral("capabilities"), QJsonObject{{QStringLiteral("elicitation"), QJsonObject{}}}},
        {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("claude-code")},
                                                   {QStringLiteral("version"), QStringLiteral("1.0.0")}}}};
    const McpServerState::Outcome outcome =
        state.handle(request(QJsonValue(QStringLiteral("init")), QStringLiteral("initialize"), params));
    QCOMPARE(outcome.reply.value(QLatin1String("id")).toString(), QStringLiteral("init"));
    QCOMPARE(outcome.reply.value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
    const QJsonObject expected{
        {QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
        {QStringLiteral("capabilities"),
         QJsonObject{{QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}}}},
        {QStringLiteral("serverInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("zeus-desktop")},
                                                   {QStringLiteral("version"), QStringLiteral(ZEUS_VERSION)}}}};
    QCOMPARE(result(outcome.reply), expected);
    QCOMPARE(state.clientName(), QStringLiteral("claude-code"));
    QCOMPARE(state.clientVersion(), QStringLiteral("1.0.0"));
    QVERIFY(state.clientSupportsElicitation());
    QVERIFY(!state.clientSentInitialized());
    state.handle(text(McpCodec::makeNotification(QStringLiteral("notifications/initialized"))));
    QVERIFY(state.clientSentInitialized());
}

void TestMcpServerState::initializeRejects_data() {
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<QString>("messageContains");
    QTest::newRow("no version") << QJsonObject{{QStringLiteral("capabilities"), QJsonObject{}}}
                                << QStringLiteral("\"protocolVersion\" must be a string");
    QTest::newRow("version number") << QJsonObject{{QStringLiteral("protocolVersion"), 20250618}}
                                    << QStringLiteral("\"protocolVersion\" must be a string");
    QTest::newRow("capabilities array") << QJsonObject{{QStringLiteral("protocolVersion"),
                                                        QStringLiteral("2025-06-18")},
                                                       {QStringLiteral("capabilities"), QJsonArray{}}}
                                        << QStringLiteral("\"capabilities\" must be an object");
    QTest::newRow("clientInfo string") << QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                                      {QStringLiteral("clientInfo"), QStringLiteral("c")}}
                                       << QStringLiteral("\"clientInfo\" must be an object");
}

void TestMcpServerState::initializeRejects() {
    QFETCH(QJsonObject, params);
    QFETCH(QString, messageContains);
    McpServerState state;
    const McpServerState::Outcome outcome = state.handle(request(QJsonValue(1), QStringLiteral("initialize"), params));
    QCOMPARE(errorCode(outcome.reply), JsonRpcCode::kInvalidParams);
    QVERIFY2(errorMessage(outcome.reply).contains(messageContains), qPrintable(errorMessage(outcome.reply)));
    QCOMPARE(state.phase(), McpServerState::Phase::AwaitingInitialize);
    // The client may try again.
    QVERIFY(state.handle(initializeRequest()).reply.contains(QLatin1String("result")));
}

void TestMcpServerState::secondInitializeRefused() {
    McpServerState state;
    initialise(state);
    const McpServerState::Outcome outcome = state.handle(initializeRequest(QStringLiteral("2024-11-05")));
    QCOMPARE(errorCode(outcome.reply), JsonRpcCode::kInvalidRequest);
    QCOMPARE(state.protocolVersion(), QStringLiteral("2025-06-18"));
}

void TestMcpServerState::beforeInitialize_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::newRow("tools/list") << request(QJsonValue(1), QStringLiteral("tools/list"));
    QTest::newRow("tools/call") << toolsCall(QJsonValue(1), QStringLiteral("run_command"),
                                             QJsonObject{{QStringLiteral("command"), QStringLiteral("true")}});
    QTest::newRow("unknown method") << request(QJsonValue(1), QStringLiteral("resources/list"));
}

void TestMcpServerState::beforeInitialize() {
    QFETCH(QByteArray, input);
    McpServerState state;
    const McpServerState::Outcome outcome = state.handle(input);
    QCOMPARE(errorCode(outcome.reply), JsonRpcCode::kServerNotInitialized);
    QCOMPARE(outcome.reply.value(QLatin1String("id")).toInt(), 1);
    QVERIFY(!outcome.call);
}

void TestMcpServerState::pingAnswersEmptyResult() {
    McpServerState state;
    // Before initialize too.
    QCOMPARE(state.handle(request(QJsonValue(9), QStringLiteral("ping"))).reply,
             McpCodec::makeResult(QJsonValue(9), QJsonObject{}));
    initialise(state);
    QCOMPARE(state.handle(request(QJsonValue(QStringLiteral("p")), QStringLiteral("ping"))).reply,
             McpCodec::makeResult(QJsonValue(QStringLiteral("p")), QJsonObject{}));
}

void TestMcpServerState::unknownMethod() {
    McpServerState state;
    initialise(state);
    const McpServerState::Outcome outcome = state.handle(request(QJsonValue(4), QStringLiteral("resources/list")));
    QCOMPARE(errorCode(outcome.reply), JsonRpcCode::kMethodNotFound);
    QCOMPARE(errorMessage(outcome.reply), QStringLiteral("method \"resources/list\" not found"));
}

void TestMcpServerState::codecErrorsAreAnswered() {
    McpServerState state;
    QCOMPARE(errorCode(state.handle(QByteArray("{")).reply), JsonRpcCode::kParseError);
    QCOMPARE(errorCode(state.handle(QByteArray("[]")).reply), JsonRpcCode::kInvalidRequest);
    QCOMPARE(state.handle(QByteArray("{")).reply.value(QLatin1String("id")), QJsonValue(QJsonValue::Null));
}

void TestMcpServerState::notificationsAndResponsesAreNotAnswered() {
    McpServerState state;
    initialise(state);
    QVERIFY(state.handle(text(McpCodec::makeNotification(QStringLiteral("notifications/other")))).reply.isEmpty());
    QVERIFY(state.handle(QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{}})")).reply.isEmpty());
    QVERIFY(state.handle(QByteArray(R"({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}})")).reply.isEmpty());
    QVERIFY(state.handle(QByteArray(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}})"))
                .reply.isEmpty());
}

void TestMcpServerState::toolsListSchemas() {
    McpServerState state;
    initialise(state);
    const QJsonArray tools = result(state.handle(request(QJsonValue(2), QStringLiteral("tools/list"))).reply)
                                 .value(QLatin1String("tools"))
                                 .toArray();
    QStringList names;
    for (const QJsonValue& tool : tools) {
        const QJsonObject definition = tool.toObject();
        names << definition.value(QLatin1String("name")).toString();
        QVERIFY(!definition.value(QLatin1String("description")).toString().isEmpty());
        const QJsonObject schema = definition.value(QLatin1String("inputSchema")).toObject();
        QCOMPARE(schema.value(QLatin1String("type")).toString(), QStringLiteral("object"));
        QCOMPARE(schema.value(QLatin1String("additionalProperties")), QJsonValue(false));
        QVERIFY(schema.value(QLatin1String("properties")).isObject());
    }
    QCOMPARE(names, (QStringList{QStringLiteral("run_command"), QStringLiteral("list_changes"),
                                 QStringLiteral("apply_changes"), QStringLiteral("discard_changes"),
                                 QStringLiteral("open_port")}));

    const auto schemaOf = [&tools](int index) {
        return tools.at(index).toObject().value(QLatin1String("inputSchema")).toObject();
    };
    const auto propertiesOf = [&schemaOf](int index) {
        return schemaOf(index).value(QLatin1String("properties")).toObject().keys();
    };
    QCOMPARE(propertiesOf(0),
             (QStringList{QStringLiteral("command"), QStringLiteral("secrets"), QStringLiteral("session"),
                          QStringLiteral("timeout_s"), QStringLiteral("working_directory")}));
    QCOMPARE(schemaOf(0).value(QLatin1String("required")).toArray(), QJsonArray{QStringLiteral("command")});
    QCOMPARE(propertiesOf(1), QStringList());
    QCOMPARE(propertiesOf(2), QStringList{QStringLiteral("paths")});
    QCOMPARE(propertiesOf(3), QStringList());
    QCOMPARE(propertiesOf(4), QStringList{QStringLiteral("port")});
    QCOMPARE(schemaOf(4).value(QLatin1String("required")).toArray(), QJsonArray{QStringLiteral("port")});
    const QJsonObject timeout =
        schemaOf(0).value(QLatin1String("properties")).toObject().value(QLatin1String("timeout_s")).toObject();
    QCOMPARE(timeout.value(QLatin1String("maximum")).toInt(), 3600);
}

void TestMcpServerState::toolsCallAccepted_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<McpToolCall>("expected");

    const QJsonValue id(QStringLiteral("call-1"));
    McpToolCall base;
    base.requestId = id;

    McpToolCall run = base;
    run.command = QStringLiteral("ls -la");
    QTest::newRow("run_command minimal") << toolsCall(
        id, QStringLiteral("run_command"), QJsonObject{{QStringLiteral("command"), QStringLiteral("ls -la")}})
                                         << run;
    McpToolCall full = run;
    full.workingDirectory = QStringLiteral("src");
    full.timeoutMs = 1500;
    full.secrets = QStringList{QStringLiteral("API_KEY"), QStringLiteral("_X1")};
    full.session = QStringLiteral("other-session");
    QTest::newRow("run_command every argument") << toolsCall(
        id, QStringLiteral("run_command"),
        QJsonObject{{QStringLiteral("command"), QStringLiteral("ls -la")},
                    {QStringLiteral("working_directory"), QStringLiteral("src")},
                    {QStringLiteral("timeout_s"), 1.5},
                    {QStringLiteral("secrets"), QJsonArray{QStringLiteral("API_KEY"), QStringLiteral("_X1")}},
                    {QStringLiteral("session"), QStringLiteral("other-session")}})
                                                << full;
    QTest::newRow("run_command nulls mean absent")
        << toolsCall(id, QStringLiteral("run_command"),
                     QJsonObject{{QStringLiteral("command"), QStringLiteral("ls -la")},
                                 {QStringLiteral("working_directory"), QJsonValue::Null},
                                 {QStringLiteral("timeout_s"), QJsonValue::Null},
                                 {QStringLiteral("secrets"), QJsonValue::Null}})
        << run;
    McpToolCall longest = base;
    longest.command = QString(256 * 1024, QLatin1Char('x'));
    longest.timeoutMs = 3600 * 1000;
    QTest::newRow("run_command limits inclusive")
        << toolsCall(id, QStringLiteral("run_command"),
                     QJsonObject{{QStringLiteral("command"), longest.command}, {QStringLiteral("timeout_s"), 3600}})
        << longest;
    McpToolCall progress = run;
    progress.progressToken = QJsonValue(QStringLiteral("tok"));
    QTest::newRow("progress token") << toolsCall(
        id, QStringLiteral("run_command"), QJsonObject{{QStringLiteral("command"), QStringLiteral("ls -la")}},
        QJsonObject{{QStringLiteral("_meta"), QJsonObject{{QStringLiteral("progressToken"), QStringLiteral("tok")}}}})
                                    << progress;

    McpToolCall list = base;
    list.tool = McpTool::ListChanges;
    QTest::newRow("list_changes no arguments") << toolsCall(id, QStringLiteral("list_changes"), QJsonValue()) << list;
    QTest::newRow("list_changes empty") << toolsCall(id, QStringLiteral("list_changes"), QJsonObject{}) << list;
    McpToolCall discard = base;
    discard.tool = McpTool::DiscardChanges;
    QTest::newRow("discard_changes") << toolsCall(id, QStringLiteral("discard_changes"), QJsonObject{}) << discard;
    McpToolCall applyAll = base;
    applyAll.tool = McpTool::ApplyChanges;
    QTest::newRow("apply_changes all") << toolsCall(id, QStringLiteral("apply_changes"), QJsonObject{}) << applyAll;
    McpToolCall applySome = applyAll;
    applySome.allPaths = false;
    applySome.paths = QStringList{QStringLiteral("a.txt"), QStringLiteral("dir/b é.txt")};
    QTest::newRow("apply_changes paths") << toolsCall(
        id, QStringLiteral("apply_changes"),
        QJsonObject{{QStringLiteral("paths"), QJsonArray{QStringLiteral("a.txt"), QStringLiteral("dir/b é.txt")}}})
                                         << applySome;
    McpToolCall applyNone = applyAll;
    applyNone.allPaths = false;
    QTest::newRow("apply_changes empty paths")
        << toolsCall(id, QStringLiteral("apply_changes"), QJsonObject{{QStringLiteral("paths"), QJsonArray{}}})
        << applyNone;
    McpToolCall port = base;
    port.tool = McpTool::OpenPort;
    port.port = 8080;
    QTest::newRow("open_port") << toolsCall(id, QStringLiteral("open_port"),
                                            QJsonObject{{QStringLiteral("port"), 8080}})
                               << port;
    port.port = 65535;
    QTest::newRow("open_port max") << toolsCall(id, QStringLiteral("open_port"),
                                                QJsonObject{{QStringLiteral("port"), 65535}})
                                   << port;
    McpToolCall numeric = run;
    numeric.requestId = QJsonValue(42);
    QTest::newRow("number id") << toolsCall(QJsonValue(42), QStringLiteral("run_command"),
                                            QJsonObject{{QStringLiteral("command"), QStringLiteral("ls -la")}})
                               << numeric;
}

void TestMcpServerState::toolsCallAccepted() {
    QFETCH(QByteArray, input);
    QFETCH(McpToolCall, expected);
    McpServerState state;
    initialise(state);
    const McpServerState::Outcome outcome = state.handle(input);
    QVERIFY2(outcome.reply.isEmpty(), qPrintable(errorMessage(outcome.reply)));
    QVERIFY(outcome.call);
    QVERIFY(*outcome.call == expected);
    QCOMPARE(state.runningCalls(), 1);
    state.callFinished(expected.requestId);
    QCOMPARE(state.runningCalls(), 0);
}

void TestMcpServerState::toolsCallRejected_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("messageContains");

    const QJsonValue id(7);
    const auto run = [&id](const QJsonObject& arguments) {
        return toolsCall(id, QStringLiteral("run_command"), arguments);
    };
    const QJsonValue ls(QStringLiteral("ls"));

    QTest::newRow("no name") << request(id, QStringLiteral("tools/call"))
                             << QStringLiteral("\"name\" must be a string");
    QTest::newRow("name number") << request(id, QStringLiteral("tools/call"), QJsonObject{{QStringLiteral("name"), 1}})
                                 << QStringLiteral("\"name\" must be a string");
    QTest::newRow("unknown tool") << toolsCall(id, QStringLiteral("desktop_exec"), QJsonObject{})
                                  << QStringLiteral("unknown tool \"desktop_exec\"");
    QTest::newRow("tool wrong case") << toolsCall(id, QStringLiteral("Run_Command"), QJsonObject{})
                                     << QStringLiteral("unknown tool");
    QTest::newRow("huge tool name cut") << toolsCall(id, QString(10000, QLatin1Char('t')), QJsonObject{})
                                        << QStringLiteral("unknown tool");
    QTest::newRow("arguments array") << toolsCall(id, QStringLiteral("run_command"), QJsonArray{})
                                     << QStringLiteral("\"arguments\" must be an object");
    QTest::newRow("arguments string") << toolsCall(id, QStringLiteral("run_command"), ls)
                                      << QStringLiteral("\"arguments\" must be an object");
    QTest::newRow("bad progress token") << toolsCall(
        id, QStringLiteral("list_changes"), QJsonObject{},
        QJsonObject{{QStringLiteral("_meta"), QJsonObject{{QStringLiteral("progressToken"), true}}}})
                                        << QStringLiteral("progressToken");

    QTest::newRow("command missing") << run({}) << QStringLiteral("\"command\" is missing");
    QTest::newRow("command null") << run({{QStringLiteral("command"), QJsonValue::Null}})
                                  << QStringLiteral("\"command\" is missing");
    QTest::newRow("command number") << run({{QStringLiteral("command"), 1}})
                                    << QStringLiteral("\"command\" must be a non-empty string");
    QTest::newRow("command empty") << run({{QStringLiteral("command"), QString()}})
                                   << QStringLiteral("\"command\" must be a non-empty string");
    QTest::newRow("command over limit") << run({{QStringLiteral("command"), QString(256 * 1024 + 1, QLatin1Char('x'))}})
                                        << QStringLiteral("longer than 262144 bytes");
    QTest::newRow("command over limit in utf8")
        << run({{QStringLiteral("command"), QString(128 * 1024 + 1, QChar(0xe9))}})
        << QStringLiteral("longer than 262144 bytes");
    QTest::newRow("command NUL") << run(
        {{QStringLiteral("command"), QString(QStringLiteral("a") + QChar(0) + QStringLiteral("b"))}})
                                 << QStringLiteral("NUL");
    QTest::newRow("unknown argument") << run({{QStringLiteral("command"), ls}, {QStringLiteral("cwd"), ls}})
                                      << QStringLiteral("unknown argument \"cwd\"");
    QTest::newRow("working_directory number")
        << run({{QStringLiteral("command"), ls}, {QStringLiteral("working_directory"), 3}})
        << QStringLiteral("\"working_directory\" must be a non-empty string");
    QTest::newRow("working_directory over limit") << run(
        {{QStringLiteral("command"), ls}, {QStringLiteral("working_directory"), QString(4097, QLatin1Char('d'))}})
                                                  << QStringLiteral("longer than 4096 bytes");
    QTest::newRow("timeout string") << run(
        {{QStringLiteral("command"), ls}, {QStringLiteral("timeout_s"), QStringLiteral("5")}})
                                    << QStringLiteral("\"timeout_s\" must be a number");
    QTest::newRow("timeout zero") << run({{QStringLiteral("command"), ls}, {QStringLiteral("timeout_s"), 0}})
                                  << QStringLiteral("\"timeout_s\" must be a number");
    QTest::newRow("timeout negative") << run({{QStringLiteral("command"), ls}, {QStringLiteral("timeout_s"), -1}})
                                      << QStringLiteral("\"timeout_s\" must be a number");
    QTest::newRow("timeout over") << run({{QStringLiteral("command"), ls}, {QStringLiteral("timeout_s"), 3600.001}})
                                  << QStringLiteral("at most 3600");
    QTest::newRow("secrets string") << run(
        {{QStringLiteral("command"), ls}, {QStringLiteral("secrets"), QStringLiteral("A")}})
                                    << QStringLiteral("\"secrets\" must be an array");
    QTest::newRow("secret lower case") << run(
        {{QStringLiteral("command"), ls}, {QStringLiteral("secrets"), QJsonArray{QStringLiteral("api")}}})
                                       << QStringLiteral("[A-Z_][A-Z0-9_]*");
    QTest::newRow("secret number") << run({{QStringLiteral("command"), ls}, {QStringLiteral("secrets"), QJsonArray{1}}})
                                   << QStringLiteral("[A-Z_][A-Z0-9_]*");
    QTest::newRow("secret twice") << run(
        {{QStringLiteral("command"), ls},
         {QStringLiteral("secrets"), QJsonArray{QStringLiteral("A"), QStringLiteral("A")}}})
                                  << QStringLiteral("twice");
    QJsonArray manySecrets;
    for (int i = 0; i <= 32; ++i) {
        manySecrets.append(QStringLiteral("S%1").arg(i));
    }
    QTest::newRow("secrets over limit") << run(
        {{QStringLiteral("command"), ls}, {QStringLiteral("secrets"), manySecrets}})
                                        << QStringLiteral("more than 32 entries");
    QTest::newRow("session with space") << run(
        {{QStringLiteral("command"), ls}, {QStringLiteral("session"), QStringLiteral("a b")}})
                                        << QStringLiteral("\"session\" must be");
    QTest::newRow("session over limit") << run(
        {{QStringLiteral("command"), ls}, {QStringLiteral("session"), QString(129, QLatin1Char('s'))}})
                                        << QStringLiteral("\"session\" must be");

    QTest::newRow("list_changes argument")
        << toolsCall(id, QStringLiteral("list_changes"), QJsonObject{{QStringLiteral("paths"), QJsonArray{}}})
        << QStringLiteral("unknown argument \"paths\"");
    QTest::newRow("discard_changes argument")
        << toolsCall(id, QStringLiteral("discard_changes"), QJsonObject{{QStringLiteral("all"), true}})
        << QStringLiteral("unknown argument \"all\"");
    QTest::newRow("apply_changes paths string")
        << toolsCall(id, QStringLiteral("apply_changes"), QJsonObject{{QStringLiteral("paths"), QStringLiteral("a")}})
        << QStringLiteral("\"paths\" must be an array");
    QTest::newRow("apply_changes path number")
        << toolsCall(id, QStringLiteral("apply_changes"), QJsonObject{{QStringLiteral("paths"), QJsonArray{1}}})
        << QStringLiteral("\"paths\" must be a non-empty string");
    QTest::newRow("apply_changes path empty")
        << toolsCall(id, QStringLiteral("apply_changes"), QJsonObject{{QStringLiteral("paths"), QJsonArray{QString()}}})
        << QStringLiteral("\"paths\" must be a non-empty string");
    QJsonArray manyPaths;
    for (int i = 0; i <= McpTools::kMaxPaths; ++i) {
        manyPaths.append(QStringLiteral("p"));
    }
    QTest::newRow("apply_changes paths over limit")
        << toolsCall(id, QStringLiteral("apply_changes"), QJsonObject{{QStringLiteral("paths"), manyPaths}})
        << QStringLiteral("more than 4096 entries");
    QTest::newRow("apply_changes unknown argument")
        << toolsCall(id, QStringLiteral("apply_changes"), QJsonObject{{QStringLiteral("force"), true}})
        << QStringLiteral("unknown argument \"force\"");
    const auto openPort = [&id](const QJsonValue& port) {
        return toolsCall(id, QStringLiteral("open_port"), QJsonObject{{QStringLiteral("port"), port}});
    };
    QTest::newRow("open_port missing") << toolsCall(id, QStringLiteral("open_port"), QJsonObject{})
                                       << QStringLiteral("\"port\" is missing");
    QTest::newRow("open_port string") << openPort(QStringLiteral("80")) << QStringLiteral("integer from 1 to 65535");
    QTest::newRow("open_port zero") << openPort(0) << QStringLiteral("integer from 1 to 65535");
    QTest::newRow("open_port over") << openPort(65536) << QStringLiteral("integer from 1 to 65535");
    QTest::newRow("open_port fraction") << openPort(80.5) << QStringLiteral("integer from 1 to 65535");
}

void TestMcpServerState::toolsCallRejected() {
    QFETCH(QByteArray, input);
    QFETCH(QString, messageContains);
    McpServerState state;
    initialise(state);
    const McpServerState::Outcome outcome = state.handle(input);
    QVERIFY(!outcome.call);
    QCOMPARE(errorCode(outcome.reply), JsonRpcCode::kInvalidParams);
    QVERIFY2(errorMessage(outcome.reply).contains(messageContains), qPrintable(errorMessage(outcome.reply)));
    QVERIFY(errorMessage(outcome.reply).size() <= 200);
    QCOMPARE(outcome.reply.value(QLatin1String("id")), QJsonValue(7));
    QCOMPARE(state.runningCalls(), 0);
}

void TestMcpServerState::duplicateRunningIdRefused() {
    McpServerState state;
    initialise(state);
    const QByteArray call = toolsCall(QJsonValue(5), QStringLiteral("list_changes"), QJsonObject{});
    QVERIFY(state.handle(call).call);
    const McpServerState::Outcome again = state.handle(call);
    QVERIFY(!again.call);
    QCOMPARE(errorCode(again.reply), JsonRpcCode::kInvalidRequest);
    // "5" is another id than 5.
    QVERIFY(
        state.handle(toolsCall(QJsonValue(QStringLiteral("5")), QStringLiteral("list_changes"), QJsonObject{})).call);
    state.callFinished(QJsonValue(5));
    QVERIFY(state.handle(call).call);
}

void TestMcpServerState::runningCallsBounded() {
    McpServerState state;
    initialise(state);
    for (int i = 0; i < McpServerState::kMaxRunningCalls; ++i) {
        QVERIFY(state.handle(toolsCall(QJsonValue(i), QStringLiteral("list_changes"), QJsonObject{})).call);
    }
    const McpServerState::Outcome over =
        state.handle(toolsCall(QJsonValue(-1), QStringLiteral("list_changes"), QJsonObject{}));
    QVERIFY(!over.call);
    QCOMPARE(errorCode(over.reply), JsonRpcCode::kInternalError);
}

void TestMcpServerState::cancel_data() {
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<bool>("cancelled");
    QTest::addColumn<QString>("reason");
    QTest::newRow("running call") << object({{QStringLiteral("requestId"), 3}}) << true << QString();
    QTest::newRow("with reason") << object(
        {{QStringLiteral("requestId"), 3}, {QStringLiteral("reason"), QStringLiteral("user")}})
                                 << true << QStringLiteral("user");
    QTest::newRow("unknown call") << object({{QStringLiteral("requestId"), 4}}) << false << QString();
    QTest::newRow("string is another id")
        << object({{QStringLiteral("requestId"), QStringLiteral("3")}}) << false << QString();
    QTest::newRow("no id") << QJsonObject{} << false << QString();
    QTest::newRow("id bool") << object({{QStringLiteral("requestId"), true}}) << false << QString();
    QTest::newRow("reason number") << object({{QStringLiteral("requestId"), 3}, {QStringLiteral("reason"), 1}}) << false
                                   << QString();
    QTest::newRow("reason over limit") << object(
        {{QStringLiteral("requestId"), 3}, {QStringLiteral("reason"), QString(1025, QLatin1Char('r'))}})
                                       << false << QString();
}

void TestMcpServerState::cancel() {
    QFETCH(QJsonObject, params);
    QFETCH(bool, cancelled);
    QFETCH(QString, reason);
    McpServerState state;
    initialise(state);
    QVERIFY(state
                .handle(toolsCall(QJsonValue(3), QStringLiteral("run_command"),
                                  QJsonObject{{QStringLiteral("command"), QStringLiteral("sleep 9")}}))
                .call);
    const McpServerState::Outcome outcome =
        state.handle(text(McpCodec::makeNotification(QStringLiteral("notifications/cancelled"), params)));
    QVERIFY(outcome.reply.isEmpty());
    QVERIFY(!outcome.call);
    QCOMPARE(outcome.cancel.has_value(), cancelled);
    QCOMPARE(state.runningCalls(), cancelled ? 0 : 1);
    if (cancelled) {
        QVERIFY(*outcome.cancel == (McpCancel{QJsonValue(3), reason}));
        // A second cancel of the same call finds nothing.
        QVERIFY(
            !state.handle(text(McpCodec::makeNotification(QStringLiteral("notifications/cancelled"), params))).cancel);
    }
}

void TestMcpServerState::progress() {
    McpToolCall call;
    call.requestId = QJsonValue(1);
    QVERIFY(!McpTools::progressNotification(call, 1, QStringLiteral("x")));

    call.progressToken = QJsonValue(QStringLiteral("tok"));
    const std::optional<QJsonObject> first = McpTools::progressNotification(call, 1, QStringLiteral("line 1\n"));
    QVERIFY(first);
    QCOMPARE(McpCodec::toBytes(*first),
             QByteArray(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"line 1\n",)"
                        R"("progress":1,"progressToken":"tok"}})"));
    call.progressToken = QJsonValue(17);
    const std::optional<QJsonObject> bare = McpTools::progressNotification(call, 2.5, QString());
    QCOMPARE(bare->value(QLatin1String("params")).toObject(),
             (QJsonObject{{QStringLiteral("progressToken"), 17}, {QStringLiteral("progress"), 2.5}}));
    const std::optional<QJsonObject> longMessage =
        McpTools::progressNotification(call, 3, QString(McpTools::kMaxProgressMessage + 10, QLatin1Char('m')));
    QCOMPARE(longMessage->value(QLatin1String("params")).toObject().value(QLatin1String("message")).toString().size(),
             McpTools::kMaxProgressMessage);
    // What a client sends parses as a notification the codec accepts.
    QVERIFY(std::holds_alternative<McpMessage>(McpCodec::parse(McpCodec::toBytes(*first))));
}

QTEST_APPLESS_MAIN(TestMcpServerState)
#include "tst_mcpserverstate.moc"
