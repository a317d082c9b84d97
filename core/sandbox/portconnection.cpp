#include "sandbox/portconnection.h"

#include "sandbox/agent/agentchannel.h"
#include "support/logging.h"

#include <QTcpSocket>

namespace zeus {

namespace {
// What the socket may hold that the agent has not been asked to carry yet: about one tunnel data frame.
constexpr qint64 kReadBuffer = 64 * 1024;
}  // namespace

PortConnection::PortConnection(QTcpSocket* socket, AgentChannel* agent, quint16 containerPort, QObject* parent)
    : QObject(parent), m_socket(socket), m_agent(agent), m_containerPort(containerPort) {
    m_socket->setParent(this);
    m_socket->setReadBufferSize(kReadBuffer);
    connect(m_socket, &QTcpSocket::readyRead, this, &PortConnection::pumpFromClient);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &PortConnection::onBytesWritten);
    connect(m_socket, &QTcpSocket::disconnected, this, &PortConnection::onClientGone);
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error != QAbstractSocket::RemoteHostClosedError) {
            finish();
        }
    });
}

PortConnection::~PortConnection() {
    if (m_agent && m_tunnel != 0 && !m_finished) {
        m_agent->closeTunnel(m_tunnel);
    }
}

bool PortConnection::start() {
    if (m_agent && m_agent->state() == AgentChannel::State::Ready) {
        m_tunnel = m_agent->connectTunnel(this, m_containerPort);
    }
    if (m_tunnel == 0) {
        finish();
        return false;
    }
    return true;
}

void PortConnection::tunnelConnected(quint32 error) {
    if (error != 0) {
        m_tunnel = 0;  // the agent forgot it already
        Q_EMIT refused(error);
        finish();
        return;
    }
    m_connected = true;
    pumpFromClient();
}

void PortConnection::pumpFromClient() {
    if (!m_connected || m_finished || !m_agent) {
        return;
    }
    // Only what the agent takes now: the rest stays in the socket (its buffer is capped), so the browser waits.
    while (m_socket->bytesAvailable() > 0) {
        const quint32 room = m_agent->tunnelRoom(m_tunnel);
        if (room == 0) {
            return;  // tunnelWritable() comes back here
        }
        const QByteArray data = m_socket->read(qMin<qint64>(room, kReadBuffer));
        if (data.isEmpty()) {
            break;
        }
        m_agent->sendTunnel(m_tunnel, data);
    }
    if (m_socket->state() != QAbstractSocket::ConnectedState && m_socket->bytesAvailable() == 0 && !m_sentEnd) {
        m_sentEnd = true;
        m_agent->sendTunnel(m_tunnel, {});  // the browser is done sending: the server in the container reads EOF
    }
}

void PortConnection::tunnelData(const QByteArray& data) {
    if (m_finished) {
        return;
    }
    if (data.isEmpty()) {
        m_peerEnded = true;
        // Qt has no half-close: the socket closes once what it holds is written out.
        m_socket->disconnectFromHost();
        return;
    }
    m_unacked += data.size();
    m_socket->write(data);
}

void PortConnection::onBytesWritten(qint64 bytes) {
    const qint64 given = qMin(bytes, m_unacked);
    m_unacked -= given;
    if (given > 0 && m_agent && !m_finished) {
        m_agent->consumedTunnel(m_tunnel, quint32(given));
    }
}

void PortConnection::tunnelWritable() {
    pumpFromClient();
}

void PortConnection::tunnelClosed() {
    m_tunnel = 0;  // nothing more to tell the agent
    if (m_socket->state() == QAbstractSocket::ConnectedState) {
        m_socket->disconnectFromHost();  // after what the socket still holds
    } else {
        finish();
    }
}

void PortConnection::onClientGone() {
    if (m_connected && !m_peerEnded && m_tunnel != 0) {
        pumpFromClient();  // what the browser sent before it closed still goes in, then the end
    }
    finish();
}

void PortConnection::finish() {
    if (m_finished) {
        return;
    }
    m_finished = true;
    if (m_agent && m_tunnel != 0) {
        m_agent->closeTunnel(m_tunnel);
    }
    m_tunnel = 0;
    m_socket->abort();
    deleteLater();
}

}  // namespace zeus
