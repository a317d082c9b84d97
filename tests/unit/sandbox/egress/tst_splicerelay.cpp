// SpliceRelay, the bytes of a handed-over tunnel (docs/agent-protocol.md "Handing a tunnel over"), between real
// loopback TCP connections: what the app held from the server comes first, a large transfer arrives whole and in
// order both ways, ends of stream pass on as half-closes, finished() comes once and everything is closed.
#include "sandbox/egress/splicerelay.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace zeus;

namespace {

// A connected pair on loopback: `outer` stays a QTcpSocket (the client or the server), `inner` is the other end as a
// bare non-blocking descriptor (the relay's).
struct Pair {
    QTcpSocket* outer = nullptr;
    int inner = -1;
};

Pair makePair(QTcpServer& server, QObject* owner) {
    Pair pair;
    pair.outer = new QTcpSocket(owner);
    pair.outer->connectToHost(QHostAddress::LocalHost, server.serverPort());
    if (!pair.outer->waitForConnected(5000) || !server.waitForNewConnection(5000)) {
        return pair;
    }
    QTcpSocket* accepted = server.nextPendingConnection();
    pair.inner = ::fcntl(int(accepted->socketDescriptor()), F_DUPFD_CLOEXEC, 3);
    accepted->abort();
    delete accepted;
    ::fcntl(pair.inner, F_SETFL, ::fcntl(pair.inner, F_GETFL) | O_NONBLOCK);
    return pair;
}

QByteArray pattern(qsizetype size, char salt) {
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i) {
        bytes[i] = char((i * 31 + salt) & 0xFF);
    }
    return bytes;
}

// Writes `bytes` into `socket` and reads what `reader` gets until it has `want` bytes or the end came.
QByteArray pumpUntil(QTcpSocket* writer, const QByteArray& bytes, QTcpSocket* reader, qsizetype want) {
    QByteArray got;
    qsizetype written = 0;
    QElapsedTimer clock;
    clock.start();
    while (got.size() < want && clock.elapsed() < 20000) {
        if (writer != nullptr && written < bytes.size() && writer->bytesToWrite() < 1024 * 1024) {
            const qsizetype n = qMin<qsizetype>(256 * 1024, bytes.size() - written);
            writer->write(bytes.constData() + written, n);
            written += n;
        }
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        got += reader->readAll();
        if (reader->state() != QAbstractSocket::ConnectedState && reader->bytesAvailable() == 0) {
            break;
        }
    }
    return got;
}

}  // namespace

class TestSpliceRelay : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void carriesBothWaysWithWhatWasHeldFirst();
    void halfClosesPassOn();
    void takesTheSocketOutOfAQTcpSocket();
    void aResetEndsBoth();
    void toClientOnlyDropsWhatTheClientSends();
    void serverEndedBeforeTheHandover();
};

void TestSpliceRelay::carriesBothWaysWithWhatWasHeldFirst() {
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost));
    const Pair client = makePair(listener, this);
    const Pair server = makePair(listener, this);
    QVERIFY(client.inner >= 0 && server.inner >= 0);
    SpliceRelay relay(client.inner, server.inner, "held:");
    QSignalSpy finished(&relay, &SpliceRelay::finished);
    const QByteArray down = pattern(32 * 1024 * 1024, 7);
    const QByteArray got = pumpUntil(server.outer, down, client.outer, 5 + down.size());
    QCOMPARE(got.size(), 5 + down.size());
    QVERIFY(got.startsWith("held:"));
    QVERIFY(got.mid(5) == down);  // whole and in order
    const QByteArray up = pattern(3 * 1024 * 1024, 3);
    QVERIFY(pumpUntil(client.outer, up, server.outer, up.size()) == up);
    QCOMPARE(relay.toClientBytes(), 5 + down.size());
    QCOMPARE(relay.toServerBytes(), up.size());
    QCOMPARE(finished.count(), 0);
}

void TestSpliceRelay::halfClosesPassOn() {
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost));
    const Pair client = makePair(listener, this);
    const Pair server = makePair(listener, this);
    auto* relay = new SpliceRelay(client.inner, server.inner, {});
    QSignalSpy finished(relay, &SpliceRelay::finished);
    client.outer->write("request");
    QVERIFY(client.outer->waitForBytesWritten(5000));
    ::shutdown(int(client.outer->socketDescriptor()), SHUT_WR);  // the client is done sending
    QCOMPARE(pumpUntil(nullptr, {}, server.outer, 7), QByteArray("request"));
    QTRY_COMPARE_WITH_TIMEOUT(server.outer->state(), QAbstractSocket::UnconnectedState, 5000);  // read its end
    QVERIFY(finished.count() == 1 || finished.wait(5000));  // Qt's socket closed on the end: both ways are over
    // The server had answered before it saw the end; the answer still arrives, then the end.
    QTcpServer second;
    QVERIFY(second.listen(QHostAddress::LocalHost));
    const Pair client2 = makePair(second, this);
    const Pair server2 = makePair(second, this);
    auto* relay2 = new SpliceRelay(client2.inner, server2.inner, {});
    QSignalSpy finished2(relay2, &SpliceRelay::finished);
    server2.outer->write(pattern(1024 * 1024, 1));
    server2.outer->disconnectFromHost();  // answered and closed
    QCOMPARE(pumpUntil(nullptr, {}, client2.outer, 1024 * 1024).size(), 1024 * 1024);
    client2.outer->disconnectFromHost();
    QVERIFY(finished2.count() == 1 || finished2.wait(5000));
    QCOMPARE(finished2.first().first().toString(), QString());
    delete relay;
    delete relay2;
}

