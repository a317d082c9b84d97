// Published ports (SPEC §8 "Ports") without an engine: PortSpec's spelling, and PublishedPorts carrying real
// connections through the real sandbox agent run on this host (the fake engine CLI runs `exec -i CONTAINER PROGRAM`
// here, as in tst_agentchannel), so the agent's "container loopback" is this host's and a QTcpServer stands in for
// the server in the container. The listener must be on 127.0.0.1 only, bytes must arrive unchanged both ways under
// the windows, and everything must close with closeAll(). tst_agent does the same in a real container.
#include "engine/containerruntime.h"
#include "sandbox/agent/agentchannel.h"
#include "sandbox/portspec.h"
#include "sandbox/publishedports.h"

#include <QHostAddress>
#include <QNetworkInterface>
#include <QPointer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace zeus;

namespace {

const QString kFakeEngine = QStringLiteral(ZEUS_TEST_FAKES_DIR "/agent/engine");
const QString kAgent = QStringLiteral(ZEUS_AGENT_BINARY);

// The "server in the container": answers each connection with a greeting, then echoes what it reads, and ends
// its side when the client ends its own.
class EchoServer : public QObject {
public:
    EchoServer() {
        QVERIFY(m_server.listen(QHostAddress(QHostAddress::LocalHost), 0));
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++accepted;
                socket->write("hello from the container\n");
                QObject::connect(socket, &QTcpSocket::readyRead, socket,
                                 [socket] { socket->write(socket->readAll()); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    int accepted = 0;

private:
    QTcpServer m_server;
};

// Reads from a client socket until `size` bytes came or the deadline.
QByteArray readUntil(QTcpSocket& socket, qsizetype size, int timeoutMs = 10000) {
    QByteArray got;
    const bool complete = QTest::qWaitFor(
        [&] {
            got += socket.readAll();
            return got.size() >= size;
        },
        timeoutMs);
    Q_UNUSED(complete)  // the caller compares what came
    return got;
}

// A port of 127.0.0.1 that nothing listens on (taken and let go).
quint16 closedPort() {
    QTcpServer server;
    server.listen(QHostAddress(QHostAddress::LocalHost), 0);
    return server.serverPort();
}

}  // namespace

class TestPublishedPorts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void parsesSpecs_data();
    void parsesSpecs();
    void carriesBytesBothWays();
    void carriesALargeTransferUnderTheWindows();
    void listensOnLoopbackOnly();
    void nothingListeningInTheContainer();
    void connectionsWaitForTheAgent();
    void closeAllClosesEverything();
    void hostPortInUseIsAnError();
    void listenersAreBounded();

private:
    std::unique_ptr<AgentChannel> startAgent();
    std::unique_ptr<ContainerRuntime> m_runtime;
};

void TestPublishedPorts::initTestCase() {
    m_runtime = ContainerRuntime::create(RuntimeKind::Docker, kFakeEngine);
}

std::unique_ptr<AgentChannel> TestPublishedPorts::startAgent() {
    auto channel = std::make_unique<AgentChannel>(*m_runtime, QStringLiteral("ctr"), kAgent);
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    channel->start();
    if (!ready.wait(10000)) {
        return nullptr;
    }
    return channel;
}

void TestPublishedPorts::parsesSpecs_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("hostPort");
    QTest::addColumn<int>("containerPort");
    QTest::newRow("container port alone") << QStringLiteral("8000") << true << 0 << 8000;
    QTest::newRow("host and container") << QStringLiteral("18000:8000") << true << 18000 << 8000;
    QTest::newRow("host 0: any free one") << QStringLiteral("0:80") << true << 0 << 80;
    QTest::newRow("highest ports") << QStringLiteral("65535:65535") << true << 65535 << 65535;
    QTest::newRow("container port 0") << QStringLiteral("0") << false << 0 << 0;
    QTest::newRow("container port 70000") << QStringLiteral("70000") << false << 0 << 0;
    QTest::newRow("host port 70000") << QStringLiteral("70000:80") << false << 0 << 0;
    QTest::newRow("not a number") << QStringLiteral("http") << false << 0 << 0;
    QTest::newRow("empty") << QString() << false << 0 << 0;
    QTest::newRow("an address") << QStringLiteral("0.0.0.0:8000:80") << false << 0 << 0;
    QTest::newRow("a plus sign") << QStringLiteral("+80") << false << 0 << 0;
    QTest::newRow("a space") << QStringLiteral(" 80") << false << 0 << 0;
    QTest::newRow("negative") << QStringLiteral("-1") << false << 0 << 0;
    QTest::newRow("hex") << QStringLiteral("0x50") << false << 0 << 0;
    QTest::newRow("nothing after the colon") << QStringLiteral("80:") << false << 0 << 0;
    QTest::newRow("nothing before the colon") << QStringLiteral(":80") << false << 0 << 0;
}

void TestPublishedPorts::parsesSpecs() {
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(int, hostPort);
    QFETCH(int, containerPort);
    QString error;
    const std::optional<PortSpec> spec = PortSpec::parse(text, &error);
    QCOMPARE(spec.has_value(), valid);
    if (valid) {
        QCOMPARE(int(spec->hostPort), hostPort);
        QCOMPARE(int(spec->containerPort), containerPort);
        QCOMPARE(PortSpec::parse(spec->text()), spec);
    } else {
        QVERIFY(error.contains(QLatin1String("127.0.0.1")));
    }
}

void TestPublishedPorts::carriesBytesBothWays() {
    auto agent = startAgent();
    QVERIFY(agent);
    EchoServer container;
    PublishedPorts ports;
    ports.setAgent(agent.get());
    QString error;
    const auto port = ports.open({0, container.port()}, &error);
    QVERIFY2(port, qPrintable(error));
    QVERIFY(port->hostPort != 0);
    QCOMPARE(port->url().toString(), QStringLiteral("http://127.0.0.1:%1/").arg(port->hostPort));
    QCOMPARE(ports.ports().size(), 1);

    QTcpSocket browser;
    browser.connectToHost(QHostAddress(QHostAddress::LocalHost), port->hostPort);
    QVERIFY(browser.waitForConnected(5000));
    const QByteArray greeting("hello from the container\n");
    QCOMPARE(readUntil(browser, greeting.size()), greeting);
    browser.write("GET / HTTP/1.0\r\n\r\n");
    QCOMPARE(readUntil(browser, 18), QByteArray("GET / HTTP/1.0\r\n\r\n"));
    QCOMPARE(container.accepted, 1);
    QCOMPARE(agent->openTunnels(), 1);
    browser.disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(agent->openTunnels(), 0, 5000);
}

void TestPublishedPorts::carriesALargeTransferUnderTheWindows() {
    auto agent = startAgent();
    QVERIFY(agent);
    EchoServer container;
    PublishedPorts ports;
    ports.setAgent(agent.get());
    QString error;
    const auto port = ports.open({0, container.port()}, &error);
    QVERIFY(port);
    QTcpSocket browser;
    browser.connectToHost(QHostAddress(QHostAddress::LocalHost), port->hostPort);
    QVERIFY(browser.waitForConnected(5000));
    // 8 MiB out and back: four times the agent's window each way, so the windows must turn over many times.
    QByteArray payload(8 * 1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < payload.size(); ++i) {
        payload[i] = char((i * 7 + i / 4096) & 0xff);
    }
    browser.write(payload);
    const QByteArray greeting("hello from the container\n");
    const QByteArray back = readUntil(browser, greeting.size() + payload.size(), 60000);
    QCOMPARE(back.size(), greeting.size() + payload.size());
    QVERIFY(back.mid(greeting.size()) == payload);
}

void TestPublishedPorts::listensOnLoopbackOnly() {
    PublishedPorts ports;
    QString error;
    const auto port = ports.open({0, 80}, &error);
    QVERIFY(port);
    // Every other address of this computer refuses: the listener is bound to 127.0.0.1 alone.
    int tried = 0;
    for (const QHostAddress& address : QNetworkInterface::allAddresses()) {
        if (address.isLoopback() || address.protocol() != QAbstractSocket::IPv4Protocol) {
            continue;
        }
        ++tried;
        QTcpSocket other;
        other.connectToHost(address, port->hostPort);
        QVERIFY2(!other.waitForConnected(2000), qPrintable(address.toString()));
    }
    QTcpSocket v6;
    v6.connectToHost(QHostAddress(QHostAddress::LocalHostIPv6), port->hostPort);
    QVERIFY(!v6.waitForConnected(2000));
    qInfo() << "non-loopback addresses tried:" << tried;
}

void TestPublishedPorts::nothingListeningInTheContainer() {
    auto agent = startAgent();
    QVERIFY(agent);
    PublishedPorts ports;
    ports.setAgent(agent.get());
    QSignalSpy refused(&ports, &PublishedPorts::containerRefused);
    QString error;
    const quint16 nothing = closedPort();
    const auto port = ports.open({0, nothing}, &error);
    QVERIFY(port);
    QTcpSocket browser;
    browser.connectToHost(QHostAddress(QHostAddress::LocalHost), port->hostPort);
    QVERIFY(browser.waitForConnected(5000));
    QTRY_COMPARE_WITH_TIMEOUT(browser.state(), QAbstractSocket::UnconnectedState, 5000);
    QCOMPARE(refused.count(), 1);
    QCOMPARE(refused.at(0).at(0).value<quint16>(), nothing);
    QCOMPARE(agent->state(), AgentChannel::State::Ready);  // a refusal is an answer, not the agent's end
    QCOMPARE(agent->openTunnels(), 0);
}

void TestPublishedPorts::connectionsWaitForTheAgent() {
    EchoServer container;
    PublishedPorts ports;
    QString error;
    const auto port = ports.open({0, container.port()}, &error);
    QVERIFY(port);
    QTcpSocket browser;
    browser.connectToHost(QHostAddress(QHostAddress::LocalHost), port->hostPort);
    QVERIFY(browser.waitForConnected(5000));
    QTest::qWait(200);
    QCOMPARE(container.accepted, 0);
    auto agent = startAgent();
    QVERIFY(agent);
    ports.setAgent(agent.get());
    const QByteArray greeting("hello from the container\n");
    QCOMPARE(readUntil(browser, greeting.size()), greeting);

    // Without an agent to come (exec mode, a failed start) waiting is pointless: connections are closed.
    ports.setUnavailable();
    QTcpSocket late;
    late.connectToHost(QHostAddress(QHostAddress::LocalHost), port->hostPort);
    QVERIFY(late.waitForConnected(5000));
    QTRY_COMPARE_WITH_TIMEOUT(late.state(), QAbstractSocket::UnconnectedState, 5000);
}

void TestPublishedPorts::closeAllClosesEverything() {
    auto agent = startAgent();
    QVERIFY(agent);
    EchoServer container;
    PublishedPorts ports;
    ports.setAgent(agent.get());
    QSignalSpy changed(&ports, &PublishedPorts::portsChanged);
    QString error;
    const auto port = ports.open({0, container.port()}, &error);
    QVERIFY(port);
    QTcpSocket browser;
    browser.connectToHost(QHostAddress(QHostAddress::LocalHost), port->hostPort);
    QVERIFY(browser.waitForConnected(5000));
    QVERIFY(!readUntil(browser, 5).isEmpty());
    ports.closeAll();
    QVERIFY(ports.isEmpty());
    QCOMPARE(changed.count(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(browser.state(), QAbstractSocket::UnconnectedState, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(agent->openTunnels(), 0, 5000);
    QTcpSocket after;
    after.connectToHost(QHostAddress(QHostAddress::LocalHost), port->hostPort);
    QVERIFY(!after.waitForConnected(2000));  // connection refused: the port is closed
}

void TestPublishedPorts::hostPortInUseIsAnError() {
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress(QHostAddress::LocalHost), 0));
    PublishedPorts ports;
    QString error;
    QVERIFY(!ports.open({taken.serverPort(), 80}, &error));
    QVERIFY2(error.contains(QStringLiteral("127.0.0.1:%1").arg(taken.serverPort())), qPrintable(error));
    QVERIFY(ports.isEmpty());
}

// A hostile backend (with --allow-publish) names one container port after another: each would be a listening socket
// of the app until its descriptors run out. At most kMaxPorts per session; the same port again costs nothing.
void TestPublishedPorts::listenersAreBounded() {
    PublishedPorts ports;
    QString error;
    for (int i = 0; i < PublishedPorts::kMaxPorts; ++i) {
        QVERIFY2(ports.open({0, quint16(8000 + i)}, &error), qPrintable(error));
    }
    QVERIFY(ports.open({0, 8000}, &error));  // already open: the same listener
    QVERIFY(!ports.open({0, 9999}, &error));
    QVERIFY2(error.contains(QStringLiteral("at most %1 ports").arg(PublishedPorts::kMaxPorts)), qPrintable(error));
    QCOMPARE(ports.ports().size(), PublishedPorts::kMaxPorts);
}

QTEST_GUILESS_MAIN(TestPublishedPorts)
#include "tst_publishedports.moc"
