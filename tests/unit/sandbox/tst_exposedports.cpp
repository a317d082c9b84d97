// Exposed host ports (SPEC §8 "Ports", --expose-host) without an engine: ExposeSpec's spelling, and ExposedPorts
// carrying real connections from the real sandbox agent run on this host (the fake engine CLI runs
// `exec -i CONTAINER PROGRAM` here, as in tst_publishedports), so the agent's "container loopback" is this host's and
// a QTcpServer stands in for the host service. Only a configured pair may reach a host port: a tunnel whose kind
// names another port (a forged frame) is refused and reported as a denial. tst_ports does the same in a container.
#include "engine/containerruntime.h"
#include "sandbox/agent/agentchannel.h"
#include "sandbox/exposedports.h"
#include "sandbox/exposespec.h"

#include <QHostAddress>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace zeus;

namespace {

const QString kFakeEngine = QStringLiteral(ZEUS_TEST_FAKES_DIR "/agent/engine");
const QString kAgent = QStringLiteral(ZEUS_AGENT_BINARY);

// The "service on the host": greets each connection, then echoes what it reads.
class HostService : public QObject {
public:
    HostService() {
        QVERIFY(m_server.listen(QHostAddress(QHostAddress::LocalHost), 0));
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++accepted;
                socket->write("hello from the host\n");
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

// A port of 127.0.0.1 that nothing listens on (taken and let go): where the agent listens, as the container's.
quint16 freePort() {
    QTcpServer server;
    server.listen(QHostAddress(QHostAddress::LocalHost), 0);
    return server.serverPort();
}

// Waits for the agent's answer to a listen on port; true when it listens.
bool waitListening(QSignalSpy& spy, quint16 port) {
    return QTest::qWaitFor(
        [&] {
            for (const QList<QVariant>& args : std::as_const(spy)) {
                if (args.at(0).value<quint16>() == port) {
                    return args.at(1).value<quint32>() == 0;
                }
            }
            return false;
        },
        5000);
}

}  // namespace

class TestExposedPorts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void parsesSpecs_data();
    void parsesSpecs();
    void carriesAConnectionToTheHostService();
    void refusesAPortThatWasNotExposed();
    void hostServiceDownIsReported();

private:
    std::unique_ptr<AgentChannel> startAgent();
    std::unique_ptr<ContainerRuntime> m_runtime;
};

void TestExposedPorts::initTestCase() {
    qRegisterMetaType<EgressEvent>();
    m_runtime = ContainerRuntime::create(RuntimeKind::Docker, kFakeEngine);
}

std::unique_ptr<AgentChannel> TestExposedPorts::startAgent() {
    auto channel = std::make_unique<AgentChannel>(*m_runtime, QStringLiteral("ctr"), kAgent);
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    channel->start();
    if (!ready.wait(10000)) {
        return nullptr;
    }
    return channel;
}

void TestExposedPorts::parsesSpecs_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("hostPort");
    QTest::addColumn<int>("containerPort");
    QTest::newRow("host port alone: the same in the container") << QStringLiteral("5432") << true << 5432 << 5432;
    QTest::newRow("host and container") << QStringLiteral("15432:5432") << true << 15432 << 5432;
    QTest::newRow("highest ports") << QStringLiteral("65535:65535") << true << 65535 << 65535;
    QTest::newRow("port 0") << QStringLiteral("0") << false << 0 << 0;
    QTest::newRow("container port 0") << QStringLiteral("5432:0") << false << 0 << 0;
    QTest::newRow("port 70000") << QStringLiteral("70000") << false << 0 << 0;
    QTest::newRow("the agent's HTTP proxy") << QStringLiteral("3128") << false << 0 << 0;
    QTest::newRow("the agent's SOCKS proxy") << QStringLiteral("9000:1080") << false << 0 << 0;
    QTest::newRow("not a number") << QStringLiteral("db") << false << 0 << 0;
    QTest::newRow("empty") << QString() << false << 0 << 0;
    QTest::newRow("an address") << QStringLiteral("10.0.0.1:5432:5432") << false << 0 << 0;
    QTest::newRow("a plus sign") << QStringLiteral("+80") << false << 0 << 0;
    QTest::newRow("hex") << QStringLiteral("0x50") << false << 0 << 0;
    QTest::newRow("nothing after the colon") << QStringLiteral("80:") << false << 0 << 0;
}

void TestExposedPorts::parsesSpecs() {
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(int, hostPort);
    QFETCH(int, containerPort);
    QString error;
    const std::optional<ExposeSpec> spec = ExposeSpec::parse(text, &error);
    QCOMPARE(spec.has_value(), valid);
    if (valid) {
        QCOMPARE(int(spec->hostPort), hostPort);
        QCOMPARE(int(spec->containerPort), containerPort);
        QCOMPARE(ExposeSpec::parse(spec->text()), spec);
    } else {
        QVERIFY(!error.isEmpty());
    }
}

