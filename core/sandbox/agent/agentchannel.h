#pragma once

#include "sandbox/agent/agentframe.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <functional>

namespace zeus {

class AgentCall;
class AgentLane;
class LaneSocket;
class AgentTunnel;
class ContainerRuntime;
class EngineCommand;

// The pipe to one session's sandbox agent (SPEC §7, docs/agent-protocol.md): one
// `ENGINE exec -i CONTAINER AGENT` process for the whole session, frames both ways, channel ids
// for the calls that share it, and the output windows that keep a fast command from growing memory.
//
// Owns the exec process, the frame reader and the table of open channels. It treats the agent as
// untrusted: a frame that breaks the protocol (size, type, an unknown channel, output past its
// window, a second hello) ends the channel like a crash, and every open call is told at once.
// Must never decide policy (which command, which environment: the caller's), never block, never
// outlive a failure quietly: failed() is emitted exactly once, from Starting or Ready.
class AgentChannel : public QObject {
    Q_OBJECT

public:
    // Starting - the exec process runs, the agent's hello has not come yet;
    // Ready    - hello came with this app's protocol: calls may start;
    // Failed   - the agent could not start, spoke another protocol, broke it, or exited.
    enum class State { Starting, Ready, Failed };
    Q_ENUM(State)

    // agentPath: where the agent is inside the container (/run/zeus/agent or the image's copy).
    AgentChannel(const ContainerRuntime& runtime, QString containerId, QString agentPath, QObject* parent = nullptr);
    ~AgentChannel() override;

    void setHandshakeTimeoutMs(int ms) { m_handshake.setInterval(ms); }
    void start();
    State state() const { return m_state; }
    QString version() const { return m_version; }
    QString failureReason() const { return m_failure; }
    int openCalls() const { return int(m_channels.size()); }

    // Starts a command on a new channel; 0 when the channel is not ready or has no free id (then
    // nothing was sent and the call is not registered).
    quint32 exec(AgentCall* call, const QByteArray& command, const QList<QByteArray>& environment, quint32 timeoutMs,
                 quint32 graceMs);
    // TERM to the call's group, KILL of all it left after the grace; its exit follows.
    void stop(quint32 channel, quint32 graceMs);
    // The call is gone: frames still coming for the channel are dropped; the command is stopped.
    void detach(quint32 channel);
    // Flow control: while paused the call's window is not renewed, so the agent stops reading its pipes.
    void setPaused(quint32 channel, bool paused);
    // Ends the agent: every call is stopped and every process they left is killed; the agent exits.
    void close();

    // Egress (SPEC §8). Asks the agent to listen on 127.0.0.1:port in the container; listening() says how it went.
    void listen(quint16 port, agentframe::ListenerKind kind);
    // Who takes the tunnels the agent opens: called once per new tunnel, it returns the tunnel's handler (owned by
    // the caller, alive until tunnelClosed() or closeTunnel()), or null to drop the connection. Without an acceptor
    // every tunnel is dropped.
    using TunnelAcceptor = std::function<AgentTunnel*(quint32 tunnel, agentframe::ListenerKind kind)>;
    void setTunnelAcceptor(TunnelAcceptor acceptor) { m_acceptor = std::move(acceptor); }
    // Who takes the tunnels of exposed host ports (ListenerKind::Expose, SPEC §8 "Ports"), apart from the egress
    // proxy's: a connection to an exposed port is never read as a proxy request, nor a proxy's as an exposed port's.
    void setExposeAcceptor(TunnelAcceptor acceptor) { m_exposeAcceptor = std::move(acceptor); }
    // Bytes the app may send on a tunnel now (the agent's window); sendTunnel() sends at most that much.
    quint32 tunnelRoom(quint32 tunnel) const;
    // Sends bytes to the client (at most tunnelRoom()); empty: the app is done sending (the client reads EOF).
    // Returns the bytes sent.
    qsizetype sendTunnel(quint32 tunnel, const QByteArray& data);
    // The app handed on `bytes` of the client's data: the agent may read that much more from the client.
    void consumedTunnel(quint32 tunnel, quint32 bytes);
    // Drops a tunnel at once (the client's connection is closed); its handler hears nothing more.
    void closeTunnel(quint32 tunnel);
    // Published ports (SPEC §8): asks the agent to connect to 127.0.0.1:port in the container (the frame carries a
    // port only, so no other address can be reached). Returns the new tunnel's id, or 0 when the channel is not
    // ready or at the tunnel limit (nothing was sent). The handler (owned by the caller) hears tunnelConnected()
    // first; until a 0 came, tunnelRoom() is 0.
    quint32 connectTunnel(AgentTunnel* handler, quint16 port);
    int openTunnels() const { return int(m_tunnels.size()); }
    // On the lane only (docs/agent-protocol.md "Handing a tunnel over"): asks the agent for the client's socket of a
    // tunnel the agent opened. From now on nothing more is sent on it (tunnelRoom() is 0); the client's bytes the
    // agent read before still come as data; then the handler's tunnelHandedOver() gets the socket, checked to be a
    // TCP stream socket (anything else breaks the protocol). False when it cannot be asked (off the lane, the tunnel
    // is not open both ways): the tunnel goes on as it was.
    bool handOverTunnel(quint32 tunnel);

