// Exposed host services (SPEC §8 "Ports", --expose-host) on real engines (Docker and Podman rows), through the
// SessionManager as the app runs it: an HTTP server on this computer's 127.0.0.1 is fetched with busybox wget from
// inside the sandbox at 127.0.0.1:CONTAINER_PORT, with the network `none` (the agent is the only way in) and with
// the allowlist (the egress proxy beside it; busybox wget ignores NO_PROXY, so it is told `-Y off`); each connection is
// an allowed row naming the host port and the rule expose-host; a container port that was not exposed is refused in the
// container and never reaches this computer; a session on plain exec says that expose-host needs the agent. The refusal
// of a forged tunnel is tst_exposedports'.
#include "sandbox/sandboxsession.h"
#include "sessionfixture.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>

#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

// An HTTP server on this computer's 127.0.0.1: one small page for every request, counted.
class HostHttpServer : public QObject {
public:
    HostHttpServer() {
        QVERIFY(m_server.listen(QHostAddress(QHostAddress::LocalHost), 0));
        QObject::connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                ++accepted;
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [socket] {
                    if (!socket->readAll().contains("\r\n\r\n")) {
                        return;  // busybox wget sends its request in one go; anything else is not this test's
                    }
                    const QByteArray body("hello-from-the-host\n");
                    socket->write("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                                  + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
                    socket->disconnectFromHost();
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    int accepted = 0;

private:
    QTcpServer m_server;
};

constexpr quint16 kContainerPort = 15432;
constexpr quint16 kNotExposed = 15433;

}  // namespace

class TestExposeHost : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void reachesTheHostService_data();
    void reachesTheHostService();
    void perFolderAndTakenAway_data();
    void perFolderAndTakenAway();
    void execModeSaysSo_data();
    void execModeSaysSo();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, SandboxConfig config);
    QTemporaryDir m_dir;
    QStringList m_owners;
    QString m_engine;
    QList<EgressEvent> m_events;
};

void TestExposeHost::initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFileInfo(QStringLiteral(ZEUS_AGENT_BINARY)).isExecutable(), "the agent is built with the project");
}

void TestExposeHost::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(m_engine, owner);
    }
    m_events.clear();
}

std::unique_ptr<SessionManager> TestExposeHost::makeManager(const QString& engine, SandboxConfig config) {
    m_engine = engine;
    config.ownerId = uniqueOwner();
    m_owners << config.ownerId;
    auto manager = std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    connect(manager.get(), &SessionManager::egressDecided, this,
            [this](const EgressEvent& event) { m_events << event; });
    return manager;
}

void TestExposeHost::reachesTheHostService_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("network");
    for (const QString& engine : {QStringLiteral("docker"), QStringLiteral("podman")}) {
        QTest::addRow("%s, network none", qPrintable(engine)) << engine << int(NetworkMode::None);
        QTest::addRow("%s, allowlist", qPrintable(engine)) << engine << int(NetworkMode::Allowlist);
    }
}

void TestExposeHost::reachesTheHostService() {
    QFETCH(QString, engine);
    QFETCH(int, network);
    ZEUS_REQUIRE_ENGINE(engine);
    if (qEnvironmentVariable("ZEUS_TEST_EXEC_MODE") == QStringLiteral("exec")) {
        QSKIP("expose-host needs the agent (execModeSaysSo)");
    }
    HostHttpServer service;
    HostHttpServer notExposed;  // a service on this computer nobody exposed
    SandboxConfig config = testConfig(QString());
    config.networkMode = NetworkMode(network);
    config.exposeHost = {ExposeSpec{service.port(), kContainerPort}};
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("expose"));

    const ExecResult fetched =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -Y off -qO- http://127.0.0.1:%1/").arg(kContainerPort));
    QVERIFY2(fetched.exitCode.value_or(-1) == 0, qPrintable(rec.stderrOf.value(fetched.callId)));
    QCOMPARE(rec.stdoutOf.value(fetched.callId), QStringLiteral("hello-from-the-host\n"));
    QCOMPARE(service.accepted, 1);

    // A port that was not exposed: nothing listens there in the container, and nothing reaches this computer, not
    // even at the number of a real service here.
    for (const quint16 port : {kNotExposed, notExposed.port()}) {
        const ExecResult refused =
            rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -Y off -qO- http://127.0.0.1:%1/").arg(port));
        QVERIFY(refused.exitCode.value_or(0) != 0);
        QVERIFY2(rec.stderrOf.value(refused.callId).contains(QLatin1String("refused")),
                 qPrintable(rec.stderrOf.value(refused.callId)));
    }
    QCOMPARE(notExposed.accepted, 0);
    QCOMPARE(service.accepted, 1);

    // The policy log's row (and the session's log) name what was reached.
    QVERIFY(QTest::qWaitFor([&] { return !m_events.isEmpty(); }, 5000));
    QCOMPARE(m_events.size(), 1);
    const EgressEvent& event = m_events.constFirst();
    QCOMPARE(event.sessionId, QStringLiteral("s"));
    QCOMPARE(event.decisionWord(), QStringLiteral("allowed"));
    QCOMPARE(event.host, QStringLiteral("127.0.0.1"));
    QCOMPARE(event.port, int(service.port()));
    QCOMPARE(event.rule, QStringLiteral("expose-host"));
    bool logged = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        logged = logged
                 || entry.message.contains(QStringLiteral("127.0.0.1:%1 is reachable in the container at 127.0.0.1:%2")
                                               .arg(service.port())
                                               .arg(kContainerPort));
    }
    QVERIFY(logged);
    // Many at once, each its own tunnel and its own row.
    const ExecResult several = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("for i in 1 2 3 4; do wget -Y off -qO- http://127.0.0.1:%1/ & done; wait").arg(kContainerPort));
    QCOMPARE(several.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(several.callId).count(QStringLiteral("hello-from-the-host")), 4);
    QTRY_COMPARE_WITH_TIMEOUT(m_events.size(), 5, 5000);
}

