// Allowed egress leaves through the proxy the host uses (SPEC §8 "Upstream"), on real engines, against a real
// upstream proxy: tinyproxy on a free loopback port with a temporary configuration and its own log. What reaches
// it is read from that log: an allowed request does, a denied one never does, and `--upstream-proxy none` goes
// straight to the host whatever the environment says. The fixture server sits on 127.0.0.1 behind --resolve
// names, as in tst_egress.
#include "appsettings.h"
#include "egressfixtures.h"
#include "sandboxsetup.h"
#include "sessionfixture.h"
#include "settings/networksettings.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#include <memory>
#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

int freePort() {
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

// tinyproxy in the foreground with its own configuration and log, ended with the test.
class Tinyproxy {
public:
    ~Tinyproxy() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    // Starts it (false and *why when it cannot); `basicAuth`: "user password", or empty.
    bool start(const QString& dir, int connectPort, const QString& basicAuth, QString* why) {
        const QString program = QStandardPaths::findExecutable(QStringLiteral("tinyproxy"));
        if (program.isEmpty()) {
            *why = QStringLiteral("tinyproxy is not installed (apt-get install tinyproxy)");
            return false;
        }
        port = freePort();
        logPath = dir + QStringLiteral("/tinyproxy.log");
        QString config = QStringLiteral(
                             "Port %1\nListen 127.0.0.1\nTimeout 30\nLogFile \"%2\"\nLogLevel Info\nMaxClients 20\n"
                             "Allow 127.0.0.1\nConnectPort 443\nConnectPort %3\n")
                             .arg(port)
                             .arg(logPath)
                             .arg(connectPort);
        if (!basicAuth.isEmpty()) {
            config += QStringLiteral("BasicAuth %1\n").arg(basicAuth);
        }
        const QString configPath = dir + QStringLiteral("/tinyproxy.conf");
        QFile file(configPath);
        if (!file.open(QIODevice::WriteOnly)) {
            *why = QStringLiteral("cannot write %1").arg(configPath);
            return false;
        }
        file.write(config.toUtf8());
        file.close();
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(program, {QStringLiteral("-d"), QStringLiteral("-c"), configPath});
        for (int i = 0; i < 100; i++) {
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, quint16(port));
            if (socket.waitForConnected(100)) {
                return true;
            }
            if (m_process.state() == QProcess::NotRunning) {
                break;
            }
            QThread::msleep(50);
        }
        *why = QStringLiteral("tinyproxy did not start: %1").arg(QString::fromUtf8(m_process.readAll()));
        return false;
    }

    QString log() const {
        QFile file(logPath);
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port); }

    int port = 0;
    QString logPath;

private:
    QProcess m_process;
};

}  // namespace

// Starts tinyproxy for this test: a missing one fails under CI and skips elsewhere.
#define START_TINYPROXY(proxy, dir, connectPort, auth)                   \
    do {                                                                 \
        QString why_;                                                    \
        if (!(proxy).start((dir), (connectPort), (auth), &why_)) {       \
            if (isCi() || why_.startsWith(QLatin1String("tinyproxy d"))) \
                QFAIL(qPrintable(why_));                                 \
            QSKIP(qPrintable(why_));                                     \
        }                                                                \
    } while (false)

class TestEgressUpstream : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void allowedGoesThroughTheUpstream_data() { engineRows(); }
    void allowedGoesThroughTheUpstream();
    void noneGoesStraightThere_data() { engineRows(); }
    void noneGoesStraightThere();
    void upstreamFailureIs502_data() { engineRows(); }
    void upstreamFailureIs502();
    void credentialsFromTheKeychain_data() { engineRows(); }
    void credentialsFromTheKeychain();
    void keychainWithoutAnswer();

private:
    static void engineRows();
    std::unique_ptr<SessionManager> makeManager(const QString& engine, const UpstreamProxy& upstream);
    QTemporaryDir m_dir;
    QStringList m_owners;
    QString m_engine;
    std::unique_ptr<FixtureServer> m_server;
    QList<EgressEvent> m_events;
};

void TestEgressUpstream::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<FixtureServer>();
}

void TestEgressUpstream::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(m_engine, owner);
    }
    m_server = std::make_unique<FixtureServer>();
    m_events.clear();
}

void TestEgressUpstream::engineRows() {
    QTest::addColumn<QString>("engine");
    for (const char* engine : {"docker", "podman"}) {
        QTest::newRow(engine) << QString::fromLatin1(engine);
    }
}

