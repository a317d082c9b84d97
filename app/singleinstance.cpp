#include "singleinstance.h"

#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QCryptographicHash>
#include <QDir>
#include <QLocalServer>
#include <QLocalSocket>
#include <QPointer>
#include <QStandardPaths>
#include <QTimer>

#include <utility>

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
    connect(m_server, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket* socket = m_server->nextPendingConnection()) {
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
                if (socket->readAll().startsWith(kActivate.trimmed())) {
                    Q_EMIT activationRequested();
                }
                socket->disconnectFromServer();
            });
        }
    });
    return true;
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
