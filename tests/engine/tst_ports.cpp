// Published ports (SPEC §8 "Ports") on real engines (Docker and Podman rows), through the SessionManager as the app
// runs it: a busybox httpd started by a command in the sandbox (its network is `none`: the agent is the only way
// in) is fetched from this computer with curl through `--publish`'s port, byte for byte; the listener is on
// 127.0.0.1 only; a port nothing listens on in the container is said in the session log; the port closes with the
// session (connection refused after); a session on plain exec refuses to publish and says why.
#include "sandbox/sandboxsession.h"
#include "sessionfixture.h"

#include <QCryptographicHash>
#include <QHostAddress>
#include <QNetworkInterface>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>

#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

QStringList engines() {
    return {QStringLiteral("docker"), QStringLiteral("podman")};
}

// A port of 127.0.0.1 free now (taken and let go).
quint16 freePort() {
    QTcpServer server;
    server.listen(QHostAddress(QHostAddress::LocalHost), 0);
    return server.serverPort();
}

// The session's published ports, as the Sessions page would list them.
QList<PublishedPorts::Port> portsOf(const SessionManager& manager, const QString& sessionId) {
    const QList<SandboxSession*> sessions = manager.findChildren<SandboxSession*>();
    for (const SandboxSession* session : sessions) {
        if (session->id() == sessionId) {
            return session->publishedPorts().ports();
        }
    }
    return {};
}

bool canConnect(const QHostAddress& address, quint16 port) {
    QTcpSocket socket;
    socket.connectToHost(address, port);
    return socket.waitForConnected(3000);
}

// curl on this computer, while this thread's event loop runs: the published port's listener lives here.
ProcessOutput curl(const QString& url) {
    QProcess process;
    process.start(QStringLiteral("curl"), {QStringLiteral("-sS"), QStringLiteral("--noproxy"), QStringLiteral("*"),
                                           QStringLiteral("--max-time"), QStringLiteral("20"), url});
    ProcessOutput out;
    if (!process.waitForStarted(5000)
        || !QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 30000)) {
        return out;
    }
    out.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    out.out = process.readAllStandardOutput();
    out.err = process.readAllStandardError();
    return out;
}

// Starts busybox httpd on 127.0.0.1:8000 in the container, serving a small page and 2 MiB of random bytes, and
// prints the big file's SHA-256. httpd forks into the background: it outlives its call, as a dev server does.
const QString kServe = QStringLiteral(
    "mkdir -p \"$HOME/www\" && echo hello-from-the-sandbox > \"$HOME/www/index.html\" && "
    "head -c 2097152 /dev/urandom > \"$HOME/www/big.bin\" && busybox httpd -p 127.0.0.1:8000 -h \"$HOME/www\" && "
    "sha256sum \"$HOME/www/big.bin\" | cut -d' ' -f1");

}  // namespace

class TestPorts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void servesTheSandboxOnLoopback_data();
    void servesTheSandboxOnLoopback();
    void nothingListeningIsSaid_data();
    void nothingListeningIsSaid();
    void execModeRefuses_data();
    void execModeRefuses();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, SandboxConfig config);
    static void engineRows();
    QTemporaryDir m_dir;
    QStringList m_owners;
    QString m_engine;
};

void TestPorts::initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFileInfo(QStringLiteral(ZEUS_AGENT_BINARY)).isExecutable(), "the agent is built with the project");
    QVERIFY2(runProgram(QStringLiteral("curl"), {QStringLiteral("--version")}).exitCode == 0, "curl on the host");
}

void TestPorts::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(m_engine, owner);
    }
}

void TestPorts::engineRows() {
    QTest::addColumn<QString>("engine");
    for (const QString& engine : engines()) {
        QTest::newRow(qPrintable(engine)) << engine;
    }
}

