#include "sandbox/exposedports.h"

#include "sandbox/agent/agentchannel.h"
#include "sandbox/agent/agenttunnel.h"
#include "support/logging.h"

#include <QHostAddress>
#include <QTcpSocket>
#include <QTimer>

#ifndef Q_OS_WIN
#include <sys/socket.h>
#endif

#include <algorithm>
#include <utility>

namespace zeus {

namespace {
constexpr qint64 kReadAhead = 64 * 1024;  // what the socket may hold from the host service beyond the agent's window
const QString kLoopback = QStringLiteral("127.0.0.1");
}  // namespace

// One connection a command made to an exposed port: the agent's tunnel on one side, a socket to the host service
// on the other. Bytes from the container wait (bounded by the window the app does not give back) until the socket
// is connected. Lives until the agent's `closed`, a socket error, or the owner's end; deletes itself.
class ExposedPorts::Connection : public QObject, public AgentTunnel {
public:
    Connection(ExposedPorts* owner, quint32 id, const ExposeSpec& spec)
        : QObject(owner), m_owner(owner), m_id(id), m_spec(spec), m_socket(new QTcpSocket(this)) {
        m_socket->setReadBufferSize(kReadAhead);
        connect(m_socket, &QTcpSocket::connected, this, [this] { onConnected(); });
        connect(m_socket, &QTcpSocket::readyRead, this, [this] { pumpHost(); });
        connect(m_socket, &QTcpSocket::bytesWritten, this, [this](qint64 bytes) { onBytesWritten(bytes); });
        connect(m_socket, &QTcpSocket::disconnected, this, [this] {
            m_hostDone = true;
            pumpHost();
        });
        connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
            if (!m_connected) {
                failed(m_socket->errorString());
            } else if (error != QAbstractSocket::RemoteHostClosedError) {
                drop();
            }
        });
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, [this] { failed(QStringLiteral("timed out")); });
    }

    void start(int timeoutMs) {
        m_timer.start(timeoutMs);
        // IPv4 loopback and the configured port: nothing the container said chooses where this goes.
        m_socket->connectToHost(QHostAddress(QHostAddress::LocalHost), m_spec.hostPort);
    }

    void tunnelData(const QByteArray& data) override {
        if (data.isEmpty()) {
            m_containerDone = true;
            shutdownHostWrite();
            return;
        }
        if (!m_connected) {
            m_pending += data;  // bounded: the agent's window is given back only as the socket writes
            return;
        }
        m_unacked += data.size();
        m_socket->write(data);
    }

    void tunnelWritable() override { pumpHost(); }

    void tunnelClosed() override {
        m_closedByAgent = true;
        end();
    }

    // Ends the connection from the app's side (the owner goes, the host service failed).
    void drop() {
        if (!m_closedByAgent && channel() != nullptr) {
            channel()->closeTunnel(m_id);
        }
        m_closedByAgent = true;
        end();
    }

private:
    AgentChannel* channel() const { return m_owner->m_channel.data(); }

    QString target() const { return QStringLiteral("%1:%2").arg(kLoopback).arg(m_spec.hostPort); }

    void onConnected() {
        m_timer.stop();
        m_connected = true;
        m_owner->report(m_spec.hostPort, true, ruleName(),
                        QStringLiteral("container port %1 connected to %2").arg(m_spec.containerPort).arg(target()));
        if (!m_pending.isEmpty()) {
            m_unacked += m_pending.size();
            m_socket->write(std::exchange(m_pending, {}));
        }
        shutdownHostWrite();
        pumpHost();
    }

    void failed(const QString& why) {
        if (m_connected || m_ended) {
            return;
        }
        m_owner->report(
            m_spec.hostPort, true, ruleName(),
            QStringLiteral("container port %1: %2 failed (%3)").arg(m_spec.containerPort).arg(target(), why));
        drop();
    }

    void onBytesWritten(qint64 bytes) {
        const qint64 given = std::min(bytes, m_unacked);
        m_unacked -= given;
        if (given > 0 && channel() != nullptr && !m_ended) {
            channel()->consumedTunnel(m_id, quint32(given));
        }
        shutdownHostWrite();
    }

    // The command is done sending: the host service reads EOF once what the socket holds is written.
    void shutdownHostWrite() {
        if (!m_containerDone || !m_connected || m_hostWriteShut || m_socket->bytesToWrite() > 0) {
            return;
        }
        m_hostWriteShut = true;
#ifndef Q_OS_WIN
        ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
#else
        m_socket->disconnectFromHost();  // no half-close here: the socket closes after what it holds
#endif
    }

    void pumpHost() {
        if (!m_connected || m_ended || channel() == nullptr) {
            return;
        }
        while (m_socket->bytesAvailable() > 0) {
            const quint32 room = channel()->tunnelRoom(m_id);
            if (room == 0) {
                return;  // tunnelWritable() comes back here
            }
            channel()->sendTunnel(m_id, m_socket->read(std::min<qint64>(room, kReadAhead)));
        }
        if (m_hostDone && !m_sentEnd) {
            m_sentEnd = true;
            channel()->sendTunnel(m_id, {});  // the command reads EOF; the agent closes the tunnel once both ended
        }
    }

    void end() {
        if (m_ended) {
            return;
        }
        m_ended = true;
        m_timer.stop();
        m_socket->abort();
        m_owner->forget(m_id);
        deleteLater();
    }

    ExposedPorts* m_owner;
    quint32 m_id;
    ExposeSpec m_spec;
    QTcpSocket* m_socket;
    QTimer m_timer;
    QByteArray m_pending;
    qint64 m_unacked = 0;  // bytes handed to the socket, not yet written out (window not given back)
    bool m_connected = false;
    bool m_containerDone = false;
    bool m_hostDone = false;
    bool m_hostWriteShut = false;
    bool m_sentEnd = false;
    bool m_closedByAgent = false;
    bool m_ended = false;
};

