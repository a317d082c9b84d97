// libFuzzer target for agentframe::Reader, the app's parser of what the sandbox agent sends (an untrusted program
// in the container). Any byte string, fed in any split, must end as frames or one protocol error: never a crash,
// a sanitizer report, a hang or a buffer beyond what was fed. Beyond not crashing it checks what AgentChannel
// relies on: an accepted frame keeps its limits and encodes back to a frame that parses the same, the same bytes
// give the same frames however they are split, and after an error nothing more comes out.
#include "sandbox/agent/agentframe.h"

#include <QtEndian>

#include <cstdint>
#include <cstdlib>

using namespace zeus;
using namespace zeus::agentframe;

namespace {

QByteArray encode(const AgentFrame& frame) {
    switch (frame.type) {
        case Type::Hello: {
            return helloFrame(frame.value, frame.text.toUtf8());
        }
        case Type::Started:
            return startedFrame(frame.channel, frame.value);
        case Type::Stdout:
            return outputFrame(frame.channel, OutputStream::Stdout, frame.data);
        case Type::Stderr:
            return outputFrame(frame.channel, OutputStream::Stderr, frame.data);
        case Type::Exit:
            return exitFrame(frame.channel, frame.signalled, frame.exitCode, ExitReason(frame.exitReason));
        case Type::Error:
            return errorFrame(frame.channel, frame.text.toUtf8());
        case Type::AgentWindow: {
            char bytes[4];
            qToBigEndian(frame.value, bytes);
            return anyFrame(Type::AgentWindow, frame.channel, QByteArray(bytes, 4));
        }
        case Type::TunnelOpen:
            return tunnelOpenFrame(frame.channel, ListenerKind(frame.value));
        case Type::TunnelDataOut:
            return tunnelOutFrame(frame.channel, frame.data);
        case Type::TunnelClosed:
            return tunnelClosedFrame(frame.channel);
        case Type::Listening:
            return listeningFrame(quint16(frame.value), frame.error);
        case Type::TunnelConnected:
            return tunnelConnectedFrame(frame.channel, frame.error);
        case Type::LaneOut:
            return frame.switched ? laneSwitchedFrame() : laneAnswerFrame(frame.error);
        case Type::TunnelHanded:
            return tunnelHandedFrame(frame.channel);
        // No default: a new type the reader returns fails to compile here (-Wswitch) until it encodes.
        case Type::Exec:
        case Type::Stdin:
        case Type::Signal:
        case Type::Stop:
        case Type::Window:
        case Type::Close:
        case Type::Listen:
        case Type::TunnelData:
        case Type::TunnelClose:
        case Type::TunnelConnect:
        case Type::Lane:
        case Type::TunnelHandOff:
            break;  // the reader never returns an app -> agent type
    }
    std::abort();
}

struct Outcome {
    QList<AgentFrame> frames;
    bool failed = false;
};

Outcome readAll(const QByteArray& bytes, int step) {
    Reader reader;
    Outcome outcome;
    for (qsizetype at = 0; at < bytes.size(); at += step) {
        reader.feed(bytes.mid(at, step));
        if (reader.buffered() > bytes.size()) {
            std::abort();
        }
        while (const auto frame = reader.next()) {
            if (outcome.failed) {
                std::abort();
            }
            outcome.frames << *frame;
        }
        outcome.failed = reader.failed();
    }
    return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) {
        return 0;
    }
    // The first byte picks the split; the rest is the stream.
    const int step = 1 + data[0] % 64;
    const QByteArray bytes(reinterpret_cast<const char*>(data + 1), static_cast<qsizetype>(size - 1));
    const Outcome whole = readAll(bytes, int(bytes.size()) + 1);
    const Outcome split = readAll(bytes, step);
    if (whole.frames.size() != split.frames.size() || whole.failed != split.failed) {
        std::abort();
    }
    for (const AgentFrame& frame : whole.frames) {
        if (frame.data.size() > qsizetype(kMaxDataChunk)) {
            std::abort();
        }
        const QByteArray again = encode(frame);
        Reader reader;
        reader.feed(again);
        const auto reparsed = reader.next();
        // Hello and error texts went through UTF-8 decoding: compare what survives a round trip.
        if (!reparsed || reparsed->type != frame.type || reparsed->channel != frame.channel
            || reparsed->data != frame.data || reparsed->value != frame.value || reparsed->exitCode != frame.exitCode
            || reparsed->switched != frame.switched || reparsed->error != frame.error) {
            if (frame.type != Type::Hello && frame.type != Type::Error) {
                std::abort();
            }
        }
    }
    return 0;
}
