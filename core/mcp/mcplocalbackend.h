#pragma once

#include "mcp/mcpserverstate.h"
#include "mcp/mcptoolcall.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QUrl>
#include <QWebSocketServer>

#include <functional>
#include <map>

class QWebSocket;

namespace zeus {

// The backend an MCP client's tool calls reach the sandbox through (SPEC §12, docs/mcp.md "stdio transport"):
// a WebSocket server on 127.0.0.1 that the GUI-free core (AgentHostService) connects to as to any backend, so an
// MCP call passes every gate a backend call passes (approved folder, approval, egress policy, secrets, redaction,
// queue). It owns the MCP connection's protocol state (McpServerState), the listening socket, the one core
// connection and the calls in flight; it translates MCP messages into backend protocol v1 and back.
//
// It must never accept a connection without its random token (SPEC §5 "No anonymous backends": other local
// users can reach loopback ports), never let a second connection replace the first, and never write anything but
// one MCP message per messageOut(). It does no stdio itself: the transport hands it lines and sends what it emits.
class McpLocalBackend : public QObject {
    Q_OBJECT
public:
    static constexpr int kTokenBytes = 32;
    static constexpr int kCloseRefused = 1008;  // RFC 6455 policy violation: wrong token, or a second connection

    explicit McpLocalBackend(QObject* parent = nullptr);
    ~McpLocalBackend() override;

    // Listens on 127.0.0.1 with a free port; false when it cannot.
    bool listen();
    // ws://127.0.0.1:PORT/v1/desktop, and the token the core must send as `Authorization: Bearer`. The token is
    // handed over in-process only: never on a command line, in a file or a log line.
    QUrl url() const;
    QString token() const { return m_token; }

    // The folder a run_command without working_directory runs in (the first approved workspace).
    void setDefaultWorkingDirectory(const QString& path) { m_defaultWorkingDirectory = path; }
    // The session of every call that names no other: "mcp-" and 16 random hex digits, one per connection.
    QString sessionId() const { return m_sessionId; }
    bool isCoreConnected() const;
    int runningCalls() const { return static_cast<int>(m_calls.size()); }

    // One MCP message from the client (a stdio line without its newline).
    void handleMessage(const QByteArray& text);
    // The answer for a line the transport could not take whole (over McpCodec::kMaxMessageBytes).
    void refuseOversizedMessage();
    // The client is gone: every running call is cancelled, and none is answered.
    void cancelAll();

    // Runs a tool the core does not (list_changes, apply_changes, discard_changes: the review copies of SPEC §10),
    // so this class stays free of review internals. `session` is the call's, or the connection's own; the handler
    // calls `answer` once with the CallToolResult, now or later. A call cancelled meanwhile is answered no more.
    // A tool without a handler answers that it is not available over MCP.
    using Answer = std::function<void(const QJsonObject& result)>;
    using ToolHandler = std::function<void(const McpToolCall& call, const QString& session, const Answer& answer)>;
    void setToolHandler(McpTool tool, ToolHandler handler) { m_toolHandlers[tool] = std::move(handler); }
    // A CallToolResult: one text content, isError, and structuredContent when not empty.
    static QJsonObject toolResult(const QString& text, bool isError, const QJsonObject& structured = {});

    // The constant-time comparison the token check uses (public for its tests).
    static bool sameToken(const QByteArray& a, const QByteArray& b);

Q_SIGNALS:
    // One MCP message for the client: compact JSON, no newline.
    void messageOut(const QByteArray& message);
    void coreConnected();

private:
    // A call handed to the core and not answered yet.
    struct Call {
        McpToolCall call;
        qint64 outputBytes = 0;
        QStringList networkDenials;  // lines for the result text (SPEC §12: a denial names host and rule)
    };

    // An open_port handed to the core; answered in order (port_opened, or an error naming no call).
    struct PortRequest {
        McpToolCall call;
        bool cancelled = false;  // notifications/cancelled came: its answer is dropped
    };

    void onNewConnection();
    void onCoreMessage(const QString& text);
    void onToolOutput(const QJsonObject& message);
    void onToolResult(const QJsonObject& message);
    void onNetworkEvent(const QJsonObject& message);
    void onPortOpened(const QJsonObject& message);
    void onCoreError(const QJsonObject& message);
    void startCall(const McpToolCall& call);
    void answer(const QString& callId, const QJsonObject& result);
    void cancelInCore(const QString& callId);
    void sendToCore(const QJsonObject& message);
    void emitMessage(const QJsonObject& message);
    static QJsonObject unavailableResult(const McpToolCall& call);

    QTcpServer m_listener;  // 127.0.0.1: accepts, turns Nagle off, hands the socket to m_server
    QWebSocketServer m_server;
    QPointer<QWebSocket> m_core;
    QString m_token;
    QString m_sessionId;
    QString m_defaultWorkingDirectory;
    McpServerState m_state;
    quint64 m_nextCall = 0;
    QHash<QString, Call> m_calls;        // call_id -> the call
    QList<PortRequest> m_portRequests;   // in the order the core answers them
    QList<QJsonObject> m_waitingFrames;  // for the core, before it connected
    std::map<McpTool, ToolHandler> m_toolHandlers;
    quint64 m_nextHandled = 0;
    QHash<quint64, McpToolCall> m_handledCalls;  // given to a tool handler and not answered yet
};

}  // namespace zeus
