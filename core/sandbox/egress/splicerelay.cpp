#include "sandbox/egress/splicerelay.h"

#include <QSocketNotifier>
#include <QTcpSocket>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

#include <utility>

namespace zeus {

SpliceRelay::SpliceRelay(int client, int server, QByteArray toClient, Ways ways, QObject* parent)
    : QObject(parent), m_client(client), m_server(server) {
    m_dir[0].from = server;
    m_dir[0].to = client;
    m_dir[0].pending = std::move(toClient);
    m_dir[1].from = client;
    m_dir[1].to = server;
    m_dir[1].discard = ways == Ways::ToClientOnly;
    for (Direction& d : m_dir) {
#ifdef Q_OS_LINUX
        // The download's way is spliced; the other way (requests, uploads: little) goes through a buffer, so a relay
        // holds four descriptors, not six.
        if (&d == &m_dir[0] && ::pipe2(d.pipe, O_NONBLOCK | O_CLOEXEC) == 0) {
            ::fcntl(d.pipe[1], F_SETPIPE_SZ, int(kPipeBytes));  // at most the system's limit; the rest is fine too
            const int size = ::fcntl(d.pipe[1], F_GETPIPE_SZ);
            d.capacity = size > 0 ? size : 65536;
        } else {
            d.pipe[0] = d.pipe[1] = -1;  // the buffer instead
        }
#endif
        Direction* direction = &d;
        if (d.from >= 0) {
            d.readable = new QSocketNotifier(qintptr(d.from), QSocketNotifier::Read, this);
            connect(d.readable, &QSocketNotifier::activated, this, [this, direction] { pump(*direction); });
        }
        if (d.to >= 0) {
            d.writable = new QSocketNotifier(qintptr(d.to), QSocketNotifier::Write, this);
            d.writable->setEnabled(false);
            connect(d.writable, &QSocketNotifier::activated, this, [this, direction] {
                direction->blocked = false;
                pump(*direction);
            });
        }
    }
    if (server < 0) {
        // The server ended before the handover: what it sent is all there is, and the client's bytes go nowhere.
        m_dir[0].eof = true;
        m_dir[1].discard = true;
    }
    // From the event loop: whoever made the relay connects finished() first.
    QMetaObject::invokeMethod(
        this,
        [this] {
            pump(m_dir[0]);
            pump(m_dir[1]);
        },
        Qt::QueuedConnection);
}

SpliceRelay::~SpliceRelay() {
    closeAll();
}

int SpliceRelay::takeSocket(QTcpSocket* server, QByteArray* held) {
#ifdef Q_OS_UNIX
    if (server == nullptr || server->bytesToWrite() > 0 || server->socketDescriptor() < 0) {
        return -1;
    }
    const int fd = ::fcntl(int(server->socketDescriptor()), F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
        return -1;
    }
    *held = server->readAll();
    server->abort();  // closes Qt's descriptor only (no shutdown): the duplicate keeps the connection
    server->deleteLater();
    return fd;
#else
    Q_UNUSED(server)
    Q_UNUSED(held)
    return -1;
#endif
}

qint64 SpliceRelay::room(const Direction& d) {
    return d.pipe[0] >= 0 ? d.capacity - d.held : d.capacity - d.buffer.size();
}

void SpliceRelay::pump(Direction& d) {
    qint64 budget = kMaxPerTurn;
    while (!m_done) {
        if (!writeOut(d)) {
            return;
        }
        if (d.eof && !d.shut && d.held == 0 && d.pending.isEmpty() && d.buffer.isEmpty()) {
#ifdef Q_OS_UNIX
            if (d.to >= 0) {
                ::shutdown(d.to, SHUT_WR);  // the end of this direction, passed on once all of it is written
            }
#endif
            d.shut = true;
            if (m_dir[0].shut && m_dir[1].shut) {
                finish({});
                return;
            }
        }
        if (d.eof || d.full || room(d) <= 0 || budget <= 0) {
            break;
        }
        const qint64 before = d.held + d.buffer.size();
        if (!readIn(d)) {
            return;
        }
        const qint64 got = d.held + d.buffer.size() - before;
        if (got <= 0 && !d.eof) {
            break;  // nothing more to read now
        }
        budget -= got;
    }
    if (!m_done) {
        if (d.readable != nullptr) {
            d.readable->setEnabled(!d.eof && !d.full && room(d) > 0);
        }
        if (d.writable != nullptr) {
            d.writable->setEnabled(d.blocked && (d.held > 0 || !d.pending.isEmpty() || !d.buffer.isEmpty()));
        }
    }
}

// Writes what this direction holds as far as the receiving socket takes it. False when it failed (finished).
bool SpliceRelay::writeOut(Direction& d) {
#ifdef Q_OS_UNIX
    const auto sendAll = [this, &d](QByteArray& bytes) {
        qsizetype done = 0;
        while (done < bytes.size()) {
            const ssize_t n =
                ::send(d.to, bytes.constData() + done, size_t(bytes.size() - done), MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                done += n;
                d.moved += n;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                d.blocked = true;
                break;
            } else {
                finish(QStringLiteral("writing: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
                return false;
            }
        }
        bytes.remove(0, done);
        return true;
    };
    if (!sendAll(d.pending) || !d.pending.isEmpty()) {
        return !m_done;
    }
#ifdef Q_OS_LINUX
    if (d.pipe[0] >= 0) {
        while (d.held > 0) {
            const ssize_t n =
                ::splice(d.pipe[0], nullptr, d.to, nullptr, size_t(d.held), SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
            if (n > 0) {
                d.held -= n;
                d.moved += n;
                d.full = false;  // the pipe has room again
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                d.blocked = true;
                return true;
            } else {
                finish(QStringLiteral("writing: %1").arg(QString::fromLocal8Bit(n < 0 ? std::strerror(errno) : "EOF")));
                return false;
            }
        }
        return true;
    }
#endif
    return sendAll(d.buffer);
#else
    Q_UNUSED(d)
    return true;
#endif
}

// One read of up to `want` bytes: into the pipe, the buffer, or nowhere (a way that is dropped). As recv() returns.
qint64 SpliceRelay::receive(Direction& d, qint64 want) {
#ifdef Q_OS_UNIX
    if (d.discard) {
        char scratch[16384];
        return ::recv(d.from, scratch, sizeof scratch, MSG_DONTWAIT);
    }
#ifdef Q_OS_LINUX
    if (d.pipe[0] >= 0) {
        return ::splice(d.from, nullptr, d.pipe[1], nullptr, size_t(want), SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    }
#endif
    const qsizetype before = d.buffer.size();
    d.buffer.resize(before + want);
    const ssize_t n = ::recv(d.from, d.buffer.data() + before, size_t(want), MSG_DONTWAIT);
    d.buffer.resize(before + qMax<ssize_t>(n, 0));
    return n;
#else
    Q_UNUSED(d)
    Q_UNUSED(want)
    return -1;
#endif
}

// Reads what the sending socket has, as far as this direction has room. False when it failed (finished).
bool SpliceRelay::readIn(Direction& d) {
#ifdef Q_OS_UNIX
    const qint64 want = room(d);
    ssize_t n = -1;
    int error = 0;
    do {
        n = receive(d, want);
        error = n < 0 ? errno : 0;
    } while (error == EINTR);
    if (n > 0) {
        d.held += !d.discard && d.pipe[0] >= 0 ? n : 0;
        return true;
    }
    if (n == 0) {
        d.eof = true;
        return true;
    }
    if (error == EAGAIN || error == EWOULDBLOCK) {
        // Either the socket is empty, or the pipe is: a pipe counts pages, so small segments fill it before its size.
        d.full = d.held > 0;
        return true;
    }
    finish(QStringLiteral("reading: %1").arg(QString::fromLocal8Bit(std::strerror(error))));
    return false;
#else
    Q_UNUSED(d)
    return true;
#endif
}

void SpliceRelay::finish(const QString& error) {
    if (m_done) {
        return;
    }
    m_done = true;
    closeAll();
    Q_EMIT finished(error);
}

void SpliceRelay::closeAll() {
    for (Direction& d : m_dir) {
        if (d.readable != nullptr) {
            d.readable->setEnabled(false);
        }
        if (d.writable != nullptr) {
            d.writable->setEnabled(false);
        }
#ifdef Q_OS_UNIX
        for (int& end : d.pipe) {
            if (end >= 0) {
                ::close(end);
                end = -1;
            }
        }
#endif
    }
#ifdef Q_OS_UNIX
    for (int* fd : {&m_client, &m_server}) {
        if (*fd >= 0) {
            ::close(*fd);
            *fd = -1;
        }
    }
#endif
}

}  // namespace zeus
