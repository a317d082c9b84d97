// SPEC §9 "Host-bound secrets" on real engines (Docker and Podman rows), through the agent's listeners and the app's
// egress proxy: a command that asks for a bound secret has only its placeholder in its environment; its HTTPS
// request to the bound host reaches that host (a fixture on 127.0.0.1 whose certificate comes from a test CA the app
// trusts through ZEUS_TEST_CA_BUNDLE, as issue 19's knob has it) with the value, as a Bearer header and inside a Basic
// credential; the placeholder sent to another intercepted host is refused with 403 secret-not-bound and that host
// sees no request; a bound host whose certificate does not verify is refused with a 502 that says so; and a host
// no secret is bound to is still an end-to-end tunnel (its fixture gets the client's own ClientHello, byte for byte).
//
// The test image is busybox, whose TLS client speaks no ECDSA: the sandbox's client is tlsget (tests/engine/tools/),
// static, which verifies the server against $SSL_CERT_FILE, so the interception CA must be in the sandbox's bundle.
#include "egressfixtures.h"
#include "secrets/interceptca.h"
#include "sessionfixture.h"
#include "tlsserversocket.h"

#include <QElapsedTimer>
#include <QFile>
#include <QNetworkProxy>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>

#include <algorithm>
#include <memory>
#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

const QByteArray kValue = "ghp_boundValueThatNeverEntersTheSandbox_4711";
const QByteArray kOtherValue = "npm_otherValueOfAnotherSecret_0815";

// An HTTPS server on 127.0.0.1 with one leaf: keeps each request head it read, answers 200 and closes.
class TlsFixture : public QTcpServer {
public:
    explicit TlsFixture(InterceptCa::Leaf leaf) : m_leaf(std::move(leaf)) { listen(QHostAddress::LocalHost, 0); }
    QList<QByteArray> heads;
    int connections = 0;

protected:
    void incomingConnection(qintptr descriptor) override {
        QSslSocket* socket = test::tlsServerSocket(descriptor, m_leaf, this);
        if (socket == nullptr) {
            return;
        }
        connections++;
        auto buffer = std::make_shared<QByteArray>();
        connect(socket, &QSslSocket::readyRead, socket, [this, socket, buffer] {
            *buffer += socket->readAll();
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0) {
                return;
            }
            heads << buffer->left(end);
            if (buffer->startsWith("GET /echo ")) {  // a host that reflects the request (an echo, an error page)
                const QByteArray body = buffer->left(end) + "\nfixture-ok\n";
                socket->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size())
                              + "\r\nConnection: close\r\n\r\n" + body);
                socket->disconnectFromHost();
                return;
            }
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\nfixture-ok\n");
            socket->disconnectFromHost();
        });
        connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
        socket->startServerEncryption();
    }

private:
    InterceptCa::Leaf m_leaf;
};

// A plain TCP server that keeps every byte each connection sent (the tunnel's far end).
class RawFixture : public QTcpServer {
public:
    RawFixture() {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { received += socket->readAll(); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        listen(QHostAddress::LocalHost, 0);
    }
    QByteArray received;
};

// A CONNECT-only upstream proxy on 127.0.0.1 (the one this computer uses, SPEC §8 "Upstream"): keeps each request
// line it was asked, then relays both ways.
class ConnectProxy : public QTcpServer {
public:
    ConnectProxy() {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* client = nextPendingConnection()) {
                serve(client);
            }
        });
        listen(QHostAddress::LocalHost, 0);
    }
    QList<QByteArray> asked;

private:
    void serve(QTcpSocket* client) {
        auto* server = new QTcpSocket(client);
        auto buffer = std::make_shared<QByteArray>();
        connect(client, &QTcpSocket::readyRead, client, [this, client, server, buffer] {
            if (server->state() == QAbstractSocket::ConnectedState) {
                server->write(client->readAll());
                return;
            }
            *buffer += client->readAll();
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0 || server->state() != QAbstractSocket::UnconnectedState) {
                return;
            }
            asked << buffer->left(buffer->indexOf("\r\n"));
            const QByteArray authority = buffer->split(' ').value(1);
            buffer->remove(0, end + 4);
            server->connectToHost(QHostAddress::LocalHost,
                                  quint16(authority.mid(authority.lastIndexOf(':') + 1).toUInt()));
        });
        connect(server, &QTcpSocket::connected, client, [client, server, buffer] {
            client->write("HTTP/1.1 200 Connection established\r\n\r\n");
            server->write(std::exchange(*buffer, {}));
        });
        connect(server, &QTcpSocket::readyRead, client, [client, server] { client->write(server->readAll()); });
        connect(server, &QTcpSocket::disconnected, client, [client] { client->disconnectFromHost(); });
        connect(client, &QTcpSocket::disconnected, client, [client, server] {
            server->disconnectFromHost();
            client->deleteLater();
        });
    }
};

