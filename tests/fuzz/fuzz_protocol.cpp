// libFuzzer target for Protocol::parseIncoming: any byte string must end as a message or a ProtocolError, never
// a crash, a sanitizer report or a hang. Beyond not crashing it checks two properties that the dispatcher relies
// on: an accepted message survives serialise -> parse unchanged, and the error reply to a rejected one is a
// small, valid JSON object.
#include "backend/protocol.h"

#include <QJsonDocument>

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

QJsonObject serialise(const IncomingMessage& message) {
    return std::visit(
        [](const auto& m) -> QJsonObject {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, ProtocolError>)
                return Protocol::makeError(m);
            else
                return Protocol::toJson(m);
        },
        message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray frame(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const IncomingMessage parsed = Protocol::parseIncoming(frame);
    const QByteArray again = Protocol::toFrame(serialise(parsed));

    if (const auto* error = std::get_if<ProtocolError>(&parsed)) {
        if (error->message.isEmpty() || error->message.size() > 300)
            std::abort();
        if (!error->callId.isEmpty() && !Protocol::isValidId(error->callId))
            std::abort();
        if (!QJsonDocument::fromJson(again).isObject())
            std::abort();
        return 0;
    }
    if (!(Protocol::parseIncoming(again) == parsed))
        std::abort();
    return 0;
}
