#include "mcp/mcpcodec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <cmath>

namespace zeus {

namespace {

const QLatin1String kJsonRpc("jsonrpc");
const QLatin1String kVersion("2.0");
const QLatin1String kId("id");
const QLatin1String kMethod("method");
const QLatin1String kParams("params");
const QLatin1String kResult("result");
const QLatin1String kError("error");
const QLatin1String kCode("code");
const QLatin1String kMessage("message");
const QLatin1String kData("data");

JsonRpcError failure(int code, const QString& message, const QJsonValue& id = QJsonValue(QJsonValue::Null)) {
    return JsonRpcError{code, message, id, QJsonValue(QJsonValue::Undefined)};
}

JsonRpcError invalidRequest(const QString& message, const QJsonValue& id = QJsonValue(QJsonValue::Null)) {
    return failure(JsonRpcCode::kInvalidRequest, message, id);
}

// Text that did not parse: a lone scalar (`42`, `"x"`) is JSON but not a request, which JSON-RPC answers with
// -32600; anything else is -32700. Qt's reader takes only arrays and objects, so the scalar is read in an array.
JsonRpcError unreadable(const QByteArray& text, const QJsonParseError& error) {
    QJsonParseError wrappedError{};
    const QJsonDocument wrapped = QJsonDocument::fromJson('[' + text + ']', &wrappedError);
    if (wrappedError.error == QJsonParseError::NoError && wrapped.array().size() == 1) {
        return invalidRequest(QStringLiteral("a message must be a JSON object"));
    }
    return failure(JsonRpcCode::kParseError,
                   QStringLiteral("not valid JSON: %1 at offset %2").arg(error.errorString()).arg(error.offset));
}

// The error object of an error response: an integer code and a bounded string message, data optional.
std::optional<JsonRpcError> readErrorObject(const QJsonValue& value, const QJsonValue& id) {
    if (!value.isObject()) {
        return std::nullopt;
    }
    const QJsonObject object = value.toObject();
    const QJsonValue code = object.value(kCode);
    const QJsonValue message = object.value(kMessage);
    if (!code.isDouble() || code.toDouble() != std::floor(code.toDouble())
        || std::abs(code.toDouble()) > 2147483647.0) {
        return std::nullopt;
    }
    if (!message.isString() || message.toString().size() > McpCodec::kMaxErrorMessageLength) {
        return std::nullopt;
    }
    return JsonRpcError{static_cast<int>(code.toDouble()), message.toString(), id, object.value(kData)};
}

McpParsed parseResponse(const QJsonObject& object, const QJsonValue& id, bool idValid) {
    const bool hasResult = object.contains(kResult);
    const bool hasError = object.contains(kError);
    if (hasResult == hasError) {
        return invalidRequest(hasResult ? QStringLiteral("a response has \"result\" or \"error\", not both")
                                        : QStringLiteral("a message needs \"method\", \"result\" or \"error\""),
                              idValid ? id : QJsonValue(QJsonValue::Null));
    }
    McpMessage message;
    if (hasResult) {
        if (!idValid) {
            return invalidRequest(QStringLiteral("a response needs a string or integer \"id\""));
        }
        message.kind = McpMessage::Kind::Response;
        message.id = id;
        message.result = object.value(kResult);
        return message;
    }
    // JSON-RPC sends an error about a request whose id it could not read with a null id.
    if (!idValid && !id.isNull()) {
        return invalidRequest(QStringLiteral("an error response needs a string, integer or null \"id\""));
    }
    const std::optional<JsonRpcError> error = readErrorObject(object.value(kError), id);
    if (!error) {
        return invalidRequest(QStringLiteral("field \"error\" must be an object with an integer \"code\" and a "
                                             "\"message\" of at most %1 characters")
                                  .arg(McpCodec::kMaxErrorMessageLength),
                              id);
    }
    message.kind = McpMessage::Kind::ErrorResponse;
    message.id = id;
    message.error = *error;
    return message;
}

McpParsed parseObject(const QJsonObject& object) {
    const auto idIt = object.constFind(kId);
    const bool hasId = idIt != object.constEnd();
    const QJsonValue id = hasId ? idIt.value() : QJsonValue(QJsonValue::Undefined);
    const bool idValid = hasId && McpCodec::isValidId(id);
    const QJsonValue replyId = idValid ? id : QJsonValue(QJsonValue::Null);

    if (object.value(kJsonRpc) != QJsonValue(kVersion)) {
        return invalidRequest(QStringLiteral("field \"jsonrpc\" must be \"2.0\""), replyId);
    }
    const auto methodIt = object.constFind(kMethod);
    if (methodIt == object.constEnd()) {
        return parseResponse(object, hasId ? id : QJsonValue(QJsonValue::Undefined), idValid);
    }
    if (hasId && !idValid) {
        return invalidRequest(QStringLiteral("field \"id\" must be a string of at most %1 characters or an integer")
                                  .arg(McpCodec::kMaxIdLength));
    }
    const QJsonValue method = methodIt.value();
    if (!method.isString() || method.toString().isEmpty()) {
        return invalidRequest(QStringLiteral("field \"method\" must be a non-empty string"), replyId);
    }
    if (method.toString().size() > McpCodec::kMaxMethodLength) {
        return invalidRequest(
            QStringLiteral("field \"method\" is longer than %1 characters").arg(McpCodec::kMaxMethodLength), replyId);
    }
    McpMessage message;
    message.kind = hasId ? McpMessage::Kind::Request : McpMessage::Kind::Notification;
    message.id = hasId ? id : QJsonValue(QJsonValue::Undefined);
    message.method = method.toString();
    const auto paramsIt = object.constFind(kParams);
    if (paramsIt != object.constEnd()) {
        if (paramsIt.value().isArray()) {
            // Valid JSON-RPC, but every MCP method names its parameters.
            return failure(JsonRpcCode::kInvalidParams, QStringLiteral("field \"params\" must be an object"), replyId);
        }
        if (!paramsIt.value().isObject()) {
            return invalidRequest(QStringLiteral("field \"params\" must be an object"), replyId);
        }
        message.params = paramsIt.value().toObject();
    }
    return message;
}

}  // namespace

McpParsed McpCodec::parse(const QByteArray& text) {
    if (text.size() > kMaxMessageBytes) {
        return invalidRequest(QStringLiteral("message is larger than %1 bytes").arg(kMaxMessageBytes));
    }
    if (text.trimmed().isEmpty()) {
        return failure(JsonRpcCode::kParseError, QStringLiteral("empty message"));
    }
    if (nestingDepth(text) > kMaxDepth) {
        return invalidRequest(QStringLiteral("message is nested deeper than %1 levels").arg(kMaxDepth));
    }
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError) {
        return unreadable(text, error);
    }
    if (document.isArray()) {
        return invalidRequest(
            QStringLiteral("batches are not supported: MCP 2025-06-18 sends one JSON-RPC message at a time"));
    }
    return parseObject(document.object());
}

