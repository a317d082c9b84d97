#pragma once

#include <QByteArray>

namespace zeus {

// One egress tunnel as the AgentChannel sees it (docs/agent-protocol.md "Tunnels"): a connection a command
// made to a proxy listener of the agent. The egress proxy implements it; the channel only moves bytes and
// windows. Every method is called from the channel's thread; after tunnelClosed() none is called again.
class AgentTunnel {
public:
    virtual ~AgentTunnel() = default;
    // Bytes the client sent (at most the window the app granted); empty: the client is done sending.
    virtual void tunnelData(const QByteArray& data) = 0;
    // The agent took bytes off the app's hands: AgentChannel::tunnelRoom() grew.
    virtual void tunnelWritable() = 0;
    // The agent ended the tunnel (both sides done, or a socket error), or the agent itself is gone.
    virtual void tunnelClosed() = 0;
};

}  // namespace zeus
