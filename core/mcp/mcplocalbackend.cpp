#include "mcp/mcplocalbackend.h"

#include "mcp/mcpcodec.h"
#include "mcp/mcptools.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkRequest>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QWebSocket>

#include <algorithm>
#include <utility>

namespace zeus {

namespace {

QString randomHex(int bytes) {
    QByteArray data(bytes, Qt::Uninitialized);
    QRandomGenerator* random = QRandomGenerator::system();
    for (char& byte : data) {
        byte = static_cast<char>(random->bounded(256));
    }
    return QString::fromLatin1(data.toHex());
}

QString str(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toString();
}

}  // namespace

QJsonObject McpLocalBackend::toolResult(const QString& text, bool isError, const QJsonObject& structured) {
    QJsonObject result{
        {QStringLiteral("content"),
         QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}}}},
        {QStringLiteral("isError"), isError}};
    if (!structured.isEmpty()) {
        result.insert(QStringLiteral("structuredContent"), structured);
    }
    return result;
}

namespace {

QJsonObject textResult(const QString& text, bool isError, const QJsonObject& structured = {}) {
    return McpLocalBackend::toolResult(text, isError, structured);
}

}  // namespace

McpLocalBackend::McpLocalBackend(QObject* parent)
    : QObject(parent),
      m_server(QStringLiteral(ZEUS_APP_NAME " MCP"), QWebSocketServer::NonSecureMode),
      m_token(randomHex(kTokenBytes)),
      m_sessionId(QStringLiteral("mcp-") + randomHex(8)) {
    connect(&m_server, &QWebSocketServer::newConnection, this, &McpLocalBackend::onNewConnection);
    // The TCP connections are accepted here so that Nagle's algorithm can be turned off before the handshake: an
    // ack followed at once by the next tool_call is two small writes, and the second would wait for the core's
    // delayed ACK (40 ms on Linux) on every call.
    connect(&m_listener, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket* socket = m_listener.nextPendingConnection()) {
            socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
            m_server.handleConnection(socket);
        }
    });
}

McpLocalBackend::~McpLocalBackend() = default;

bool McpLocalBackend::listen() {
    return m_listener.listen(QHostAddress::LocalHost, 0);
}

QUrl McpLocalBackend::url() const {
    return QUrl(QStringLiteral("ws://127.0.0.1:%1/v1/desktop").arg(m_listener.serverPort()));
}

bool McpLocalBackend::isCoreConnected() const {
    return m_core && m_core->state() == QAbstractSocket::ConnectedState;
}

bool McpLocalBackend::sameToken(const QByteArray& a, const QByteArray& b) {
    // Every byte is compared whatever the first difference, so the time says nothing of where it is.
    unsigned char difference = a.size() == b.size() ? 0 : 1;
    const qsizetype n = qMin(a.size(), b.size());
    for (qsizetype i = 0; i < n; ++i) {
        difference |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    }
    return difference == 0;
}

void McpLocalBackend::onNewConnection() {
    while (QWebSocket* socket = m_server.nextPendingConnection()) {
        connect(socket, &QWebSocket::disconnected, socket, &QObject::deleteLater);
        const QByteArray expected = QByteArray("Bearer ") + m_token.toLatin1();
        if (!sameToken(socket->request().rawHeader("Authorization"), expected)) {
            qCWarning(lcBackend) << "MCP local backend: refused a connection without the token";
            socket->close(QWebSocketProtocol::CloseCode(kCloseRefused), QStringLiteral("unauthorized"));
            continue;
        }
        if (isCoreConnected()) {
            qCWarning(lcBackend) << "MCP local backend: refused a second connection";
            socket->close(QWebSocketProtocol::CloseCode(kCloseRefused), QStringLiteral("already connected"));
            continue;
        }
        m_core = socket;
        connect(socket, &QWebSocket::textMessageReceived, this, &McpLocalBackend::onCoreMessage);
        sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("welcome")},
                               {QStringLiteral("protocol"), 1},
                               {QStringLiteral("server"), QStringLiteral(ZEUS_APP_NAME " MCP")}});
        for (const QJsonObject& frame : std::exchange(m_waitingFrames, {})) {
            sendToCore(frame);
        }
        Q_EMIT coreConnected();
    }
}