void TestSpliceRelay::takesTheSocketOutOfAQTcpSocket() {
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost));
    const Pair client = makePair(listener, this);
    auto* app = new QTcpSocket;  // the app's socket to the server, as the egress proxy has it
    app->connectToHost(QHostAddress::LocalHost, listener.serverPort());
    QVERIFY(app->waitForConnected(5000) && listener.waitForNewConnection(5000));
    QTcpSocket* serverSide = listener.nextPendingConnection();
    serverSide->write("before the handover");
    QVERIFY(serverSide->waitForBytesWritten(5000));
    QVERIFY(app->waitForReadyRead(5000));
    QByteArray held;
    const int fd = SpliceRelay::takeSocket(app, &held);
    QVERIFY(fd >= 0);
    QCOMPARE(held, QByteArray("before the handover"));
    SpliceRelay relay(client.inner, fd, held);
    serverSide->write(" and after");
    QCOMPARE(pumpUntil(nullptr, {}, client.outer, 29), QByteArray("before the handover and after"));
    QCOMPARE(pumpUntil(client.outer, "up", serverSide, 2), QByteArray("up"));  // the connection lived on
    delete serverSide;
}

void TestSpliceRelay::aResetEndsBoth() {
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost));
    const Pair client = makePair(listener, this);
    const Pair server = makePair(listener, this);
    SpliceRelay relay(client.inner, server.inner, {});
    QSignalSpy finished(&relay, &SpliceRelay::finished);
    struct linger hard = {1, 0};
    ::setsockopt(int(server.outer->socketDescriptor()), SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    server.outer->abort();  // a reset, not an end
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.count(), 1);
    QVERIFY(!finished.first().first().toString().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(client.outer->state(), QAbstractSocket::UnconnectedState, 5000);  // and the client's too
}

// A plain HTTP request handed over after it was sent whole: a second request the client sends on the same
// connection never reaches the server (one request per connection), the answer still reaches the client.
void TestSpliceRelay::toClientOnlyDropsWhatTheClientSends() {
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost));
    const Pair client = makePair(listener, this);
    const Pair server = makePair(listener, this);
    SpliceRelay relay(client.inner, server.inner, {}, SpliceRelay::Ways::ToClientOnly);
    QSignalSpy finished(&relay, &SpliceRelay::finished);
    client.outer->write("GET http://other.example/ HTTP/1.1\r\nHost: other.example\r\n\r\n");
    QCOMPARE(pumpUntil(server.outer, "HTTP/1.1 200 OK\r\n\r\nanswer", client.outer, 25),
             QByteArray("HTTP/1.1 200 OK\r\n\r\nanswer"));
    QTest::qWait(200);
    QCOMPARE(server.outer->bytesAvailable(), 0);  // nothing of the second request
    QCOMPARE(relay.toServerBytes(), 0);
    server.outer->disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(client.outer->state(), QAbstractSocket::UnconnectedState, 5000);
    QVERIFY(finished.count() == 1 || finished.wait(5000));
    QCOMPARE(finished.first().first().toString(), QString());
}

// The server answered and closed between the app's request for the socket and the socket's arrival: the app's held
// bytes are the whole rest of the answer; the client gets them and the end.
void TestSpliceRelay::serverEndedBeforeTheHandover() {
    QTcpServer listener;
    QVERIFY(listener.listen(QHostAddress::LocalHost));
    const Pair client = makePair(listener, this);
    SpliceRelay relay(client.inner, -1, "the rest of the answer");
    QSignalSpy finished(&relay, &SpliceRelay::finished);
    QCOMPARE(pumpUntil(nullptr, {}, client.outer, 22), QByteArray("the rest of the answer"));
    QTRY_COMPARE_WITH_TIMEOUT(client.outer->state(), QAbstractSocket::UnconnectedState, 5000);  // and its end
    QVERIFY(finished.count() == 1 || finished.wait(5000));
    QCOMPARE(finished.first().first().toString(), QString());
}

QTEST_GUILESS_MAIN(TestSpliceRelay)
#include "tst_splicerelay.moc"
