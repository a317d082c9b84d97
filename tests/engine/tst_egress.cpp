// The egress allowlist on real engines (Docker and Podman rows), as the app runs it (SPEC §8): the container has
// no network; the agent's listeners carry HTTP proxy, CONNECT and SOCKS5 requests to the app's proxy, which
// lets through only what the policy allows. Everything is on loopback: a fixture server on 127.0.0.1 reached
// through --resolve names, never an outside address.
#include "sessionfixture.h"

#include <QTcpServer>
#include <QTcpSocket>

#include <memory>
#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

QStringList engines() {
    return {QStringLiteral("docker"), QStringLiteral("podman")};
}

// A tiny HTTP server: answers every request with "hello-from-fixture PATH" and keeps what it saw.
class FixtureServer : public QObject {
public:
    FixtureServer() {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connections++;
                auto buffer = std::make_shared<QByteArray>();
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                    *buffer += socket->readAll();
                    const qsizetype end = buffer->indexOf("\r\n\r\n");
                    if (end < 0) {
                        return;
                    }
                    heads << buffer->left(end);
                    const QByteArray path = buffer->split(' ').value(1);
                    const QByteArray body = "hello-from-fixture " + path + '\n';
                    socket->write("HTTP/1.0 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n"
                                  + body);
                    socket->disconnectFromHost();
                    buffer->clear();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    int port() const { return m_server.serverPort(); }
    int connections = 0;
    QList<QByteArray> heads;

private:
    QTcpServer m_server;
};

}  // namespace

class TestEgress : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void allowedNameIsForwarded_data() { engineRows(); }
    void allowedNameIsForwarded();
    void deniedNameGets403AndNoConnection_data() { engineRows(); }
    void deniedNameGets403AndNoConnection();
    void connectAndSocksTunnels_data() { engineRows(); }
    void connectAndSocksTunnels();
    void noRouteAroundTheProxy_data() { engineRows(); }
    void noRouteAroundTheProxy();
    void loopbackNameRefusedWithoutOverride_data() { engineRows(); }
    void loopbackNameRefusedWithoutOverride();
    void allowForSessionWorksAtOnce_data() { engineRows(); }
    void allowForSessionWorksAtOnce();

private:
    static void engineRows();
    std::unique_ptr<SessionManager> makeManager(const QString& engine, const QStringList& allow,
                                                const QStringList& deny, bool withOverrides = true);
    QTemporaryDir m_dir;
    QStringList m_owners;
    QString m_engine;
    std::unique_ptr<FixtureServer> m_server;
    QList<EgressEvent> m_events;
};

void TestEgress::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestEgress::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(m_engine, owner);
    }
    m_server.reset();
    m_events.clear();
}

void TestEgress::engineRows() {
    QTest::addColumn<QString>("engine");
    for (const QString& engine : engines()) {
        QTest::newRow(qPrintable(engine)) << engine;
    }
}

std::unique_ptr<SessionManager> TestEgress::makeManager(const QString& engine, const QStringList& allow,
                                                        const QStringList& deny, bool withOverrides) {
    m_engine = engine;
    m_server = std::make_unique<FixtureServer>();
    const QString port = QString::number(m_server->port());
    SandboxConfig config = testConfig(uniqueOwner());
    m_owners << config.ownerId;
    config.networkMode = NetworkMode::Allowlist;
    QStringList resolve;
    if (withOverrides) {
        for (const char* name : {"allowed.test", "denied.test", "later.test"}) {
            resolve << QString::fromLatin1(name) + QLatin1Char(':') + port + QStringLiteral(":127.0.0.1");
        }
    }
    QStringList errors;
    QStringList allowRules;
    for (const QString& rule : allow) {
        allowRules << QString(rule).replace(QStringLiteral("PORT"), port);
    }
    config.egress =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"), allowRules, deny, resolve, &errors);
    if (!errors.isEmpty()) {
        qWarning() << errors;
    }
    auto manager = std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    connect(manager.get(), &SessionManager::egressDecided, this,
            [this](const EgressEvent& event) { m_events << event; });
    return manager;
}

