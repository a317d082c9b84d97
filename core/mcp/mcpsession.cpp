#include "mcp/mcpsession.h"

#include "mcp/mcpcodec.h"
#include "mcp/mcplocalbackend.h"
#include "mcp/mcptools.h"

#include <QJsonArray>
#include <QPointer>

#include <utility>

namespace zeus {

namespace {

QString str(const QJsonObject& object, const char* key) {
    return object.value(QLatin1String(key)).toString();
}

}  // namespace

McpSession::McpSession(McpLocalBackend& backend, QObject* parent)
    : QObject(parent), m_backend(backend), m_sessionId(QStringLiteral("mcp-") + McpLocalBackend::randomHex(8)) {}

McpSession::~McpSession() {
    cancelAll();
}

void McpSession::handleMessage(const QByteArray& text) {
    McpServerState::Outcome outcome = m_state.handle(text);
    if (!outcome.reply.isEmpty()) {
        emitMessage(outcome.reply.value(QStringLiteral("id")), outcome.reply);
    }
    if (outcome.cancel) {
        cancel(outcome.cancel->requestId);
    }
    if (outcome.call) {
        startCall(*outcome.call);
    }
    if (outcome.response) {
        onResponse(*outcome.response);
    }
}

bool McpSession::elicit(const QString& callId, const QString& message, const QJsonObject& requestedSchema,
                        Elicited done) {
    const auto call = m_calls.constFind(callId);
    if (!m_state.clientSupportsElicitation() || call == m_calls.cend() || m_elicitations.size() >= kMaxElicitations) {
        return false;
    }
    // A string id of our own: it cannot be mistaken for one of the client's requests, and a guessed one only
    // answers a question that is open anyway.
    const QString id = QStringLiteral("zeus-elicit-%1").arg(++m_nextElicitation);
    m_elicitations.insert(id, Elicitation{callId, std::move(done)});
    const QJsonObject request{
        {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
        {QStringLiteral("id"), id},
        {QStringLiteral("method"), QStringLiteral("elicitation/create")},
        {QStringLiteral("params"),
         QJsonObject{{QStringLiteral("message"), message}, {QStringLiteral("requestedSchema"), requestedSchema}}}};
    emitMessage(call->call.requestId, request);
    return true;
}

void McpSession::withdrawElicitation(const QString& callId) {
    for (auto it = m_elicitations.begin(); it != m_elicitations.end();) {
        it = it->callId == callId ? m_elicitations.erase(it) : std::next(it);
    }
}

void McpSession::onResponse(const McpMessage& response) {
    const auto it = m_elicitations.find(response.id.toString());
    if (!response.id.isString() || it == m_elicitations.end()) {
        return;  // an answer to nothing this session asked (or asked no more): JSON-RPC never answers a response
    }
    const Elicited done = std::move(it->done);
    m_elicitations.erase(it);
    if (response.kind == McpMessage::Kind::Response && response.result.isObject()) {
        done(response.result.toObject());
    } else {
        done(std::nullopt);
    }
}

void McpSession::cancel(const QJsonValue& requestId) {
    if (m_backend.cancelPortRequest(this, requestId)) {
        m_state.callFinished(requestId);
        return;
    }
    for (auto it = m_handledCalls.begin(); it != m_handledCalls.end(); ++it) {
        if (it->requestId == requestId) {
            m_state.callFinished(it->requestId);
            m_handledCalls.erase(it);  // its handler's answer is dropped when it comes
            return;
        }
    }
    for (auto it = m_calls.begin(); it != m_calls.end(); ++it) {
        if (it->call.requestId == requestId) {
            m_backend.cancelCall(it.key());
            m_state.callFinished(it->call.requestId);
            m_calls.erase(it);  // answered no more (MCP); its result is still acked when it comes
            return;
        }
    }
}

void McpSession::refuseOversizedMessage() {
    const QJsonObject error = McpCodec::makeError(
        JsonRpcCode::kInvalidRequest, QStringLiteral("message is larger than %1 bytes").arg(McpCodec::kMaxMessageBytes),
        QJsonValue(QJsonValue::Null));
    emitMessage(QJsonValue(QJsonValue::Null), error);
}

void McpSession::cancelAll() {
    for (const QJsonValue& requestId : m_backend.cancelPortRequests(this)) {
        m_state.callFinished(requestId);
    }
    for (auto it = m_calls.cbegin(); it != m_calls.cend(); ++it) {
        m_backend.cancelCall(it.key());
        m_state.callFinished(it->call.requestId);
    }
    m_calls.clear();
    for (const McpToolCall& call : std::as_const(m_handledCalls)) {
        m_state.callFinished(call.requestId);
    }
    m_handledCalls.clear();
    m_elicitations.clear();  // their calls are cancelled: the questions about them are withdrawn by the core
}

QJsonObject McpSession::unavailableResult(const McpToolCall& call) {
    return McpLocalBackend::toolResult(
        QStringLiteral("%1 is not available over MCP yet: use the tray app or zeus-desktop --changes, "
                       "--apply and --discard (docs/mcp.md)")
            .arg(McpTools::name(call.tool)),
        true);
}

void McpSession::startHandledCall(const McpToolCall& call) {
    const quint64 serial = ++m_nextHandled;
    m_handledCalls.insert(serial, call);
    const QPointer<McpSession> self(this);
    m_backend.toolHandler(call.tool)(call, call.session.isEmpty() ? m_sessionId : call.session,
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
                                         self->finish(requestId, result);
                                     });
}

void McpSession::startCall(const McpToolCall& call) {
    if (call.tool == McpTool::OpenPort) {
        m_backend.requestPort(this, call);
        return;
    }
    if (m_backend.toolHandler(call.tool)) {
        startHandledCall(call);
        return;
    }
    if (call.tool != McpTool::RunCommand) {
        finish(call.requestId, unavailableResult(call));
        return;
    }
    const QString callId = m_backend.nextCallId();
    QJsonObject args{{QStringLiteral("command"), call.command},
                     {QStringLiteral("working_directory"),
                      call.workingDirectory.isEmpty() ? m_backend.defaultWorkingDirectory() : call.workingDirectory}};
    if (call.timeoutMs > 0) {
        args.insert(QStringLiteral("timeout_s"), double(call.timeoutMs) / 1000.0);
    }
    if (!call.secrets.isEmpty()) {
        args.insert(QStringLiteral("secrets"), QJsonArray::fromStringList(call.secrets));
    }
    m_calls.insert(callId, Call{call, 0, {}});
    m_backend.sendCall(this, callId,
                       QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_call")},
                                   {QStringLiteral("call_id"), callId},
                                   {QStringLiteral("session_id"), call.session.isEmpty() ? m_sessionId : call.session},
                                   {QStringLiteral("tool"), QStringLiteral("desktop_exec")},
                                   {QStringLiteral("args"), args}});
}

