#include "mcp/mcpserverstate.h"

#include "mcp/mcpcodec.h"
#include "mcp/mcptools.h"

#include <zeus/buildinfo.h>

#include <QJsonArray>

namespace zeus {

namespace {

// The names are the client's to see: it is this app, not a library.
const QLatin1String kServerName("zeus-desktop");

JsonRpcError error(int code, const QString& message, const QJsonValue& id) {
    return JsonRpcError{code, message, id, QJsonValue(QJsonValue::Undefined)};
}

McpServerState::Outcome reply(const QJsonObject& object) {
    McpServerState::Outcome outcome;
    outcome.reply = object;
    return outcome;
}

QString bounded(const QJsonValue& value) {
    return value.toString().left(McpServerState::kMaxClientInfoLength);
}

}  // namespace

QStringList McpServerState::supportedVersions() {
    return {QStringLiteral("2025-06-18"), QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
}

McpServerState::McpServerState() : m_serverVersion(QStringLiteral(ZEUS_VERSION)) {}

McpServerState::Outcome McpServerState::handle(const QByteArray& text) {
    return handle(McpCodec::parse(text));
}

McpServerState::Outcome McpServerState::handle(const McpParsed& parsed) {
    if (const auto* failure = std::get_if<JsonRpcError>(&parsed)) {
        return reply(McpCodec::makeError(*failure));
    }
    const auto& message = std::get<McpMessage>(parsed);
    Outcome outcome;
    switch (message.kind) {
        case McpMessage::Kind::Request:
            return request(message);
        case McpMessage::Kind::Notification:
            notification(message, outcome);
            break;
        case McpMessage::Kind::Response:
        case McpMessage::Kind::ErrorResponse:
            // JSON-RPC never answers a response; before initialize this server has asked nothing.
            if (m_phase == Phase::Initialized) {
                outcome.response = message;
            }
            break;
    }
    return outcome;
}

void McpServerState::callFinished(const QJsonValue& requestId) {
    m_running.removeAll(requestId);
}

McpServerState::Outcome McpServerState::request(const McpMessage& message) {
    const QString& method = message.method;
    if (method == QLatin1String("initialize")) {
        return initialize(message);
    }
    if (method == QLatin1String("ping")) {
        // Either side may ping at any time, before initialize too (MCP lifecycle).
        return reply(McpCodec::makeResult(message.id, {}));
    }
    if (m_phase == Phase::AwaitingInitialize) {
        return reply(McpCodec::makeError(
            error(JsonRpcCode::kServerNotInitialized, QStringLiteral("server not initialized"), message.id)));
    }
    if (method == QLatin1String("tools/list")) {
        // One page holds every tool, so a cursor has nothing to continue.
        return reply(McpCodec::makeResult(message.id, QJsonObject{{QStringLiteral("tools"), McpTools::definitions()}}));
    }
    if (method == QLatin1String("tools/call")) {
        return toolsCall(message);
    }
    return reply(McpCodec::makeError(
        error(JsonRpcCode::kMethodNotFound, QStringLiteral("method \"%1\" not found").arg(method), message.id)));
}

void McpServerState::notification(const McpMessage& message, Outcome& outcome) {
    if (message.method == QLatin1String("notifications/initialized")) {
        if (m_phase == Phase::Initialized) {
            m_clientSentInitialized = true;
        }
        return;
    }
    if (message.method == QLatin1String("notifications/cancelled")) {
        // A cancel of an unknown or finished call, or a malformed one, is ignored (MCP: the call may have ended).
        const std::optional<McpCancel> cancel = McpTools::parseCancel(message.params);
        if (cancel && m_running.contains(cancel->requestId)) {
            m_running.removeAll(cancel->requestId);
            outcome.cancel = cancel;
        }
    }
    // Any other notification is ignored: JSON-RPC never answers one.
}

McpServerState::Outcome McpServerState::initialize(const McpMessage& message) {
    if (m_phase != Phase::AwaitingInitialize) {
        return reply(McpCodec::makeError(
            error(JsonRpcCode::kInvalidRequest, QStringLiteral("already initialized"), message.id)));
    }
    const QJsonValue requested = message.params.value(QLatin1String("protocolVersion"));
    if (!requested.isString()) {
        return reply(McpCodec::makeError(error(
            JsonRpcCode::kInvalidParams, QStringLiteral("field \"protocolVersion\" must be a string"), message.id)));
    }
    const QJsonValue capabilities = message.params.value(QLatin1String("capabilities"));
    if (!capabilities.isUndefined() && !capabilities.isObject()) {
        return reply(McpCodec::makeError(error(
            JsonRpcCode::kInvalidParams, QStringLiteral("field \"capabilities\" must be an object"), message.id)));
    }
    const QJsonValue clientInfo = message.params.value(QLatin1String("clientInfo"));
    if (!clientInfo.isUndefined() && !clientInfo.isObject()) {
        return reply(McpCodec::makeError(
            error(JsonRpcCode::kInvalidParams, QStringLiteral("field \"clientInfo\" must be an object"), message.id)));
    }
    // The client's revision when this server speaks it, else the newest; the client then decides whether to go on.
    const QStringList versions = supportedVersions();
    m_protocolVersion = versions.contains(requested.toString()) ? requested.toString() : versions.constFirst();
    m_clientName = bounded(clientInfo.toObject().value(QLatin1String("name")));
    m_clientVersion = bounded(clientInfo.toObject().value(QLatin1String("version")));
    m_clientElicitation = capabilities.toObject().value(QLatin1String("elicitation")).isObject();
    m_phase = Phase::Initialized;

    const QJsonObject result{
        {QStringLiteral("protocolVersion"), m_protocolVersion},
        {QStringLiteral("capabilities"),
         QJsonObject{{QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}}}},
        {QStringLiteral("serverInfo"),
         QJsonObject{{QStringLiteral("name"), kServerName}, {QStringLiteral("version"), m_serverVersion}}},
    };
    return reply(McpCodec::makeResult(message.id, result));
}

McpServerState::Outcome McpServerState::toolsCall(const McpMessage& message) {
    if (m_running.contains(message.id)) {
        return reply(McpCodec::makeError(
            error(JsonRpcCode::kInvalidRequest, QStringLiteral("a call with this id is still running"), message.id)));
    }
    if (m_running.size() >= kMaxRunningCalls) {
        return reply(McpCodec::makeError(error(JsonRpcCode::kInternalError,
                                               QStringLiteral("more than %1 calls are running").arg(kMaxRunningCalls),
                                               message.id)));
    }
    std::variant<McpToolCall, JsonRpcError> call = McpTools::parseCall(message.id, message.params);
    if (auto* failure = std::get_if<JsonRpcError>(&call)) {
        return reply(McpCodec::makeError(*failure));
    }
    m_running.append(message.id);
    Outcome outcome;
    outcome.call = std::get<McpToolCall>(std::move(call));
    return outcome;
}

}  // namespace zeus
