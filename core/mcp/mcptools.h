#pragma once

#include "mcp/mcpmessage.h"
#include "mcp/mcptoolcall.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLatin1String>

#include <optional>
#include <variant>

namespace zeus {

// The tools an MCP client sees (SPEC §12): their definitions with JSON Schemas, and the validation of a
// tools/call against them into an McpToolCall. The argument limits are the backend protocol's (Protocol), so a
// command refused on one path is refused on the other. Pure functions; nothing here runs a tool.
class McpTools {
public:
    static constexpr int kMaxPaths = 4096;            // apply_changes.paths: entries
    static constexpr int kMaxReasonLength = 1024;     // notifications/cancelled reason: characters
    static constexpr int kMaxProgressMessage = 4096;  // notifications/progress message: characters

    McpTools() = delete;

    static QLatin1String name(McpTool tool);
    static std::optional<McpTool> fromName(const QString& name);

    // The `tools` array of a tools/list result.
    static QJsonArray definitions();

    // tools/call's params for the request `requestId`: a known tool with arguments of the right types and
    // no other, or -32602 naming the first problem.
    static std::variant<McpToolCall, JsonRpcError> parseCall(const QJsonValue& requestId, const QJsonObject& params);

    // notifications/cancelled's params; nullopt when malformed (a notification is never answered).
    static std::optional<McpCancel> parseCancel(const QJsonObject& params);

    // notifications/progress for `call`, or nullopt when the client sent no progress token. `progress` must grow
    // from one notification to the next (MCP); a message longer than kMaxProgressMessage is cut.
    static std::optional<QJsonObject> progressNotification(const McpToolCall& call, double progress,
                                                           const QString& message);
};

}  // namespace zeus
