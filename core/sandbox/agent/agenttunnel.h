#pragma once

#include <QByteArray>
#include <QtGlobal>

namespace zeus {

// One tunnel as the AgentChannel sees it (docs/agent-protocol.md "Tunnels"): a connection a command made to a
// proxy listener of the agent (the egress proxy implements it), or one the app asked the agent to make to a port
// on the container's loopback (a published port, PortForward). The channel only moves bytes and windows. Every method
// is called from the channel's thread; after tunnelClosed() none is called again.
class AgentTunnel {
public:
    virtual ~AgentTunnel() = default;
    // Bytes the client sent (at most the window the app granted); empty: the client is done sending.
    virtual void tunnelData(const QByteArray& data) = 0;
    // The agent took bytes off the app's hands: AgentChannel::tunnelRoom() grew.
    virtual void tunnelWritable() = 0;
    // The agent ended the tunnel (both sides done, or a socket error), or the agent itself is gone.
    virtual void tunnelClosed() = 0;
    // A tunnel the app asked for (AgentChannel::connectTunnel): the agent's answer. 0: connected, bytes may flow;
    // else the errno of the connect in the container, and the tunnel is over (no tunnelClosed() follows).
    virtual void tunnelConnected(quint32 error) { Q_UNUSED(error) }
    // The agent handed the client's socket over (AgentChannel::handOverTunnel()); the tunnel is over on the channel
    // and nothing more is called. True: the handler took `descriptor` (and closes it); false: the channel closes it.
    virtual bool tunnelHandedOver(int descriptor) {
        Q_UNUSED(descriptor)
        return false;
    }
};

}  // namespace zeus
