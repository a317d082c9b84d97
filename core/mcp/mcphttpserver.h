#pragma once

#include "mcp/mcphttprequest.h"

#include <QByteArray>
#include <QHash>
#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTcpServer>

#include <memory>

class QTcpSocket;
class QTimer;

namespace zeus {

class McpLocalBackend;
class McpSession;

// MCP's Streamable HTTP transport (docs/mcp.md "Streamable HTTP transport") on 127.0.0.1 only: one endpoint, /mcp.
// A POST carries one JSON-RPC message; a request is answered as application/json, or as text/event-stream when
// its tools/call asked for progress and the client accepts it; notifications and responses get 202. Each
// `Mcp-Session-Id` (issued at initialize, 128 random bits) is its own McpSession, so its own sandbox session;
// DELETE ends it and its container. It owns the listening socket, the connections and the sessions.
//
// It must never listen on another interface, never serve a request without the bearer token (compared in
// constant time, never logged), never serve an Origin other than http(s)://127.0.0.1|localhost[:port] nor a Host
// other than 127.0.0.1|localhost:PORT (DNS rebinding), never send a CORS header, and never hold more than its
// limits: connections, sessions, one request per connection at a time, the parser's head and body.
class McpHttpServer : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxConnections = 32;
    static constexpr int kMaxSessions = 16;
    static constexpr int kIdleTimeoutMs = 60 * 1000;  // a connection that sends no whole request in this time
    static constexpr int kSessionIdBytes = 16;

    // `backend` must outlive the server; `token` is what `Authorization: Bearer` must carry.
    McpHttpServer(McpLocalBackend& backend, const QByteArray& token, QObject* parent = nullptr);
    ~McpHttpServer() override;

    // Listens on 127.0.0.1:port (0: a free one); false when it cannot.
    bool listen(quint16 port);
    quint16 port() const { return m_listener.serverPort(); }
    int sessionCount() const { return static_cast<int>(m_sessions.size()); }
    // Ends every session (their containers go) and closes every connection.
    void closeAll();

    // The checks a request passes before anything else (pure; public for the table tests).
    static bool originAllowed(const QByteArray& origin);  // empty (absent) is allowed
    static bool hostAllowed(const QByteArray& host, quint16 port);

private:
    struct Connection;

    void onNewConnection();
    void onReadyRead(QTcpSocket* socket);
    void serve(Connection& connection, const McpHttpRequest& request);
    void post(Connection& connection, const McpHttpRequest& request);
    void remove(Connection& connection, const McpHttpRequest& request);
    McpSession* newSession();
    void endSession(const QByteArray& id);
    void onSessionMessage(McpSession* session, const QJsonValue& requestId, const QByteArray& message);
    // A whole response; `close` ends the connection after it (errors that lose the framing).
    void respond(Connection& connection, int status, const QByteArray& contentType, const QByteArray& body,
                 const QList<QPair<QByteArray, QByteArray>>& headers = {}, bool close = false);
    void respondError(Connection& connection, int status, const QString& message, bool close = false);
    void finishExchange(Connection& connection);
    Connection* connectionOf(QTcpSocket* socket);

    McpLocalBackend& m_backend;
    QByteArray m_expectedAuthorization;
    QTcpServer m_listener;
    QHash<QTcpSocket*, std::shared_ptr<Connection>> m_connections;
    QHash<QByteArray, McpSession*> m_sessions;  // Mcp-Session-Id -> the session (a child)
    QHash<McpSession*, QByteArray> m_sessionIds;
    QHash<McpSession*, qint64> m_lastUsed;  // for evicting an idle session when the limit is reached
    qint64 m_clock = 0;
};

}  // namespace zeus