    // The lane (docs/agent-protocol.md "The lane"): once the agent said hello, it is asked to connect to the lane's
    // socket with a fresh key, and every frame moves there when it did; else everything stays on the exec pipe and
    // laneReport() says why. Set before start(); null: no lane.
    void setLane(AgentLane* lane);
    // Every frame travels on the lane now.
    bool onLane() const { return m_laneState == LaneState::On; }

Q_SIGNALS:
    void ready();
    void failed(const QString& reason);
    // The answer to listen(): error is 0, or the errno of the failed bind in the container.
    void listening(quint16 port, quint32 error);
    // A line the agent wrote on its stderr (it never writes a command or an environment value there).
    void logLine(const QString& line);
    // What became of the lane, in a sentence for the session log: taken, or why the exec pipe carries the frames.
    void laneReport(const QString& text);

private:
    // Off: no lane (none, refused, failed: the exec pipe carries everything); Offered: the key went to the agent;
    // AgentConnected: the agent connected and presented it; Switching: the app sends on the lane, the agent's last
    // frames on stdout are still coming; On: every frame both ways on the lane.
    enum class LaneState { Off, Offered, AgentConnected, Switching, On };
    struct Channel {
        AgentCall* call = nullptr;  // null once detached
        quint32 credit = agentframe::kInitialWindow;
        quint32 ungranted = 0;  // received and handed on, not yet granted back
        bool paused = false;
        bool widened = false;  // the window was widened past the initial one (first renewal)
    };
    struct Tunnel {
        AgentTunnel* handler = nullptr;
        quint32 room = agentframe::kTunnelSendWindow;  // the app may send this much
        quint32 credit = agentframe::kInitialWindow;   // the agent may send this much
        bool sentEnd = false;
        bool connecting = false;   // connectTunnel(): no answer from the agent yet
        bool handingOver = false;  // handOverTunnel(): the agent's `tunnel handed` is awaited
    };
    void onTunnelHanded(QHash<quint32, Tunnel>::iterator it);
    void handleTunnel(const agentframe::AgentFrame& frame);
    void onInputWritten();
    static constexpr qint64 kMaxInputBacklog = 4 * 1024 * 1024;
    void onOutput(const QByteArray& bytes);
    void onStderr(const QByteArray& bytes);
    void onProcessFinished();
    void handle(const agentframe::AgentFrame& frame);
    void flushOutput();
    void grant(quint32 id, Channel& channel);
    void fail(const QString& reason);
    void send(const QByteArray& frame);
    qint64 pendingInput() const;
    void readFrames();
    void offerLane();
    void onLaneAnswer(const agentframe::AgentFrame& frame);
    void switchToLane();
    void onLaneReadable();
    void stopLane(const QString& why);

    const ContainerRuntime& m_runtime;
    QString m_containerId;
    QString m_agentPath;
    QPointer<EngineCommand> m_process;
    agentframe::Reader m_reader;
    QHash<quint32, Channel> m_channels;
    QHash<quint32, Tunnel> m_tunnels;
    TunnelAcceptor m_acceptor;
    TunnelAcceptor m_exposeAcceptor;
    mutable bool m_tunnelsThrottled = false;  // a tunnel found no room because of the backlog: wake them all
    QTimer m_handshake;
    QPointer<AgentLane> m_lane;
    QPointer<LaneSocket> m_laneSocket;
    LaneState m_laneState = LaneState::Off;
    QTimer m_laneSetup;
    QByteArray m_stderrLine;
    QByteArray m_preamble;
    // Consecutive output frames of one call and stream read in one go, handed on as one chunk at the end of the
    // read (or when another frame comes between): the agent's 32 KiB frames become the pipe-sized chunks plain exec
    // delivers, so a fast command does not cost eight times the tool_output frames. Never held past the read.
    quint32 m_pendingChannel = 0;
    OutputStream m_pendingStream = OutputStream::Stdout;
    QByteArray m_pending;  // the first bytes of stdout, while no hello came: an engine's own error message
    QString m_version;
    QString m_failure;
    State m_state = State::Starting;
    quint32 m_nextId = 1;
    quint32 m_nextAppTunnel = 1;  // connectTunnel()'s ids, below kTunnelAppBit | kTunnelBit
    bool m_closed = false;
};

}  // namespace zeus
