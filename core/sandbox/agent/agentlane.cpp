#include "sandbox/agent/agentlane.h"

#include "engine/containerspec.h"
#include "sandbox/agent/agentframe.h"
#include "support/logging.h"

#include <QDir>
#include <QFile>
#include <QLocalServer>
#include <QLocalSocket>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTimer>
#include <QtEndian>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace zeus {

namespace {

// A folder of this user's alone: made with 0700, or already there as a folder (not a link) of this user's that no
// one else may enter. Empty when fine, else why not.
QString privateFolder(const QString& path, bool mayExist) {
#ifndef Q_OS_UNIX
    Q_UNUSED(mayExist);
    return QStringLiteral("%1: the lane needs a POSIX host").arg(path);
#else
    const QByteArray native = QFile::encodeName(path);
    if (::mkdir(native.constData(), 0700) != 0 && (errno != EEXIST || !mayExist)) {
        return QStringLiteral("cannot make %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    }
    struct stat info {};
    if (::lstat(native.constData(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::getuid()
        || (info.st_mode & 077) != 0) {
        return QStringLiteral("%1 is not a private folder of this user's").arg(path);
    }
    return {};
#endif
}

bool sameKey(const QByteArray& a, const QByteArray& b) {
    if (a.size() != b.size() || a.isEmpty()) {
        return false;
    }
    unsigned char difference = 0;  // every byte compared: the time says nothing about where they differ
    for (qsizetype i = 0; i < a.size(); ++i) {
        difference |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    }
    return difference == 0;
}

}  // namespace

AgentLane::AgentLane(const QString& parentFolder, QObject* parent) : QObject(parent) {
    QString base = parentFolder;
    if (base.isEmpty()) {
        const QString runtime = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
        if (runtime.isEmpty()) {
            m_error = QStringLiteral("the user has no runtime folder");
            return;
        }
        base = runtime + QStringLiteral("/zeus-lanes");
    }
    m_error = privateFolder(base, true);
    if (!m_error.isEmpty()) {
        return;
    }
    const QString folder = base + QLatin1Char('/')
                           + QString::number(QRandomGenerator::system()->generate64(), 16).rightJustified(16, u'0');
    m_error = privateFolder(folder, false);
    if (!m_error.isEmpty()) {
        return;
    }
    // The socket's path must fit a sockaddr_un in the container and on the host.
    if (QFile::encodeName(folder).size() + 1 + laneSocketName().size() > agentframe::kMaxLanePath) {
        QDir().rmdir(folder);
        m_error = QStringLiteral("the runtime folder's path is too long for a socket");
        return;
    }
    m_folder = folder;
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    connect(m_server, &QLocalServer::newConnection, this, &AgentLane::onNewConnection);
}

AgentLane::~AgentLane() {
    withdraw();
    if (!m_folder.isEmpty()) {
        QFile::remove(socketPath());
        QDir().rmdir(m_folder);
    }
}

QString AgentLane::socketPath() const {
    return m_folder.isEmpty() ? QString() : m_folder + QLatin1Char('/') + laneSocketName();
}

QByteArray AgentLane::offer() {
    withdraw();
    if (m_taken) {
        delete m_taken.data();  // an earlier agent's lane nobody took: it is over
    }
    if (!isValid()) {
        return {};
    }
    QLocalServer::removeServer(socketPath());
    if (!m_server->listen(socketPath())) {
        m_error = QStringLiteral("cannot listen on %1: %2").arg(socketPath(), m_server->errorString());
        return {};
    }
    m_key.clear();
    while (m_key.size() < agentframe::kLaneKeySize) {
        char bytes[4];
        qToLittleEndian(QRandomGenerator::system()->generate(), bytes);
        m_key.append(bytes, sizeof bytes);
    }
    return m_key;
}

QLocalSocket* AgentLane::take() {
    QLocalSocket* socket = m_taken.data();
    m_taken.clear();
    if (socket != nullptr) {
        socket->setParent(nullptr);
    }
    return socket;
}

bool AgentLane::hasConnection() const {
    return !m_taken.isNull();
}

void AgentLane::withdraw() {
    m_key.fill('\0');
    m_key.clear();
    if (m_server != nullptr && m_server->isListening()) {
        m_server->close();
        QFile::remove(socketPath());  // nobody else can connect, whatever close() left
    }
    const QList<QPointer<QLocalSocket>> pending = std::exchange(m_pending, {});
    for (const QPointer<QLocalSocket>& socket : pending) {
        if (socket) {
            socket->disconnect(this);
            socket->abort();
            socket->deleteLater();
        }
    }
}

void AgentLane::onNewConnection() {
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        if (m_key.isEmpty()) {
            drop(socket, QStringLiteral("a connection to the lane came when no agent was expected"));
            continue;
        }
        if (m_pending.size() >= kMaxPending) {
            drop(socket, QStringLiteral("over %1 connections to the lane waited for their key").arg(kMaxPending));
            continue;
        }
        m_pending.append(socket);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { check(socket); });
        connect(socket, &QLocalSocket::disconnected, this, [this, socket] {
            if (m_pending.contains(socket)) {
                drop(socket, QStringLiteral("a connection to the lane closed without the key"));
            }
        });
        QTimer::singleShot(kKeyTimeoutMs, socket, [this, socket] {
            if (m_pending.contains(socket)) {
                drop(socket, QStringLiteral("a connection to the lane did not present the key in time"));
            }
        });
        check(socket);
    }
}

void AgentLane::check(QLocalSocket* socket) {
    if (!m_pending.contains(socket) || socket->bytesAvailable() < agentframe::kLaneKeySize) {
        return;
    }
    QByteArray presented = socket->read(agentframe::kLaneKeySize);
    const bool match = sameKey(presented, m_key);
    presented.fill('\0');
    if (!match) {
        drop(socket, QStringLiteral("a connection to the lane presented another key"));
        return;
    }
    m_pending.removeAll(socket);
    socket->disconnect(this);
    m_taken = socket;
    withdraw();  // one lane per offer: the socket goes, the others are dropped
    Q_EMIT connected();
}

void AgentLane::drop(QLocalSocket* socket, const QString& why) {
    m_pending.removeAll(socket);
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
    ++m_refused;
    qCWarning(lcSession) << "lane:" << why;
    Q_EMIT refused(why);
}

}  // namespace zeus
