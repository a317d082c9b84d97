// LaneSocket, the app's end of the lane, against a hostile agent on the other end of a socket pair: what it may pass
// with SCM_RIGHTS (docs/agent-protocol.md "Handing a tunnel over") and what ends the lane instead. The frames it
// carries are AgentChannel's (tst_agentchannel); the real agent's passing is agent_test's test_handoff.
#include "sandbox/agent/agentframe.h"
#include "sandbox/agent/lanesocket.h"

#include <QLocalSocket>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace zeus;

namespace {

// Sends `bytes` with `fds` attached, as the agent's outq does.
bool sendWithRights(int socket, const QByteArray& bytes, const QList<int>& fds) {
    QByteArray control(int(CMSG_SPACE(sizeof(int) * size_t(fds.size()))), '\0');
    struct iovec iov = {const_cast<char*>(bytes.constData()), size_t(bytes.size())};
    struct msghdr m = {};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control.data();
    m.msg_controllen = size_t(control.size());
    struct cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * size_t(fds.size()));
    memcpy(CMSG_DATA(c), fds.constData(), sizeof(int) * size_t(fds.size()));
    return ::sendmsg(socket, &m, MSG_NOSIGNAL) == bytes.size();
}

}  // namespace

class TestLaneSocket : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void carriesBytesBothWays();
    void passedTcpSocketIsTaken();
    void otherDescriptorsAreRefused();
    void tooManyUnclaimedEndTheLane();
    void moreOnOneWriteThanAllowedEndsTheLane();
    void theAgentsEndIsTheLanesEnd();

private:
    int m_agent = -1;  // the agent's end
    LaneSocket* m_lane = nullptr;
};

void TestLaneSocket::init() {
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    m_agent = pair[0];
    auto* socket = new QLocalSocket;
    QVERIFY(socket->setSocketDescriptor(pair[1]));
    m_lane = LaneSocket::adopt(socket, this);
    QVERIFY(m_lane != nullptr);
}

void TestLaneSocket::cleanup() {
    delete m_lane;
    m_lane = nullptr;
    ::close(m_agent);
}

void TestLaneSocket::carriesBytesBothWays() {
    QSignalSpy readable(m_lane, &LaneSocket::readyRead);
    QCOMPARE(::write(m_agent, "frames", 6), 6);
    QVERIFY(readable.wait(5000));
    QCOMPARE(m_lane->readAll(), QByteArray("frames"));
    const QByteArray big(3 * 1024 * 1024, 'z');  // more than the socket buffers: written as the agent reads
    m_lane->write(big);
    QByteArray got;
    char buffer[65536];
    QElapsedTimer clock;
    clock.start();
    while (got.size() < big.size() && clock.elapsed() < 10000) {
        QCoreApplication::processEvents();
        const ssize_t n = ::recv(m_agent, buffer, sizeof buffer, MSG_DONTWAIT);
        if (n > 0) {
            got.append(buffer, n);
        }
    }
    QCOMPARE(got.size(), big.size());
    QCOMPARE(m_lane->bytesToWrite(), 0);
}

void TestLaneSocket::passedTcpSocketIsTaken() {
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, server.serverPort());
    QVERIFY(client.waitForConnected(5000));
    QVERIFY(server.waitForNewConnection(5000));
    QTcpSocket* accepted = server.nextPendingConnection();
    QSignalSpy readable(m_lane, &LaneSocket::readyRead);
    QVERIFY(sendWithRights(m_agent, agentframe::tunnelHandedFrame(agentframe::kTunnelBit | 1),
                           {int(accepted->socketDescriptor())}));
    QVERIFY(readable.wait(5000));
    QCOMPARE(m_lane->unclaimedDescriptors(), 1);
    const int fd = m_lane->takeDescriptor();
    QVERIFY(fd >= 0);
    QCOMPARE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);  // never inherited by a process the app starts
    QCOMPARE(LaneSocket::checkPassedSocket(fd), QString());
    QCOMPARE(::write(fd, "hi", 2), 2);  // the very connection
    QVERIFY(client.waitForReadyRead(5000));
    QCOMPARE(client.readAll(), QByteArray("hi"));
    LaneSocket::closeDescriptor(fd);
    QCOMPARE(m_lane->takeDescriptor(), -1);
}