ExposedPorts::ExposedPorts(QString sessionId, AgentChannel* channel, QList<ExposeSpec> specs, QObject* parent)
    : QObject(parent), m_sessionId(std::move(sessionId)), m_channel(channel), m_specs(std::move(specs)) {}

ExposedPorts::~ExposedPorts() {
    const auto connections = std::exchange(m_connections, {});
    for (auto it = connections.begin(); it != connections.end(); ++it) {
        if (m_channel != nullptr) {
            m_channel->closeTunnel(it.key());
        }
        delete it.value();
    }
    if (m_channel != nullptr) {
        m_channel->setExposeAcceptor({});
    }
}

void ExposedPorts::start() {
    if (m_channel == nullptr) {
        return;
    }
    m_channel->setExposeAcceptor([this](quint32 id, agentframe::ListenerKind kind) -> AgentTunnel* {
        const quint16 containerPort = agentframe::exposedPort(kind);
        const auto spec = std::find_if(m_specs.cbegin(), m_specs.cend(), [containerPort](const ExposeSpec& s) {
            return s.containerPort == containerPort;
        });
        if (spec == m_specs.cend()) {
            // Only the agent (or a command that reached its pipe) can say this: this session never asked for it.
            report(containerPort, false,
                   ruleName() + QStringLiteral(": container port %1 is not exposed").arg(containerPort),
                   QStringLiteral("refused"));
            return nullptr;
        }
        auto* connection = new Connection(this, id, *spec);
        m_connections.insert(id, connection);
        connection->start(m_connectTimeoutMs);
        return connection;
    });
    connect(m_channel, &AgentChannel::listening, this, [this](quint16 port, quint32 error) {
        const bool ours = std::any_of(m_specs.cbegin(), m_specs.cend(),
                                      [port](const ExposeSpec& s) { return s.containerPort == port; });
        if (ours && error != 0) {
            const QString reason =
                QStringLiteral("the sandbox agent could not listen on 127.0.0.1:%1 (errno %2)").arg(port).arg(error);
            qCWarning(lcSession) << "expose-host:" << reason;
            Q_EMIT listenFailed(port, reason);
        }
    });
    for (const ExposeSpec& spec : std::as_const(m_specs)) {
        m_channel->listen(spec.containerPort, agentframe::exposeKind(spec.containerPort));
    }
}

void ExposedPorts::report(int port, bool allowed, const QString& rule, const QString& detail) {
    EgressEvent event;
    event.sessionId = m_sessionId;
    event.host = kLoopback;
    event.port = port;
    event.allowed = allowed;
    event.rule = rule;
    event.detail = detail;
    event.when = QDateTime::currentDateTimeUtc();
    qCInfo(lcSession).noquote() << "expose-host" << m_sessionId << event.host << port << event.decisionWord()
                                << event.rule << event.detail;
    Q_EMIT decided(event);
}

void ExposedPorts::forget(quint32 id) {
    m_connections.remove(id);
}

}  // namespace zeus
