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

QString McpLocalBackend::randomHex(int bytes) {
    QByteArray data(bytes, Qt::Uninitialized);
    QRandomGenerator* random = QRandomGenerator::system();
    for (char& byte : data) {
        byte = static_cast<char>(random->bounded(256));
    }
    return QString::fromLatin1(data.toHex());
}

namespace {

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

McpLocalBackend::McpLocalBackend(QObject* parent)
    : QObject(parent),
      m_server(QStringLiteral(ZEUS_APP_NAME " MCP"), QWebSocketServer::NonSecureMode),
      m_token(randomHex(kTokenBytes)),
      m_default(new McpSession(*this, this)) {
    connect(m_default, &McpSession::messageOut, this, &McpLocalBackend::messageOut);
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

McpLocalBackend::~McpLocalBackend() {
    // The default session cancels through this object: it goes first, while the members it uses still exist.
    delete std::exchange(m_default, nullptr);
}

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

McpSession* McpLocalBackend::createSession(QObject* parent) {
    return new McpSession(*this, parent);
}

void McpLocalBackend::endSession(const QString& sessionId) {
    if (isCoreConnected()) {
        sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("session_end")},
                               {QStringLiteral("session_id"), coreSessionId(sessionId)}});
    }
}

QString McpLocalBackend::coreSessionId(const QString& sessionId) const {
    if (m_idPrefix.isEmpty() || sessionId.startsWith(m_idPrefix)) {
        return sessionId;
    }
    // Our own "mcp-…" ids are not written "…mcp-mcp-…" where the prefix ends with "mcp-" as well.
    const QString own = QStringLiteral("mcp-");
    if (m_idPrefix.endsWith(own) && sessionId.startsWith(own)) {
        return m_idPrefix + sessionId.mid(own.size());
    }
    return m_idPrefix + sessionId;
}

void McpLocalBackend::setSessionWorkingDirectory(McpSession* session, const QString& path) {
    if (!m_sessionWorkingDirectories.contains(session)) {
        connect(session, &QObject::destroyed, this, [this, session] { m_sessionWorkingDirectories.remove(session); });
    }
    m_sessionWorkingDirectories.insert(session, path);
}

QString McpLocalBackend::nextCallId() {
    const QString own = QStringLiteral("mcp-");
    return (m_idPrefix.isEmpty() ? own : coreSessionId(own)) + QString::number(++m_nextCall);
}

void McpLocalBackend::sendCall(McpSession* session, const QString& callId, const QJsonObject& frame) {
    m_callOwners.insert(callId, session);
    QJsonObject call = frame;
    call.insert(QStringLiteral("session_id"), coreSessionId(str(frame, "session_id")));
    QJsonObject args = frame.value(QStringLiteral("args")).toObject();
    const auto own = m_sessionWorkingDirectories.constFind(session);
    if (own != m_sessionWorkingDirectories.cend() && str(args, "working_directory").isEmpty()) {
        args.insert(QStringLiteral("working_directory"), *own);
        call.insert(QStringLiteral("args"), args);
    }
    sendToCore(call);
}

McpSession* McpLocalBackend::ownerOf(const QString& callId) const {
    return callId.isEmpty() ? nullptr : m_callOwners.value(callId).data();
}

McpLocalBackend::ToolHandler McpLocalBackend::toolHandler(McpTool tool) const {
    const auto handler = m_toolHandlers.find(tool);
    if (handler == m_toolHandlers.end()) {
        return {};
    }
    if (m_idPrefix.isEmpty()) {
        return handler->second;
    }
    // The handler speaks to the core's parts (the review copies): it gets the session as the core knows it.
    return [this, inner = handler->second](const McpToolCall& call, const QString& session, const Answer& answer) {
        inner(call, coreSessionId(session), answer);
    };
}