void TestEgress::allowedNameIsForwarded() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const QString port = QString::number(m_server->port());
    // busybox wget follows http_proxy, as curl, pip and npm do: the command does not know about the proxy.
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -q -O- http://allowed.test:%1/hello").arg(port));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(result.callId), QStringLiteral("hello-from-fixture /hello\n"));
    QCOMPARE(m_server->connections, 1);
    // The server gets an origin-form request, one per connection.
    QVERIFY2(m_server->heads.value(0).startsWith("GET /hello HTTP/1."), m_server->heads.value(0).constData());
    QVERIFY(m_server->heads.value(0).contains("Connection: close"));
    QVERIFY(!m_events.isEmpty() && m_events.last().allowed && m_events.last().host == QStringLiteral("allowed.test"));
}

void TestEgress::deniedNameGets403AndNoConnection() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const QString port = QString::number(m_server->port());
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral(
                    "printf 'GET http://denied.test:%1/x HTTP/1.1\\r\\nHost: denied.test\\r\\n\\r\\n' | nc 127.0.0.1 "
                    "3128; echo; wget -q -O- http://denied.test:%1/x; echo \"wget=$?\"")
                    .arg(port));
    const QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.startsWith(QStringLiteral("HTTP/1.1 403 Forbidden\r\n")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("X-Proxy-Error: blocked-by-allowlist\r\n")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("denied.test:%1 is not allowed").arg(port)), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("--allow-host denied.test:%1").arg(port)), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("wget=1")), qPrintable(out));
    QCOMPARE(m_server->connections, 0);
    QVERIFY(!m_events.isEmpty());
    for (const EgressEvent& event : std::as_const(m_events)) {
        QCOMPARE(event.allowed, false);
        QCOMPARE(event.host, QStringLiteral("denied.test"));
        QCOMPARE(event.port, m_server->port());
        QCOMPARE(event.rule, QStringLiteral("no rule"));
    }
    bool logged = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        logged = logged || entry.message.contains(QStringLiteral("denied.test:%1 denied").arg(port));
    }
    QVERIFY(logged);
}

void TestEgress::connectAndSocksTunnels() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const int port = m_server->port();
    // CONNECT, as curl and git do for https.
    ExecResult result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("printf 'CONNECT allowed.test:%1 HTTP/1.1\\r\\n\\r\\nGET /tunnel HTTP/1.0\\r\\n\\r\\n' | nc "
                       "127.0.0.1 3128")
            .arg(port));
    QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.startsWith(QStringLiteral("HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200 OK")),
             qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /tunnel")), qPrintable(out));
    // SOCKS5 with a host name (socks5h): greeting, then CONNECT to allowed.test:PORT.
    const QString socks = QStringLiteral(
                              "printf '\\005\\001\\000'; sleep 0.3; printf '\\005\\001\\000\\003\\014allowed.test"
                              "\\%1\\%2'; printf 'GET /socks HTTP/1.0\\r\\n\\r\\n'")
                              .arg(port >> 8, 3, 8, QLatin1Char('0'))
                              .arg(port & 0xff, 3, 8, QLatin1Char('0'));
    result = rec.run(QStringLiteral("s"), ws, QStringLiteral("(%1) | nc 127.0.0.1 1080 | tail -c 40").arg(socks));
    out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /socks")), qPrintable(out));
    // ssh's ProxyCommand: the agent's own CONNECT client.
    result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("printf 'GET /ssh HTTP/1.0\\r\\n\\r\\n' | /run/zeus/agent connect allowed.test %1").arg(port));
    out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /ssh")),
             qPrintable(out + rec.stderrOf.value(result.callId)));
    // A SOCKS request for a name the policy does not allow: reply 2, no connection.
    const int before = m_server->connections;
    const QString deniedSocks = QStringLiteral(
                                    "printf '\\005\\001\\000'; sleep 0.3; printf "
                                    "'\\005\\001\\000\\003\\013denied.test\\%1\\%2'; sleep 0.3")
                                    .arg(port >> 8, 3, 8, QLatin1Char('0'))
                                    .arg(port & 0xff, 3, 8, QLatin1Char('0'));
    result =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("(%1) | nc 127.0.0.1 1080 | od -An -tx1").arg(deniedSocks));
    out = rec.stdoutOf.value(result.callId).simplified();
    QVERIFY2(out.startsWith(QStringLiteral("05 00 05 02")), qPrintable(out));
    QCOMPARE(m_server->connections, before);
    QCOMPARE(manager->config().effectiveNetworkMode(), NetworkMode::Allowlist);
}