QJsonObject McpCodec::makeResult(const QJsonValue& id, const QJsonObject& result) {
    return QJsonObject{{kJsonRpc, kVersion}, {kId, id}, {kResult, result}};
}

QJsonObject McpCodec::makeError(const JsonRpcError& error) {
    QJsonObject body{{kCode, error.code}, {kMessage, error.message}};
    if (!error.data.isUndefined()) {
        body.insert(kData, error.data);
    }
    const QJsonValue id = error.id.isUndefined() ? QJsonValue(QJsonValue::Null) : error.id;
    return QJsonObject{{kJsonRpc, kVersion}, {kId, id}, {kError, body}};
}

QJsonObject McpCodec::makeError(int code, const QString& message, const QJsonValue& id) {
    return makeError(failure(code, message, id));
}

QJsonObject McpCodec::makeNotification(const QString& method, const QJsonObject& params) {
    QJsonObject object{{kJsonRpc, kVersion}, {kMethod, method}};
    if (!params.isEmpty()) {
        object.insert(kParams, params);
    }
    return object;
}

QJsonObject McpCodec::makeRequest(const QJsonValue& id, const QString& method, const QJsonObject& params) {
    QJsonObject object = makeNotification(method, params);
    object.insert(kId, id);
    return object;
}

QJsonObject McpCodec::toJson(const McpMessage& message) {
    switch (message.kind) {
        case McpMessage::Kind::Request:
            return makeRequest(message.id, message.method, message.params);
        case McpMessage::Kind::Notification:
            return makeNotification(message.method, message.params);
        case McpMessage::Kind::Response:
            return QJsonObject{{kJsonRpc, kVersion}, {kId, message.id}, {kResult, message.result}};
        case McpMessage::Kind::ErrorResponse:
            break;
    }
    JsonRpcError error = message.error;
    error.id = message.id;
    return makeError(error);
}

QByteArray McpCodec::toBytes(const QJsonObject& message) {
    return QJsonDocument(message).toJson(QJsonDocument::Compact);
}

bool McpCodec::isValidId(const QJsonValue& id) {
    if (id.isString()) {
        return id.toString().size() <= kMaxIdLength;
    }
    if (id.isDouble()) {
        const double value = id.toDouble();
        return std::isfinite(value) && value == std::floor(value) && std::abs(value) <= kMaxIntegerId;
    }
    return false;
}

int McpCodec::nestingDepth(const QByteArray& text, int limit) {
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    bool escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                inString = false;
            }
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit) {
                return limit + 1;
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

}  // namespace zeus
