#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <variant>

namespace zeus {

// The JSON-RPC 2.0 error codes an MCP connection answers with (docs/mcp.md "Codec and lifecycle").
namespace JsonRpcCode {
constexpr int kParseError = -32700;      // not JSON
constexpr int kInvalidRequest = -32600;  // JSON, but not one JSON-RPC 2.0 message (batches included)
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;  // unknown tool and wrong arguments too, as MCP says
constexpr int kInternalError = -32603;
// Implementation-defined range (-32000..-32099): what the official TypeScript SDK answers before initialize.
// Not -32002: MCP gives that one to "resource not found".
constexpr int kServerNotInitialized = -32000;
}  // namespace JsonRpcCode

// A JSON-RPC error object, and the id of the request it answers: null when the id could not be read, as
// JSON-RPC requires. `message` is short and never echoes more than a bounded piece of the input.
struct JsonRpcError {
    int code = 0;
    QString message;
    QJsonValue id = QJsonValue(QJsonValue::Null);
    QJsonValue data = QJsonValue(QJsonValue::Undefined);  // optional member, absent when undefined

    bool operator==(const JsonRpcError& other) const {
        return code == other.code && message == other.message && id == other.id && data == other.data;
    }
};

// One valid JSON-RPC 2.0 message. An id is a string or an integer (MCP forbids null in a request).
struct McpMessage {
    enum class Kind {
        Request,       // method + id: needs exactly one answer
        Notification,  // method, no id: never answered
        Response,      // id + result
        ErrorResponse  // id (or null) + error
    };
    Kind kind = Kind::Notification;
    QJsonValue id = QJsonValue(QJsonValue::Undefined);      // Request, Response, ErrorResponse
    QString method;                                         // Request, Notification
    QJsonObject params;                                     // absent params read as {}
    QJsonValue result = QJsonValue(QJsonValue::Undefined);  // Response
    JsonRpcError error;                                     // ErrorResponse

    bool operator==(const McpMessage& other) const {
        return kind == other.kind && id == other.id && method == other.method && params == other.params
               && result == other.result && error == other.error;
    }
};

// What parsing one message ends as: the message, or the error to answer it with.
using McpParsed = std::variant<McpMessage, JsonRpcError>;

}  // namespace zeus
