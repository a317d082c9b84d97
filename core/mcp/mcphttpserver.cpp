#include "mcp/mcphttpserver.h"

#include "mcp/mcpcodec.h"
#include "mcp/mcplocalbackend.h"
#include "mcp/mcpserverstate.h"
#include "mcp/mcpsession.h"
#include "support/logging.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTimer>

#include <limits>
#include <utility>

namespace zeus {

namespace {

constexpr qint64 kReadChunk = 64 * 1024;
constexpr int kNoSession = -32001;  // what the official SDK answers for an unknown session

using Headers = QList<QPair<QByteArray, QByteArray>>;

QByteArray reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 202:
            return "Accepted";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 406:
            return "Not Acceptable";
        case 411:
            return "Length Required";
        case 413:
            return "Content Too Large";
        case 415:
            return "Unsupported Media Type";
        case 431:
            return "Request Header Fields Too Large";
        case 501:
            return "Not Implemented";
        case 503:
            return "Service Unavailable";
        case 505:
            return "HTTP Version Not Supported";
        default:
            return "Error";
    }
}

// The body of an HTTP-level refusal: a JSON-RPC error with a null id, as the official SDK sends.
QByteArray errorBody(int code, const QString& message) {
    return McpCodec::toBytes(McpCodec::makeError(code, message, QJsonValue(QJsonValue::Null)));
}

bool accepts(const QByteArray& accept, const char* type) {
    return accept.toLower().contains(type);
}

// Whether the POST's tools/call may be followed by messages before its result: progress notifications (it asked
// for them) or a question to the client's user (elicitation/create, when the client declared it). Only then is
// the answer an event stream.
bool streamsBeforeResult(const McpMessage& message, const McpSession& session) {
    return message.method == QLatin1String("tools/call")
           && (message.params.value(QStringLiteral("_meta")).toObject().contains(QStringLiteral("progressToken"))
               || session.state().clientSupportsElicitation());
}

}  // namespace

struct McpHttpServer::Connection {
    QTcpSocket* socket = nullptr;
    McpHttpRequestParser parser;
    QTimer* idle = nullptr;  // a child of the socket
    QPointer<McpSession> session;
    QJsonValue awaiting = QJsonValue(QJsonValue::Undefined);  // the request id being answered
    bool sse = false;
    bool closing = false;
};

McpHttpServer::McpHttpServer(McpLocalBackend& backend, const QByteArray& token, QObject* parent)
    : QObject(parent), m_backend(backend), m_expectedAuthorization(QByteArray("Bearer ") + token) {
    m_listener.setMaxPendingConnections(kMaxConnections);
    connect(&m_listener, &QTcpServer::newConnection, this, &McpHttpServer::onNewConnection);
}

McpHttpServer::~McpHttpServer() {
    closeAll();
}

bool McpHttpServer::listen(quint16 port) {
    return m_listener.listen(QHostAddress::LocalHost, port);
}

void McpHttpServer::closeAll() {
    const QList<QByteArray> ids = m_sessions.keys();
    for (const QByteArray& id : ids) {
        endSession(id);
    }
    const auto connections = m_connections;
    for (const auto& connection : connections) {
        connection->socket->abort();
    }
}

bool McpHttpServer::originAllowed(const QByteArray& origin) {
    if (origin.isEmpty()) {
        return true;  // not a browser: a browser always sends Origin on a cross-site POST
    }
    static const QRegularExpression kLocal(QStringLiteral("^https?://(127\\.0\\.0\\.1|localhost)(:[0-9]{1,5})?$"),
                                           QRegularExpression::CaseInsensitiveOption);
    return kLocal.match(QString::fromLatin1(origin)).hasMatch();
}

bool McpHttpServer::hostAllowed(const QByteArray& host, quint16 port) {
    const QByteArray lower = host.toLower();
    const QByteArray suffix = ':' + QByteArray::number(port);
    return lower == "127.0.0.1" + suffix || lower == "localhost" + suffix;
}

McpHttpServer::Connection* McpHttpServer::connectionOf(QTcpSocket* socket) {
    const auto it = m_connections.constFind(socket);
    return it == m_connections.cend() ? nullptr : it->get();
}

void McpHttpServer::onNewConnection() {
    while (QTcpSocket* socket = m_listener.nextPendingConnection()) {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        if (m_connections.size() >= kMaxConnections) {
            qCWarning(lcBackend) << "MCP HTTP: refused a connection over the limit of" << kMaxConnections;
            const QByteArray body = errorBody(-32000, QStringLiteral("too many connections"));
            socket->write("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: "
                          + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
            socket->disconnectFromHost();
            continue;
        }
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        // Qt stops reading from the kernel past this: a busy connection's next bytes wait there, not in memory.
        socket->setReadBufferSize(kReadChunk);
        auto connection = std::make_shared<Connection>();
        connection->socket = socket;
        connection->idle = new QTimer(socket);
        connection->idle->setSingleShot(true);
        connection->idle->setInterval(kIdleTimeoutMs);
        connect(connection->idle, &QTimer::timeout, socket, &QTcpSocket::abort);
        connection->idle->start();
        m_connections.insert(socket, connection);
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] { m_connections.remove(socket); });
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
        if (socket->bytesAvailable() > 0) {
            onReadyRead(socket);
        }
    }
}

