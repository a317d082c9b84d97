#pragma once

#include "mcp/mcpmessage.h"
#include "mcp/mcptoolcall.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// The protocol state of one MCP connection (docs/mcp.md "Codec and lifecycle"): the initialize handshake with
// version negotiation, ping, tools/list, and tools/call validated into an McpToolCall that it hands out and never
// runs; notifications/cancelled for a call it handed out becomes an McpCancel. It owns the negotiated version,
// what the client said of itself and the ids of the calls still running. It must never do I/O or wait: a
// message goes in, the reply and the typed work come out, so a transport (stdio, HTTP) only moves bytes.
class McpServerState {
public:
    enum class Phase {
        AwaitingInitialize,  // only initialize and ping are answered
        Initialized,         // initialize answered: every method (the client's initialized notification is noted)
    };

    // What one inbound message leads to. `reply` is empty when nothing is answered (notifications, responses).
    struct Outcome {
        QJsonObject reply;
        std::optional<McpToolCall> call;  // to run; answer it with McpCodec::makeResult(call.requestId, ...)
        std::optional<McpCancel> cancel;  // a running call to stop; it is answered no more (MCP)
        // The client's answer to a request this server sent (elicitation/create): never answered itself; the
        // session matches its id to the request it sent, and drops an answer to none.
        std::optional<McpMessage> response;
    };

    static constexpr int kMaxRunningCalls = 256;  // tool calls handed out and not yet finished
    static constexpr int kMaxClientInfoLength = 256;

    // The revisions this server speaks, newest first.
    static QStringList supportedVersions();

    // serverInfo says name "zeus-desktop" and ZEUS_VERSION (zeus/buildinfo.h), as the backend's hello does.
    McpServerState();

    Outcome handle(const QByteArray& text);
    Outcome handle(const McpParsed& parsed);

    // A handed-out call is over (answered, or cancelled): its id may be used again and a cancel of it is ignored.
    void callFinished(const QJsonValue& requestId);

    Phase phase() const { return m_phase; }
    bool clientSentInitialized() const { return m_clientSentInitialized; }
    QString protocolVersion() const { return m_protocolVersion; }  // empty before initialize
    QString clientName() const { return m_clientName; }
    QString clientVersion() const { return m_clientVersion; }
    bool clientSupportsElicitation() const { return m_clientElicitation; }
    int runningCalls() const { return static_cast<int>(m_running.size()); }

private:
    Outcome request(const McpMessage& message);
    void notification(const McpMessage& message, Outcome& outcome);
    Outcome initialize(const McpMessage& message);
    Outcome toolsCall(const McpMessage& message);

    QString m_serverVersion;
    Phase m_phase = Phase::AwaitingInitialize;
    bool m_clientSentInitialized = false;
    QString m_protocolVersion;
    QString m_clientName;
    QString m_clientVersion;
    bool m_clientElicitation = false;
    QList<QJsonValue> m_running;
};

}  // namespace zeus