void McpLocalBackend::requestPort(McpSession* session, const McpToolCall& call) {
    if (const ToolHandler handler = toolHandler(McpTool::OpenPort)) {
        // The transport decides open_port itself (the tray app's bridge): the core's open_port is not asked.
        const QPointer<McpSession> owner(session);
        handler(call, call.session.isEmpty() ? session->sessionId() : call.session,
                [owner, requestId = call.requestId](const QJsonObject& result) {
                    if (owner) {
                        owner->finish(requestId, result);
                    }
                });
        return;
    }
    // PortRequests answers in order with port_opened or an error that names no call (docs/protocol.md).
    m_portRequests.append(PortRequest{session, call, false});
    sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("open_port")},
                           {QStringLiteral("session_id"), coreSessionId(session->sessionId())},
                           {QStringLiteral("port"), call.port}});
}

bool McpLocalBackend::cancelPortRequest(const McpSession* session, const QJsonValue& requestId) {
    for (PortRequest& request : m_portRequests) {
        if (!request.cancelled && request.session == session && request.call.requestId == requestId) {
            // Answered no more, but kept in line: the core's answer to it must not be taken for the next one's.
            request.cancelled = true;
            return true;
        }
    }
    return false;
}

QList<QJsonValue> McpLocalBackend::cancelPortRequests(const McpSession* session) {
    QList<QJsonValue> cancelled;
    for (PortRequest& request : m_portRequests) {
        if (request.session == session && !std::exchange(request.cancelled, true)) {
            cancelled << request.call.requestId;
        }
    }
    return cancelled;
}

void McpLocalBackend::onCoreMessage(const QString& text) {
    const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
    const QString type = str(message, "type");
    if (type == QLatin1String("tool_result")) {
        // Acked at once: the MCP client holds the answer from here on, so nothing is journaled for a later run.
        const QString callId = str(message, "call_id");
        sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("ack")}, {QStringLiteral("call_id"), callId}});
        if (McpSession* session = ownerOf(callId)) {
            session->onToolResult(message);
        }
        m_callOwners.remove(callId);
    } else if (type == QLatin1String("tool_output")) {
        if (McpSession* session = ownerOf(str(message, "call_id"))) {
            session->onToolOutput(message);
        }
    } else if (type == QLatin1String("network_event")) {
        if (McpSession* session = ownerOf(str(message, "call_id"))) {
            session->onNetworkEvent(message);
        }
    } else if (type == QLatin1String("port_opened")) {
        onPortOpened(message);
    } else if (type == QLatin1String("error")) {
        onCoreError(message);
    } else if (type == QLatin1String("hello")) {
        // Results a dropped connection still owed: whoever asked is answered when they come again.
        const QJsonArray pending = message.value(QStringLiteral("pending")).toArray();
        for (const auto& callId : pending) {
            if (!m_callOwners.contains(callId.toString())) {
                sendToCore(QJsonObject{{QStringLiteral("type"), QStringLiteral("ack")},
                                       {QStringLiteral("call_id"), callId.toString()}});
            }
        }
    }
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
    if (request.cancelled || !request.session) {
        return;
    }
    const McpToolCall& call = request.call;
    const int hostPort = message.value(QStringLiteral("host_port")).toInt();
    const QString url = str(message, "url");
    const QJsonObject structured{
        {QStringLiteral("port"), port}, {QStringLiteral("host_port"), hostPort}, {QStringLiteral("url"), url}};
    request.session->finish(
        call.requestId,
        toolResult(QStringLiteral("port %1 of the sandbox is published on this computer at %2 (127.0.0.1:%3 only)")
                       .arg(port)
                       .arg(url)
                       .arg(hostPort),
                   false, structured));
}

void McpLocalBackend::onCoreError(const QJsonObject& message) {
    const QString callId = str(message, "call_id");
    if (callId.isEmpty() && !m_portRequests.isEmpty()) {
        // The only request that is answered with an error naming no call: the oldest open_port.
        const PortRequest request = m_portRequests.takeFirst();
        if (request.cancelled || !request.session) {
            return;
        }
        request.session->finish(
            request.call.requestId,
            toolResult(QStringLiteral("%1: %2").arg(str(message, "code"), str(message, "message")), true));
        return;
    }
    McpSession* session = ownerOf(callId);
    if (!session) {
        qCWarning(lcBackend).noquote() << "MCP local backend: the core said" << str(message, "code")
                                       << str(message, "message");
        return;
    }
    session->onCallError(message);
}

void McpLocalBackend::cancelCall(const QString& callId) {
    m_callOwners.remove(callId);
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

}  // namespace zeus