void McpHttpServer::onReadyRead(QTcpSocket* socket) {
    // A shared_ptr copy: serving may drop the connection from the table.
    const std::shared_ptr<Connection> connection = m_connections.value(socket);
    if (!connection) {
        return;
    }
    McpHttpRequestParser::Result result = connection->parser.next();
    for (;;) {
        if (connection->closing || !connection->awaiting.isUndefined()) {
            return;  // one request at a time: the next waits until this one is answered
        }
        if (result.status == McpHttpRequestParser::Status::Error) {
            respondError(*connection, result.httpStatus, result.message, true);
            return;
        }
        if (result.status == McpHttpRequestParser::Status::Complete) {
            connection->idle->stop();
            serve(*connection, connection->parser.takeRequest());
            result = connection->parser.next();
            continue;
        }
        if (socket->bytesAvailable() <= 0) {
            return;
        }
        result = connection->parser.feed(socket->read(kReadChunk));
    }
}

void McpHttpServer::serve(Connection& connection, const McpHttpRequest& request) {
    // Who may ask comes first: the Host and Origin a DNS-rebinding page would send, then the token.
    if (!hostAllowed(request.header("host"), port())) {
        respondError(connection, 403, QStringLiteral("Host must be 127.0.0.1:%1 or localhost:%1").arg(port()));
        return;
    }
    if (!originAllowed(request.header("origin"))) {
        respondError(connection, 403, QStringLiteral("Origin not allowed"));
        return;
    }
    if (!McpLocalBackend::sameToken(request.header("authorization"), m_expectedAuthorization)) {
        respond(connection, 401, "application/json", errorBody(-32000, QStringLiteral("Unauthorized")),
                {{"WWW-Authenticate", "Bearer"}});
        return;
    }
    if (request.path() != "/mcp") {
        respondError(connection, 404, QStringLiteral("Not found: the endpoint is /mcp"));
        return;
    }
    if (request.method == "POST") {
        post(connection, request);
    } else if (request.method == "DELETE") {
        remove(connection, request);
    } else {
        // No stream for server-initiated messages: the server sends none outside a call (MCP allows 405).
        respond(connection, 405, "application/json", errorBody(-32000, QStringLiteral("Method not allowed")),
                {{"Allow", "POST, DELETE"}});
    }
}

void McpHttpServer::post(Connection& connection, const McpHttpRequest& request) {
    const QByteArray accept = request.header("accept");
    if (!accept.isEmpty() && !accepts(accept, "application/json") && !accepts(accept, "*/*")) {
        respondError(connection, 406, QStringLiteral("Not Acceptable: the client must accept application/json"));
        return;
    }
    if (request.header("content-type").split(';').constFirst().trimmed().toLower() != "application/json") {
        respondError(connection, 415, QStringLiteral("Unsupported Media Type: Content-Type must be application/json"));
        return;
    }
    const McpParsed parsed = McpCodec::parse(request.body);
    if (const auto* error = std::get_if<JsonRpcError>(&parsed)) {
        respond(connection, 400, "application/json", McpCodec::toBytes(McpCodec::makeError(*error)));
        return;
    }
    const auto& message = std::get<McpMessage>(parsed);
    const QByteArray id = request.header("mcp-session-id");
    McpSession* session = nullptr;
    const bool initialize = message.kind == McpMessage::Kind::Request && message.method == QLatin1String("initialize");
    if (id.isEmpty()) {
        if (!initialize) {
            respondError(connection, 400, QStringLiteral("Bad Request: Mcp-Session-Id header is required"));
            return;
        }
        session = newSession();
        if (!session) {
            respondError(connection, 503, QStringLiteral("too many sessions: end one with DELETE"));
            return;
        }
    } else {
        session = m_sessions.value(id);
        if (!session) {
            respond(connection, 404, "application/json", errorBody(kNoSession, QStringLiteral("Session not found")));
            return;
        }
        const QByteArray version = request.header("mcp-protocol-version");
        if (!version.isEmpty() && !McpServerState::supportedVersions().contains(QString::fromLatin1(version))) {
            respondError(connection, 400, QStringLiteral("Bad Request: unsupported MCP-Protocol-Version"));
            return;
        }
    }
    m_lastUsed.insert(session, ++m_clock);
    if (message.kind != McpMessage::Kind::Request) {
        session->handleMessage(request.body);
        respond(connection, 202, QByteArray(), QByteArray());
        return;
    }
    connection.session = session;
    connection.awaiting = message.id;
    connection.sse = streamsBeforeResult(message, *session) && accepts(request.header("accept"), "text/event-stream");
    if (connection.sse) {
        connection.socket->write(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            "Mcp-Session-Id: "
            + m_sessionIds.value(session) + "\r\nConnection: close\r\n\r\n");
    }
    session->handleMessage(request.body);
    if (id.isEmpty() && session->state().phase() != McpServerState::Phase::Initialized) {
        endSession(m_sessionIds.value(session));  // a refused initialize leaves no session behind
    }
}

