#include "sandbox/agent/agentframe.h"

#include <QtEndian>

namespace zeus::agentframe {

namespace {

void putU32(QByteArray& out, quint32 value) {
    char bytes[4];
    qToBigEndian(value, bytes);
    out.append(bytes, 4);
}

quint32 getU32(const char* at) {
    return qFromBigEndian<quint32>(at);
}

void putString(QByteArray& out, const QByteArray& text) {
    putU32(out, quint32(text.size()));
    out.append(text);
}

}  // namespace

QByteArray anyFrame(Type type, quint32 channel, const QByteArray& payload) {
    QByteArray out;
    out.reserve(kHeaderSize + payload.size());
    putU32(out, quint32(payload.size()));
    out.append(char(type));
    putU32(out, channel);
    out.append(payload);
    return out;
}

QByteArray execFrame(quint32 channel, const QByteArray& command, const QList<QByteArray>& environment,
                     quint32 timeoutMs, quint32 graceMs, quint32 flags) {
    QByteArray payload;
    qsizetype size = 20 + command.size();
    for (const QByteArray& entry : environment) {
        size += 4 + entry.size();
    }
    payload.reserve(size);
    putU32(payload, timeoutMs);
    putU32(payload, graceMs);
    putU32(payload, flags);
    putU32(payload, quint32(environment.size()));
    for (const QByteArray& entry : environment) {
        putString(payload, entry);
    }
    putString(payload, command);
    return anyFrame(Type::Exec, channel, payload);
}

QByteArray stdinFrame(quint32 channel, const QByteArray& data) {
    return anyFrame(Type::Stdin, channel, data);
}

QByteArray signalFrame(quint32 channel, quint32 signalNumber) {
    QByteArray payload;
    putU32(payload, signalNumber);
    return anyFrame(Type::Signal, channel, payload);
}

QByteArray stopFrame(quint32 channel, quint32 graceMs) {
    QByteArray payload;
    putU32(payload, graceMs);
    return anyFrame(Type::Stop, channel, payload);
}

QByteArray windowFrame(quint32 channel, quint32 bytes) {
    QByteArray payload;
    putU32(payload, bytes);
    return anyFrame(Type::Window, channel, payload);
}

QByteArray closeFrame() {
    return anyFrame(Type::Close, 0, {});
}

ListenerKind exposeKind(quint16 port) {
    return ListenerKind(quint32(ListenerKind::Expose) | port);
}

quint16 exposedPort(ListenerKind kind) {
    const auto value = quint32(kind);
    return (value & 0xFFFF0000U) == quint32(ListenerKind::Expose) ? quint16(value & 0xFFFFU) : 0;
}

QByteArray listenFrame(quint16 port, ListenerKind kind) {
    QByteArray payload;
    putU32(payload, port);
    putU32(payload, quint32(kind));
    return anyFrame(Type::Listen, 0, payload);
}

QByteArray tunnelDataFrame(quint32 tunnel, const QByteArray& data) {
    return anyFrame(Type::TunnelData, tunnel, data);
}

QByteArray tunnelCloseFrame(quint32 tunnel) {
    return anyFrame(Type::TunnelClose, tunnel, {});
}

QByteArray tunnelConnectFrame(quint32 tunnel, quint16 port) {
    QByteArray payload;
    putU32(payload, port);
    return anyFrame(Type::TunnelConnect, tunnel, payload);
}

QByteArray laneFrame(const QByteArray& key, const QByteArray& path) {
    return anyFrame(Type::Lane, 0, key + path);
}

QByteArray laneSwitchFrame() {
    return anyFrame(Type::Lane, 0, {});
}

QByteArray tunnelHandOffFrame(quint32 tunnel) {
    return anyFrame(Type::TunnelHandOff, tunnel, {});
}

QByteArray tunnelHandedFrame(quint32 tunnel) {
    return anyFrame(Type::TunnelHanded, tunnel, {});
}

QByteArray laneAnswerFrame(quint32 error) {
    QByteArray payload;
    putU32(payload, error);
    return anyFrame(Type::LaneOut, 0, payload);
}

QByteArray laneSwitchedFrame() {
    return anyFrame(Type::LaneOut, 0, {});
}

QByteArray tunnelConnectedFrame(quint32 tunnel, quint32 error) {
    QByteArray payload;
    putU32(payload, error);
    return anyFrame(Type::TunnelConnected, tunnel, payload);
}

QByteArray tunnelOpenFrame(quint32 tunnel, ListenerKind kind) {
    QByteArray payload;
    putU32(payload, quint32(kind));
    return anyFrame(Type::TunnelOpen, tunnel, payload);
}

QByteArray tunnelOutFrame(quint32 tunnel, const QByteArray& data) {
    return anyFrame(Type::TunnelDataOut, tunnel, data);
}

QByteArray tunnelClosedFrame(quint32 tunnel) {
    return anyFrame(Type::TunnelClosed, tunnel, {});
}

QByteArray listeningFrame(quint16 port, quint32 error) {
    QByteArray payload;
    putU32(payload, port);
    putU32(payload, error);
    return anyFrame(Type::Listening, 0, payload);
}

QByteArray helloFrame(quint32 protocol, const QByteArray& version) {
    QByteArray payload;
    putU32(payload, protocol);
    payload.append(version);
    return anyFrame(Type::Hello, 0, payload);
}

QByteArray startedFrame(quint32 channel, quint32 pid) {
    QByteArray payload;
    putU32(payload, pid);
    return anyFrame(Type::Started, channel, payload);
}

QByteArray outputFrame(quint32 channel, OutputStream stream, const QByteArray& data) {
    return anyFrame(stream == OutputStream::Stdout ? Type::Stdout : Type::Stderr, channel, data);
}

QByteArray exitFrame(quint32 channel, bool signalled, qint32 value, ExitReason reason) {
    QByteArray payload;
    payload.append(char(signalled ? 1 : 0));
    putU32(payload, quint32(value));
    payload.append(char(reason));
    return anyFrame(Type::Exit, channel, payload);
}

QByteArray errorFrame(quint32 channel, const QByteArray& message) {
    return anyFrame(Type::Error, channel, message);
}

namespace {

// `lane` from the agent, on channel 0: 4 bytes (its connect's answer) or none (the switch).
// A tunnel the agent opened (never one with the app's bit) on a listener of a kind the app asked for.
bool parseTunnelOpen(AgentFrame& frame, const QByteArray& payload) {
    const quint32 kind = payload.size() == 4 ? getU32(payload.constData()) : 0;
    if ((frame.channel & kTunnelBit) == 0 || (frame.channel & kTunnelAppBit) != 0
        || (kind != quint32(ListenerKind::HttpProxy) && kind != quint32(ListenerKind::Socks5)
            && exposedPort(ListenerKind(kind)) == 0)) {
        return false;
    }
    frame.type = Type::TunnelOpen;
    frame.value = kind;
    return true;
}

bool parseLaneOut(AgentFrame& frame, const QByteArray& payload) {
    if (frame.channel != 0 || (!payload.isEmpty() && payload.size() != 4)) {
        return false;
    }
    frame.type = Type::LaneOut;
    frame.switched = payload.isEmpty();
    frame.error = frame.switched ? 0 : getU32(payload.constData());
    return true;
}

}  // namespace

std::optional<AgentFrame> parse(quint8 type, quint32 channel, const QByteArray& payload, QString* why) {
    const auto refuse = [why](const QString& message) {
        *why = message;
        return std::optional<AgentFrame>();
    };
    AgentFrame frame;
    frame.channel = channel;
    // A call's frames name a call's channel; a tunnel's name a tunnel (the agent's ids, with the tunnel bit).
    const auto needsCall = [&]() { return channel == 0 || (channel & kTunnelBit) != 0; };
    const auto needsTunnel = [&]() { return (channel & kTunnelBit) == 0; };
    // The tunnels the app asked for carry kTunnelAppBit; the agent opens only tunnels of its own, without it.
    const auto needsAppTunnel = [&]() {
        return (channel & (kTunnelBit | kTunnelAppBit)) != (kTunnelBit | kTunnelAppBit);
    };
    switch (type) {
        case quint8(Type::Hello):
            if (channel != 0 || payload.size() < 4 || payload.size() > 4 + 128) {
                return refuse(QStringLiteral("malformed hello frame"));
            }
            frame.type = Type::Hello;
            frame.value = getU32(payload.constData());
            frame.text = QString::fromUtf8(payload.mid(4));
            return frame;
        case quint8(Type::Started):
            if (needsCall() || payload.size() != 4) {
                return refuse(QStringLiteral("malformed started frame"));
            }
            frame.type = Type::Started;
            frame.value = getU32(payload.constData());
            return frame;
        case quint8(Type::Stdout):
        case quint8(Type::Stderr):
            if (needsCall() || payload.isEmpty() || quint32(payload.size()) > kMaxDataChunk) {
                return refuse(QStringLiteral("malformed output frame"));
            }
            frame.type = Type(type);
            frame.data = payload;
            return frame;
        case quint8(Type::Exit): {
            if (needsCall() || payload.size() != 6) {
                return refuse(QStringLiteral("malformed exit frame"));
            }
            const auto how = quint8(payload.at(0));
            const auto reason = quint8(payload.at(5));
            if (how > 1 || reason > quint8(ExitReason::Stopped)) {
                return refuse(QStringLiteral("malformed exit frame"));
            }
            frame.type = Type::Exit;
            frame.signalled = how == 1;
            frame.exitCode = qint32(getU32(payload.constData() + 1));
            frame.value = quint32(frame.exitCode);
            frame.exitReason = reason;
            if (frame.signalled && (frame.exitCode <= 0 || frame.exitCode > 64)) {
                return refuse(QStringLiteral("malformed exit frame (signal %1)").arg(frame.exitCode));
            }
            return frame;
        }
        case quint8(Type::Error):
            if (payload.size() > 1024) {
                return refuse(QStringLiteral("malformed error frame"));
            }
            frame.type = Type::Error;
            frame.text = QString::fromUtf8(payload);
            return frame;
        case quint8(Type::AgentWindow):
            if (channel == 0 || payload.size() != 4) {
                return refuse(QStringLiteral("malformed window frame"));
            }
            frame.type = Type::AgentWindow;
            frame.value = getU32(payload.constData());
            return frame;
        case quint8(Type::TunnelOpen):
            return parseTunnelOpen(frame, payload) ? std::optional(frame)
                                                   : refuse(QStringLiteral("malformed tunnel open frame"));
        case quint8(Type::TunnelDataOut):
            if (needsTunnel() || quint32(payload.size()) > kMaxDataChunk) {
                return refuse(QStringLiteral("malformed tunnel data frame"));
            }
            frame.type = Type::TunnelDataOut;
            frame.data = payload;
            return frame;
        case quint8(Type::TunnelClosed):
            if (needsTunnel() || !payload.isEmpty()) {
                return refuse(QStringLiteral("malformed tunnel closed frame"));
            }
            frame.type = Type::TunnelClosed;
            return frame;
        case quint8(Type::TunnelHanded):
            if (needsTunnel() || !payload.isEmpty()) {
                return refuse(QStringLiteral("malformed tunnel handed frame"));
            }
            frame.type = Type::TunnelHanded;
            return frame;
        case quint8(Type::TunnelConnected):
            if (needsAppTunnel() || payload.size() != 4) {
                return refuse(QStringLiteral("malformed tunnel connected frame"));
            }
            frame.type = Type::TunnelConnected;
            frame.error = getU32(payload.constData());
            return frame;
        case quint8(Type::Listening):
            if (channel != 0 || payload.size() != 8) {
                return refuse(QStringLiteral("malformed listening frame"));
            }
            frame.type = Type::Listening;
            frame.value = getU32(payload.constData());
            frame.error = getU32(payload.constData() + 4);
            if (frame.value == 0 || frame.value > 65535) {
                return refuse(QStringLiteral("malformed listening frame"));
            }
            return frame;
        case quint8(Type::LaneOut):
            return parseLaneOut(frame, payload) ? std::optional(frame) : refuse(QStringLiteral("malformed lane frame"));
        default:
            return refuse(QStringLiteral("unknown frame type 0x%1").arg(type, 2, 16, QLatin1Char('0')));
    }
}

void Reader::feed(const QByteArray& bytes) {
    if (failed()) {
        return;
    }
    if (m_offset > 0 && m_offset == m_buffer.size()) {
        m_buffer.clear();
        m_offset = 0;
    }
    m_buffer.append(bytes);
}

std::optional<AgentFrame> Reader::fail(const QString& why) {
    m_error = why;
    m_buffer.clear();
    m_offset = 0;
    return std::nullopt;
}

std::optional<AgentFrame> Reader::next() {
    if (failed()) {
        return std::nullopt;
    }
    const qsizetype available = m_buffer.size() - m_offset;
    if (available < kHeaderSize) {
        return std::nullopt;
    }
    const char* header = m_buffer.constData() + m_offset;
    const quint32 length = getU32(header);
    if (length > kMaxAgentPayload) {
        return fail(QStringLiteral("frame of %1 bytes is over the limit of %2").arg(length).arg(kMaxAgentPayload));
    }
    if (available < kHeaderSize + qsizetype(length)) {
        return std::nullopt;
    }
    const auto type = quint8(header[4]);
    const quint32 channel = getU32(header + 5);
    const QByteArray payload = m_buffer.mid(m_offset + kHeaderSize, length);
    m_offset += kHeaderSize + qsizetype(length);
    if (m_offset == m_buffer.size()) {
        m_buffer.clear();
        m_offset = 0;
    } else if (m_offset > 256 * 1024) {
        m_buffer.remove(0, m_offset);  // consumed bytes do not pile up behind a long stream of frames
        m_offset = 0;
    }
    QString why;
    std::optional<AgentFrame> frame = parse(type, channel, payload, &why);
    if (!frame) {
        return fail(why);
    }
    return frame;
}

}  // namespace zeus::agentframe
