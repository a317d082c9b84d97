#include "singleinstance.h"

#include "mcpbridgechannel.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QCryptographicHash>
#include <QDir>
#include <QLocalServer>
#include <QLocalSocket>
#include <QMetaMethod>
#include <QPointer>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <optional>
#include <utility>

#if defined(Q_OS_UNIX)
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#endif

namespace zeus {

namespace {

const QByteArray kActivate = QByteArrayLiteral("activate\n");

}  // namespace

SingleInstance::SingleInstance(QString key, QObject* parent) : QObject(parent), m_key(std::move(key)) {}

SingleInstance::~SingleInstance() = default;

QString SingleInstance::defaultKey() {
    // Per user: the home folder identifies the account on every platform.
    const QByteArray user = QDir::homePath().toUtf8();
    const QString hash =
        QString::fromLatin1(QCryptographicHash::hash(user, QCryptographicHash::Sha256).toHex().left(12));
    return QStringLiteral("zeus-desktop-") + hash;
}

namespace {

// The user's private runtime folder ($XDG_RUNTIME_DIR, 0700 on Linux; Qt makes a private one when it is unset),
// never the shared temporary folder, where another user could create the name first.
QString runtimeFolder() {
    QString dir = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (dir.isEmpty()) {
        dir = QDir::tempPath();
    }
    return dir;
}

}  // namespace

QString SingleInstance::lockFilePath() const {
    return runtimeFolder() + QLatin1Char('/') + m_key + QStringLiteral(".lock");
}

QString SingleInstance::serverName() const {
#ifdef Q_OS_WIN
    return m_key;  // a named pipe, per session
#else
    // A full path: a bare name would be a socket in /tmp.
    return runtimeFolder() + QLatin1Char('/') + m_key + QStringLiteral(".socket");
#endif
}

bool SingleInstance::claim() {
    m_lock = std::make_unique<QLockFile>(lockFilePath());
    if (!m_lock->tryLock(0)) {
        qCInfo(lcApp) << "another instance holds" << lockFilePath();
        m_lock.reset();
        return false;
    }
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    // We hold the lock, so a socket left behind is stale.
    QLocalServer::removeServer(serverName());
    if (!m_server->listen(serverName())) {
        qCWarning(lcApp) << "single instance: cannot listen on" << serverName() << m_server->errorString();
    }
    connect(m_server, &QLocalServer::newConnection, this, &SingleInstance::onNewConnection);
    return true;
}

bool SingleInstance::isSameUser(qintptr descriptor) {
#if defined(Q_OS_LINUX)
    struct ucred credentials {};
    socklen_t length = sizeof(credentials);
    if (::getsockopt(int(descriptor), SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0
        || length != sizeof(credentials)) {
        return false;  // not a Unix socket, or no answer: never taken for the user's own
    }
    return credentials.uid == ::geteuid();
#elif defined(Q_OS_UNIX)
    uid_t uid = 0;
    gid_t gid = 0;
    if (::getpeereid(int(descriptor), &uid, &gid) != 0) {
        return false;
    }
    return uid == ::geteuid();
#else
    Q_UNUSED(descriptor)
    return true;  // a named pipe the user's access rights alone can open (QLocalServer::UserAccessOption)
#endif
}

int SingleInstance::bridgeCount() const {
    return int(std::count_if(m_bridges.cbegin(), m_bridges.cend(),
                             [](const QPointer<McpBridgeChannel>& bridge) { return bridge && bridge->isOpen(); }));
}

void SingleInstance::onNewConnection() {
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        if (!m_peerCheck(socket->socketDescriptor())) {
            qCWarning(lcApp) << "single instance: refused a connection from another user";
            socket->abort();
            socket->deleteLater();
            continue;
        }
        // Until the request is read the connection is this object's: a bounded line at a time, and a deadline.
        auto* channel = new McpBridgeChannel(socket, this);
        auto* deadline = new QTimer(channel);
        deadline->setSingleShot(true);
        connect(deadline, &QTimer::timeout, channel, &McpBridgeChannel::close);
        deadline->start(kRequestTimeoutMs);
        connect(channel, &McpBridgeChannel::closed, this, [channel] { channel->deleteLater(); });
        connect(channel, &McpBridgeChannel::oversizedLine, this, [channel] { channel->close(); });
        auto greeted = std::make_shared<bool>(false);
        connect(channel, &McpBridgeChannel::lineReceived, this, [this, channel, greeted](const QByteArray& line) {
            onRequestLine(channel, line, std::exchange(*greeted, true));
        });
    }
}

void SingleInstance::onRequestLine(McpBridgeChannel* channel, const QByteArray& line, bool greeted) {
    if (!greeted) {
        switch (McpBridgeChannel::greeting(line)) {
            case McpBridgeChannel::Greeting::Activate:
                Q_EMIT activationRequested();
                channel->close();
                return;
            case McpBridgeChannel::Greeting::Mcp:
                return;  // the request follows
            case McpBridgeChannel::Greeting::Unknown:
                qCWarning(lcApp) << "single instance: an unknown request; closed";
                channel->close();
                return;
        }
    }
    channel->disconnect(this);  // one request per connection: nothing more is read here
    const std::optional<QStringList> workspaces = McpBridgeChannel::parseRequest(line);
    if (!workspaces) {
        channel->sendLine(McpBridgeChannel::refuseLine(
            QStringLiteral("invalid_message"),
            QStringLiteral("not an MCP bridge request (expected {\"workspaces\": [...]})")));
        channel->close();
        connect(channel, &McpBridgeChannel::closed, channel, &QObject::deleteLater);
        return;
    }
    if (bridgeCount() >= kMaxBridges
        || !isSignalConnected(QMetaMethod::fromSignal(&SingleInstance::mcpBridgeRequested))) {
        const bool busy = bridgeCount() >= kMaxBridges;
        qCWarning(lcApp) << "single instance: MCP bridge refused:" << (busy ? "too many bridges" : "no MCP server");
        channel->sendLine(McpBridgeChannel::refuseLine(
            busy ? QStringLiteral("busy") : QStringLiteral("unsupported_tool"),
            busy ? QStringLiteral("the tray app already serves %1 MCP connections").arg(kMaxBridges)
                 : QStringLiteral("this tray app does not serve MCP")));
        channel->close();
        connect(channel, &McpBridgeChannel::closed, channel, &QObject::deleteLater);
        return;
    }
    qDeleteAll(channel->findChildren<QTimer*>(Qt::FindDirectChildrenOnly));  // the request's deadline
    m_bridges.removeIf([](const QPointer<McpBridgeChannel>& bridge) { return bridge.isNull(); });
    m_bridges.append(channel);
    Q_EMIT mcpBridgeRequested(channel, *workspaces);
}

void SingleInstance::activateRunningInstance(const std::function<void(bool)>& done, int timeoutMs) {
    auto* socket = new QLocalSocket(this);
    auto* timer = new QTimer(socket);
    timer->setSingleShot(true);
    auto finished = std::make_shared<bool>(false);
    auto finish = [socket, done, finished](bool ok) {
        if (*finished) {
            return;
        }
        *finished = true;
        socket->abort();
        socket->deleteLater();
        done(ok);
    };
    connect(timer, &QTimer::timeout, socket, [finish] { finish(false); });
    connect(socket, &QLocalSocket::connected, socket, [socket] { socket->write(kActivate); });
    connect(socket, &QLocalSocket::bytesWritten, socket, [finish] { finish(true); });
    connect(socket, &QLocalSocket::errorOccurred, socket, [finish] { finish(false); });
    timer->start(timeoutMs);
    socket->connectToServer(serverName());
}

}  // namespace zeus
