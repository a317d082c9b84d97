#pragma once

#include "mcp/mcpmessage.h"

#include <QByteArray>
#include <QJsonObject>

namespace zeus {

// JSON-RPC 2.0 as MCP's revision 2025-06-18 uses it: parsing and serialisation of one message, as pure functions
// from data to data. It owns the limits of a message. It must never do I/O, log, throw, or trust its input: any
// byte string, however malformed, deep or large, ends as an McpMessage or the JsonRpcError to answer it with.
// It knows nothing of MCP's methods (McpServerState does) and depends on Qt Core only, so the fuzzer builds it
// alone.
class McpCodec {
public:
    static constexpr qsizetype kMaxMessageBytes = 4 * 1024 * 1024;  // one message's UTF-8 text
    static constexpr int kMaxDepth = 64;                            // nested arrays and objects
    static constexpr int kMaxIdLength = 256;                        // a string id: characters
    static constexpr int kMaxMethodLength = 128;                    // a method name: characters
    static constexpr int kMaxErrorMessageLength = 1024;             // an inbound error's message: characters
    // An integer id must be exact in a double (the JSON reader's number type): |id| <= 2^53.
    static constexpr double kMaxIntegerId = 9007199254740992.0;

    McpCodec() = delete;

    // One message's UTF-8 text (a stdio line without its newline, or an HTTP body). A batch (a JSON array) is
    // refused with -32600: the 2025-06-18 revision removed batching.
    static McpParsed parse(const QByteArray& text);

    // Messages to send. Each returns the JSON object; toBytes() makes the text.
    static QJsonObject makeResult(const QJsonValue& id, const QJsonObject& result);
    static QJsonObject makeError(const JsonRpcError& error);
    static QJsonObject makeError(int code, const QString& message, const QJsonValue& id);
    static QJsonObject makeNotification(const QString& method, const QJsonObject& params = {});
    static QJsonObject makeRequest(const QJsonValue& id, const QString& method, const QJsonObject& params = {});
    // Any parsed message back to JSON (a round trip parses to the same message).
    static QJsonObject toJson(const McpMessage& message);

    // Compact UTF-8 text: one line, since compact JSON escapes every newline inside strings (stdio framing).
    static QByteArray toBytes(const QJsonObject& message);

    // A request id MCP accepts: a string of at most kMaxIdLength characters, or an integer number within
    // +-kMaxIntegerId. Also the rule for a progress token and a cancelled request's id.
    static bool isValidId(const QJsonValue& id);

    // The deepest nesting of arrays and objects in `text`, brackets inside strings excluded; stops counting
    // past `limit` (returns limit + 1). Checked before the JSON reader recurses.
    static int nestingDepth(const QByteArray& text, int limit = kMaxDepth);
};

}  // namespace zeus
