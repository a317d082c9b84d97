// libFuzzer target for the MCP codec and one connection's state: any byte string must end as a message or a
// JSON-RPC error, never a crash, a sanitizer report or a hang. Beyond not crashing it checks what a transport
// relies on: an accepted message survives serialise -> parse unchanged, every reply is one line of valid JSON
// with the right shape, and the state answers exactly the requests.
#include "mcp/mcpcodec.h"
#include "mcp/mcpserverstate.h"

#include <QJsonDocument>

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

void checkReply(const QJsonObject& reply) {
    const QByteArray text = McpCodec::toBytes(reply);
    if (text.contains('\n') || !QJsonDocument::fromJson(text).isObject()) {
        std::abort();
    }
    if (reply.contains(QLatin1String("error"))) {
        const QJsonObject error = reply.value(QLatin1String("error")).toObject();
        const QString message = error.value(QLatin1String("message")).toString();
        if (message.isEmpty() || message.size() > 300 || !error.value(QLatin1String("code")).isDouble()) {
            std::abort();
        }
    } else if (!reply.contains(QLatin1String("result"))) {
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray text(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const McpParsed parsed = McpCodec::parse(text);

    if (const auto* message = std::get_if<McpMessage>(&parsed)) {
        const McpParsed again = McpCodec::parse(McpCodec::toBytes(McpCodec::toJson(*message)));
        if (!std::holds_alternative<McpMessage>(again) || !(std::get<McpMessage>(again) == *message)) {
            std::abort();
        }
    }

    // Fresh, then past the handshake, so tools/call and cancellation are reached too.
    McpServerState fresh;
    McpServerState ready;
    ready.handle(QByteArray(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"x"}})"));
    ready.handle(QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"c"}}})"));
    for (McpServerState* state : {&fresh, &ready}) {
        const McpServerState::Outcome outcome = state->handle(parsed);
        const auto* message = std::get_if<McpMessage>(&parsed);
        const bool isRequest = message && message->kind == McpMessage::Kind::Request;
        const bool answered = !outcome.reply.isEmpty();
        if (answered) {
            checkReply(outcome.reply);
        }
        // A request gets a reply or becomes a call, never both; a notification or a response gets neither.
        if (isRequest && answered == outcome.call.has_value()) {
            std::abort();
        }
        if (message && !isRequest && (answered || outcome.call)) {
            std::abort();
        }
        if (outcome.call && outcome.call->requestId != message->id) {
            std::abort();
        }
    }
    return 0;
}
