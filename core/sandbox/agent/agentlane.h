#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

class QLocalServer;
class QLocalSocket;

namespace zeus {

// The lane of one session's container (docs/agent-protocol.md "The lane", docs/security.md): a second transport for
// the agent's frames that does not go through the engine's exec pipe. A private folder of the user's (mode 0700,
// under the runtime folder) holds a Unix socket the app listens on; the folder is bind-mounted read-only into the
// container, so the agent can connect to the socket and nothing in the container can put another one there.
//
// Owns the folder, the listening socket and the connections that have not yet presented the key. Anything in the
// container can connect (the commands run as the agent's user), so a connection is taken only with the key offer()
// made for the agent, sent to it on the exec channel: at most one per offer, the first to present it; every other
// connection is dropped (without the key within kKeyTimeoutMs, with another key, over kMaxPending waiting, or after
// the lane was taken). Once taken, the socket is removed: nobody else can connect. Must never decide which frames
// travel where (AgentChannel does) and never read past the key: the frames behind it belong to the channel.
class AgentLane : public QObject {
    Q_OBJECT

public:
    // How long a connection may take to present the key, and how many may wait at once.
    static constexpr int kKeyTimeoutMs = 3000;
    static constexpr int kMaxPending = 8;

    // Makes the folder in `parentFolder` (created 0700 when missing; the user's runtime folder when empty). On
    // failure isValid() is false and errorString() says why; nothing is left behind.
    explicit AgentLane(const QString& parentFolder = QString(), QObject* parent = nullptr);
    ~AgentLane() override;

    bool isValid() const { return !m_folder.isEmpty(); }
    QString errorString() const { return m_error; }
    // The folder to mount (containerLanePath() in the container); the socket is laneSocketName() in it.
    QString folder() const { return m_folder; }
    QString socketPath() const;

    // Listens (again) with a new random key of agentframe::kLaneKeySize bytes and returns it; empty when the socket
    // cannot be made (errorString()). An earlier offer is void: its connections are dropped.
    QByteArray offer();
    // The connection that presented the current offer's key, handed over (the caller owns it from now on); null
    // while none did. Its next bytes are the agent's first frame.
    QLocalSocket* take();
    bool hasConnection() const;
    // Connections dropped so far: they did not present the key.
    int refusedConnections() const { return m_refused; }
    // Stops listening and drops every connection not taken.
    void withdraw();

Q_SIGNALS:
    // A connection presented the key: take() returns it.
    void connected();
    // A connection was dropped without the key (for the session log: something in the container tried).
    void refused(const QString& why);

private:
    void onNewConnection();
    void check(QLocalSocket* socket);
    void drop(QLocalSocket* socket, const QString& why);

    QString m_folder;
    QString m_error;
    QLocalServer* m_server = nullptr;
    QByteArray m_key;
    QList<QPointer<QLocalSocket>> m_pending;
    QPointer<QLocalSocket> m_taken;
    int m_refused = 0;
};

}  // namespace zeus