std::unique_ptr<SessionManager> TestPorts::makeManager(const QString& engine, SandboxConfig config) {
    m_engine = engine;
    config.ownerId = uniqueOwner();
    m_owners << config.ownerId;
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

void TestPorts::servesTheSandboxOnLoopback_data() {
    engineRows();
}

void TestPorts::servesTheSandboxOnLoopback() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    if (qEnvironmentVariable("ZEUS_TEST_EXEC_MODE") == QStringLiteral("exec")) {
        QSKIP("ports need the agent (execModeRefuses)");
    }
    SandboxConfig config = testConfig(QString());
    const quint16 hostPort = freePort();
    config.publish = {PortSpec{hostPort, 8000}};
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("ports"));
    const ExecResult served = rec.run(QStringLiteral("s"), ws, kServe);
    QCOMPARE(served.exitCode.value_or(-1), 0);
    const QByteArray digest = rec.stdoutOf.value(served.callId).trimmed().toLatin1();
    QCOMPARE(digest.size(), 64);

    const QList<PublishedPorts::Port> ports = portsOf(*manager, QStringLiteral("s"));
    QCOMPARE(ports.size(), 1);
    QCOMPARE(ports.first().hostPort, hostPort);
    QCOMPARE(ports.first().containerPort, quint16(8000));
    const QString base = ports.first().url().toString();
    QCOMPARE(base, QStringLiteral("http://127.0.0.1:%1/").arg(hostPort));

    // A real client on this computer gets the page and the big file, byte for byte.
    const ProcessOutput page = curl(base + QStringLiteral("index.html"));
    QVERIFY2(page.exitCode == 0, page.err.constData());
    QCOMPARE(page.out, QByteArray("hello-from-the-sandbox\n"));
    const ProcessOutput big = curl(base + QStringLiteral("big.bin"));
    QVERIFY2(big.exitCode == 0, big.err.constData());
    QCOMPARE(big.out.size(), 2 * 1024 * 1024);
    QCOMPARE(QCryptographicHash::hash(big.out, QCryptographicHash::Sha256).toHex(), digest);
    // Several at once, each its own tunnel.
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(curl(base + QStringLiteral("index.html")).out, QByteArray("hello-from-the-sandbox\n"));
    }
    bool logged = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        logged = logged || entry.message.contains(QStringLiteral("published at %1").arg(base));
    }
    QVERIFY(logged);

    // 127.0.0.1 only: every other address of this computer refuses.
    for (const QHostAddress& address : QNetworkInterface::allAddresses()) {
        if (!address.isLoopback()) {
            QVERIFY2(!canConnect(address, hostPort), qPrintable(address.toString()));
        }
    }

    // The port closes with the session: connection refused after.
    QVERIFY(canConnect(QHostAddress(QHostAddress::LocalHost), hostPort));
    manager->endSession(QStringLiteral("s"));
    QVERIFY(QTest::qWaitFor([&] { return !canConnect(QHostAddress(QHostAddress::LocalHost), hostPort); }, 5000));
    const ProcessOutput after = curl(base);
    QVERIFY(after.exitCode != 0);
}

void TestPorts::nothingListeningIsSaid_data() {
    engineRows();
}

void TestPorts::nothingListeningIsSaid() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    if (qEnvironmentVariable("ZEUS_TEST_EXEC_MODE") == QStringLiteral("exec")) {
        QSKIP("ports need the agent (execModeRefuses)");
    }
    SandboxConfig config = testConfig(QString());
    config.publish = {PortSpec{0, 8001}};  // host port 0: a free one is picked
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("ports-closed"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    const QList<PublishedPorts::Port> ports = portsOf(*manager, QStringLiteral("s"));
    QCOMPARE(ports.size(), 1);
    QVERIFY(ports.first().hostPort != 0);
    const ProcessOutput refused = curl(ports.first().url().toString());
    QVERIFY(refused.exitCode != 0);  // the connection is closed: nothing serves port 8001 in the container
    QVERIFY(QTest::qWaitFor(
        [&] {
            for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
                if (entry.message.contains(QStringLiteral("nothing accepts connections on port 8001"))) {
                    return true;
                }
            }
            return false;
        },
        5000));
    // The session goes on.
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("echo next")).exitCode.value_or(-1), 0);
}

void TestPorts::execModeRefuses_data() {
    engineRows();
}

void TestPorts::execModeRefuses() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.execMode = ExecMode::Exec;
    const quint16 hostPort = freePort();
    config.publish = {PortSpec{hostPort, 8000}};
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("ports-exec"));
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("true")).exitCode.value_or(-1), 0);
    QVERIFY(portsOf(*manager, QStringLiteral("s")).isEmpty());
    QVERIFY(!canConnect(QHostAddress(QHostAddress::LocalHost), hostPort));
    bool said = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
        said = said || entry.message.contains(QStringLiteral("ports need the sandbox agent (exec mode)"));
    }
    QVERIFY(said);
}

QTEST_GUILESS_MAIN(TestPorts)
#include "tst_ports.moc"
