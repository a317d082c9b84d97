#pragma once

#include "sandbox/agent/agenttunnel.h"

#include <QObject>
#include <QPointer>

class QTcpSocket;

namespace zeus {

class AgentChannel;

// One connection to a published port (SPEC §8 "Ports"): a socket the app accepted on 127.0.0.1:HOST_PORT, carried
// through the session's agent as one tunnel to 127.0.0.1:CONTAINER_PORT in the container.
//
// Owns the socket. Moves bytes both ways under the tunnel's windows: it reads from the browser only what the agent
// may take now (the socket's read buffer is capped as well), and gives the agent window back only for what the
// socket wrote out, so a slow reader on either side grows memory on neither. It ends (and deletes itself) when
// either side is done with the whole connection or the agent goes. Must never read or judge the bytes: a published
// port is the user's own choice, not egress.
class PortConnection : public QObject, public AgentTunnel {
    Q_OBJECT

public:
    PortConnection(QTcpSocket* socket, AgentChannel* agent, quint16 containerPort, QObject* parent = nullptr);
    ~PortConnection() override;

    // Asks the agent for the tunnel; false when it cannot (no ready agent, the tunnel limit): the socket is closed.
    bool start();

    void tunnelConnected(quint32 error) override;
    void tunnelData(const QByteArray& data) override;
    void tunnelWritable() override;
    void tunnelClosed() override;

Q_SIGNALS:
    // The container refused (nothing listens there): errno of its connect.
    void refused(quint32 error);

private:
    void pumpFromClient();
    void onBytesWritten(qint64 bytes);
    void onClientGone();
    void finish();

    QTcpSocket* m_socket;
    QPointer<AgentChannel> m_agent;
    quint16 m_containerPort;
    quint32 m_tunnel = 0;
    bool m_connected = false;
    bool m_sentEnd = false;    // the browser is done sending and the agent was told
    bool m_peerEnded = false;  // the container's side is done sending
    bool m_finished = false;
    qint64 m_unacked = 0;  // bytes handed to the socket, not yet written out (window not given back)
};

}  // namespace zeus
