#include "sandbox/publishedports.h"

#include "sandbox/agent/agentchannel.h"
#include "sandbox/portconnection.h"
#include "support/logging.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>

namespace zeus {

namespace {
// Connections that may wait for the session's agent to start; past it they are closed (the browser retries).
constexpr int kMaxWaiting = 32;
}  // namespace

QUrl PublishedPorts::Port::url() const {
    return QUrl(QStringLiteral("http://127.0.0.1:%1/").arg(hostPort));
}

PublishedPorts::PublishedPorts(QObject* parent) : QObject(parent) {}

PublishedPorts::~PublishedPorts() {
    closeAll();
}

std::optional<PublishedPorts::Port> PublishedPorts::open(const PortSpec& spec, QString* error) {
    for (const Listener& listener : std::as_const(m_listeners)) {
        if (listener.port.containerPort == spec.containerPort
            && (spec.hostPort == 0 || spec.hostPort == listener.port.hostPort)) {
            return listener.port;
        }
    }
    if (m_listeners.size() >= kMaxPorts) {
        if (error != nullptr) {
            *error = QStringLiteral("at most %1 ports are published per session; close the session to free them")
                         .arg(kMaxPorts);
        }
        return std::nullopt;
    }
    auto* server = new QTcpServer(this);
    // Loopback only (SPEC §8): never QHostAddress::Any, so no other machine can reach the sandbox.
    if (!server->listen(QHostAddress(QHostAddress::LocalHost), spec.hostPort)) {
        if (error != nullptr) {
            *error = QStringLiteral("cannot listen on 127.0.0.1:%1: %2").arg(spec.hostPort).arg(server->errorString());
        }
        delete server;
        return std::nullopt;
    }
    Listener listener;
    listener.server = server;
    listener.port.hostPort = server->serverPort();
    listener.port.containerPort = spec.containerPort;
    m_listeners.append(listener);
    connect(server, &QTcpServer::newConnection, this, [this, server] { onNewConnection(server); });
    qCInfo(lcSession) << "published 127.0.0.1:" << listener.port.hostPort << "to container port" << spec.containerPort;
    Q_EMIT portsChanged();
    return listener.port;
}

QList<PublishedPorts::Port> PublishedPorts::ports() const {
    QList<Port> ports;
    for (const Listener& listener : m_listeners) {
        ports.append(listener.port);
    }
    return ports;
}

void PublishedPorts::setAgent(AgentChannel* agent) {
    m_agent = agent;
    if (agent == nullptr) {
        return;
    }
    m_unavailable = false;
    const QList<Waiting> waiting = std::exchange(m_waiting, {});
    for (const Waiting& entry : waiting) {
        if (entry.socket) {
            carry(entry.socket, entry.containerPort);
        }
    }
}

void PublishedPorts::setUnavailable() {
    m_agent.clear();
    m_unavailable = true;
    const QList<Waiting> waiting = std::exchange(m_waiting, {});
    for (const Waiting& entry : waiting) {
        if (entry.socket) {
            entry.socket->abort();
            entry.socket->deleteLater();
        }
    }
}

void PublishedPorts::closeAll() {
    const bool had = !m_listeners.isEmpty();
    const QList<Listener> listeners = std::exchange(m_listeners, {});
    for (const Listener& listener : listeners) {
        listener.server->close();
        delete listener.server;
    }
    setUnavailable();
    m_unavailable = false;
    // The connections end with their listeners: a container that is gone serves nothing.
    const QList<PortConnection*> connections = findChildren<PortConnection*>(Qt::FindDirectChildrenOnly);
    qDeleteAll(connections);
    if (had) {
        Q_EMIT portsChanged();
    }
}

void PublishedPorts::onNewConnection(QTcpServer* server) {
    quint16 containerPort = 0;
    for (const Listener& listener : std::as_const(m_listeners)) {
        if (listener.server == server) {
            containerPort = listener.port.containerPort;
        }
    }
    while (QTcpSocket* socket = server->nextPendingConnection()) {
        if (containerPort == 0) {
            socket->abort();
            socket->deleteLater();
            continue;
        }
        if (m_agent && m_agent->state() == AgentChannel::State::Ready) {
            carry(socket, containerPort);
        } else if (!m_unavailable && m_waiting.size() < kMaxWaiting) {
            socket->setParent(this);
            m_waiting.append({socket, containerPort});
        } else {
            socket->abort();
            socket->deleteLater();
        }
    }
}

void PublishedPorts::carry(QTcpSocket* socket, quint16 containerPort) {
    auto* connection = new PortConnection(socket, m_agent, containerPort, this);
    connect(connection, &PortConnection::refused, this,
            [this, containerPort](quint32 error) { onRefused(containerPort, error); });
    connection->start();
}

void PublishedPorts::onRefused(quint16 containerPort, quint32 error) {
    for (Listener& listener : m_listeners) {
        if (listener.port.containerPort == containerPort && !listener.refusedSaid) {
            listener.refusedSaid = true;
            Q_EMIT containerRefused(containerPort, error);
        }
    }
}

}  // namespace zeus