QString hostPort(const char* host, quint16 port) {
    return QStringLiteral("%1:%2").arg(QLatin1String(host)).arg(port);
}

// One HTTPS request from the sandbox through the agent's proxy with tlsget (tests/engine/tools/tlsget.c), with one
// more header line: `header` is expanded by the sandbox's shell inside double quotes, so $GH_TOKEN is what the
// command's environment holds. Prints the answer (and tlsget's word on ALPN on stderr).
QString httpsRequest(const QString& authority, const QString& name, const QString& header,
                     const QString& path = QStringLiteral("/x")) {
    return QStringLiteral(
               "h=\"%3\"; printf 'GET %4 HTTP/1.1\\r\\nHost: %s\\r\\n%b\\r\\nConnection: "
               "close\\r\\n\\r\\n' '%1' \"$h\" | /workspace/tlsget 3128 '%1' '%2'")
        .arg(authority, name, header, path);
}

}  // namespace

class TestBoundSecrets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void valueOnlyOnTheWire_data();
    void valueOnlyOnTheWire();

private:
    InterceptCa m_fixtureCa;   // the "public" CA the fixtures' certificates come from, trusted by the app
    InterceptCa m_strangerCa;  // a CA nobody trusts: the invalid certificate
    QTemporaryDir m_dir;
    QString m_engine;
    QString m_owner;
    QList<EgressEvent> m_events;
};

void TestBoundSecrets::initTestCase() {
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_fixtureCa.generate(&error), qPrintable(error));
    QVERIFY2(m_strangerCa.generate(&error), qPrintable(error));
    const QString caFile = m_dir.filePath(QStringLiteral("fixture-ca.pem"));
    QFile file(caFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(m_fixtureCa.certificatePem());
    file.close();
    // Read once per process (HostCertificates::system()): set before the first container.
    qputenv("ZEUS_TEST_CA_BUNDLE", caFile.toUtf8());
}

void TestBoundSecrets::cleanup() {
    if (!m_owner.isEmpty()) {
        removeContainersOf(m_engine, m_owner);
    }
    m_events.clear();
}

void TestBoundSecrets::valueOnlyOnTheWire_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

