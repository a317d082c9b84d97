#pragma once

#include "support/outputstream.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <cstdint>
#include <optional>

namespace zeus {

// The frames of the sandbox agent protocol (docs/agent-protocol.md), as pure functions: frames to
// bytes for what the app sends, and an incremental reader for what the agent sends. The agent is
// untrusted input: the reader enforces the frame size limit and rejects anything version 1 does
// not define, and never allocates more than one frame's worth ahead of the bytes it was given.
namespace agentframe {

inline constexpr quint32 kProtocolVersion = 4;
inline constexpr int kHeaderSize = 9;
// Limits of docs/agent-protocol.md.
inline constexpr quint32 kMaxAgentPayload = 64 * 1024;  // agent -> app
inline constexpr quint32 kMaxAppPayload = 1024 * 1024;  // app -> agent
inline constexpr quint32 kMaxDataChunk = 32 * 1024;     // one stdout/stderr frame
inline constexpr quint32 kInitialWindow = 256 * 1024;   // per call and direction
inline constexpr int kMaxChannels = 64;
inline constexpr quint32 kExecFlagStdin = 0x1;
// Egress tunnels (SPEC §8): the agent picks their ids, always with this bit set, so they never meet a call's.
inline constexpr quint32 kTunnelBit = 0x80000000U;
// Tunnels the app asks for (`tunnel connect`: published ports) carry this bit as well; the app picks their ids, the
// agent picks its own below it.
inline constexpr quint32 kTunnelAppBit = 0x40000000U;
inline constexpr int kMaxTunnels = 256;
// What the app may send on a tunnel before the agent wrote it to the client (a download's window; the agent
// buffers it inside the container). The other direction starts at kInitialWindow, like a call.
inline constexpr quint32 kTunnelSendWindow = 2 * 1024 * 1024;
// Listeners at once: the two proxies and at most 16 exposed host ports.
inline constexpr int kMaxListeners = 18;
// The lane (docs/agent-protocol.md "The lane"): the key the agent presents on the app's socket, and the longest
// socket path a `lane` frame may name.
inline constexpr int kLaneKeySize = 32;
inline constexpr int kMaxLanePath = 107;
// Handed-over tunnels (docs/agent-protocol.md "Handing a tunnel over"): client sockets on one write of the agent.
inline constexpr int kMaxPassedSockets = 16;
// What a listener carries: the app reads the first bytes of each tunnel as this protocol. Expose is ORed with the
// container port it listens on (exposeKind()): the agent echoes the kind, so the app knows which exposed port a
// connection came to.
enum class ListenerKind : quint32 { HttpProxy = 1, Socks5 = 2, Expose = 0x30000 };
// The kind of the listener of an exposed host port on container port `port` (1-65535).
ListenerKind exposeKind(quint16 port);
// The container port an exposed host port's kind names, or 0 when kind is not one.
quint16 exposedPort(ListenerKind kind);

// Frame types. App -> agent first, then agent -> app (high bit set).
enum class Type : quint8 {
    Exec = 0x02,
    Stdin = 0x03,
    Signal = 0x04,
    Stop = 0x05,
    Window = 0x06,
    Close = 0x07,
    Listen = 0x08,
    TunnelData = 0x09,
    TunnelClose = 0x0A,
    TunnelConnect = 0x0B,
    Lane = 0x0C,
    TunnelHandOff = 0x0D,
    Hello = 0x81,
    Started = 0x82,
    Stdout = 0x83,
    Stderr = 0x84,
    Exit = 0x85,
    Error = 0x86,
    AgentWindow = 0x87,
    TunnelOpen = 0x88,
    TunnelDataOut = 0x89,
    TunnelClosed = 0x8A,
    Listening = 0x8B,
    TunnelConnected = 0x8C,
    LaneOut = 0x8D,
    TunnelHanded = 0x8E,
};

// One frame from the agent, already checked against the protocol: its payload has the layout its
// type defines, and a channel of 0 only where the type allows it.
struct AgentFrame {
    Type type = Type::Error;
    quint32 channel = 0;
    QByteArray data;         // Stdout / Stderr / TunnelDataOut: the bytes (TunnelDataOut: empty = end of sending)
    quint32 value = 0;       // Hello: protocol; Started: pid; AgentWindow: bytes; TunnelOpen: kind; Listening: port
    quint32 error = 0;       // Listening: 0, or the errno of a failed bind; TunnelConnected, LaneOut: 0, or an errno
    bool switched = false;   // LaneOut: the agent's last frame on stdout (the rest come on the lane)
    QString text;            // Hello: the agent's version; Error: the message
    bool signalled = false;  // Exit: killed by a signal (value: its number) or exited (exitCode)
    int exitCode = 0;        // Exit
    quint8 exitReason = 0;   // Exit: 0 by itself, 1 its timeout passed, 2 stopped
};

// What a call's `exit` frame says.
enum class ExitReason : quint8 { Itself = 0, TimedOut = 1, Stopped = 2 };

// Encoders (app -> agent). Each returns one whole frame.
QByteArray execFrame(quint32 channel, const QByteArray& command, const QList<QByteArray>& environment,
                     quint32 timeoutMs, quint32 graceMs, quint32 flags = 0);
QByteArray stdinFrame(quint32 channel, const QByteArray& data);
QByteArray signalFrame(quint32 channel, quint32 signalNumber);
QByteArray stopFrame(quint32 channel, quint32 graceMs);
QByteArray windowFrame(quint32 channel, quint32 bytes);
QByteArray closeFrame();
// Egress (docs/agent-protocol.md "Tunnels"): listen on 127.0.0.1:port inside the container; bytes for a
// tunnel (empty: the app is done sending); drop a tunnel at once.
QByteArray listenFrame(quint16 port, ListenerKind kind);
QByteArray tunnelDataFrame(quint32 tunnel, const QByteArray& data);
QByteArray tunnelCloseFrame(quint32 tunnel);
// Published ports: connect the app's tunnel (an id with kTunnelBit and kTunnelAppBit) to 127.0.0.1:port in the
// container; `tunnel connected` answers.
QByteArray tunnelConnectFrame(quint32 tunnel, quint16 port);
// The lane: connect to the Unix socket at `path` in the container and present `key` (kLaneKeySize bytes); then, with
// no payload, the switch: every later frame travels on the lane.
QByteArray laneFrame(const QByteArray& key, const QByteArray& path);
QByteArray laneSwitchFrame();
// On the lane only: hand the tunnel's client socket to the app (once what the app sent is written to the client);
// `tunnel handed` answers, with the socket on the lane (SCM_RIGHTS).
QByteArray tunnelHandOffFrame(quint32 tunnel);

// Any frame, for the agent side of tests and the fuzz target's round trip.
QByteArray anyFrame(Type type, quint32 channel, const QByteArray& payload);
QByteArray helloFrame(quint32 protocol, const QByteArray& version);
QByteArray startedFrame(quint32 channel, quint32 pid);
QByteArray outputFrame(quint32 channel, OutputStream stream, const QByteArray& data);
QByteArray exitFrame(quint32 channel, bool signalled, qint32 value, ExitReason reason);
QByteArray errorFrame(quint32 channel, const QByteArray& message);
QByteArray tunnelOpenFrame(quint32 tunnel, ListenerKind kind);
QByteArray tunnelOutFrame(quint32 tunnel, const QByteArray& data);
QByteArray tunnelClosedFrame(quint32 tunnel);
QByteArray listeningFrame(quint16 port, quint32 error);
QByteArray tunnelConnectedFrame(quint32 tunnel, quint32 error);
// The agent's answer to a lane frame (0 or the errno), and its last frame on stdout after the switch.
QByteArray laneAnswerFrame(quint32 error);
QByteArray laneSwitchedFrame();
QByteArray tunnelHandedFrame(quint32 tunnel);

// Reads the agent's byte stream frame by frame. Feed it what the pipe gave; take frames until
// next() returns nothing. After a protocol error it stays failed (the channel is over): the
// stream has no way to resynchronise, and guessing would let a hostile agent smuggle frames.
class Reader {
public:
    void feed(const QByteArray& bytes);
    // The next complete frame, if one is buffered; nullopt when more bytes are needed or on error.
    std::optional<AgentFrame> next();
    bool failed() const { return !m_error.isEmpty(); }
    QString errorString() const { return m_error; }
    // Bytes held for an incomplete frame (never more than one frame's header and payload).
    qsizetype buffered() const { return m_buffer.size() - m_offset; }

private:
    std::optional<AgentFrame> fail(const QString& why);
    QByteArray m_buffer;
    qsizetype m_offset = 0;
    QString m_error;
};

// The payload checks of one frame (exposed for the tests and the fuzz target).
std::optional<AgentFrame> parse(quint8 type, quint32 channel, const QByteArray& payload, QString* why);

}  // namespace agentframe
}  // namespace zeus
