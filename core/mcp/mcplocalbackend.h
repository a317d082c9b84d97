#pragma once

#include "mcp/mcpsession.h"
#include "mcp/mcptoolcall.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
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

// The backend an MCP client's tool calls reach the sandbox through (SPEC §12, docs/mcp.md "How a call travels"):
// a WebSocket server on 127.0.0.1 that the GUI-free core (AgentHostService) connects to as to any backend, so an
// MCP call passes every gate a backend call passes (approved folder, approval, egress policy, secrets, redaction,
// queue). It owns the listening socket, the one core connection, the call ids and which MCP session (McpSession)
// each call belongs to, and the tool handlers every session shares; each session owns its protocol state and its
// calls. stdio serves one session, the default one this class makes and whose interface it repeats; HTTP makes
// one per `Mcp-Session-Id` with createSession().
//
// It must never accept a connection without its random token (SPEC §5 "No anonymous backends": other local
// users can reach loopback ports), never let a second connection replace the first, and never hand one
// session's answers to another. It does no client I/O itself: the transport hands it messages and sends what
// the sessions emit.
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
    QString defaultWorkingDirectory() const { return m_defaultWorkingDirectory; }
    // The folder of one session's run_command without working_directory, over the one above (the tray app serves
    // bridges that each name their own folders). Forgotten with the session.
    void setSessionWorkingDirectory(McpSession* session, const QString& path);

    // The namespace of this backend's ids in the core (the tray app's: ToolDispatcher::mcpSessionPrefix(), which
    // its MCP door alone takes), set before the first session. Every call id starts with it, and every session id
    // the core sees is coreSessionId() of the MCP session's: whatever a client names as its `session`, it cannot
    // reach a session outside the namespace. Empty (the default, a process of its own): ids go as they are.
    void setIdPrefix(const QString& prefix) { m_idPrefix = prefix; }
    QString idPrefix() const { return m_idPrefix; }
    // `sessionId` as the core knows it: itself without a prefix, or inside the prefix ("mcp-1a2b" becomes
    // "local-mcp-1a2b", a client's "build" becomes "local-mcp-build", an id already inside stays as it is).
    QString coreSessionId(const QString& sessionId) const;
    bool isCoreConnected() const;

    // A new MCP session with its own sandbox session id, owned by `parent`; it must not outlive this backend.
    McpSession* createSession(QObject* parent);
    // Ends a sandbox session in the core (session_end, of coreSessionId()): its calls stop and its container goes.
    void endSession(const QString& sessionId);

    // The default session (stdio): see McpSession.
    McpSession& defaultSession() { return *m_default; }
    QString sessionId() const { return m_default->sessionId(); }
    int runningCalls() const { return m_default->runningCalls(); }
    void handleMessage(const QByteArray& text) { m_default->handleMessage(text); }
    void refuseOversizedMessage() { m_default->refuseOversizedMessage(); }
    void cancelAll() { m_default->cancelAll(); }

    // Runs a tool the core does not (list_changes, apply_changes, discard_changes: the review copies of SPEC §10),
    // so this class stays free of review internals. `session` is the call's, or the MCP session's own; the handler
    // calls `answer` once with the CallToolResult, now or later. A call cancelled meanwhile is answered no more.
    // A tool without a handler answers that it is not available over MCP.
    using Answer = std::function<void(const QJsonObject& result)>;
    // Whether a session (as the core knows it) has changes in its review copy that are not applied yet: run_command's
    // `changes_pending` (SPEC §12). The query calls `done` once, now or later; without one the answer is false.
    using PendingQuery = std::function<void(const QString& coreSession, const std::function<void(bool)>& done)>;
    void setChangesPendingQuery(PendingQuery query) { m_pendingQuery = std::move(query); }
    const PendingQuery& changesPendingQuery() const { return m_pendingQuery; }
    using ToolHandler = std::function<void(const McpToolCall& call, const QString& session, const Answer& answer)>;
    void setToolHandler(McpTool tool, ToolHandler handler) { m_toolHandlers[tool] = std::move(handler); }
    // A CallToolResult: one text content, isError, and structuredContent when not empty.
    static QJsonObject toolResult(const QString& text, bool isError, const QJsonObject& structured = {});

    // The constant-time comparison the token check uses (public for its tests and the HTTP transport).
    static bool sameToken(const QByteArray& a, const QByteArray& b);
    // `bytes` random bytes from the system's generator, as hex.
    static QString randomHex(int bytes);
    // The session that made a call handed to the core (a command approval asks that session's client), or null.
    McpSession* ownerOf(const QString& callId) const;

Q_SIGNALS:
    // One MCP message of the default session for the client: compact JSON, no newline.
    void messageOut(const QByteArray& message);
    void coreConnected();

private:
    friend class McpSession;

    // An open_port handed to the core; answered in order (port_opened, or an error naming no call).
    struct PortRequest {
        QPointer<McpSession> session;
        McpToolCall call;
        bool cancelled = false;  // notifications/cancelled came, or its session ended: its answer is dropped
    };

    // For the sessions.
    QString nextCallId();
    void sendCall(McpSession* session, const QString& callId, const QJsonObject& frame);
    void cancelCall(const QString& callId);
    void callDone(const QString& callId) { m_callOwners.remove(callId); }
    void requestPort(McpSession* session, const McpToolCall& call);
    bool cancelPortRequest(const McpSession* session, const QJsonValue& requestId);
    QList<QJsonValue> cancelPortRequests(const McpSession* session);
    ToolHandler toolHandler(McpTool tool) const;

    void onNewConnection();
    void onCoreMessage(const QString& text);
    void onPortOpened(const QJsonObject& message);
    void onCoreError(const QJsonObject& message);
    void sendToCore(const QJsonObject& message);

    QTcpServer m_listener;  // 127.0.0.1: accepts, turns Nagle off, hands the socket to m_server
    QWebSocketServer m_server;
    QPointer<QWebSocket> m_core;
    QString m_token;
    QString m_defaultWorkingDirectory;
    QHash<const McpSession*, QString> m_sessionWorkingDirectories;
    QString m_idPrefix;
    quint64 m_nextCall = 0;
    QHash<QString, QPointer<McpSession>> m_callOwners;  // call_id -> the session that made the call
    QList<PortRequest> m_portRequests;                  // in the order the core answers them
    QList<QJsonObject> m_waitingFrames;                 // for the core, before it connected
    std::map<McpTool, ToolHandler> m_toolHandlers;
    PendingQuery m_pendingQuery;
    McpSession* m_default = nullptr;  // a child
};

}  // namespace zeus
