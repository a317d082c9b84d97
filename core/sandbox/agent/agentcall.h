#pragma once

#include "support/outputstream.h"

#include <QByteArray>
#include <QString>

namespace zeus {

namespace agentframe {
struct AgentFrame;
}

// One call as the AgentChannel sees it: where the frames of its channel go. CommandExecution is the
// one implementation; the interface keeps the channel free of what a call does with its output.
// Every method is called from the channel's thread, and after agentExited() or agentFailed() none is
// called again.
class AgentCall {
public:
    virtual ~AgentCall() = default;
    virtual void agentStarted(quint32 pid) = 0;
    virtual void agentOutput(OutputStream stream, const QByteArray& data) = 0;
    virtual void agentExited(const agentframe::AgentFrame& exit) = 0;
    // The call ends without an exit: the agent refused it (channelLost false: its message says why), or the
    // agent itself is gone (channelLost true: the command's fate is unknown).
    virtual void agentFailed(const QString& message, bool channelLost) = 0;
};

}  // namespace zeus
