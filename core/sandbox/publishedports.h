#pragma once

#include "sandbox/portspec.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QUrl>

class QTcpServer;
class QTcpSocket;

namespace zeus {

class AgentChannel;

// The published ports of one session (SPEC §8 "Ports"): for each, a listener on 127.0.0.1:HOST_PORT on this
// computer whose connections the session's agent carries to 127.0.0.1:CONTAINER_PORT in its container.
//
// Owns the listeners and the connections they accepted (PortConnection). Listens on QHostAddress::LocalHost only,
// never another interface, so the port is as reachable as `docker run -p 127.0.0.1:…`: from this computer, by any
// of its users. Connections accepted while the session's agent starts wait for it (a few, briefly); without an
// agent they are closed. Everything closes with closeAll(), which the session calls when its container goes.
// Must never decide who may publish (the caller asks the user or the flag), nor listen on anything but loopback.
class PublishedPorts : public QObject {
    Q_OBJECT

public:
    struct Port {
        quint16 hostPort = 0;  // the port it listens on (the one picked, when 0 was asked)
        quint16 containerPort = 0;
        QUrl url() const;  // http://127.0.0.1:HOST_PORT/
    };

    // Listeners per session: each is a descriptor of the app, and a backend allowed to publish must not spend them
    // all (SPEC §7's limits).
    static constexpr int kMaxPorts = 16;

    explicit PublishedPorts(QObject* parent = nullptr);
    ~PublishedPorts() override;

    // Starts listening for spec. The same container port published twice is the one listener already open.
    // nullopt and *error when the host port cannot be had (in use, not allowed), or kMaxPorts are open.
    std::optional<Port> open(const PortSpec& spec, QString* error);
    QList<Port> ports() const;
    bool isEmpty() const { return m_listeners.isEmpty(); }
    // The agent that carries the connections from now on (null: none now). Waiting connections start through it.
    void setAgent(AgentChannel* agent);
    // No agent will come (exec mode, or it could not start): waiting connections are closed, and so is every new
    // one until setAgent().
    void setUnavailable();
    // Closes every listener and connection (the container is gone).
    void closeAll();

Q_SIGNALS:
    void portsChanged();
    // A connection found nothing listening on the container's port (errno of its connect), said once per port
    // until a connection gets through again.
    void containerRefused(quint16 containerPort, quint32 error);

private:
    struct Listener {
        QTcpServer* server = nullptr;
        Port port;
        bool refusedSaid = false;
    };
    struct Waiting {
        QPointer<QTcpSocket> socket;
        quint16 containerPort = 0;
    };
    void onNewConnection(QTcpServer* server);
    void carry(QTcpSocket* socket, quint16 containerPort);
    void onRefused(quint16 containerPort, quint32 error);

    QList<Listener> m_listeners;
    QList<Waiting> m_waiting;
    QPointer<AgentChannel> m_agent;
    bool m_unavailable = false;
};

}  // namespace zeus