void McpHttpServer::remove(Connection& connection, const McpHttpRequest& request) {
    const QByteArray id = request.header("mcp-session-id");
    if (id.isEmpty()) {
        respondError(connection, 400, QStringLiteral("Bad Request: Mcp-Session-Id header is required"));
        return;
    }
    if (!m_sessions.contains(id)) {
        respond(connection, 404, "application/json", errorBody(kNoSession, QStringLiteral("Session not found")));
        return;
    }
    endSession(id);
    respond(connection, 200, QByteArray(), QByteArray());
}

McpSession* McpHttpServer::newSession() {
    if (m_sessions.size() >= kMaxSessions) {
        // The least recently used session that runs nothing and is awaited by no connection makes room: a client
        // that went away without DELETE must not lock the others out.
        McpSession* oldest = nullptr;
        qint64 oldestUse = std::numeric_limits<qint64>::max();
        for (auto it = m_sessions.cbegin(); it != m_sessions.cend(); ++it) {
            bool awaited = false;
            for (const auto& connection : std::as_const(m_connections)) {
                awaited = awaited || connection->session == it.value();
            }
            if (!awaited && it.value()->runningCalls() == 0 && m_lastUsed.value(it.value()) < oldestUse) {
                oldest = it.value();
                oldestUse = m_lastUsed.value(it.value());
            }
        }
        if (!oldest) {
            return nullptr;
        }
        qCInfo(lcBackend) << "MCP HTTP: ended the least recently used session to make room";
        endSession(m_sessionIds.value(oldest));
    }
    McpSession* session = m_backend.createSession(this);
    const QByteArray id = McpLocalBackend::randomHex(kSessionIdBytes).toLatin1();
    m_sessions.insert(id, session);
    m_sessionIds.insert(session, id);
    connect(session, &McpSession::messageFor, this,
            [this, session](const QJsonValue& requestId, const QByteArray& message) {
                onSessionMessage(session, requestId, message);
            });
    return session;
}

void McpHttpServer::endSession(const QByteArray& id) {
    McpSession* session = m_sessions.take(id);
    if (!session) {
        return;
    }
    m_sessionIds.remove(session);
    m_lastUsed.remove(session);
    session->cancelAll();
    m_backend.endSession(session->sessionId());
    const auto connections = m_connections;
    for (const auto& connection : connections) {
        if (connection->session == session) {
            connection->socket->abort();  // its answer will never come
        }
    }
    delete session;
}

void McpHttpServer::onSessionMessage(McpSession* session, const QJsonValue& requestId, const QByteArray& message) {
    const auto connections = m_connections;
    for (const auto& connection : connections) {
        if (connection->session != session || connection->awaiting.isUndefined() || connection->awaiting != requestId) {
            continue;
        }
        const bool final = !QJsonDocument::fromJson(message).object().contains(QStringLiteral("method"));
        if (connection->sse) {
            connection->socket->write("event: message\ndata: " + message + "\n\n");
            if (final) {
                connection->closing = true;
                connection->socket->disconnectFromHost();
            }
            return;
        }
        if (final) {
            respond(*connection, 200, "application/json", message, {{"Mcp-Session-Id", m_sessionIds.value(session)}});
        }
        return;  // a notification cannot go into a JSON answer: dropped
    }
}

void McpHttpServer::respondError(Connection& connection, int status, const QString& message, bool close) {
    respond(connection, status, "application/json", errorBody(-32000, message), {}, close);
}

void McpHttpServer::respond(Connection& connection, int status, const QByteArray& contentType, const QByteArray& body,
                            const Headers& headers, bool close) {
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason(status) + "\r\n";
    if (!contentType.isEmpty()) {
        head += "Content-Type: " + contentType + "\r\n";
    }
    head += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    for (const auto& [name, value] : headers) {
        head += name + ": " + value + "\r\n";
    }
    if (close) {
        head += "Connection: close\r\n";
    }
    connection.socket->write(head + "\r\n" + body);
    if (close) {
        connection.closing = true;
        connection.socket->disconnectFromHost();
        return;
    }
    finishExchange(connection);
}

void McpHttpServer::finishExchange(Connection& connection) {
    connection.session = nullptr;
    connection.awaiting = QJsonValue(QJsonValue::Undefined);
    connection.sse = false;
    connection.idle->start();
    // The next request may already be buffered; served from the event loop, never from inside this one.
    QTimer::singleShot(0, connection.socket, [this, socket = connection.socket] { onReadyRead(socket); });
}

}  // namespace zeus