void TestEgress::noRouteAroundTheProxy() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const QString port = QString::number(m_server->port());
    // Without the proxy there is no way out: no DNS, no route, not even to a public address.
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("wget -Y off -q -T 3 -O- http://allowed.test:%1/direct; echo \"wget=$?\"; "
                               "nslookup allowed.test >/dev/null 2>&1; echo \"dns=$?\"; "
                               "nc -w 2 192.0.2.1 80 </dev/null; echo \"nc=$?\"; "
                               "ip route 2>/dev/null | grep -c default; "
                               "echo done")
                    .arg(port));
    const QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("wget=1")), qPrintable(out));
    QVERIFY2(!out.contains(QStringLiteral("dns=0")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("nc=1")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("\n0\ndone")), qPrintable(out));
    QCOMPARE(m_server->connections, 0);
}

void TestEgress::loopbackNameRefusedWithoutOverride() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    // The rule allows the name, but the name resolves to a loopback address and no override names it.
    auto manager = makeManager(engine, {QStringLiteral("localhost:PORT")}, {}, false);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const QString port = QString::number(m_server->port());
    const ExecResult result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("printf 'GET http://localhost:%1/x HTTP/1.1\\r\\n\\r\\n' | nc 127.0.0.1 3128").arg(port));
    const QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.startsWith(QStringLiteral("HTTP/1.1 403 Forbidden")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("loopback address")), qPrintable(out));
    QCOMPARE(m_server->connections, 0);
}

void TestEgress::allowForSessionWorksAtOnce() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const QString port = QString::number(m_server->port());
    const QString fetch = QStringLiteral("wget -q -O- http://later.test:%1/later; echo \"wget=$?\"").arg(port);
    ExecResult result = rec.run(QStringLiteral("s"), ws, fetch);
    QVERIFY2(rec.stdoutOf.value(result.callId).contains(QStringLiteral("wget=1")),
             qPrintable(rec.stdoutOf.value(result.callId)));
    QCOMPARE(m_server->connections, 0);
    manager->allowHostForSession(QStringLiteral("s"), QStringLiteral("later.test:") + port);
    result = rec.run(QStringLiteral("s"), ws, fetch);
    QVERIFY2(rec.stdoutOf.value(result.callId).contains(QStringLiteral("hello-from-fixture /later\nwget=0")),
             qPrintable(rec.stdoutOf.value(result.callId)));
    QCOMPARE(m_server->connections, 1);
    // Another session does not get it.
    result = rec.run(QStringLiteral("other"), ws, fetch);
    QVERIFY2(rec.stdoutOf.value(result.callId).contains(QStringLiteral("wget=1")),
             qPrintable(rec.stdoutOf.value(result.callId)));
    // "Allow once": exactly one more request passes.
    manager->allowHostOnce(QStringLiteral("other"), QStringLiteral("later.test"), m_server->port());
    result = rec.run(QStringLiteral("other"), ws, fetch + QLatin1String("; ") + fetch);
    const QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("wget=0")) && out.contains(QStringLiteral("wget=1")), qPrintable(out));
    QCOMPARE(m_server->connections, 2);
}

QTEST_GUILESS_MAIN(TestEgress)
#include "tst_egress.moc"