void McpLocalBackend::handleMessage(const QByteArray& text) {
    McpServerState::Outcome outcome = m_state.handle(text);
    if (!outcome.reply.isEmpty()) {
        emitMessage(outcome.reply);
    }
    if (outcome.cancel) {
        for (PortRequest& request : m_portRequests) {
            if (!request.cancelled && request.call.requestId == outcome.cancel->requestId) {
                // Answered no more, but kept in line: the core's answer to it must not be taken for the next one's.
                request.cancelled = true;
                m_state.callFinished(request.call.requestId);
                break;
            }
        }
        for (auto it = m_handledCalls.begin(); it != m_handledCalls.end(); ++it) {
            if (it->requestId == outcome.cancel->requestId) {
                m_state.callFinished(it->requestId);
                m_handledCalls.erase(it);  // its handler's answer is dropped when it comes
                break;
            }
        }
        for (auto it = m_calls.begin(); it != m_calls.end(); ++it) {
            if (it->call.requestId == outcome.cancel->requestId) {
                cancelInCore(it.key());
                m_state.callFinished(it->call.requestId);
                m_calls.erase(it);  // answered no more (MCP); its result is still acked when it comes
                break;
            }
        }
    }
    if (outcome.call) {
        startCall(*outcome.call);
    }
}

void McpLocalBackend::refuseOversizedMessage() {
    emitMessage(McpCodec::makeError(JsonRpcCode::kInvalidRequest,
                                    QStringLiteral("message is larger than %1 bytes").arg(McpCodec::kMaxMessageBytes),
                                    QJsonValue(QJsonValue::Null)));
}

void McpLocalBackend::cancelAll() {
    for (PortRequest& request : m_portRequests) {
        if (!std::exchange(request.cancelled, true)) {
            m_state.callFinished(request.call.requestId);
        }
    }
    for (auto it = m_calls.cbegin(); it != m_calls.cend(); ++it) {
        cancelInCore(it.key());
        m_state.callFinished(it->call.requestId);
    }
    m_calls.clear();
    for (const McpToolCall& call : std::as_const(m_handledCalls)) {
        m_state.callFinished(call.requestId);
    }
    m_handledCalls.clear();
}

QJsonObject McpLocalBackend::unavailableResult(const McpToolCall& call) {
    return textResult(QStringLiteral("%1 is not available over MCP yet: use the tray app or zeus-desktop --changes, "
                                     "--apply and --discard (docs/mcp.md)")
                          .arg(McpTools::name(call.tool)),
                      true);
}

void McpLocalBackend::startCall(const McpToolCall& call) {
    if (call.tool == McpTool::OpenPort) {
        // PortRequests answers in order with port_opened or an error that names no call (docs/protocol.md).
        m_portRequests.append(PortRequest{call, false});
        sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("open_port")},
                               {QStringLiteral("session_id"), m_sessionId},
                               {QStringLiteral("port"), call.port}});
        return;
    }
    if (const auto handler = m_toolHandlers.find(call.tool); handler != m_toolHandlers.end() && handler->second) {
        const quint64 serial = ++m_nextHandled;
        m_handledCalls.insert(serial, call);
        const QPointer<McpLocalBackend> self(this);
        handler->second(call, call.session.isEmpty() ? m_sessionId : call.session,
                        [self, serial](const QJsonObject& result) {
                            if (!self) {
                                return;
                            }
                            const auto it = self->m_handledCalls.find(serial);
                            if (it == self->m_handledCalls.end()) {
                                return;  // cancelled, or answered already
                            }
                            const QJsonValue requestId = it->requestId;
                            self->m_handledCalls.erase(it);
                            self->emitMessage(McpCodec::makeResult(requestId, result));
                            self->m_state.callFinished(requestId);
                        });
        return;
    }
    if (call.tool != McpTool::RunCommand) {
        emitMessage(McpCodec::makeResult(call.requestId, unavailableResult(call)));
        m_state.callFinished(call.requestId);
        return;
    }
    const QString callId = QStringLiteral("mcp-%1").arg(++m_nextCall);
    QJsonObject args{{QStringLiteral("command"), call.command},
                     {QStringLiteral("working_directory"),
                      call.workingDirectory.isEmpty() ? m_defaultWorkingDirectory : call.workingDirectory}};
    if (call.timeoutMs > 0) {
        args.insert(QStringLiteral("timeout_s"), double(call.timeoutMs) / 1000.0);
    }
    if (!call.secrets.isEmpty()) {
        args.insert(QStringLiteral("secrets"), QJsonArray::fromStringList(call.secrets));
    }
    m_calls.insert(callId, Call{call, 0, {}});
    sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_call")},
                           {QStringLiteral("call_id"), callId},
                           {QStringLiteral("session_id"), call.session.isEmpty() ? m_sessionId : call.session},
                           {QStringLiteral("tool"), QStringLiteral("desktop_exec")},
                           {QStringLiteral("args"), args}});
}

