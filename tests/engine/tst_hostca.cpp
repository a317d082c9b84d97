// SPEC §8 "Certificates" on real engines: this computer's trusted roots (plus a test CA given through
// ZEUS_TEST_CA_BUNDLE, as a TLS-inspecting network's CA would be in the system store) are in the container at
// /run/zeus/ca-certificates.crt before the first command, every command is told where by the six variables, through
// the agent and through plain exec alike; switched off (--no-host-ca, the setting) or without a network, nothing
// is written and nothing is told.
#include "sandbox/hostcertificates.h"
#include "sessionfixture.h"

#include <QFile>

using namespace zeus;
using namespace zeus::test;

class TestHostCertificatesEngine : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void bundleIsThereForEveryCommand_data();
    void bundleIsThereForEveryCommand();
    void offMeansNothingIsWrittenOrTold_data();
    void offMeansNothingIsWrittenOrTold();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, SandboxConfig config);
    QTemporaryDir m_dir;
    QString m_owner;
    QString m_engine;
    QByteArray m_testCa;
};

void TestHostCertificatesEngine::initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString ca = QStringLiteral(ZEUS_TEST_DATA_DIR "/certs/test-ca.pem");
    QFile file(ca);
    QVERIFY(file.open(QIODevice::ReadOnly));
    m_testCa = file.readAll().trimmed();
    // Read once per process (HostCertificates::system()): set before the first container.
    qputenv("ZEUS_TEST_CA_BUNDLE", ca.toUtf8());
    QCOMPARE(HostCertificates::system().extra, QStringList{QStringLiteral("Zeus Desktop Test Root CA")});
}

void TestHostCertificatesEngine::cleanup() {
    if (!m_owner.isEmpty() && !m_engine.isEmpty()) {
        removeContainersOf(m_engine, m_owner);
    }
}

std::unique_ptr<SessionManager> TestHostCertificatesEngine::makeManager(const QString& engine, SandboxConfig config) {
    m_engine = engine;
    m_owner = uniqueOwner();
    config.ownerId = m_owner;
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

void TestHostCertificatesEngine::bundleIsThereForEveryCommand_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("agent");
    for (const char* engine : {"docker", "podman"}) {
        QTest::addRow("%s, agent", engine) << QString::fromLatin1(engine) << true;
        QTest::addRow("%s, plain exec", engine) << QString::fromLatin1(engine) << false;
    }
}

void TestHostCertificatesEngine::bundleIsThereForEveryCommand() {
    QFETCH(QString, engine);
    QFETCH(bool, agent);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.execMode = agent ? ExecMode::Agent : ExecMode::Exec;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(
        m_dir, QStringLiteral("ca-") + engine + (agent ? QStringLiteral("-agent") : QStringLiteral("-exec")));

    const ExecResult told = rec.run(QStringLiteral("s1"), ws,
                                    QStringLiteral("for v in SSL_CERT_FILE NODE_EXTRA_CA_CERTS REQUESTS_CA_BUNDLE "
                                                   "PIP_CERT CURL_CA_BUNDLE GIT_SSL_CAINFO; do "
                                                   "eval echo \"$v=\\$$v\"; done"));
    QCOMPARE(told.exitCode.value_or(-1), 0);
    QCOMPARE(told.output, QStringLiteral("SSL_CERT_FILE=/run/zeus/ca-certificates.crt\n"
                                         "NODE_EXTRA_CA_CERTS=/run/zeus/ca-certificates.crt\n"
                                         "REQUESTS_CA_BUNDLE=/run/zeus/ca-certificates.crt\n"
                                         "PIP_CERT=/run/zeus/ca-certificates.crt\n"
                                         "CURL_CA_BUNDLE=/run/zeus/ca-certificates.crt\n"
                                         "GIT_SSL_CAINFO=/run/zeus/ca-certificates.crt\n"));

    // The whole bundle, the test CA in it, readable by the command's user, and not writable by it in place of the
    // app's (a command may write its own file, but the app's is rewritten with each new container).
    const ExecResult bundle = rec.run(QStringLiteral("s1"), ws, QStringLiteral("cat \"$SSL_CERT_FILE\""));
    QCOMPARE(bundle.exitCode.value_or(-1), 0);
    QVERIFY(bundle.output.toUtf8().contains(m_testCa));
    QCOMPARE(bundle.output.count(QStringLiteral("BEGIN CERTIFICATE")), HostCertificates::system().count);

    // Said once in the session's log.
    bool logged = false;
    for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s1"))) {
        logged = logged || entry.message.contains(QStringLiteral("trusted root certificates are in"));
    }
    QVERIFY(logged);
}

void TestHostCertificatesEngine::offMeansNothingIsWrittenOrTold_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("hostCertificates");
    QTest::addColumn<int>("network");
    for (const char* engine : {"docker", "podman"}) {
        QTest::addRow("%s, --no-host-ca", engine)
            << QString::fromLatin1(engine) << false << int(NetworkMode::Allowlist);
        QTest::addRow("%s, network none", engine) << QString::fromLatin1(engine) << true << int(NetworkMode::None);
    }
}

void TestHostCertificatesEngine::offMeansNothingIsWrittenOrTold() {
    QFETCH(QString, engine);
    QFETCH(bool, hostCertificates);
    QFETCH(int, network);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.hostCertificates = hostCertificates;
    config.networkMode = NetworkMode(network);
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("noca-") + engine + QString::number(network));
    const ExecResult result = rec.run(QStringLiteral("s1"), ws,
                                      QStringLiteral("echo \"[${SSL_CERT_FILE-unset}]\"; "
                                                     "test -e /run/zeus/ca-certificates.crt && echo there"));
    QCOMPARE(result.output, QStringLiteral("[unset]\n"));
}

QTEST_GUILESS_MAIN(TestHostCertificatesEngine)
#include "tst_hostca.moc"
