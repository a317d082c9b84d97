// The egress allowlist on real engines (Docker and Podman rows), as the app runs it (SPEC §8): the container has
// no network; the agent's listeners carry HTTP proxy, CONNECT and SOCKS5 requests to the app's proxy, which
// lets through only what the policy allows. Everything is on loopback: a fixture server on 127.0.0.1 reached
// through --resolve names, never an outside address.
#include "egressfixtures.h"
#include "sessionfixture.h"

#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUuid>

#include <memory>
#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

QStringList engines() {
    return {QStringLiteral("docker"), QStringLiteral("podman")};
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

// printf's octal escapes for a SOCKS5 port.
QString socksPort(int port) {
    return QStringLiteral("\\%1\\%2").arg(port >> 8, 3, 8, QLatin1Char('0')).arg(port & 0xff, 3, 8, QLatin1Char('0'));
}

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
    void tunnelToPort80IsRefused_data() { engineRows(); }
    void tunnelToPort80IsRefused();
    void tunnelCarriesOnlyTheCheckedName_data() { engineRows(); }
    void tunnelCarriesOnlyTheCheckedName();
    void oddAddressSpellingsAreNeverConnected_data() { engineRows(); }
    void oddAddressSpellingsAreNeverConnected();
    void secretInAHostNameIsRedacted_data() { engineRows(); }
    void secretInAHostNameIsRedacted();
    void downloadIsHandedOver_data() { engineRows(); }
    void downloadIsHandedOver();

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

// SPEC §8: a command can put a secret into a name it asks for; the name reaches network_event, the policy log and
// the session log only through the session's redactor, whatever case the proxy or the client gives it.
void TestEgress::secretInAHostNameIsRedacted() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QByteArray value = "AbCdEf" + QUuid::createUuid().toString(QUuid::Id128).left(12).toLatin1();
    ExecRequest request;
    request.callId = QStringLiteral("leak");
    request.sessionId = QStringLiteral("s");
    request.workspace = makeWorkspace(m_dir, QStringLiteral("egress"));
    request.secrets = {SecretValue{QStringLiteral("ZEUS_T_HOST"), value}};
    request.command = QStringLiteral(
                          "wget -q -O- \"http://${ZEUS_T_HOST}.denied.test:%1/x\"; "
                          "wget -q -O- \"http://$(printf %s \"$ZEUS_T_HOST\" | tr A-Z a-z).denied.test:%1/\"")
                          .arg(m_server->port());
    manager->execute(request);
    QVERIFY(rec.waitFor(request.callId, 60000));
    QVERIFY(m_events.size() >= 2);
    for (const EgressEvent& event : std::as_const(m_events)) {
        const QString seen = event.host + event.rule + event.detail;
        QVERIFY2(!seen.contains(QString::fromLatin1(value), Qt::CaseInsensitive), qPrintable(seen));
        QVERIFY2(event.host.startsWith(QLatin1String("[REDACTED:ZEUS_T_HOST]")), qPrintable(event.host));
    }
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        QVERIFY2(!entry.message.contains(QString::fromLatin1(value), Qt::CaseInsensitive), qPrintable(entry.message));
    }
    QCOMPARE(m_server->connections, 0);
}

// The fast way of a download (docs/agent-protocol.md "Handing a tunnel over"): once the answer's head came, the agent
// hands the client's socket over on its lane and the app splices the rest into it. The bytes arrive whole, and the
// session log says it happened, once per agent.
void TestEgress::downloadIsHandedOver() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const QString url = QStringLiteral("http://allowed.test:%1/bytes/8388608").arg(m_server->port());
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -q -O- %1 | wc -c; wget -q -O- %1 | wc -c").arg(url));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QCOMPARE(rec.stdoutOf.value(result.callId).split(QLatin1Char('\n'), Qt::SkipEmptyParts),
             QStringList({QStringLiteral("8388608"), QStringLiteral("8388608")}));
    QCOMPARE(m_server->connections, 2);
    int said = 0;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        said += entry.message.contains(
            QStringLiteral("handed its connection for allowed.test:%1 over on its lane").arg(m_server->port()));
    }
    QCOMPARE(said, 1);
}

