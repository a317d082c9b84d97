#include "sandbox/agent/lanesocket.h"

#include "sandbox/agent/agentframe.h"

#include <QLocalSocket>
#include <QSocketNotifier>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace zeus {

namespace {
// One read takes at most this much; a turn of the event loop reads at most kReadsPerTurn of them, so a fast agent
// cannot keep the app from everything else.
constexpr qsizetype kReadChunk = 256 * 1024;
constexpr int kReadsPerTurn = 16;
}  // namespace

LaneSocket::LaneSocket(int fd, QObject* parent) : QObject(parent), m_fd(fd) {
    m_reader = new QSocketNotifier(qintptr(fd), QSocketNotifier::Read, this);
    m_writer = new QSocketNotifier(qintptr(fd), QSocketNotifier::Write, this);
    m_writer->setEnabled(false);
    connect(m_reader, &QSocketNotifier::activated, this, &LaneSocket::onReadable);
    connect(m_writer, &QSocketNotifier::activated, this, &LaneSocket::onWritable);
}

LaneSocket::~LaneSocket() {
    abort();
}

LaneSocket* LaneSocket::adopt(QLocalSocket* socket, QObject* parent) {
    if (socket == nullptr) {
        return nullptr;
    }
    LaneSocket* lane = nullptr;
#ifdef Q_OS_UNIX
    const int fd = socket->state() == QLocalSocket::ConnectedState
                       ? ::fcntl(int(socket->socketDescriptor()), F_DUPFD_CLOEXEC, 3)
                       : -1;
    if (fd >= 0) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        lane = new LaneSocket(fd, parent);
        lane->m_in = socket->readAll();  // read by Qt already (nothing past the key is expected)
    }
#endif
    socket->abort();  // closes Qt's descriptor only: the duplicate keeps the connection
    socket->deleteLater();
    return lane;
}

void LaneSocket::write(const QByteArray& bytes) {
    if (m_fd < 0 || bytes.isEmpty()) {
        return;
    }
    m_out.append(bytes);
    m_outBytes += bytes.size();
    m_writer->setEnabled(true);
}

int LaneSocket::takeDescriptor() {
    return m_passed.isEmpty() ? -1 : m_passed.takeFirst();
}

QString LaneSocket::checkPassedSocket(int descriptor) {
#ifdef Q_OS_UNIX
    struct stat st = {};
    if (::fstat(descriptor, &st) != 0 || !S_ISSOCK(st.st_mode)) {
        return QStringLiteral("a tunnel handed over with something that is not a socket");
    }
    int type = 0;
    socklen_t length = sizeof type;
    struct sockaddr_storage peer = {};
    socklen_t peerLength = sizeof peer;
    // Connected (it has a peer), a stream, an Internet address: the client's connection to the agent's listener.
    if (::getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM
        || ::getpeername(descriptor, reinterpret_cast<struct sockaddr*>(&peer), &peerLength) != 0
        || (peer.ss_family != AF_INET && peer.ss_family != AF_INET6)) {
        return QStringLiteral("a tunnel handed over with a socket that is not a connected TCP stream");
    }
    ::fcntl(descriptor, F_SETFL, ::fcntl(descriptor, F_GETFL) | O_NONBLOCK);
    return {};
#else
    Q_UNUSED(descriptor)
    return QStringLiteral("sockets are not handed over on this system");
#endif
}

void LaneSocket::closeDescriptor(int descriptor) {
#ifdef Q_OS_UNIX
    if (descriptor >= 0) {
        ::close(descriptor);
    }
#else
    Q_UNUSED(descriptor)
#endif
}

void LaneSocket::abort() {
#ifdef Q_OS_UNIX
    for (const int fd : std::as_const(m_passed)) {
        ::close(fd);
    }
    m_passed.clear();
    m_out.clear();
    m_outHead = 0;
    m_outBytes = 0;
    if (m_fd >= 0) {
        m_reader->setEnabled(false);
        m_writer->setEnabled(false);
        ::close(m_fd);
        m_fd = -1;
    }
#endif
}

void LaneSocket::lost(const QString& why) {
    if (m_fd < 0) {
        return;
    }
    m_error = why;
    abort();
    Q_EMIT disconnected();
}

void LaneSocket::onReadable() {
#ifdef Q_OS_UNIX
    bool got = false;
    for (int i = 0; i < kReadsPerTurn && m_fd >= 0; ++i) {
        const qsizetype before = m_in.size();
        m_in.resize(before + kReadChunk);
        alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * agentframe::kMaxPassedSockets)];
        struct iovec iov = {m_in.data() + before, size_t(kReadChunk)};
        struct msghdr message = {};
        message.msg_iov = &iov;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(m_fd, &message, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        const int error = n < 0 ? errno : 0;
        m_in.resize(before + qMax<ssize_t>(n, 0));
        if (n > 0) {
            got = true;
            takeRights(&message);
            if ((message.msg_flags & MSG_CTRUNC) != 0) {
                lost(QStringLiteral("the agent passed more sockets on one write than the protocol allows"));
                return;
            }
            continue;
        }
        if (error == EINTR) {
            continue;
        }
        if (error == EAGAIN || error == EWOULDBLOCK) {
            break;
        }
        if (got) {
            Q_EMIT readyRead();  // what came before the end is still the agent's
        }
        lost(n == 0 ? QStringLiteral("the agent's lane closed")
                    : QStringLiteral("the agent's lane failed: %1").arg(QString::fromLocal8Bit(std::strerror(error))));
        return;
    }
    if (got && m_fd >= 0) {
        Q_EMIT readyRead();
    }
#endif
}

void LaneSocket::takeRights(void* raw) {
#ifdef Q_OS_UNIX
    auto* message = static_cast<struct msghdr*>(raw);
    for (struct cmsghdr* c = CMSG_FIRSTHDR(message); c != nullptr; c = CMSG_NXTHDR(message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
            continue;
        }
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t k = 0; k < count; ++k) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
            m_passed.append(fd);  // closed with the rest if over the limit
        }
    }
    if (m_passed.size() > kMaxUnclaimed) {
        lost(QStringLiteral("the agent passed more sockets than it handed tunnels"));
    }
#else
    Q_UNUSED(raw)
#endif
}

void LaneSocket::onWritable() {
#ifdef Q_OS_UNIX
    qint64 written = 0;
    while (m_fd >= 0 && !m_out.isEmpty()) {
        const QByteArray& first = m_out.constFirst();
        const ssize_t n =
            ::send(m_fd, first.constData() + m_outHead, size_t(first.size() - m_outHead), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            m_outHead += n;
            written += n;
            m_outBytes -= n;
            if (m_outHead == first.size()) {
                m_out.removeFirst();
                m_outHead = 0;
            }
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        }
        lost(QStringLiteral("the agent's lane failed: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
        return;
    }
    if (m_out.isEmpty() && m_writer != nullptr) {
        m_writer->setEnabled(false);
    }
    if (written > 0) {
        Q_EMIT bytesWritten(written);
    }
#endif
}

}  // namespace zeus