void TestLaneSocket::otherDescriptorsAreRefused() {
    int pipeEnds[2];
    QCOMPARE(::pipe(pipeEnds), 0);
    int unixPair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, unixPair), 0);
    const int listening = ::socket(AF_INET, SOCK_STREAM, 0);
    QVERIFY(listening >= 0);
    const int udp = ::socket(AF_INET, SOCK_DGRAM, 0);
    const int file = ::open("/dev/null", O_RDONLY);
    QSignalSpy readable(m_lane, &LaneSocket::readyRead);
    QVERIFY(sendWithRights(m_agent, "x", {pipeEnds[0], unixPair[0], listening, udp, file}));
    QVERIFY(readable.wait(5000));
    QCOMPARE(m_lane->unclaimedDescriptors(), 5);
    const QStringList expected = {QStringLiteral("not a socket"), QStringLiteral("not a connected TCP stream"),
                                  QStringLiteral("not a connected TCP stream"),
                                  QStringLiteral("not a connected TCP stream"), QStringLiteral("not a socket")};
    for (const QString& why : expected) {
        const int fd = m_lane->takeDescriptor();
        const QString said = LaneSocket::checkPassedSocket(fd);
        QVERIFY2(said.contains(why), qPrintable(said));
        LaneSocket::closeDescriptor(fd);
    }
    for (const int fd : {pipeEnds[0], pipeEnds[1], unixPair[0], unixPair[1], listening, udp, file}) {
        ::close(fd);
    }
}

void TestLaneSocket::tooManyUnclaimedEndTheLane() {
    QSignalSpy gone(m_lane, &LaneSocket::disconnected);
    const int fd = ::open("/dev/null", O_RDONLY);
    QList<int> sixteen(agentframe::kMaxPassedSockets, fd);
    for (int sent = 0; sent <= LaneSocket::kMaxUnclaimed; sent += agentframe::kMaxPassedSockets) {
        QVERIFY(sendWithRights(m_agent, "x", sixteen));
    }
    QVERIFY(gone.wait(5000));
    QVERIFY2(m_lane->errorString().contains(QStringLiteral("more sockets than it handed")),
             qPrintable(m_lane->errorString()));
    QCOMPARE(m_lane->unclaimedDescriptors(), 0);  // closed, not kept
    ::close(fd);
}

void TestLaneSocket::moreOnOneWriteThanAllowedEndsTheLane() {
    QSignalSpy gone(m_lane, &LaneSocket::disconnected);
    const int fd = ::open("/dev/null", O_RDONLY);
    QVERIFY(sendWithRights(m_agent, "x", QList<int>(agentframe::kMaxPassedSockets + 1, fd)));
    QVERIFY(gone.wait(5000));
    QVERIFY2(m_lane->errorString().contains(QStringLiteral("on one write")), qPrintable(m_lane->errorString()));
    ::close(fd);
}

void TestLaneSocket::theAgentsEndIsTheLanesEnd() {
    QSignalSpy readable(m_lane, &LaneSocket::readyRead);
    QSignalSpy gone(m_lane, &LaneSocket::disconnected);
    QCOMPARE(::write(m_agent, "last", 4), 4);
    ::close(m_agent);
    m_agent = -1;
    QVERIFY(gone.count() == 1 || gone.wait(5000));
    QCOMPARE(readable.count(), 1);  // what came before the end is still read
    QCOMPARE(m_lane->readAll(), QByteArray("last"));
    QVERIFY2(m_lane->errorString().contains(QStringLiteral("closed")), qPrintable(m_lane->errorString()));
}

QTEST_GUILESS_MAIN(TestLaneSocket)
#include "tst_lanesocket.moc"