void TestEgress::connectAndSocksTunnels() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const int port = m_server->port();
    // CONNECT, as curl and git do for https: the ClientHello names the host asked for (the fixture does not
    // speak TLS; a request after the hello is what it answers).
    writeFile(ws + QStringLiteral("/hello-allowed.bin"), clientHello("allowed.test"));
    ExecResult result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("(printf 'CONNECT allowed.test:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.3; cat hello-allowed.bin; "
                       "printf 'GET /tunnel HTTP/1.0\\r\\n\\r\\n') | nc 127.0.0.1 3128")
            .arg(port));
    QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.startsWith(QStringLiteral("HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200 OK")),
             qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /tunnel")), qPrintable(out));
    QVERIFY(m_server->raw.value(0).startsWith(clientHello("allowed.test")));
    // SOCKS5 with a host name (socks5h): greeting, then CONNECT to allowed.test:PORT, then the hello.
    const QString socks = QStringLiteral(
                              "printf '\\005\\001\\000'; sleep 0.3; printf '\\005\\001\\000\\003\\014allowed.test%1'; "
                              "sleep 0.3; cat hello-allowed.bin; printf 'GET /socks HTTP/1.0\\r\\n\\r\\n'")
                              .arg(socksPort(port));
    result = rec.run(QStringLiteral("s"), ws, QStringLiteral("(%1) | nc 127.0.0.1 1080 | tail -c 40").arg(socks));
    out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /socks")), qPrintable(out));
    // ssh's ProxyCommand: the agent's own CONNECT client; ssh starts with its identification line.
    result = rec.run(QStringLiteral("s"), ws,
                     QStringLiteral("printf 'SSH-2.0-OpenSSH_9.6 test\\r\\nGET /ssh HTTP/1.0\\r\\n\\r\\n' | "
                                    "/run/zeus/agent connect allowed.test %1")
                         .arg(port));
    out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /ssh")),
             qPrintable(out + rec.stderrOf.value(result.callId)));
    // A SOCKS request for a name the policy does not allow: reply 2, no connection.
    const int before = m_server->connections;
    const QString deniedSocks =
        QStringLiteral(
            "printf '\\005\\001\\000'; sleep 0.3; printf '\\005\\001\\000\\003\\013denied.test%1'; sleep 0.3")
            .arg(socksPort(port));
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

// CONNECT (or SOCKS) to port 80 is a raw tunnel whose Host the proxy never sees: behind a CDN, `CONNECT
// allowed:80` then `Host: other` reaches other. Plain HTTP goes through the absolute-URI path instead.
void TestEgress::tunnelToPort80IsRefused() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test")}, {}, false);
    manager->allowHostForSession(QStringLiteral("s"), QStringLiteral("allowed.test:80"));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const ExecResult result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral(
            "printf 'CONNECT allowed.test:80 HTTP/1.1\\r\\n\\r\\nGET / HTTP/1.1\\r\\nHost: other.test\\r\\n\\r\\n' "
            "| nc 127.0.0.1 3128; echo; "
            "(printf '\\005\\001\\000'; sleep 0.3; printf '\\005\\001\\000\\003\\014allowed.test\\000\\120'; "
            "sleep 0.3) | nc 127.0.0.1 1080 | od -An -tx1"));
    const QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.startsWith(QStringLiteral("HTTP/1.1 403 Forbidden\r\n")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("X-Proxy-Error: blocked-by-allowlist")), qPrintable(out));
    QVERIFY2(out.simplified().endsWith(QStringLiteral("05 00 05 02 00 01 00 00 00 00 00 00")), qPrintable(out));
    QCOMPARE(m_server->connections, 0);
    int denied = 0;
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY(!event.allowed);
        QCOMPARE(event.host, QStringLiteral("allowed.test"));
        QCOMPARE(event.port, 80);
        denied++;
    }
    QCOMPARE(denied, 2);
}