void McpLocalBackend::onCoreMessage(const QString& text) {
    const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
    const QString type = str(message, "type");
    if (type == QLatin1String("tool_output")) {
        onToolOutput(message);
    } else if (type == QLatin1String("tool_result")) {
        onToolResult(message);
    } else if (type == QLatin1String("network_event")) {
        onNetworkEvent(message);
    } else if (type == QLatin1String("port_opened")) {
        onPortOpened(message);
    } else if (type == QLatin1String("error")) {
        onCoreError(message);
    } else if (type == QLatin1String("hello")) {
        // Results a dropped connection still owed: whoever asked is answered when they come again.
        const QJsonArray pending = message.value(QStringLiteral("pending")).toArray();
        for (const auto& callId : pending) {
            if (!m_calls.contains(callId.toString())) {
                sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("ack")},
                                       {QStringLiteral("call_id"), callId.toString()}});
            }
        }
    }
}

void McpLocalBackend::onToolOutput(const QJsonObject& message) {
    const auto it = m_calls.find(str(message, "call_id"));
    if (it == m_calls.end()) {
        return;
    }
    const QString data = str(message, "data");
    it->outputBytes += data.toUtf8().size();
    // Progress grows with the output so far; the chunk itself is the message.
    if (const auto notification = McpTools::progressNotification(it->call, double(it->outputBytes), data)) {
        emitMessage(*notification);
    }
}

void McpLocalBackend::onNetworkEvent(const QJsonObject& message) {
    const auto it = m_calls.find(str(message, "call_id"));
    if (it == m_calls.end() || str(message, "decision") != QLatin1String("denied")) {
        return;
    }
    constexpr int kMaxDenialLines = 32;
    if (it->networkDenials.size() < kMaxDenialLines) {
        it->networkDenials << QStringLiteral("network: connection to %1 port %2 denied by rule %3")
                                  .arg(str(message, "host"))
                                  .arg(message.value(QStringLiteral("port")).toInt())
                                  .arg(str(message, "rule"));
    }
}

void McpLocalBackend::onToolResult(const QJsonObject& message) {
    const QString callId = str(message, "call_id");
    // Acked at once: the MCP client holds the answer from here on, so nothing is journaled for a later run.
    sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("ack")}, {QStringLiteral("call_id"), callId}});
    const auto it = m_calls.constFind(callId);
    if (it == m_calls.cend()) {
        return;  // cancelled: answered no more
    }
    const QString status = str(message, "status");
    QString text = str(message, "output");
    if (status == QLatin1String("error")) {
        const QJsonObject error = message.value(QStringLiteral("error")).toObject();
        const QString line = QStringLiteral("%1: %2").arg(str(error, "code"), str(error, "message"));
        text = text.isEmpty() ? line : text + QLatin1Char('\n') + line;
    } else if (status != QLatin1String("ok")) {
        text += (text.isEmpty() || text.endsWith(QLatin1Char('\n')) ? QString() : QStringLiteral("\n"))
                + QStringLiteral("[%1]").arg(status);
    }
    if (!it->networkDenials.isEmpty()) {
        text += (text.isEmpty() || text.endsWith(QLatin1Char('\n')) ? QString() : QStringLiteral("\n"))
                + it->networkDenials.join(QLatin1Char('\n'));
    }
    const QJsonObject structured{{QStringLiteral("output"), str(message, "output")},
                                 {QStringLiteral("exit_code"), message.value(QStringLiteral("exit_code"))},
                                 {QStringLiteral("duration_ms"), message.value(QStringLiteral("duration_ms"))},
                                 {QStringLiteral("truncated"), message.value(QStringLiteral("truncated")).toBool()},
                                 {QStringLiteral("changes_pending"), false}};
    answer(callId, textResult(text, status != QLatin1String("ok"), structured));
}

