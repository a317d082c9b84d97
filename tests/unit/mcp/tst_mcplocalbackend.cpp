// The backend an MCP client's calls reach the core through: only a connection with its token is taken, and only
// one; tools/call becomes a tool_call in the connection's session, output becomes progress, a result becomes a
// CallToolResult (and is acked), an error result names its code, a denied connection is added to the text, a
// cancel becomes a cancel and the call is answered no more. The test's QWebSocket plays the core.
#include "mcp/mcpcodec.h"
#include "mcp/mcplocalbackend.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkRequest>
#include <QWebSocket>
#include <QtTest>

#include <memory>

using namespace zeus;

namespace {

QByteArray text(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject parse(const QByteArray& bytes) {
    return QJsonDocument::fromJson(bytes).object();
}

QByteArray request(int id, const QString& method, const QJsonObject& params = {}) {
    return text(McpCodec::makeRequest(QJsonValue(id), method, params));
}

QByteArray runCommand(int id, const QJsonObject& arguments, const QJsonValue& progressToken = {}) {
    QJsonObject params{{QStringLiteral("name"), QStringLiteral("run_command")},
                       {QStringLiteral("arguments"), arguments}};
    if (!progressToken.isUndefined() && !progressToken.isNull()) {
        params.insert(QStringLiteral("_meta"), QJsonObject{{QStringLiteral("progressToken"), progressToken}});
    }
    return request(id, QStringLiteral("tools/call"), params);
}

// The test's core: a WebSocket client that records what the backend sends.
struct Core {
    QWebSocket socket;
    QList<QJsonObject> received;
    bool closed = false;

    Core() {
        QObject::connect(&socket, &QWebSocket::textMessageReceived, &socket,
                         [this](const QString& message) { received << parse(message.toUtf8()); });
        QObject::connect(&socket, &QWebSocket::disconnected, &socket, [this] { closed = true; });
    }
    void open(const QUrl& url, const QByteArray& authorization) {
        QNetworkRequest upgrade(url);
        if (!authorization.isEmpty()) {
            upgrade.setRawHeader("Authorization", authorization);
        }
        socket.open(upgrade);
    }
    void send(const QJsonObject& message) { socket.sendTextMessage(QString::fromUtf8(text(message))); }
    QList<QJsonObject> ofType(const QString& type) const {
        QList<QJsonObject> found;
        for (const QJsonObject& m : received) {
            if (m.value(QStringLiteral("type")).toString() == type) {
                found << m;
            }
        }
        return found;
    }
};

}  // namespace

class TstMcpLocalBackend : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<McpLocalBackend> backend;
    QList<QJsonObject> out;  // MCP messages to the client

    void makeBackend() {
        out.clear();
        backend = std::make_unique<McpLocalBackend>();
        backend->setDefaultWorkingDirectory(QStringLiteral("/work/folder"));
        QObject::connect(backend.get(), &McpLocalBackend::messageOut, backend.get(), [this](const QByteArray& message) {
            QVERIFY(!message.contains('\n'));
            out << parse(message);
        });
        QVERIFY(backend->listen());
        backend->handleMessage(request(0, QStringLiteral("initialize"),
                                       QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                                   {QStringLiteral("capabilities"), QJsonObject{}},
                                                   {QStringLiteral("clientInfo"),
                                                    QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                                                {QStringLiteral("version"), QStringLiteral("1")}}}}));
        QCOMPARE(out.size(), 1);
        out.clear();
    }

    QByteArray bearer() const { return QByteArray("Bearer ") + backend->token().toLatin1(); }

    std::unique_ptr<Core> connectedCore() {
        auto core = std::make_unique<Core>();
        core->open(backend->url(), bearer());
        if (!QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("welcome")).isEmpty(); }, 5000)) {
            return nullptr;
        }
        return core;
    }

    QList<QJsonObject> responses() const {
        QList<QJsonObject> found;
        for (const QJsonObject& m : out) {
            if (m.contains(QStringLiteral("id"))) {
                found << m;
            }
        }
        return found;
    }