void TestExposedPorts::carriesAConnectionToTheHostService() {
    auto agent = startAgent();
    QVERIFY(agent);
    HostService service;
    const quint16 containerPort = freePort();
    QSignalSpy listening(agent.get(), &AgentChannel::listening);
    ExposedPorts exposed(QStringLiteral("s1"), agent.get(), {{service.port(), containerPort}});
    QSignalSpy decided(&exposed, &ExposedPorts::decided);
    exposed.start();
    QVERIFY(waitListening(listening, containerPort));

    QTcpSocket command;
    command.connectToHost(QHostAddress(QHostAddress::LocalHost), containerPort);
    QVERIFY(command.waitForConnected(5000));
    const QByteArray greeting("hello from the host\n");
    QCOMPARE(readUntil(command, greeting.size()), greeting);
    command.write("PING\n");
    QCOMPARE(readUntil(command, 5), QByteArray("PING\n"));
    QCOMPARE(service.accepted, 1);
    QCOMPARE(decided.size(), 1);
    const auto event = decided.at(0).at(0).value<EgressEvent>();
    QVERIFY(event.allowed);
    QCOMPARE(event.decisionWord(), QStringLiteral("allowed"));
    QCOMPARE(event.sessionId, QStringLiteral("s1"));
    QCOMPARE(event.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(event.port, int(service.port()));
    QCOMPARE(event.rule, QStringLiteral("expose-host"));
    command.disconnectFromHost();
    QTRY_COMPARE_WITH_TIMEOUT(agent->openTunnels(), 0, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(exposed.openConnections(), 0, 5000);
}

// The attack: the agent (or a command that reached its pipe) opens a tunnel whose kind names a port of this computer
// that the session never exposed. The app must not connect there, and must say so as a denial.
void TestExposedPorts::refusesAPortThatWasNotExposed() {
    auto agent = startAgent();
    QVERIFY(agent);
    HostService configured;
    HostService secret;  // a host service nobody exposed
    QSignalSpy listening(agent.get(), &AgentChannel::listening);
    ExposedPorts exposed(QStringLiteral("s2"), agent.get(), {{configured.port(), freePort()}});
    QSignalSpy decided(&exposed, &ExposedPorts::decided);
    exposed.start();
    // A listener the app never asked for, whose kind names the secret service's port as if it were exposed.
    const quint16 forged = freePort();
    agent->listen(forged, agentframe::exposeKind(secret.port()));
    QVERIFY(waitListening(listening, forged));

    QTcpSocket command;
    command.connectToHost(QHostAddress(QHostAddress::LocalHost), forged);
    QVERIFY(command.waitForConnected(5000));
    command.write("GET / HTTP/1.0\r\n\r\n");
    QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(command.state() == QAbstractSocket::UnconnectedState, 5000);
    QCOMPARE(command.readAll(), QByteArray());
    QCOMPARE(secret.accepted, 0);
    QCOMPARE(configured.accepted, 0);
    QCOMPARE(exposed.openConnections(), 0);
    const auto event = decided.at(0).at(0).value<EgressEvent>();
    QVERIFY(!event.allowed);
    QCOMPARE(event.decisionWord(), QStringLiteral("denied"));
    QCOMPARE(event.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(event.port, int(secret.port()));
    QVERIFY2(event.rule.startsWith(QLatin1String("expose-host")), qPrintable(event.rule));
    QCOMPARE(agent->state(), AgentChannel::State::Ready);  // refused, and the session goes on
}

// Nothing listens on the host port: the command's connection ends, and the row says why.
void TestExposedPorts::hostServiceDownIsReported() {
    auto agent = startAgent();
    QVERIFY(agent);
    const quint16 hostPort = freePort();
    const quint16 containerPort = freePort();
    QSignalSpy listening(agent.get(), &AgentChannel::listening);
    ExposedPorts exposed(QStringLiteral("s3"), agent.get(), {{hostPort, containerPort}});
    QSignalSpy decided(&exposed, &ExposedPorts::decided);
    exposed.start();
    QVERIFY(waitListening(listening, containerPort));
    QTcpSocket command;
    command.connectToHost(QHostAddress(QHostAddress::LocalHost), containerPort);
    QVERIFY(command.waitForConnected(5000));
    QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(command.state() == QAbstractSocket::UnconnectedState, 5000);
    const auto event = decided.at(0).at(0).value<EgressEvent>();
    QCOMPARE(event.port, int(hostPort));
    QCOMPARE(event.rule, QStringLiteral("expose-host"));
    QVERIFY2(event.detail.contains(QLatin1String("failed")), qPrintable(event.detail));
    QTRY_COMPARE_WITH_TIMEOUT(exposed.openConnections(), 0, 5000);
}

QTEST_GUILESS_MAIN(TestExposedPorts)
#include "tst_exposedports.moc"
