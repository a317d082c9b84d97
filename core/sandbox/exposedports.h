#pragma once

#include "sandbox/agent/agentframe.h"
#include "sandbox/egress/egressproxy.h"
#include "sandbox/exposespec.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

namespace zeus {

class AgentChannel;

// The exposed host services of one session's agent (SPEC §8 "Ports", `--expose-host`): for each ExposeSpec the
// agent listens on 127.0.0.1:CONTAINER_PORT in the container, and each connection it accepts there comes to the
// app as a tunnel that this object connects to 127.0.0.1:HOST_PORT on this computer and relays both ways under the
// tunnel's windows.
//
// Owns the connections it made. It connects to QHostAddress::LocalHost (IPv4 loopback) and the configured host
// port only: the port comes from this session's configuration, looked up by the container port the tunnel's kind
// names, never from the agent or the command. A tunnel for a container port that was not configured (a forged
// frame) is refused and reported as a denial; every accepted connection is reported as allowed, with the rule
// `expose-host`, through decided() like egress. Must never read or judge the bytes, nor reach another address.
class ExposedPorts : public QObject {
    Q_OBJECT

public:
    ExposedPorts(QString sessionId, AgentChannel* channel, QList<ExposeSpec> specs, QObject* parent = nullptr);
    ~ExposedPorts() override;

    // Takes the agent's exposed-port tunnels from now on (forged ones included, to refuse them aloud) and asks
    // the agent to listen on each container port.
    void start();
    QList<ExposeSpec> specs() const { return m_specs; }
    int openConnections() const { return int(m_connections.size()); }
    void setConnectTimeoutMs(int ms) { m_connectTimeoutMs = ms; }

    // The rule of every row this object reports.
    static QString ruleName() { return QStringLiteral("expose-host"); }

Q_SIGNALS:
    void decided(const zeus::EgressEvent& event);
    // The agent could not listen on a container port (something in the container took it first).
    void listenFailed(quint16 containerPort, const QString& reason);

private:
    class Connection;
    friend class Connection;
    void report(int port, bool allowed, const QString& rule, const QString& detail);
    void forget(quint32 id);

    QString m_sessionId;
    QPointer<AgentChannel> m_channel;
    QList<ExposeSpec> m_specs;
    QHash<quint32, Connection*> m_connections;
    int m_connectTimeoutMs = 15000;
};

}  // namespace zeus