// On any other port of a name rule the tunnel must start with a TLS ClientHello naming the checked host (or an
// SSH line); anything else ends it before the proxy connects anywhere.
void TestEgress::tunnelCarriesOnlyTheCheckedName() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("allowed.test:PORT")}, {});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const int port = m_server->port();
    writeFile(ws + QStringLiteral("/hello-other.bin"), clientHello("other.test"));
    writeFile(ws + QStringLiteral("/hello-upper.bin"), clientHello("ALLOWED.test"));
    const QString tunnel = QStringLiteral(
        "(printf 'CONNECT allowed.test:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.3; %2; "
        "printf 'GET /x HTTP/1.0\\r\\nHost: other.test\\r\\n\\r\\n'; sleep 0.3) | "
        "nc 127.0.0.1 3128; echo \" end\"");
    const QString socks = QStringLiteral(
                              "(printf '\\005\\001\\000'; sleep 0.3; printf '\\005\\001\\000\\003\\014allowed.test%1'; "
                              "sleep 0.3; cat hello-other.bin; printf 'GET /x HTTP/1.0\\r\\n\\r\\n'; sleep 0.3) | "
                              "nc 127.0.0.1 1080 | od -An -tx1")
                              .arg(socksPort(port));
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                tunnel.arg(port).arg(QStringLiteral("true")) + QStringLiteral("; ")                       // plain HTTP
                    + tunnel.arg(port).arg(QStringLiteral("cat hello-other.bin")) + QStringLiteral("; ")  // other SNI
                    + socks);
    const QString out = rec.stdoutOf.value(result.callId);
    // The tunnel was granted (200) before the hello could be read; then it ends without a byte from anywhere.
    QCOMPARE(out.count(QStringLiteral("HTTP/1.1 200 Connection established\r\n\r\n end")), 2);
    QVERIFY2(!out.contains(QStringLiteral("hello-from-fixture")), qPrintable(out));
    QVERIFY2(out.simplified().endsWith(QStringLiteral("05 00 05 00 00 01 00 00 00 00 00 00")), qPrintable(out));
    QCOMPARE(m_server->connections, 0);
    QStringList rules;
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY(!event.allowed);
        QCOMPARE(event.host, QStringLiteral("allowed.test"));
        rules << event.rule;
    }
    QCOMPARE(rules,
             (QStringList{QStringLiteral("not a TLS ClientHello"), QStringLiteral("TLS server name does not match"),
                          QStringLiteral("TLS server name does not match")}));
    bool logged = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        logged = logged || entry.message.contains(QStringLiteral("TLS server name does not match"));
    }
    QVERIFY(logged);
    // The same name in another case is the same name.
    const ExecResult upper =
        rec.run(QStringLiteral("s"), ws, tunnel.arg(port).arg(QStringLiteral("cat hello-upper.bin")));
    QVERIFY2(rec.stdoutOf.value(upper.callId).contains(QStringLiteral("hello-from-fixture /x")),
             qPrintable(rec.stdoutOf.value(upper.callId)));
    QCOMPARE(m_server->connections, 1);
}

// Spellings of an address that programs read differently are refused as malformed (400); the forms that are
// addresses are judged as the address they carry (403 and a network_event). None reaches the fixture, though a
// block rule covers its address: a block never opens loopback.
void TestEgress::oddAddressSpellingsAreNeverConnected() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, {QStringLiteral("127.0.0.0/8:PORT")}, {}, false);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("egress"));
    const QString port = QString::number(m_server->port());
    QString script;
    for (const char* target : {"http://2130706433:PORT/", "http://0177.0.0.1:PORT/", "http://0x7f.0.0.1:PORT/",
                               "http://127.1:PORT/", "http://github.com@127.0.0.1:PORT/", "http://2852039166/",
                               "http://0251.0376.0251.0376/", "http://[::ffff:127.0.0.1]:PORT/"}) {
        script += QStringLiteral("printf 'GET %1 HTTP/1.1\\r\\n\\r\\n' | nc 127.0.0.1 3128 | head -n 1; ")
                      .arg(QString::fromLatin1(target).replace(QStringLiteral("PORT"), port));
    }
    script += QStringLiteral(
        "printf 'CONNECT [::ffff:169.254.169.254]:443 HTTP/1.1\\r\\n\\r\\n' | nc 127.0.0.1 3128 "
        "| head -n 1");
    const ExecResult result = rec.run(QStringLiteral("s"), ws, script);
    const QStringList lines = rec.stdoutOf.value(result.callId).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList codes;
    for (const QString& line : lines) {
        codes << line.section(QLatin1Char(' '), 1, 1);
    }
    QCOMPARE(codes, (QStringList{QStringLiteral("400"), QStringLiteral("400"), QStringLiteral("400"),
                                 QStringLiteral("400"), QStringLiteral("400"), QStringLiteral("400"),
                                 QStringLiteral("400"), QStringLiteral("403"), QStringLiteral("403")}));
    QCOMPARE(m_server->connections, 0);
    QStringList denied;
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY(!event.allowed);
        denied << event.host + QLatin1Char(' ') + event.rule;
    }
    QCOMPARE(denied, (QStringList{QStringLiteral("127.0.0.1 loopback address 127.0.0.1"),
                                  QStringLiteral("169.254.169.254 no rule")}));
}

QTEST_GUILESS_MAIN(TestEgress)
#include "tst_egress.moc"