std::unique_ptr<SessionManager> TestEgressUpstream::makeManager(const QString& engine, const UpstreamProxy& upstream) {
    m_engine = engine;
    const QString port = QString::number(m_server->port());
    SandboxConfig config = testConfig(uniqueOwner());
    m_owners << config.ownerId;
    config.networkMode = NetworkMode::Allowlist;
    QStringList resolve;
    for (const char* name : {"allowed.test", "denied.test"}) {
        resolve << QString::fromLatin1(name) + QLatin1Char(':') + port + QStringLiteral(":127.0.0.1");
    }
    QStringList errors;
    config.egress = EgressPolicy::fromStrings(
        NetworkMode::Allowlist, QStringLiteral("locked"),
        {QStringLiteral("allowed.test:") + port, QStringLiteral("127.0.0.1:") + port}, {}, resolve, &errors);
    config.egress.upstream = upstream;
    // Hermetic: what this machine's own proxy settings say plays no part.
    config.egress.upstream.systemProxy = [](const QNetworkProxyQuery&) {
        return QList<QNetworkProxy>{QNetworkProxy(QNetworkProxy::NoProxy)};
    };
    auto manager = std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    connect(manager.get(), &SessionManager::egressDecided, this,
            [this](const EgressEvent& event) { m_events << event; });
    return manager;
}

void TestEgressUpstream::allowedGoesThroughTheUpstream() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    QTemporaryDir dir;
    Tinyproxy tinyproxy;
    START_TINYPROXY(tinyproxy, dir.path(), m_server->port(), QString());
    const int port = m_server->port();
    // The environment names it, as a corporate machine does.
    UpstreamProxy upstream;
    upstream.environment = {{QStringLiteral("HTTPS_PROXY"), tinyproxy.url()},
                            {QStringLiteral("HTTP_PROXY"), tinyproxy.url()},
                            {QStringLiteral("NO_PROXY"), QStringLiteral("localhost,example.invalid")}};
    auto manager = makeManager(engine, upstream);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("upstream"));
    QFile hello(ws + QStringLiteral("/hello.bin"));
    QVERIFY(hello.open(QIODevice::WriteOnly));
    hello.write(clientHello("allowed.test"));
    hello.close();
    // A CONNECT tunnel: the hello is checked, then the upstream proxy is asked for the tunnel.
    ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("(printf 'CONNECT allowed.test:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.3; cat hello.bin; "
                               "printf 'GET /tunnel HTTP/1.0\\r\\n\\r\\n'; sleep 1) | nc 127.0.0.1 3128")
                    .arg(port));
    QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /tunnel")), qPrintable(out));
    // Plain HTTP: the absolute-URI request goes to the upstream proxy.
    result = rec.run(QStringLiteral("s"), ws, QStringLiteral("wget -q -O- http://allowed.test:%1/plain").arg(port));
    out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /plain")), qPrintable(out));
    QCOMPARE(m_server->connections, 2);
    QString log = tinyproxy.log();
    QVERIFY2(log.contains(QStringLiteral("CONNECT 127.0.0.1:%1").arg(port)), qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("GET http://127.0.0.1:%1/plain").arg(port)), qPrintable(log));
    // Denied: the 403 comes from the egress proxy, and the upstream proxy never hears of it.
    result = rec.run(QStringLiteral("s"), ws,
                     QStringLiteral("wget -q -O- http://denied.test:%1/x; echo \"wget=$?\"; "
                                    "(printf 'CONNECT denied.test:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.3) | nc 127.0.0.1 "
                                    "3128")
                         .arg(port));
    out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("wget=1")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("403 Forbidden")), qPrintable(out));
    QCOMPARE(m_server->connections, 2);
    log = tinyproxy.log();
    QVERIFY2(!log.contains(QStringLiteral("denied.test")), qPrintable(log));
    QVERIFY2(!log.contains(QStringLiteral("/x ")), qPrintable(log));
}

void TestEgressUpstream::noneGoesStraightThere() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    QTemporaryDir dir;
    Tinyproxy tinyproxy;
    START_TINYPROXY(tinyproxy, dir.path(), m_server->port(), QString());
    UpstreamProxy upstream;
    upstream.flag = QStringLiteral("none");
    upstream.environment = {{QStringLiteral("HTTPS_PROXY"), tinyproxy.url()},
                            {QStringLiteral("HTTP_PROXY"), tinyproxy.url()}};
    auto manager = makeManager(engine, upstream);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("upstream"));
    const ExecResult result = rec.run(
        QStringLiteral("s"), ws, QStringLiteral("wget -q -O- http://allowed.test:%1/direct").arg(m_server->port()));
    const QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /direct")), qPrintable(out));
    QCOMPARE(m_server->connections, 1);
    const QString log = tinyproxy.log();
    QVERIFY2(!log.contains(QStringLiteral("/direct")), qPrintable(log));
    QVERIFY2(!log.contains(QStringLiteral("Request (file descriptor")), qPrintable(log));
}

