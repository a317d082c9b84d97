// SPEC §8 `tls_untrusted` on real engines (Docker and Podman rows), through the agent's listeners and the app's
// proxy: a client in the sandbox that refuses the server's certificate -- with the alert OpenSSL's clients send, or
// by closing right after the server's flight as Node does -- is reported once, after the allowed connection; a
// client that goes on with the handshake is not. The busybox image has no TLS client, so the client's records
// are the bytes real clients send (tests/unit/sandbox/egress/tst_tlstrustwatch.cpp has their shapes), sent with
// nc; the server answers a ClientHello with a TLS 1.3-shaped first flight. tst_distroimage runs real curl and
// Python against a real TLS server.
#include "egressfixtures.h"
#include "sessionfixture.h"

#include <QFile>

#include <algorithm>
#include <memory>

using namespace zeus;
using namespace zeus::test;

namespace {

QByteArray record(char type, const QByteArray& body) {
    QByteArray r;
    r.append(type);
    r.append("\x03\x03", 2);
    r.append(char((body.size() >> 8) & 0xff));
    r.append(char(body.size() & 0xff));
    return r + body;
}

// ServerHello, the compatibility ChangeCipherSpec, and encrypted records (as openssl s_server sends them).
QByteArray serverFlight() {
    QByteArray hello(122, 's');
    hello[0] = '\x02';
    return record('\x16', hello) + record('\x14', QByteArray(1, '\x01')) + record('\x17', QByteArray(23, 'e'))
           + record('\x17', QByteArray(842, 'c')) + record('\x17', QByteArray(281, 'v'))
           + record('\x17', QByteArray(69, 'f'));
}

// Answers the first bytes of each connection with serverFlight() and keeps the connection open.
class FlightServer : public QObject {
public:
    FlightServer() {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connections++;
                connect(socket, &QTcpSocket::readyRead, socket, [socket] {
                    if (socket->property("answered").toBool()) {
                        socket->readAll();
                        return;
                    }
                    socket->setProperty("answered", true);
                    socket->readAll();
                    socket->write(serverFlight());
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    int port() const { return m_server.serverPort(); }
    int connections = 0;

private:
    QTcpServer m_server;
};

}  // namespace

class TestEgressTls : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void cleanup() {
        if (!m_owner.isEmpty()) {
            removeContainersOf(m_engine, m_owner);
        }
        m_events.clear();
    }
    void refusedCertificateIsSaid_data();
    void refusedCertificateIsSaid();

private:
    QTemporaryDir m_dir;
    QString m_engine;
    QString m_owner;
    QList<EgressEvent> m_events;
};

void TestEgressTls::refusedCertificateIsSaid_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QByteArray>("after");  // what the client sends once the server's flight is in
    QTest::addColumn<QString>("said");      // the tls_untrusted event's detail; empty: none
    const QByteArray alert = record('\x15', QByteArray("\x02\x30", 2));
    const QByteArray finished = record('\x14', QByteArray(1, '\x01')) + record('\x17', QByteArray(53, 'F'));
    for (const char* engine : {"docker", "podman"}) {
        QTest::addRow("%s, unknown_ca alert", engine)
            << QString::fromLatin1(engine) << alert
            << QStringLiteral("the client refused the server's certificate (TLS alert unknown_ca)");
        QTest::addRow("%s, closes after the flight", engine)
            << QString::fromLatin1(engine) << QByteArray()
            << QStringLiteral("the client closed the connection right after the server's certificate");
        QTest::addRow("%s, the handshake goes on", engine) << QString::fromLatin1(engine) << finished << QString();
    }
}

void TestEgressTls::refusedCertificateIsSaid() {
    QFETCH(QString, engine);
    QFETCH(QByteArray, after);
    QFETCH(QString, said);
    ZEUS_REQUIRE_ENGINE(engine);
    FlightServer server;
    const QString port = QString::number(server.port());
    m_engine = engine;
    m_owner = uniqueOwner();
    SandboxConfig config = testConfig(m_owner);
    config.networkMode = NetworkMode::Allowlist;
    QStringList errors;
    config.egress = EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"),
                                              {QStringLiteral("fixture.test:") + port}, {},
                                              {QStringLiteral("fixture.test:%1:127.0.0.1").arg(port)}, &errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    connect(&manager, &SessionManager::egressDecided, this, [this](const EgressEvent& event) { m_events << event; });
    Recorder rec(manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("tls-") + engine + QString::number(after.size()));
    for (const auto& [name, bytes] : {std::pair{QStringLiteral("/hello.bin"), clientHello("fixture.test")},
                                      std::pair{QStringLiteral("/after.bin"), after}}) {
        QFile file(ws + name);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
    }
    // The flight is in well before the client's answer; the client closes its side soon after (nc shuts its write
    // side at the end of its input), within TlsTrustWatch::kAbandonWindowMs of the flight.
    const ExecResult result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("(printf 'CONNECT fixture.test:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.3; cat hello.bin; sleep 0.6; "
                       "cat after.bin; sleep 0.2) | timeout 3 nc 127.0.0.1 3128 | wc -c")
            .arg(port));
    QVERIFY2(result.exitCode.value_or(-1) == 0, qPrintable(result.output));
    QVERIFY2(rec.stdoutOf.value(result.callId).trimmed().toInt() > serverFlight().size(), qPrintable(result.output));
    QCOMPARE(server.connections, 1);

    const auto untrusted = [this] {
        QStringList details;
        for (const EgressEvent& event : std::as_const(m_events)) {
            if (event.tlsUntrusted) {
                details << event.detail;
            }
        }
        return details;
    };
    if (said.isEmpty()) {
        QTest::qWait(1000);
        QCOMPARE(untrusted(), QStringList());
    } else {
        QVERIFY(QTest::qWaitFor([&] { return !untrusted().isEmpty(); }, 5000));
        QCOMPARE(untrusted(), QStringList{said});
    }
    // The connection itself was allowed and said so first.
    QVERIFY(!m_events.isEmpty());
    QVERIFY(m_events.first().allowed && !m_events.first().tlsUntrusted);
    QCOMPARE(m_events.first().host, QStringLiteral("fixture.test"));
}

QTEST_GUILESS_MAIN(TestEgressTls)
#include "tst_egresstls.moc"