void TestBoundSecrets::valueOnlyOnTheWire() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    TlsFixture bound(m_fixtureCa.mint(QStringLiteral("bound.test")));
    TlsFixture other(m_fixtureCa.mint(QStringLiteral("other.test")));
    TlsFixture invalid(m_strangerCa.mint(QStringLiteral("invalid.test")));
    RawFixture plain;
    TlsFixture direct(m_fixtureCa.mint(QStringLiteral("direct.test")));     // bound, not through the upstream
    TlsFixture tunnelled(m_fixtureCa.mint(QStringLiteral("tunnel.test")));  // not bound: a tunnel, for the latency
    ConnectProxy upstream;
    FixtureServer clearBound;  // plain HTTP, bound with its port: the value goes in clear text only there
    FixtureServer clearOther;  // plain HTTP, not bound
    const QString boundAt = hostPort("bound.test", bound.serverPort());
    const QString otherAt = hostPort("other.test", other.serverPort());
    const QString invalidAt = hostPort("invalid.test", invalid.serverPort());
    const QString plainAt = hostPort("plain.test", plain.serverPort());
    const QString directAt = hostPort("direct.test", direct.serverPort());
    const QString tunnelAt = hostPort("tunnel.test", tunnelled.serverPort());
    const QString clearBoundAt = hostPort("clear.test", quint16(clearBound.port()));
    const QString clearOtherAt = hostPort("clear-other.test", quint16(clearOther.port()));

    m_engine = engine;
    m_owner = uniqueOwner();
    SandboxConfig config = testConfig(m_owner);
    config.networkMode = NetworkMode::Allowlist;
    QStringList errors;
    const QStringList hosts{boundAt, otherAt, invalidAt, plainAt, directAt, tunnelAt, clearBoundAt, clearOtherAt};
    QStringList resolve;
    for (const QString& host : hosts) {
        resolve << host + QStringLiteral(":127.0.0.1");
    }
    config.egress =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"), hosts, {}, resolve, &errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    // bound.test leaves through the upstream proxy (the app's own TLS inside its CONNECT); the others go direct.
    config.egress.upstream.environment = {
        {QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://127.0.0.1:%1").arg(upstream.serverPort())},
        {QStringLiteral("NO_PROXY"),
         QStringLiteral("other.test,invalid.test,plain.test,direct.test,tunnel.test,clear.test,clear-other.test")}};
    config.egress.upstream.systemProxy = [](const QNetworkProxyQuery&) {
        return QList<QNetworkProxy>{QNetworkProxy(QNetworkProxy::NoProxy)};
    };
    const QStringList bindings{QStringLiteral("GH_TOKEN=") + boundAt + QLatin1Char(',') + invalidAt + QLatin1Char(',')
                                   + directAt + QLatin1Char(',') + clearBoundAt,
                               QStringLiteral("NPM_TOKEN=") + otherAt};
    for (const QString& text : bindings) {
        QString why;
        const std::optional<SecretBinding> binding = SecretBinding::parse(text, &why);
        QVERIFY2(binding, qPrintable(why));
        config.secretBindings.insert(binding->name, *binding);
    }
    config.interceptCa = std::make_shared<InterceptCa>();
    QVERIFY(config.interceptCa->generate());
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    connect(&manager, &SessionManager::egressDecided, this, [this](const EgressEvent& event) { m_events << event; });
    Recorder rec(manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("bound-") + engine);
    const auto run = [&](const QString& command) {
        ExecRequest request;
        request.callId = QStringLiteral("c%1").arg(rec.results.size() + 1);
        request.sessionId = QStringLiteral("s");
        request.workspace = ws;
        request.command = command;
        request.secrets = {SecretValue{QStringLiteral("GH_TOKEN"), kValue},
                           SecretValue{QStringLiteral("NPM_TOKEN"), kOtherValue}};
        manager.execute(request);
        return rec.waitFor(request.callId, 60000) ? rec.results.value(request.callId) : ExecResult();
    };

#ifdef ZEUS_TLSGET_BINARY
    const QString tlsget = ws + QStringLiteral("/tlsget");
    QVERIFY(QFile::copy(QStringLiteral(ZEUS_TLSGET_BINARY), tlsget));
    QVERIFY(QFile::setPermissions(tlsget, QFile::permissions(tlsget) | QFile::ExeOther | QFile::ReadOther));
#else
    if (zeus::test::isCi()) {
        QFAIL("tlsget was not built (no static OpenSSL libraries)");
    }
    QSKIP("tlsget was not built (no static OpenSSL libraries)");
#endif

    // The environment holds the placeholder, never the value; the CA that ends TLS is in the sandbox's bundle.
    const ExecResult env =
        run(QStringLiteral("echo \"$GH_TOKEN\"; tr '\\0' '\\n' < /proc/self/environ | grep -c ghp_; "
                           "grep -c 'BEGIN CERTIFICATE' \"$SSL_CERT_FILE\""));
    QVERIFY2(env.output.startsWith(QStringLiteral("zeus-secret-GH_TOKEN-")), qPrintable(env.output));
    QVERIFY(!env.output.contains(QString::fromLatin1(kValue)));
    QVERIFY2(env.output.contains(QStringLiteral("\n0\n")), qPrintable(env.output));
    const QByteArray placeholder = env.output.section(QLatin1Char('\n'), 0, 0).toLatin1();

    // Bearer: the fixture sees the value; the command saw only the placeholder.
    const ExecResult bearer =
        run(httpsRequest(boundAt, QStringLiteral("bound.test"), QStringLiteral("Authorization: Bearer $GH_TOKEN")));
    QVERIFY2(bearer.output.contains(QStringLiteral("fixture-ok")), qPrintable(bearer.output));
    QCOMPARE(bound.heads.size(), 1);
    QVERIFY2(bound.heads.first().contains(QByteArray("\r\nAuthorization: Bearer " + kValue)),
             bound.heads.first().constData());
    QVERIFY(!bound.heads.first().contains(placeholder));
    QCOMPARE(upstream.asked.size(), 1);  // through the upstream proxy, to the address the app checked
    QCOMPARE(upstream.asked.first(),
             QStringLiteral("CONNECT 127.0.0.1:%1 HTTP/1.1").arg(bound.serverPort()).toLatin1());
    QVERIFY(bearer.output.contains(QStringLiteral("tlsget: alpn http/1.1")));  // h2 offered, negotiated down

    // Basic (as git and pip send a URL's password): decoded, replaced, encoded again.
    const ExecResult basic =
        run(httpsRequest(boundAt, QStringLiteral("bound.test"),
                         QStringLiteral("Authorization: Basic $(printf 'x:%s' \"$GH_TOKEN\" | base64 | tr -d '\\n')")));
    QVERIFY2(basic.output.contains(QStringLiteral("fixture-ok")), qPrintable(basic.output));
    QCOMPARE(bound.heads.size(), 2);
    QVERIFY2(
        bound.heads.last().contains(QByteArray("\r\nAuthorization: Basic " + QByteArray("x:" + kValue).toBase64())),
        bound.heads.last().constData());

    // A bound host that reflects the request gives back no value: every form of it (here as it is and in a Basic
    // credential's base64) comes back masked, same length, so the answer's length still holds; and the request
    // asked for no compression, under which a reflection could not be masked. The command reverses what it got, so
    // that the session's redaction of its output cannot hide a value that came back.
    const ExecResult echo =
        run(httpsRequest(boundAt, QStringLiteral("bound.test"),
                         QStringLiteral("Authorization: Bearer $GH_TOKEN\\r\\nAccept-Encoding: gzip, br\\r\\nX-Basic: "
                                        "$(printf 'x:%s' \"$GH_TOKEN\" | base64 | tr -d '\\n')"),
                         QStringLiteral("/echo"))
            + QStringLiteral(" | rev"));
    QString echoed;
    for (const QString& line : echo.output.split(QLatin1Char('\n'))) {
        QString forward = line;
        std::reverse(forward.begin(), forward.end());
        echoed += forward + QLatin1Char('\n');
    }
    QVERIFY2(echoed.contains(QStringLiteral("fixture-ok")), qPrintable(echoed));  // the whole answer, as long as said
    QVERIFY2(echoed.contains(QStringLiteral("Authorization: Bearer ") + QString(kValue.size(), QLatin1Char('*'))),
             qPrintable(echoed));
    QVERIFY(!echoed.contains(QString::fromLatin1(kValue)));
    QVERIFY(!echoed.contains(QString::fromLatin1(QByteArray("x:" + kValue).toBase64().mid(4, 40))));
    QVERIFY2(bound.heads.last().contains("\r\nAccept-Encoding: identity"), bound.heads.last().constData());
    QVERIFY(!bound.heads.last().contains("gzip"));
    QVERIFY(bound.heads.last().contains(QByteArray("\r\nAuthorization: Bearer " + kValue)));  // it did go out

    // GH_TOKEN's placeholder to a host only NPM_TOKEN is bound to: 403, said, and the host sees no request.
    const ExecResult notBound =
        run(httpsRequest(otherAt, QStringLiteral("other.test"), QStringLiteral("Authorization: Bearer $GH_TOKEN")));
    QVERIFY2(notBound.output.contains(QStringLiteral("HTTP/1.1 403")), qPrintable(notBound.output));
    QVERIFY(notBound.output.contains(QStringLiteral("X-Proxy-Error: secret-not-bound")));
    QVERIFY(other.heads.isEmpty());
    const bool notBoundSaid = std::any_of(m_events.cbegin(), m_events.cend(), [](const EgressEvent& event) {
        return event.decisionWord() == QStringLiteral("secret_not_bound") && event.host == QStringLiteral("other.test")
               && event.rule.contains(QStringLiteral("GH_TOKEN"));
    });
    QVERIFY(notBoundSaid);

    // A bound host whose certificate does not verify: refused with a message that says so, never tunnelled.
    const ExecResult untrusted =
        run(httpsRequest(invalidAt, QStringLiteral("invalid.test"), QStringLiteral("Authorization: Bearer $GH_TOKEN")));
    QVERIFY2(untrusted.output.contains(QStringLiteral("HTTP/1.1 502")), qPrintable(untrusted.output));
    QVERIFY2(untrusted.output.contains(QStringLiteral("did not pass TLS verification")), qPrintable(untrusted.output));
    QVERIFY(invalid.heads.isEmpty());
    const bool untrustedSaid = std::any_of(m_events.cbegin(), m_events.cend(), [](const EgressEvent& event) {
        return event.tlsUntrusted && event.host == QStringLiteral("invalid.test");
    });
    QVERIFY(untrustedSaid);

    // A host no secret is bound to: still a tunnel, its server gets the client's own ClientHello byte for byte.
    QFile hello(ws + QStringLiteral("/hello.bin"));
    QVERIFY(hello.open(QIODevice::WriteOnly));
    hello.write(clientHello("plain.test"));
    hello.close();
    const ExecResult tunnel = run(QStringLiteral("(printf 'CONNECT %1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.3; cat hello.bin; "
                                                 "sleep 0.5) | timeout 3 nc 127.0.0.1 3128 | head -c 12")
                                      .arg(plainAt));
    QVERIFY2(tunnel.output.startsWith(QStringLiteral("HTTP/1.1 200")), qPrintable(tunnel.output));
    QVERIFY(QTest::qWaitFor([&plain] { return plain.received.size() >= clientHello("plain.test").size(); }, 5000));
    QCOMPARE(plain.received, clientHello("plain.test"));

    // Plain HTTP (the absolute-URI path, one request per connection): the value only where the binding names the
    // port; the placeholder anywhere else is refused before anything is sent.
    const ExecResult clear =
        run(QStringLiteral("wget -q -O - --header \"Authorization: Bearer $GH_TOKEN\" http://%1/c").arg(clearBoundAt));
    QVERIFY2(clear.output.contains(QStringLiteral("hello-from-fixture /c")), qPrintable(clear.output));
    QCOMPARE(clearBound.heads.size(), 1);
    QVERIFY2(clearBound.heads.first().contains(QByteArray("\r\nAuthorization: Bearer " + kValue)),
             clearBound.heads.first().constData());
    const ExecResult clearRefused =
        run(QStringLiteral("wget -q -O - --header \"Authorization: Bearer $GH_TOKEN\" http://%1/c").arg(clearOtherAt));
    QVERIFY2(clearRefused.output.contains(QStringLiteral("403")), qPrintable(clearRefused.output));
    // Connected before the verdict (as for TLS), but not one byte of the request reached it.
    QVERIFY(clearOther.heads.isEmpty() && clearOther.raw.isEmpty());
    const bool clearSaid = std::any_of(m_events.cbegin(), m_events.cend(), [](const EgressEvent& event) {
        return event.secretNotBound && event.host == QStringLiteral("clear-other.test");
    });
    QVERIFY(clearSaid);

    // What ending TLS here costs: ten requests, each a new process and connection, to a bound host (direct) and
    // to a host that is only tunnelled, both on loopback with a certificate of the same CA.
    const auto timed = [&](const QString& at, const QString& name) {
        QElapsedTimer clock;
        clock.start();
        const ExecResult result =
            run(QStringLiteral("for i in 0 1 2 3 4 5 6 7 8 9; do %1; done 2>/dev/null | grep -c fixture-ok")
                    .arg(httpsRequest(at, name, QStringLiteral("Authorization: Bearer $GH_TOKEN"))));
        return std::pair{result.output.trimmed(), clock.nsecsElapsed() / 1e6};
    };
    const auto [tunnelCount, tunnelMs] = timed(tunnelAt, QStringLiteral("tunnel.test"));
    const auto [boundCount, boundMs] = timed(directAt, QStringLiteral("direct.test"));
    QCOMPARE(tunnelCount, QStringLiteral("10"));
    QCOMPARE(boundCount, QStringLiteral("10"));
    QCOMPARE(direct.heads.size(), 10);
    QVERIFY(direct.heads.last().contains(QByteArray("\r\nAuthorization: Bearer " + kValue)));
    QVERIFY(tunnelled.heads.last().contains("\r\nAuthorization: Bearer zeus-secret-GH_TOKEN-"));
    qInfo("latency on %s: %.1f ms per request with TLS ended for a bound secret, %.1f ms through a tunnel (+%.1f ms)",
          qPrintable(engine), boundMs / 10, tunnelMs / 10, (boundMs - tunnelMs) / 10);

    // The value is in no output and no log line of the session; the substitutions are counted by name.
    for (const ExecResult& result : rec.results) {
        QVERIFY(!result.output.contains(QString::fromLatin1(kValue)));
    }
    for (const SessionLogEntry& entry : manager.sessionLog(QStringLiteral("s"))) {
        QVERIFY(!entry.message.contains(QString::fromLatin1(kValue)));
    }
    const bool counted = std::any_of(m_events.cbegin(), m_events.cend(), [](const EgressEvent& event) {
        return event.substitutions.value(QStringLiteral("GH_TOKEN")) > 0;
    });
    QVERIFY(counted);
}

QTEST_GUILESS_MAIN(TestBoundSecrets)
#include "tst_boundsecrets.moc"