void TestEgressUpstream::upstreamFailureIs502() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    QTemporaryDir dir;
    Tinyproxy tinyproxy;
    START_TINYPROXY(tinyproxy, dir.path(), m_server->port(), QStringLiteral("alice right-pass"));
    const int port = m_server->port();
    const QString ws = makeWorkspace(m_dir, QStringLiteral("upstream"));
    QFile hello(ws + QStringLiteral("/hello.bin"));
    QVERIFY(hello.open(QIODevice::WriteOnly));
    hello.write(clientHello("allowed.test"));
    hello.close();
    // A plain request, a tunnel to an address (answered only once the upstream proxy answered) and a tunnel to a
    // name (granted before its ClientHello is read). Each is held open a little: a proxy that sees the client's
    // end may drop an answer still on its way.
    const QString fetch =
        QStringLiteral(
            "(printf 'GET http://allowed.test:%1/auth HTTP/1.1\\r\\nHost: allowed.test\\r\\n\\r\\n'; "
            "sleep 1) | nc 127.0.0.1 3128; echo; "
            "(printf 'CONNECT 127.0.0.1:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 1) | nc 127.0.0.1 3128; echo; "
            "(printf 'CONNECT allowed.test:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.3; cat hello.bin; sleep 1) | "
            "nc 127.0.0.1 3128")
            .arg(port);
    // Wrong credentials: the upstream proxy's refusal becomes a 502 that names it, never the password.
    UpstreamProxy upstream;
    upstream.flag = QStringLiteral("http://alice:wrong-pass@127.0.0.1:%1").arg(tinyproxy.port);
    auto manager = makeManager(engine, upstream);
    Recorder rec(*manager);
    ExecResult result = rec.run(QStringLiteral("s"), ws, fetch);
    QString out = rec.stdoutOf.value(result.callId);
    // tinyproxy says 407 without credentials and 401 with wrong ones: any refusal is a 502.
    const QString why = QStringLiteral("the upstream proxy %1 did not carry %2:%3: 40");
    QVERIFY2(out.contains(QStringLiteral("HTTP/1.1 502 Bad Gateway")), qPrintable(out));
    QVERIFY2(out.contains(why.arg(tinyproxy.url(), QStringLiteral("127.0.0.1")).arg(port)), qPrintable(out));
    // The tunnel to a name just ends; the policy log says why.
    bool said = false;
    for (const EgressEvent& event : std::as_const(m_events)) {
        said = said || event.detail.startsWith(why.arg(tinyproxy.url(), QStringLiteral("allowed.test")).arg(port));
        QVERIFY2(!event.detail.contains(QStringLiteral("wrong-pass")), qPrintable(event.detail));
    }
    QVERIFY(said);
    QVERIFY2(!out.contains(QStringLiteral("wrong-pass")), qPrintable(out));
    QCOMPARE(m_server->connections, 0);
    // The right credentials: through.
    upstream.flag = QStringLiteral("http://alice:right-pass@127.0.0.1:%1").arg(tinyproxy.port);
    manager = makeManager(engine, upstream);
    Recorder rec2(*manager);
    result = rec2.run(QStringLiteral("s"), ws, QStringLiteral("wget -q -O- http://allowed.test:%1/auth").arg(port));
    out = rec2.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /auth")), qPrintable(out));
    // An upstream proxy that is not there: 502 naming it, for the plain request and the tunnel to an address.
    upstream.flag = QStringLiteral("http://127.0.0.1:%1").arg(freePort());
    manager = makeManager(engine, upstream);
    Recorder rec3(*manager);
    result = rec3.run(QStringLiteral("s"), ws, fetch);
    out = rec3.stdoutOf.value(result.callId);
    QVERIFY2(out.count(QStringLiteral("HTTP/1.1 502 Bad Gateway")) == 2, qPrintable(out));
    QVERIFY2(out.count(QStringLiteral("the upstream proxy %1 did not carry").arg(upstream.flag)) == 2, qPrintable(out));
}