void McpSession::onToolOutput(const QJsonObject& message) {
    const auto it = m_calls.find(str(message, "call_id"));
    if (it == m_calls.end()) {
        return;
    }
    const QString data = str(message, "data");
    it->outputBytes += data.toUtf8().size();
    // Progress grows with the output so far; the chunk itself is the message.
    if (const auto notification = McpTools::progressNotification(it->call, double(it->outputBytes), data)) {
        emitMessage(it->call.requestId, *notification);
    }
}

void McpSession::onNetworkEvent(const QJsonObject& message) {
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

void McpSession::onToolResult(const QJsonObject& message) {
    const QString callId = str(message, "call_id");
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
    QJsonObject structured{{QStringLiteral("output"), str(message, "output")},
                           {QStringLiteral("exit_code"), message.value(QStringLiteral("exit_code"))},
                           {QStringLiteral("duration_ms"), message.value(QStringLiteral("duration_ms"))},
                           {QStringLiteral("truncated"), message.value(QStringLiteral("truncated")).toBool()},
                           {QStringLiteral("changes_pending"), false}};
    const bool isError = status != QLatin1String("ok");
    const McpLocalBackend::PendingQuery& pending = m_backend.changesPendingQuery();
    if (!pending) {
        answer(callId, McpLocalBackend::toolResult(text, isError, structured));
        return;
    }
    // Review mode: whether the copy now differs from the folder (the session's review copy, not this call's).
    const QString session = it->call.session.isEmpty() ? m_sessionId : it->call.session;
    const QPointer<McpSession> self(this);
    pending(m_backend.coreSessionId(session), [self, callId, text, isError, structured](bool changed) mutable {
        if (self) {
            structured.insert(QStringLiteral("changes_pending"), changed);
            self->answer(callId, McpLocalBackend::toolResult(text, isError, structured));
        }
    });
}

void McpSession::onCallError(const QJsonObject& message) {
    answer(
        str(message, "call_id"),
        McpLocalBackend::toolResult(QStringLiteral("%1: %2").arg(str(message, "code"), str(message, "message")), true));
}

void McpSession::answer(const QString& callId, const QJsonObject& result) {
    const auto it = m_calls.find(callId);
    if (it == m_calls.end()) {
        return;
    }
    const QJsonValue requestId = it->call.requestId;
    m_calls.erase(it);
    withdrawElicitation(callId);
    m_backend.callDone(callId);
    finish(requestId, result);
}

void McpSession::finish(const QJsonValue& requestId, const QJsonObject& result) {
    emitMessage(requestId, McpCodec::makeResult(requestId, result));
    m_state.callFinished(requestId);
}

void McpSession::emitMessage(const QJsonValue& requestId, const QJsonObject& message) {
    const QByteArray bytes = McpCodec::toBytes(message);
    Q_EMIT messageOut(bytes);
    Q_EMIT messageFor(requestId.isUndefined() ? QJsonValue(QJsonValue::Null) : requestId, bytes);
}

}  // namespace zeus
