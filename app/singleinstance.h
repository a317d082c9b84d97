#pragma once

#include "mcpbridgechannel.h"

#include <QList>
#include <QLockFile>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <memory>

class QLocalServer;

namespace zeus {

// One tray app per user: the first instance holds a lock file and listens on a local
// socket; a second launch finds the lock, asks the first to show its dashboard, and exits.
// `zeus-desktop --mcp` asks the same socket for an MCP bridge (McpBridgeChannel): the
// request is read here, the bridge itself is handed on (mcpBridgeRequested()).
//
// Owns the lock, the server and each connection until its request is read. It must never
// block: the second instance's request is asynchronous with a timeout, and a lock left by a
// crashed instance is taken over (QLockFile checks whether its owner still runs). It must
// never take a request from another user (the socket is the user's only, and on Linux and
// macOS the peer's uid is checked too), nor buffer more than one bounded line of a peer,
// nor keep more than kMaxBridges bridges.
class SingleInstance : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxBridges = 16;
    static constexpr int kRequestTimeoutMs = 10000;  // to send the request, once connected

    // key: unique per user and app (defaultKey()); tests use their own.
    explicit SingleInstance(QString key = defaultKey(), QObject* parent = nullptr);
    ~SingleInstance() override;

    static QString defaultKey();

    // True when this is the first instance (it then listens for activation requests).
    bool claim();
    // In a second instance: asks the first to activate; done(true) once it received the request.
    void activateRunningInstance(const std::function<void(bool)>& done, int timeoutMs = 3000);

    QString lockFilePath() const;
    // Where the instance listens: a socket in the user's runtime folder (a named pipe on Windows).
    QString serverName() const;

    // Whether the process at the other end of a connected local socket runs as this process's user (SO_PEERCRED
    // on Linux, getpeereid() on the BSDs and macOS; where neither exists the socket's access rights decide: true).
    static bool isSameUser(qintptr descriptor);
    // Replaces isSameUser() for the connections this instance accepts (tests refuse their own user).
    void setPeerCheck(std::function<bool(qintptr descriptor)> check) { m_peerCheck = std::move(check); }
    // Bridges handed on that are still open.
    int bridgeCount() const;

Q_SIGNALS:
    // Another launch asked this instance to show itself.
    void activationRequested();
    // `zeus-desktop --mcp` asked for a bridge with these folders (canonical paths; empty: the approved ones). The
    // receiver takes the channel (it becomes its parent's), answers it with McpBridgeChannel::acceptLine() or
    // refuseLine(), and closes it when done.
    void mcpBridgeRequested(zeus::McpBridgeChannel* channel, const QStringList& workspaces);

private:
    void onNewConnection();
    void onRequestLine(McpBridgeChannel* channel, const QByteArray& line, bool greeted);

    QString m_key;
    std::unique_ptr<QLockFile> m_lock;
    QLocalServer* m_server = nullptr;
    std::function<bool(qintptr)> m_peerCheck = &SingleInstance::isSameUser;
    QList<QPointer<McpBridgeChannel>> m_bridges;
};

}  // namespace zeus