// Settings → Network's user name and the keychain's password (the real Secret Service of the test keyring): with
// them the request passes an upstream proxy that wants BasicAuth, without them it is a 502 that names the 407.
void TestEgressUpstream::credentialsFromTheKeychain() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
        const char* why = "no test keyring: run under tests/harness/engines.sh with_keyring";
        if (isCi()) {
            QFAIL(why);
        }
        QSKIP(why);
    }
    QTemporaryDir dir;
    Tinyproxy tinyproxy;
    START_TINYPROXY(tinyproxy, dir.path(), m_server->port(), QStringLiteral("alice right-pass"));
    const int port = m_server->port();
    // A keychain service of its own, so a real user's entry is never touched.
    const QString service = QStringLiteral("io.zeusdesktop.test.upstream.%1").arg(QCoreApplication::applicationPid());
    const QString ini = dir.path() + QStringLiteral("/settings.ini");
    {
        AppSettings settings(ini);
        settings.network().setKeychainService(service, 10000);
        QVERIFY(settings.network().setUpstreamProxy(tinyproxy.url()));
        settings.network().setUpstreamProxyUser(QStringLiteral("alice"));
        QSignalSpy stored(&settings.network(), &NetworkSettings::upstreamProxyPasswordStored);
        settings.network().storeUpstreamProxyPassword(QStringLiteral("right-pass"));
        QVERIFY(stored.wait(15000));
        QCOMPARE(stored.first().first().toString(), QString());
    }
    // As the app starts: the first policy is made before the keychain answered, the next one after.
    AppSettings settings(ini);
    settings.network().setKeychainService(service, 10000);
    QSignalSpy loaded(&settings.network(), &NetworkSettings::upstreamProxyPasswordLoaded);
    QVERIFY(SandboxSetup::egressPolicyFrom(settings, {}, NetworkMode::Allowlist).upstream.password.isEmpty());
    QVERIFY(loaded.wait(15000));
    const UpstreamProxy upstream = SandboxSetup::egressPolicyFrom(settings, {}, NetworkMode::Allowlist).upstream;
    QCOMPARE(upstream.user, QStringLiteral("alice"));
    QCOMPARE(upstream.password, QStringLiteral("right-pass"));
    auto manager = makeManager(engine, upstream);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("upstream"));
    ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("wget -q -O- http://allowed.test:%1/stored; "
                               "(printf 'CONNECT 127.0.0.1:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 0.5; "
                               "printf 'GET /tunnel HTTP/1.0\\r\\n\\r\\n'; sleep 1) | nc 127.0.0.1 3128")
                    .arg(port));
    QString out = rec.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /stored")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("hello-from-fixture /tunnel")), qPrintable(out));
    QCOMPARE(m_server->connections, 2);
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY2(!event.detail.contains(QStringLiteral("right-pass")), qPrintable(event.detail));
    }
    // No credentials: the upstream's 407 is a 502 that names it.
    UpstreamProxy bare = upstream;
    bare.user.clear();
    manager = makeManager(engine, bare);
    Recorder rec2(*manager);
    result = rec2.run(
        QStringLiteral("s"), ws,
        QStringLiteral("(printf 'CONNECT 127.0.0.1:%1 HTTP/1.1\\r\\n\\r\\n'; sleep 1) | nc 127.0.0.1 3128").arg(port));
    out = rec2.stdoutOf.value(result.callId);
    QVERIFY2(out.contains(QStringLiteral("HTTP/1.1 502 Bad Gateway")), qPrintable(out));
    QVERIFY2(
        out.contains(
            QStringLiteral("the upstream proxy %1 did not carry 127.0.0.1:%2: 407").arg(tinyproxy.url()).arg(port)),
        qPrintable(out));
    QCOMPARE(m_server->connections, 2);
    // Clearing the password deletes the entry.
    QSignalSpy deleted(&settings.network(), &NetworkSettings::upstreamProxyPasswordStored);
    settings.network().storeUpstreamProxyPassword(QString());
    QVERIFY(deleted.wait(15000));
    QCOMPARE(deleted.first().first().toString(), QString());
}

// A keychain that does not answer in time (locked, waiting for a prompt) is said once and leaves the proxy without
// credentials: never a hang.
void TestEgressUpstream::keychainWithoutAnswer() {
    QTemporaryDir dir;
    AppSettings settings(dir.path() + QStringLiteral("/settings.ini"));
    settings.network().setKeychainService(QStringLiteral("io.zeusdesktop.test.nothing"), 0);
    settings.network().setUpstreamProxyUser(QStringLiteral("alice"));
    QSignalSpy loaded(&settings.network(), &NetworkSettings::upstreamProxyPasswordLoaded);
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("upstream proxy's password could not be read.*without")));
    QVERIFY(settings.network().upstreamProxyPassword().isEmpty());
    QVERIFY(loaded.wait(5000));
    QVERIFY(settings.network().upstreamProxyPassword().isEmpty());
    QCOMPARE(SandboxSetup::egressPolicyFrom(settings, {}, NetworkMode::Allowlist).upstream.user,
             QStringLiteral("alice"));
}

QTEST_GUILESS_MAIN(TestEgressUpstream)
#include "tst_egressupstream.moc"