private Q_SLOTS:
    void init() { makeBackend(); }

    void tokenIsRandomAndLong() {
        QCOMPARE(backend->token().size(), McpLocalBackend::kTokenBytes * 2);
        McpLocalBackend other;
        QVERIFY(other.token() != backend->token());
        QVERIFY(backend->sessionId().startsWith(QLatin1String("mcp-")));
        QVERIFY(backend->url().host() == QLatin1String("127.0.0.1"));
    }

    void sameTokenComparesEveryByte_data() {
        QTest::addColumn<QByteArray>("a");
        QTest::addColumn<QByteArray>("b");
        QTest::addColumn<bool>("same");
        QTest::newRow("equal") << QByteArray("Bearer abc") << QByteArray("Bearer abc") << true;
        QTest::newRow("last byte") << QByteArray("Bearer abd") << QByteArray("Bearer abc") << false;
        QTest::newRow("prefix") << QByteArray("Bearer ab") << QByteArray("Bearer abc") << false;
        QTest::newRow("longer") << QByteArray("Bearer abcd") << QByteArray("Bearer abc") << false;
        QTest::newRow("empty") << QByteArray() << QByteArray("Bearer abc") << false;
    }
    void sameTokenComparesEveryByte() {
        QFETCH(QByteArray, a);
        QFETCH(QByteArray, b);
        QFETCH(bool, same);
        QCOMPARE(McpLocalBackend::sameToken(a, b), same);
    }

    void connectionWithoutTheTokenIsClosed_data() {
        QTest::addColumn<QByteArray>("authorization");
        QTest::newRow("none") << QByteArray();
        QTest::newRow("wrong") << QByteArray("Bearer 0000");
        QTest::newRow("token without Bearer") << QByteArray("x");
    }
    void connectionWithoutTheTokenIsClosed() {
        QFETCH(QByteArray, authorization);
        Core intruder;
        intruder.open(backend->url(), authorization.isEmpty() || authorization.startsWith("Bearer")
                                          ? authorization
                                          : backend->token().toLatin1());
        QVERIFY(QTest::qWaitFor([&] { return intruder.closed; }, 5000));
        QVERIFY(intruder.ofType(QStringLiteral("welcome")).isEmpty());
        QVERIFY(!backend->isCoreConnected());
        // The right core still gets in afterwards.
        QVERIFY(connectedCore());
    }

    void secondConnectionIsClosedAndTheFirstKept() {
        auto core = connectedCore();
        QVERIFY(core);
        Core second;
        second.open(backend->url(), bearer());
        QVERIFY(QTest::qWaitFor([&] { return second.closed; }, 5000));
        QVERIFY(second.ofType(QStringLiteral("welcome")).isEmpty());
        QVERIFY(!core->closed);
        QVERIFY(backend->isCoreConnected());
        backend->handleMessage(runCommand(1, QJsonObject{{QStringLiteral("command"), QStringLiteral("true")}}));
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("tool_call")).isEmpty(); }, 5000));
        QVERIFY(second.ofType(QStringLiteral("tool_call")).isEmpty());
    }

    void callBecomesToolCallAndResultBecomesCallToolResult() {
        auto core = connectedCore();
        QVERIFY(core);
        backend->handleMessage(
            runCommand(7,
                       QJsonObject{{QStringLiteral("command"), QStringLiteral("echo hi")},
                                   {QStringLiteral("timeout_s"), 5},
                                   {QStringLiteral("secrets"), QJsonArray{QStringLiteral("API_KEY")}}},
                       QJsonValue(QStringLiteral("tok"))));
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("tool_call")).isEmpty(); }, 5000));
        const QJsonObject call = core->ofType(QStringLiteral("tool_call")).constFirst();
        const QString callId = call.value(QStringLiteral("call_id")).toString();
        QVERIFY(callId.startsWith(QLatin1String("mcp-")));
        QCOMPARE(call.value(QStringLiteral("session_id")).toString(), backend->sessionId());
        QCOMPARE(call.value(QStringLiteral("tool")).toString(), QStringLiteral("desktop_exec"));
        const QJsonObject args = call.value(QStringLiteral("args")).toObject();
        QCOMPARE(args.value(QStringLiteral("command")).toString(), QStringLiteral("echo hi"));
        QCOMPARE(args.value(QStringLiteral("working_directory")).toString(), QStringLiteral("/work/folder"));
        QCOMPARE(args.value(QStringLiteral("timeout_s")).toDouble(), 5.0);
        QCOMPARE(args.value(QStringLiteral("secrets")).toArray(), QJsonArray{QStringLiteral("API_KEY")});

        // Output: progress that grows, the chunk as its message.
        for (int seq = 0; seq < 2; ++seq) {
            core->send(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_output")},
                                   {QStringLiteral("call_id"), callId},
                                   {QStringLiteral("stream"), QStringLiteral("stdout")},
                                   {QStringLiteral("seq"), seq},
                                   {QStringLiteral("data"), QStringLiteral("hi\n")}});
        }
        QVERIFY(QTest::qWaitFor([&] { return out.size() == 2; }, 5000));
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(out.at(i).value(QStringLiteral("method")).toString(), QStringLiteral("notifications/progress"));
            const QJsonObject params = out.at(i).value(QStringLiteral("params")).toObject();
            QCOMPARE(params.value(QStringLiteral("progressToken")).toString(), QStringLiteral("tok"));
            QCOMPARE(params.value(QStringLiteral("progress")).toDouble(), 3.0 * (i + 1));
            QCOMPARE(params.value(QStringLiteral("message")).toString(), QStringLiteral("hi\n"));
        }
        QVERIFY(responses().isEmpty());

        core->send(QJsonObject{{QStringLiteral("type"), QStringLiteral("network_event")},
                               {QStringLiteral("session_id"), backend->sessionId()},
                               {QStringLiteral("call_id"), callId},
                               {QStringLiteral("host"), QStringLiteral("evil.example")},
                               {QStringLiteral("port"), 443},
                               {QStringLiteral("decision"), QStringLiteral("denied")},
                               {QStringLiteral("rule"), QStringLiteral("not in the allowlist")}});
        core->send(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_result")},
                               {QStringLiteral("call_id"), callId},
                               {QStringLiteral("status"), QStringLiteral("ok")},
                               {QStringLiteral("exit_code"), 0},
                               {QStringLiteral("output"), QStringLiteral("hi\nhi\n")},
                               {QStringLiteral("truncated"), false},
                               {QStringLiteral("duration_ms"), 12}});
        QVERIFY(QTest::qWaitFor([&] { return responses().size() == 1; }, 5000));
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("ack")).isEmpty(); }, 5000));
        QCOMPARE(core->ofType(QStringLiteral("ack")).constFirst().value(QStringLiteral("call_id")).toString(), callId);

        const QJsonObject response = responses().constFirst();
        QCOMPARE(response.value(QStringLiteral("id")).toInt(), 7);
        const QJsonObject result = response.value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("isError")).toBool(), false);
        const QString resultText =
            result.value(QStringLiteral("content")).toArray().at(0).toObject().value(QStringLiteral("text")).toString();
        QVERIFY2(resultText.startsWith(QLatin1String("hi\nhi\n")), qPrintable(resultText));
        QVERIFY2(resultText.contains(QLatin1String("evil.example port 443 denied by rule not in the allowlist")),
                 qPrintable(resultText));
        const QJsonObject structured = result.value(QStringLiteral("structuredContent")).toObject();
        QCOMPARE(structured.value(QStringLiteral("output")).toString(), QStringLiteral("hi\nhi\n"));
        QCOMPARE(structured.value(QStringLiteral("exit_code")).toInt(), 0);
        QCOMPARE(structured.value(QStringLiteral("duration_ms")).toInt(), 12);
        QCOMPARE(structured.value(QStringLiteral("truncated")).toBool(), false);
        QCOMPARE(structured.value(QStringLiteral("changes_pending")).toBool(), false);
        QCOMPARE(backend->runningCalls(), 0);

        // The request id is free again: the same id runs a new call.
        backend->handleMessage(runCommand(7, QJsonObject{{QStringLiteral("command"), QStringLiteral("true")},
                                                         {QStringLiteral("session"), QStringLiteral("other")}}));
        QVERIFY(QTest::qWaitFor([&] { return core->ofType(QStringLiteral("tool_call")).size() == 2; }, 5000));
        const QJsonObject second = core->ofType(QStringLiteral("tool_call")).constLast();
        QCOMPARE(second.value(QStringLiteral("session_id")).toString(), QStringLiteral("other"));
        QVERIFY(second.value(QStringLiteral("call_id")).toString() != callId);
    }

    void errorResultIsAnErrorNamingTheCode() {
        auto core = connectedCore();
        QVERIFY(core);
        backend->handleMessage(
            runCommand(3, QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")},
                                      {QStringLiteral("working_directory"), QStringLiteral("/etc")}}));
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("tool_call")).isEmpty(); }, 5000));
        const QJsonObject call = core->ofType(QStringLiteral("tool_call")).constFirst();
        QCOMPARE(call.value(QStringLiteral("args")).toObject().value(QStringLiteral("working_directory")).toString(),
                 QStringLiteral("/etc"));
        core->send(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_result")},
                               {QStringLiteral("call_id"), call.value(QStringLiteral("call_id"))},
                               {QStringLiteral("status"), QStringLiteral("error")},
                               {QStringLiteral("exit_code"), QJsonValue(QJsonValue::Null)},
                               {QStringLiteral("output"), QString()},
                               {QStringLiteral("truncated"), false},
                               {QStringLiteral("duration_ms"), 0},
                               {QStringLiteral("error"),
                                QJsonObject{{QStringLiteral("code"), QStringLiteral("workspace_not_approved")},
                                            {QStringLiteral("message"), QStringLiteral("/etc is not approved")}}}});
        QVERIFY(QTest::qWaitFor([&] { return responses().size() == 1; }, 5000));
        const QJsonObject result = responses().constFirst().value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("isError")).toBool(), true);
        QCOMPARE(result.value(QStringLiteral("content")).toArray().at(0).toObject().value(QStringLiteral("text")),
                 QJsonValue(QStringLiteral("workspace_not_approved: /etc is not approved")));
    }

    void cancelBecomesCancelAndTheCallIsAnsweredNoMore() {
        auto core = connectedCore();
        QVERIFY(core);
        backend->handleMessage(runCommand(9, QJsonObject{{QStringLiteral("command"), QStringLiteral("sleep 30")}}));
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("tool_call")).isEmpty(); }, 5000));
        const QString callId =
            core->ofType(QStringLiteral("tool_call")).constFirst().value(QStringLiteral("call_id")).toString();
        backend->handleMessage(text(McpCodec::makeNotification(QStringLiteral("notifications/cancelled"),
                                                               QJsonObject{{QStringLiteral("requestId"), 9}})));
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("cancel")).isEmpty(); }, 5000));
        QCOMPARE(core->ofType(QStringLiteral("cancel")).constFirst().value(QStringLiteral("call_id")).toString(),
                 callId);
        QCOMPARE(backend->runningCalls(), 0);
        core->send(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_result")},
                               {QStringLiteral("call_id"), callId},
                               {QStringLiteral("status"), QStringLiteral("cancelled")},
                               {QStringLiteral("exit_code"), QJsonValue(QJsonValue::Null)},
                               {QStringLiteral("output"), QString()},
                               {QStringLiteral("truncated"), false},
                               {QStringLiteral("duration_ms"), 5}});
        // Acked (nothing is kept for a later run), never answered.
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("ack")).isEmpty(); }, 5000));
        QTest::qWait(50);
        QVERIFY(responses().isEmpty());
    }

    void callsBeforeTheCoreConnectsWaitForIt() {
        backend->handleMessage(runCommand(1, QJsonObject{{QStringLiteral("command"), QStringLiteral("a")}}));
        backend->handleMessage(runCommand(2, QJsonObject{{QStringLiteral("command"), QStringLiteral("b")}}));
        backend->handleMessage(text(McpCodec::makeNotification(QStringLiteral("notifications/cancelled"),
                                                               QJsonObject{{QStringLiteral("requestId"), 2}})));
        auto core = connectedCore();
        QVERIFY(core);
        QVERIFY(QTest::qWaitFor([&] { return !core->ofType(QStringLiteral("tool_call")).isEmpty(); }, 5000));
        QTest::qWait(50);
        const QList<QJsonObject> calls = core->ofType(QStringLiteral("tool_call"));
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.constFirst().value(QStringLiteral("args")).toObject().value(QStringLiteral("command")),
                 QJsonValue(QStringLiteral("a")));
        QVERIFY(core->ofType(QStringLiteral("cancel")).isEmpty());
    }

    void reviewToolsSayTheyAreNotAvailable_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QJsonObject>("arguments");
        QTest::newRow("list_changes") << QStringLiteral("list_changes") << QJsonObject{};
        QTest::newRow("apply_changes") << QStringLiteral("apply_changes") << QJsonObject{};
        QTest::newRow("discard_changes") << QStringLiteral("discard_changes") << QJsonObject{};
    }
    void reviewToolsSayTheyAreNotAvailable() {
        QFETCH(QString, tool);
        QFETCH(QJsonObject, arguments);
        backend->handleMessage(
            request(4, QStringLiteral("tools/call"),
                    QJsonObject{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}}));
        QCOMPARE(responses().size(), 1);
        const QJsonObject result = responses().constFirst().value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("isError")).toBool(), true);
        QVERIFY(result.value(QStringLiteral("content"))
                    .toArray()
                    .at(0)
                    .toObject()
                    .value(QStringLiteral("text"))
                    .toString()
                    .contains(QLatin1String("not available over MCP yet")));
        QCOMPARE(backend->runningCalls(), 0);
    }

    // A tool with a handler is the handler's: it gets the connection's session and answers when it likes; a call
    // cancelled before that is answered no more.
    void toolHandlerAnswersInTheConnectionsSession() {
        QStringList sessions;
        QList<McpLocalBackend::Answer> answers;
        backend->setToolHandler(McpTool::ListChanges, [&](const McpToolCall& call, const QString& session,
                                                          const McpLocalBackend::Answer& answer) {
            QCOMPARE(call.tool, McpTool::ListChanges);
            sessions << session;
            answers << answer;
        });
        const QJsonObject listChanges{{QStringLiteral("name"), QStringLiteral("list_changes")},
                                      {QStringLiteral("arguments"), QJsonObject{}}};
        backend->handleMessage(request(5, QStringLiteral("tools/call"), listChanges));
        backend->handleMessage(request(6, QStringLiteral("tools/call"), listChanges));
        QCOMPARE(sessions, (QStringList{backend->sessionId(), backend->sessionId()}));
        QVERIFY(responses().isEmpty());
        backend->handleMessage(text(McpCodec::makeNotification(QStringLiteral("notifications/cancelled"),
                                                               QJsonObject{{QStringLiteral("requestId"), 5}})));
        answers.at(0)(McpLocalBackend::toolResult(QStringLiteral("late"), false));
        answers.at(1)(McpLocalBackend::toolResult(QStringLiteral("none"), false,
                                                  QJsonObject{{QStringLiteral("changes"), QJsonArray{}}}));
        answers.at(1)(McpLocalBackend::toolResult(QStringLiteral("twice"), false));
        QCOMPARE(responses().size(), 1);
        const QJsonObject answered = responses().constFirst();
        QCOMPARE(answered.value(QStringLiteral("id")).toInt(), 6);
        const QJsonObject result = answered.value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("isError")).toBool(true), false);
        QCOMPARE(result.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("changes")),
                 QJsonValue(QJsonArray{}));
        // A tool without a handler still says it is not available.
        backend->handleMessage(request(7, QStringLiteral("tools/call"),
                                       QJsonObject{{QStringLiteral("name"), QStringLiteral("discard_changes")},
                                                   {QStringLiteral("arguments"), QJsonObject{}}}));
        QCOMPARE(responses().size(), 2);
        QVERIFY(responses().at(1).value(QStringLiteral("result")).toObject().value(QStringLiteral("isError")).toBool());
    }

    // open_port goes to the core's PortRequests (its approval rules); port_opened and an error naming no call
    // answer the requests in order, and a cancelled one's answer is not taken for the next one's.
    void openPortBecomesOpenPortAndItsAnswersAreTakenInOrder() {
        auto core = connectedCore();
        QVERIFY(core);
        const auto openPort = [this](int id, int port) {
            backend->handleMessage(
                request(id, QStringLiteral("tools/call"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("open_port")},
                                    {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("port"), port}}}}));
        };
        openPort(1, 8000);
        openPort(2, 8001);
        openPort(3, 8002);
        QVERIFY(QTest::qWaitFor([&] { return core->ofType(QStringLiteral("open_port")).size() == 3; }, 5000));
        const QJsonObject first = core->ofType(QStringLiteral("open_port")).constFirst();
        QCOMPARE(first.value(QStringLiteral("session_id")).toString(), backend->sessionId());
        QCOMPARE(first.value(QStringLiteral("port")).toInt(), 8000);
        backend->handleMessage(text(McpCodec::makeNotification(QStringLiteral("notifications/cancelled"),
                                                               QJsonObject{{QStringLiteral("requestId"), 2}})));

        core->send(QJsonObject{{QStringLiteral("type"), QStringLiteral("port_opened")},
                               {QStringLiteral("session_id"), backend->sessionId()},
                               {QStringLiteral("port"), 8000},
                               {QStringLiteral("host_port"), 41000},
                               {QStringLiteral("url"), QStringLiteral("http://127.0.0.1:41000/")}});
        const QJsonObject refusal{{QStringLiteral("type"), QStringLiteral("error")},
                                  {QStringLiteral("code"), QStringLiteral("approval_denied")},
                                  {QStringLiteral("message"), QStringLiteral("not approved")}};
        core->send(refusal);  // the cancelled request's answer
        core->send(refusal);  // request 3's
        QVERIFY(QTest::qWaitFor([&] { return responses().size() == 2; }, 5000));
        QTest::qWait(50);
        QCOMPARE(responses().size(), 2);
        const QJsonObject opened = responses().at(0);
        QCOMPARE(opened.value(QStringLiteral("id")).toInt(), 1);
        const QJsonObject openedResult = opened.value(QStringLiteral("result")).toObject();
        QCOMPARE(openedResult.value(QStringLiteral("isError")).toBool(), false);
        QCOMPARE(openedResult.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("host_port")),
                 QJsonValue(41000));
        const QJsonObject denied = responses().at(1);
        QCOMPARE(denied.value(QStringLiteral("id")).toInt(), 3);
        QCOMPARE(denied.value(QStringLiteral("result")).toObject().value(QStringLiteral("isError")).toBool(), true);
        QVERIFY(denied.value(QStringLiteral("result"))
                    .toObject()
                    .value(QStringLiteral("content"))
                    .toArray()
                    .at(0)
                    .toObject()
                    .value(QStringLiteral("text"))
                    .toString()
                    .startsWith(QLatin1String("approval_denied: ")));
    }

    // The same answer the codec gives a message over its limit, which the transport never buffers whole.
    void oversizedMessageIsRefusedWithANullId() {
        backend->refuseOversizedMessage();
        QCOMPARE(out.size(), 1);
        const auto codec = std::get<JsonRpcError>(McpCodec::parse(QByteArray(McpCodec::kMaxMessageBytes + 1, ' ')));
        QCOMPARE(out.constFirst(), McpCodec::makeError(codec));
        QCOMPARE(out.constFirst().value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toInt(),
                 -32600);
        QVERIFY(out.constFirst().value(QStringLiteral("id")).isNull());
    }
};

QTEST_GUILESS_MAIN(TstMcpLocalBackend)
#include "tst_mcplocalbackend.moc"