void TestExposeHost::perFolderAndTakenAway_data() {
    QTest::addColumn<QString>("engine");
    for (const QString& engine : {QStringLiteral("docker"), QStringLiteral("podman")}) {
        QTest::newRow(qPrintable(engine)) << engine;
    }
}

// The tray app's per-folder setting (Settings → Approval, "Host services"): the folder's sandbox reaches the service,
// another folder's does not, and taking it away ends the live session, whose next container has no listener there.
void TestExposeHost::perFolderAndTakenAway() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    if (qEnvironmentVariable("ZEUS_TEST_EXEC_MODE") == QStringLiteral("exec")) {
        QSKIP("expose-host needs the agent (execModeSaysSo)");
    }
    HostHttpServer service;
    const QString ws = makeWorkspace(m_dir, QStringLiteral("expose-folder"));
    const QString other = makeWorkspace(m_dir, QStringLiteral("expose-other"));
    SandboxConfig config = testConfig(QString());
    config.networkMode = NetworkMode::None;
    config.folderExposeHost.insert(ws, {ExposeSpec{service.port(), kContainerPort}});
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString fetch = QStringLiteral("wget -Y off -qO- http://127.0.0.1:%1/").arg(kContainerPort);

    const ExecResult fetched = rec.run(QStringLiteral("f"), ws, fetch);
    QVERIFY2(fetched.exitCode.value_or(-1) == 0, qPrintable(rec.stderrOf.value(fetched.callId)));
    QCOMPARE(rec.stdoutOf.value(fetched.callId), QStringLiteral("hello-from-the-host\n"));
    const ExecResult elsewhere = rec.run(QStringLiteral("o"), other, fetch);
    QVERIFY(elsewhere.exitCode.value_or(0) != 0);
    QCOMPARE(service.accepted, 1);

    manager->setFolderAccess({}, {});
    QCOMPARE(manager->sessionState(QStringLiteral("f")), SessionState::Stopped);
    const ExecResult after = rec.run(QStringLiteral("f"), ws, fetch);
    QVERIFY(after.exitCode.value_or(0) != 0);
    QVERIFY2(rec.stderrOf.value(after.callId).contains(QLatin1String("refused")),
             qPrintable(rec.stderrOf.value(after.callId)));
    QCOMPARE(service.accepted, 1);
}

void TestExposeHost::execModeSaysSo_data() {
    QTest::addColumn<QString>("engine");
    for (const QString& engine : {QStringLiteral("docker"), QStringLiteral("podman")}) {
        QTest::newRow(qPrintable(engine)) << engine;
    }
}

void TestExposeHost::execModeSaysSo() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    HostHttpServer service;
    SandboxConfig config = testConfig(QString());
    config.execMode = ExecMode::Exec;
    config.exposeHost = {ExposeSpec{service.port(), kContainerPort}};
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("expose-exec"));
    const ExecResult fetched =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -Y off -qO- http://127.0.0.1:%1/").arg(kContainerPort));
    QVERIFY(fetched.exitCode.value_or(0) != 0);
    QCOMPARE(service.accepted, 0);
    int said = 0;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        said += entry.message.contains(QStringLiteral("expose-host needs the sandbox agent (exec mode)")) ? 1 : 0;
    }
    QCOMPARE(said, 1);
}

QTEST_GUILESS_MAIN(TestExposeHost)
#include "tst_exposehost.moc"
