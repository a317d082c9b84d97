#pragma once

#include "mcp/mcpserverstate.h"
#include "mcp/mcptoolcall.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace zeus {

class McpLocalBackend;

// One MCP session (docs/mcp.md): a stdio connection, or one `Mcp-Session-Id` over HTTP. It owns what belongs to
// that session alone: the protocol state (McpServerState), its sandbox session id ("mcp-" and 16 random hex
// digits), and the calls it has in flight. It reaches the core only through its McpLocalBackend, which holds the
// single link every session shares and routes the core's answers back by call id.
// It must never write anything but one MCP message per messageOut(), and never answer a call it has cancelled.
class McpSession : public QObject {
    Q_OBJECT
public:
    // `backend` must outlive the session.
    explicit McpSession(McpLocalBackend& backend, QObject* parent = nullptr);
    ~McpSession() override;

    // The session of every call that names no other.
    QString sessionId() const { return m_sessionId; }
    const McpServerState& state() const { return m_state; }
    int runningCalls() const { return static_cast<int>(m_calls.size()); }  // handed to the core

    // One MCP message from the client (a stdio line without its newline, or an HTTP body).
    void handleMessage(const QByteArray& text);
    // The answer for a message the transport could not take whole (over McpCodec::kMaxMessageBytes).
    void refuseOversizedMessage();
    // The client is gone: every running call is cancelled, and none is answered.
    void cancelAll();

    // Asks the client's user a question about the running call `callId` (MCP elicitation/create, sent as part of
    // that call, so HTTP carries it on the call's event stream). `done` gets the client's result (`action`, and
    // `content` when accepted), or nullopt when the client answered with an error. False, and `done` is never
    // called, when the client did not declare elicitation, the call is not this session's, or kMaxElicitations
    // questions are open already.
    using Elicited = std::function<void(const std::optional<QJsonObject>& result)>;
    static constexpr int kMaxElicitations = 16;
    bool elicit(const QString& callId, const QString& message, const QJsonObject& requestedSchema, Elicited done);
    // The question about `callId` is settled elsewhere (timed out, the call was cancelled): a late answer is dropped.
    void withdrawElicitation(const QString& callId);

Q_SIGNALS:
    // One MCP message for the client: compact JSON, no newline.
    void messageOut(const QByteArray& message);
    // The same message, with the id of the request it belongs to (its answer, or progress of its call); null when
    // it belongs to none (an error for a message whose id could not be read). HTTP routes by it.
    void messageFor(const QJsonValue& requestId, const QByteArray& message);

private:
    friend class McpLocalBackend;

    // A call handed to the core and not answered yet.
    struct Call {
        McpToolCall call;
        qint64 outputBytes = 0;
        QStringList networkDenials;  // lines for the result text (SPEC §12: a denial names host and rule)
    };

    void startCall(const McpToolCall& call);
    void startHandledCall(const McpToolCall& call);
    void cancel(const QJsonValue& requestId);

    // From the backend: the core's messages about this session's calls.
    void onToolOutput(const QJsonObject& message);
    void onToolResult(const QJsonObject& message);
    void onNetworkEvent(const QJsonObject& message);
    void onCallError(const QJsonObject& message);
    // The answer to an open_port or to a handled call: sent, and the call is over.
    void finish(const QJsonValue& requestId, const QJsonObject& result);

    void answer(const QString& callId, const QJsonObject& result);
    void emitMessage(const QJsonValue& requestId, const QJsonObject& message);
    static QJsonObject unavailableResult(const McpToolCall& call);

    McpLocalBackend& m_backend;
    QString m_sessionId;
    McpServerState m_state;
    QHash<QString, Call> m_calls;  // call_id -> the call
    // Questions sent to the client and not answered yet: their request id -> the call, and who waits.
    struct Elicitation {
        QString callId;
        Elicited done;
    };
    void onResponse(const McpMessage& response);
    QHash<QString, Elicitation> m_elicitations;
    quint64 m_nextElicitation = 0;
    quint64 m_nextHandled = 0;
    QHash<quint64, McpToolCall> m_handledCalls;  // given to a tool handler and not answered yet
};

}  // namespace zeus
