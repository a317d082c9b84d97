#include "sandbox/egress/egressproxy.h"

#include "sandbox/agent/agentchannel.h"
#include "sandbox/egress/egressproxytunnel.h"
#include "support/logging.h"

#include <utility>

namespace zeus {

EgressProxy::EgressProxy(QString sessionId, AgentChannel* channel, EgressPolicy policy, QObject* parent)
    : QObject(parent), m_sessionId(std::move(sessionId)), m_channel(channel), m_policy(std::move(policy)) {}

EgressProxy::~EgressProxy() {
    const auto tunnels = std::exchange(m_tunnels, {});
    for (auto it = tunnels.begin(); it != tunnels.end(); ++it) {
        if (m_channel != nullptr) {
            m_channel->closeTunnel(it.key());
        }
        delete it.value();
    }
    if (m_channel != nullptr) {
        m_channel->setTunnelAcceptor({});
    }
}

void EgressProxy::start() {
    if (m_channel == nullptr) {
        return;
    }
    m_channel->setTunnelAcceptor([this](quint32 id, agentframe::ListenerKind kind) -> AgentTunnel* {
        auto* tunnel = new Tunnel(this, id, kind);
        m_tunnels.insert(id, tunnel);
        return tunnel;
    });
    connect(m_channel, &AgentChannel::listening, this, [this](quint16 port, quint32 error) {
        if (error != 0 && (port == kHttpPort || port == kSocksPort)) {  // not an exposed host port's listener
            const QString reason =
                QStringLiteral("the sandbox agent could not listen on 127.0.0.1:%1 (errno %2)").arg(port).arg(error);
            qCWarning(lcSession) << "egress:" << reason;
            Q_EMIT listenFailed(port, reason);
        }
    });
    m_channel->listen(kHttpPort, agentframe::ListenerKind::HttpProxy);
    m_channel->listen(kSocksPort, agentframe::ListenerKind::Socks5);
}

void EgressProxy::forget(quint32 id) {
    m_tunnels.remove(id);
}

}  // namespace zeus