void McpLocalBackend::onPortOpened(const QJsonObject& message) {
    const int port = message.value(QStringLiteral("port")).toInt();
    const auto it = std::find_if(m_portRequests.begin(), m_portRequests.end(),
                                 [port](const PortRequest& request) { return request.call.port == port; });
    if (it == m_portRequests.end()) {
        return;
    }
    const PortRequest request = *it;
    m_portRequests.erase(it);
    if (request.cancelled) {
        return;
    }
    const McpToolCall& call = request.call;
    const int hostPort = message.value(QStringLiteral("host_port")).toInt();
    const QString url = str(message, "url");
    const QJsonObject structured{
        {QStringLiteral("port"), port}, {QStringLiteral("host_port"), hostPort}, {QStringLiteral("url"), url}};
    emitMessage(McpCodec::makeResult(
        call.requestId,
        textResult(QStringLiteral("port %1 of the sandbox is published on this computer at %2 (127.0.0.1:%3 only)")
                       .arg(port)
                       .arg(url)
                       .arg(hostPort),
                   false, structured)));
    m_state.callFinished(call.requestId);
}

void McpLocalBackend::onCoreError(const QJsonObject& message) {
    const QString callId = str(message, "call_id");
    if (callId.isEmpty() && !m_portRequests.isEmpty()) {
        // The only request that is answered with an error naming no call: the oldest open_port.
        const PortRequest request = m_portRequests.takeFirst();
        if (request.cancelled) {
            return;
        }
        const McpToolCall& call = request.call;
        emitMessage(McpCodec::makeResult(
            call.requestId,
            textResult(QStringLiteral("%1: %2").arg(str(message, "code"), str(message, "message")), true)));
        m_state.callFinished(call.requestId);
        return;
    }
    if (callId.isEmpty() || !m_calls.contains(callId)) {
        qCWarning(lcBackend).noquote() << "MCP local backend: the core said" << str(message, "code")
                                       << str(message, "message");
        return;
    }
    answer(callId, textResult(QStringLiteral("%1: %2").arg(str(message, "code"), str(message, "message")), true));
}

void McpLocalBackend::answer(const QString& callId, const QJsonObject& result) {
    const auto it = m_calls.find(callId);
    if (it == m_calls.end()) {
        return;
    }
    const QJsonValue requestId = it->call.requestId;
    m_calls.erase(it);
    emitMessage(McpCodec::makeResult(requestId, result));
    m_state.callFinished(requestId);
}

void McpLocalBackend::cancelInCore(const QString& callId) {
    // A call the core has not seen yet never reaches it.
    const auto waiting = std::find_if(m_waitingFrames.begin(), m_waitingFrames.end(),
                                      [&callId](const QJsonObject& frame) { return str(frame, "call_id") == callId; });
    if (waiting != m_waitingFrames.end()) {
        m_waitingFrames.erase(waiting);
        return;
    }
    sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("cancel")}, {QStringLiteral("call_id"), callId}});
}

void McpLocalBackend::sendToCore(const QJsonObject& message) {
    if (!isCoreConnected()) {
        const QString type = str(message, "type");
        if (type == QLatin1String("tool_call") || type == QLatin1String("open_port")) {
            m_waitingFrames.append(message);  // the core is still starting: the call goes out when it connects
        }
        return;
    }
    m_core->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
}

void McpLocalBackend::emitMessage(const QJsonObject& message) {
    Q_EMIT messageOut(McpCodec::toBytes(message));
}

}  // namespace zeus
