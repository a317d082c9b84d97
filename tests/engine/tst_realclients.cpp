// The real clients of a user's network, in the project's distribution image (docs/sandbox-image.md): the image's own
// npm and pip install a package through the egress allowlist from a local HTTPS registry whose certificate only the
// host trusts (a TLS-inspecting network, SPEC §8 "Certificates": a CA made here, passed as the host's with
// ZEUS_TEST_CA_BUNDLE), then without the host's roots (both refuse the certificate, and the refusal is said as
// tls_untrusted), then through an upstream proxy (tinyproxy, SPEC §8 "Upstream") that never hears of a denied name;
// and with secrets bound to the registry (SPEC §9 "Host-bound secrets"), curl, npm (.npmrc ${NPM_TOKEN}) and pip
// (credentials in the index URL) send the placeholders they were given and the registry receives the values.
// Nothing leaves this computer: registry.zeus.test is a --resolve override to the fixture on 127.0.0.1
// (tests/data/realclients/registry.py: a packument, its tarball, a PEP 503 page and a wheel, all made at start).
//
// The image is built once per recipe revision (ImageBuilder; tst_distroimage and the harness's ensure_distro_image
// usually have already). A missing engine, image or tinyproxy fails under CI and skips elsewhere.
// Environment: ZEUS_TEST_DISTRO_ENGINE (default podman, where the harness builds the image; docker works the same
// with the image loaded there: `podman save IMAGE | docker load`), ZEUS_TEST_DISTRO_IMAGE (the tag).
#include "distroimagefixture.h"
#include "secrets/interceptca.h"
#include "sessionfixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUuid>

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

const QString kHost = QStringLiteral("registry.zeus.test");
const QString kDenied = QStringLiteral("denied.zeus.test");

QString envOr(const char* name, const QString& fallback) {
    const QString value = qEnvironmentVariable(name);
    return value.isEmpty() ? fallback : value;
}

QString engineName() {
    return envOr("ZEUS_TEST_DISTRO_ENGINE", QStringLiteral("podman"));
}

QString imageTag() {
    return envOr("ZEUS_TEST_DISTRO_IMAGE", QStringLiteral("zeus-desktop-sandbox:distro-test"));
}

int freePort() {
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}

// A host process for a fixture, stopped by the destructor; what it printed is kept.
class HostProcess {
public:
    HostProcess(const QString& program, const QStringList& args) {
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(program, args);
    }
    ~HostProcess() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(5000)) {
                m_process.kill();
                m_process.waitForFinished(2000);
            }
        }
    }
    HostProcess(const HostProcess&) = delete;
    HostProcess& operator=(const HostProcess&) = delete;
    QString output() {
        m_seen += m_process.readAll();
        return QString::fromUtf8(m_seen);
    }

private:
    QProcess m_process;
    QByteArray m_seen;
};

// tinyproxy in the foreground on a free loopback port, with its own configuration and log.
class Tinyproxy {
public:
    bool start(const QString& dir, int connectPort, QString* why) {
        const QString program = QStandardPaths::findExecutable(QStringLiteral("tinyproxy"));
        if (program.isEmpty()) {
            *why = QStringLiteral("tinyproxy is not installed (apt-get install tinyproxy)");
            return false;
        }
        port = freePort();
        logPath = dir + QStringLiteral("/tinyproxy.log");
        const QString configPath = dir + QStringLiteral("/tinyproxy.conf");
        QFile config(configPath);
        if (!config.open(QIODevice::WriteOnly)) {
            *why = QStringLiteral("cannot write %1").arg(configPath);
            return false;
        }
        config.write(QStringLiteral("Port %1\nListen 127.0.0.1\nTimeout 30\nLogFile \"%2\"\nLogLevel Info\n"
                                    "MaxClients 20\nAllow 127.0.0.1\nConnectPort 443\nConnectPort %3\n")
                         .arg(port)
                         .arg(logPath)
                         .arg(connectPort)
                         .toUtf8());
        config.close();
        m_process =
            std::make_unique<HostProcess>(program, QStringList{QStringLiteral("-d"), QStringLiteral("-c"), configPath});
        const bool up = QTest::qWaitFor(
            [this] {
                QTcpSocket socket;
                socket.connectToHost(QHostAddress::LocalHost, quint16(port));
                return socket.waitForConnected(100);
            },
            5000);
        if (!up) {
            *why = QStringLiteral("tinyproxy did not start: %1").arg(m_process->output());
        }
        return up;
    }

    QString log() const {
        QFile file(logPath);
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port); }

    int port = 0;
    QString logPath;

private:
    std::unique_ptr<HostProcess> m_process;
};

}  // namespace

class TestRealClients : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void npmAndPipTrustWhatTheHostTrusts();
    void npmAndPipRefuseWithoutTheHostsRoots();
    void npmAndPipGoThroughTheUpstreamProxy();
    void boundSecretsReachTheRegistryOnly();

private:
    // Builds (or finds current) the distribution image once; sets m_failure or m_skipWhy when it cannot.
    void ensureImage();
    // A session manager on the distribution image; registry.zeus.test (and denied.zeus.test, not allowed) lead to
    // the fixture. `upstream`: the proxy the app's environment names (HTTPS_PROXY), or empty for none.
    std::unique_ptr<SessionManager> makeManager(bool hostCertificates, const QString& upstream = {},
                                                const std::function<void(SandboxConfig&)>& adjust = {});
    // The image's npm installs the fixture's package into `ws` from `registry`'s name; the output says whether
    // node could load it.
    QString npmInstall(const QString& registry) const;
    QString pipInstall() const;
    // The package's document from the registry, fetched by the image's GNU wget.
    QString wgetFetch() const;
    int untrusted() const {
        return int(
            std::count_if(m_events.cbegin(), m_events.cend(), [](const EgressEvent& e) { return e.tlsUntrusted; }));
    }
    QString said() const;

    bool m_imageTried = false;
    QByteArray m_skipWhy;
    QString m_failure;
    QTemporaryDir m_dir;
    QString m_tlsDir;
    int m_port = 0;
    std::unique_ptr<HostProcess> m_registry;
    QStringList m_owners;
    QList<EgressEvent> m_events;
};

// The engine and the image, or a failure under CI (a skip elsewhere).
#define REQUIRE_DISTRO_IMAGE()                \
    do {                                      \
        ZEUS_REQUIRE_ENGINE(engineName());    \
        ensureImage();                        \
        if (!m_failure.isEmpty())             \
            QFAIL(qPrintable(m_failure));     \
        if (!m_skipWhy.isEmpty()) {           \
            if (isCi())                       \
                QFAIL(m_skipWhy.constData()); \
            QSKIP(m_skipWhy.constData());     \
        }                                     \
    } while (false)

void TestRealClients::initTestCase() {
    QVERIFY(m_dir.isValid());
    // The "inspecting" CA and the registry's certificate it signed. The host trusts the CA through the test knob,
    // read once per process: set before the first container.
    m_tlsDir = m_dir.filePath(QStringLiteral("tls"));
    QVERIFY(QDir().mkpath(m_tlsDir));
    const QString script = QStringLiteral(
        "set -e; cd \"$1\"; "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=Zeus Inspecting CA' "
        "2>/dev/null; "
        "openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj \"/CN=$2\" 2>/dev/null; "
        "printf 'subjectAltName=DNS:%s\\nbasicConstraints=CA:FALSE\\nsubjectKeyIdentifier=hash\\n"
        "authorityKeyIdentifier=keyid,issuer\\n' \"$2\" > ext; "
        "openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 "
        "-extfile ext 2>/dev/null");
    const ProcessOutput made =
        runProgram(QStringLiteral("sh"), {QStringLiteral("-c"), script, QStringLiteral("sh"), m_tlsDir, kHost});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    qputenv("ZEUS_TEST_CA_BUNDLE", (m_tlsDir + QStringLiteral("/ca.pem")).toUtf8());

    // The registry: it writes its packages, then serves them over HTTPS on 127.0.0.1.
    m_port = freePort();
    const QString base = QStringLiteral("https://%1:%2/").arg(kHost).arg(m_port);
    m_registry = std::make_unique<HostProcess>(
        QStringLiteral("python3"),
        QStringList{QStringLiteral(ZEUS_TEST_DATA_DIR "/realclients/registry.py"),
                    m_dir.filePath(QStringLiteral("www")), QString::number(m_port),
                    m_tlsDir + QStringLiteral("/leaf.pem"), m_tlsDir + QStringLiteral("/leaf.key"), base});
    // The host's own curl, told the CA, says it is up.
    const QStringList probe{QStringLiteral("-sf"),
                            QStringLiteral("-m"),
                            QStringLiteral("2"),
                            QStringLiteral("--cacert"),
                            m_tlsDir + QStringLiteral("/ca.pem"),
                            QStringLiteral("--resolve"),
                            QStringLiteral("%1:%2:127.0.0.1").arg(kHost).arg(m_port),
                            QStringLiteral("-o"),
                            QStringLiteral("/dev/null"),
                            base + QStringLiteral("zeus-fixture-pkg")};
    QVERIFY2(QTest::qWaitFor([&] { return runProgram(QStringLiteral("curl"), probe, 5000).exitCode == 0; }, 20000),
             qPrintable(m_registry->output()));
}

void TestRealClients::ensureImage() {
    if (m_imageTried) {
        return;
    }
    m_imageTried = true;
    const DistroImage image = ensureDistroImage(engineName(), imageTag(), m_dir.path());
    m_failure = image.failure;
    m_skipWhy = image.skipWhy;
}

void TestRealClients::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(engineName(), owner);
    }
    m_events.clear();
}

std::unique_ptr<SessionManager> TestRealClients::makeManager(bool hostCertificates, const QString& upstream,
                                                             const std::function<void(SandboxConfig&)>& adjust) {
    SandboxConfig config = testConfig(uniqueOwner());
    m_owners << config.ownerId;
    config.image = imageTag();
    config.memory = QStringLiteral("1g");  // npm and pip need more than the tests' usual 256m
    config.hostCertificates = hostCertificates;
    config.networkMode = NetworkMode::Allowlist;
    const QString port = QString::number(m_port);
    QStringList errors;
    config.egress = EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"),
                                              {kHost + QLatin1Char(':') + port}, {},
                                              {kHost + QLatin1Char(':') + port + QStringLiteral(":127.0.0.1"),
                                               kDenied + QLatin1Char(':') + port + QStringLiteral(":127.0.0.1")},
                                              &errors);
    if (!errors.isEmpty()) {
        qWarning() << errors;
    }
    if (upstream.isEmpty()) {
        config.egress.upstream.flag = QStringLiteral("none");
    } else {
        // No flag and no setting: the environment names it, as on a corporate machine.
        config.egress.upstream.environment = {{QStringLiteral("HTTPS_PROXY"), upstream},
                                              {QStringLiteral("HTTP_PROXY"), upstream}};
    }
    // Hermetic: this machine's own proxy settings play no part.
    config.egress.upstream.systemProxy = [](const QNetworkProxyQuery&) {
        return QList<QNetworkProxy>{QNetworkProxy(QNetworkProxy::NoProxy)};
    };
    if (adjust) {
        adjust(config);
    }
    auto manager =
        std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engineName())), config);
    connect(manager.get(), &SessionManager::egressDecided, this,
            [this](const EgressEvent& event) { m_events << event; });
    return manager;
}

QString TestRealClients::npmInstall(const QString& registry) const {
    // No retries: a refused certificate is said at once rather than after npm's minute of back-off.
    return QStringLiteral(
               "npm install --no-audit --no-fund --no-update-notifier --fetch-retries=0 --registry https://%1:%2/ "
               "zeus-fixture-pkg && node -e \"console.log(require('zeus-fixture-pkg'))\"")
        .arg(registry)
        .arg(m_port);
}

QString TestRealClients::wgetFetch() const {
    return QStringLiteral("wget -qO- https://%1:%2/zeus-fixture-pkg").arg(kHost).arg(m_port);
}

QString TestRealClients::pipInstall() const {
    // The image's own pip (Debian's python3-pip), into a folder of the workspace: --target needs neither root nor a
    // venv and is not an externally-managed environment.
    return QStringLiteral(
               "python3 -m pip install --disable-pip-version-check --no-cache-dir --retries 0 --timeout 20 "
               "--target site --index-url https://%1:%2/simple/ zeus-fixture-pkg && "
               "PYTHONPATH=site python3 -c 'import zeus_fixture_pkg; print(zeus_fixture_pkg.VALUE)'")
        .arg(kHost)
        .arg(m_port);
}

QString TestRealClients::said() const {
    QStringList lines;
    for (const EgressEvent& event : m_events) {
        lines << event.decisionWord() + QLatin1Char(' ') + event.host + QLatin1Char(':') + QString::number(event.port)
                     + QLatin1Char(' ') + event.rule + QStringLiteral(" / ") + event.detail;
    }
    return lines.join(QLatin1Char('\n'));
}

void TestRealClients::npmAndPipTrustWhatTheHostTrusts() {
    REQUIRE_DISTRO_IMAGE();
    auto manager = makeManager(true);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("trusted"));
    // The container's start first, so that the installs' times are their own.
    QElapsedTimer clock;
    clock.start();
    const ExecResult started = rec.run(QStringLiteral("s"), ws, QStringLiteral("true"), 0, 120000);
    const qint64 startMs = clock.elapsed();
    QVERIFY2(started.exitCode.value_or(-1) == 0, qPrintable(started.errorMessage + started.output));

    const ExecResult npm = rec.run(QStringLiteral("s"), ws, npmInstall(kHost), 120, 150000);
    QVERIFY2(npm.exitCode.value_or(-1) == 0, qPrintable(npm.errorMessage + npm.output + said() + m_registry->output()));
    QVERIFY2(rec.stdoutOf.value(npm.callId).endsWith(QStringLiteral("zeus-fixture-pkg works\n")),
             qPrintable(npm.output));
    QVERIFY(QFileInfo::exists(ws + QStringLiteral("/node_modules/zeus-fixture-pkg/index.js")));
    QVERIFY(QFileInfo::exists(ws + QStringLiteral("/node_modules/zeus-fixture-pkg/package.json")));

    const ExecResult pip = rec.run(QStringLiteral("s"), ws, pipInstall(), 120, 150000);
    QVERIFY2(pip.exitCode.value_or(-1) == 0, qPrintable(pip.errorMessage + pip.output + said() + m_registry->output()));
    QVERIFY2(rec.stdoutOf.value(pip.callId).endsWith(QStringLiteral("zeus-fixture-pkg works\n")),
             qPrintable(pip.output));
    QVERIFY(QFileInfo::exists(ws + QStringLiteral("/site/zeus_fixture_pkg/__init__.py")));
    QVERIFY(QFileInfo::exists(ws + QStringLiteral("/site/zeus_fixture_pkg-1.0.dist-info/RECORD")));

    // GNU wget (GnuTLS: it reads no variable for its roots, only the wgetrc the app writes) and curl trust it too.
    const ExecResult wget = rec.run(QStringLiteral("s"), ws, wgetFetch(), 60, 90000);
    QVERIFY2(wget.exitCode.value_or(-1) == 0 && wget.output.contains(QStringLiteral("zeus-fixture-pkg")),
             qPrintable(wget.errorMessage + wget.output + said()));
    const ExecResult curl =
        rec.run(QStringLiteral("s"), ws, wgetFetch().replace(QStringLiteral("wget -qO-"), QStringLiteral("curl -sSf")),
                60, 90000);
    QVERIFY2(curl.exitCode.value_or(-1) == 0 && curl.output.contains(QStringLiteral("zeus-fixture-pkg")),
             qPrintable(curl.errorMessage + curl.output + said()));

    // Both clients fetched from the registry itself (the packument, the tarball, the index page, the wheel).
    const QString served = m_registry->output();
    for (const char* path :
         {"GET /zeus-fixture-pkg ", "GET /tarballs/zeus-fixture-pkg-1.0.0.tgz ", "GET /simple/zeus-fixture-pkg/ ",
          "GET /packages/zeus_fixture_pkg-1.0-py3-none-any.whl "}) {
        QVERIFY2(served.contains(QLatin1String(path)), qPrintable(served));
    }
    // Every connection was allowed, and none is said as a refused certificate.
    QTest::qWait(500);
    QVERIFY(!m_events.isEmpty());
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY2(event.allowed && event.host == kHost && !event.tlsUntrusted, qPrintable(said()));
    }
    qInfo().noquote() << QStringLiteral("trusted: npm install %1 ms, pip install %2 ms (container start %3 ms)")
                             .arg(npm.durationMs)
                             .arg(pip.durationMs)
                             .arg(startMs);
}

void TestRealClients::npmAndPipRefuseWithoutTheHostsRoots() {
    REQUIRE_DISTRO_IMAGE();
    const qsizetype servedBefore = m_registry->output().size();
    auto manager = makeManager(false);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("untrusted"));
    const ExecResult started = rec.run(QStringLiteral("s"), ws, QStringLiteral("true"), 0, 120000);
    QVERIFY2(started.exitCode.value_or(-1) == 0, qPrintable(started.errorMessage + started.output));

    // The image's own roots do not know the inspecting CA: npm refuses (Node closes without a word after the
    // server's flight) ...
    const ExecResult npm = rec.run(QStringLiteral("s"), ws, npmInstall(kHost), 120, 150000);
    QVERIFY2(npm.exitCode.value_or(0) != 0 && npm.output.contains(QStringLiteral("UNABLE_TO_VERIFY_LEAF_SIGNATURE")),
             qPrintable(npm.errorMessage + npm.output));
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/node_modules/zeus-fixture-pkg")));
    const bool npmSaid = QTest::qWaitFor([this] { return untrusted() > 0; }, 5000);
    const int afterNpm = untrusted();

    // ... and pip refuses (OpenSSL sends unknown_ca).
    const ExecResult pip = rec.run(QStringLiteral("s"), ws, pipInstall(), 120, 150000);
    QVERIFY2(pip.exitCode.value_or(0) != 0 && pip.output.contains(QStringLiteral("CERTIFICATE_VERIFY_FAILED")),
             qPrintable(pip.errorMessage + pip.output));
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/site/zeus_fixture_pkg")));
    const bool pipSaid = QTest::qWaitFor([&] { return untrusted() > afterNpm; }, 5000);
    qInfo().noquote() << QStringLiteral("untrusted: npm failed in %1 ms (tls_untrusted: %2), pip in %3 ms (%4)")
                             .arg(npm.durationMs)
                             .arg(npmSaid ? QStringLiteral("said") : QStringLiteral("not said"))
                             .arg(pip.durationMs)
                             .arg(pipSaid ? QStringLiteral("said") : QStringLiteral("not said"));

    // Each refusal is said as SPEC §8 says: tls_untrusted, on a connection the policy allowed.
    QVERIFY2(npmSaid, qPrintable(said()));
    QVERIFY2(pipSaid, qPrintable(said()));
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY2(event.allowed && event.host == kHost, qPrintable(said()));
    }
    QVERIFY2(said().contains(QStringLiteral("the client refused the server's certificate (TLS alert unknown_ca)")),
             qPrintable(said()));
    // GNU wget refuses as well (exit 5: SSL verification failed).
    const ExecResult wget = rec.run(QStringLiteral("s"), ws, wgetFetch(), 60, 90000);
    QVERIFY2(wget.exitCode.value_or(0) == 5, qPrintable(wget.errorMessage + wget.output));

    // Nothing was fetched: the refusals came during the handshakes.
    const QString served = m_registry->output().mid(servedBefore);
    QVERIFY2(!served.contains(QStringLiteral("GET /")), qPrintable(served));
}

void TestRealClients::npmAndPipGoThroughTheUpstreamProxy() {
    REQUIRE_DISTRO_IMAGE();
    QTemporaryDir dir;
    Tinyproxy tinyproxy;
    QString why;
    if (!tinyproxy.start(dir.path(), m_port, &why)) {
        if (isCi() || why.startsWith(QLatin1String("tinyproxy d"))) {
            QFAIL(qPrintable(why));
        }
        QSKIP(qPrintable(why));
    }
    auto manager = makeManager(true, tinyproxy.url());
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("upstream"));
    const ExecResult started = rec.run(QStringLiteral("s"), ws, QStringLiteral("true"), 0, 120000);
    QVERIFY2(started.exitCode.value_or(-1) == 0, qPrintable(started.errorMessage + started.output));

    const ExecResult npm = rec.run(QStringLiteral("s"), ws, npmInstall(kHost), 120, 150000);
    QVERIFY2(npm.exitCode.value_or(-1) == 0, qPrintable(npm.errorMessage + npm.output + said() + tinyproxy.log()));
    QVERIFY2(rec.stdoutOf.value(npm.callId).endsWith(QStringLiteral("zeus-fixture-pkg works\n")),
             qPrintable(npm.output));
    QVERIFY(QFileInfo::exists(ws + QStringLiteral("/node_modules/zeus-fixture-pkg/index.js")));
    // The tunnels went through tinyproxy: the --resolve override's address is what it is asked for.
    const QString connect = QStringLiteral("CONNECT 127.0.0.1:%1").arg(m_port);
    const int npmTunnels = tinyproxy.log().count(connect);
    QVERIFY2(npmTunnels > 0, qPrintable(tinyproxy.log()));

    const ExecResult pip = rec.run(QStringLiteral("s"), ws, pipInstall(), 120, 150000);
    QVERIFY2(pip.exitCode.value_or(-1) == 0, qPrintable(pip.errorMessage + pip.output + said() + tinyproxy.log()));
    QVERIFY2(rec.stdoutOf.value(pip.callId).endsWith(QStringLiteral("zeus-fixture-pkg works\n")),
             qPrintable(pip.output));
    const QString log = tinyproxy.log();
    QVERIFY2(log.count(connect) > npmTunnels, qPrintable(log));
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY2(event.allowed && event.detail.contains(QStringLiteral("through the upstream proxy")),
                 qPrintable(said()));
    }

    // A name the policy denies: the 403 is the egress proxy's own, and tinyproxy never hears of it.
    const ExecResult denied = rec.run(QStringLiteral("s"), ws, npmInstall(kDenied), 120, 150000);
    QVERIFY2(denied.exitCode.value_or(0) != 0 && denied.output.contains(QStringLiteral("403")),
             qPrintable(denied.output));
    const bool deniedSaid = std::any_of(m_events.cbegin(), m_events.cend(),
                                        [](const EgressEvent& e) { return !e.allowed && e.host == kDenied; });
    QVERIFY2(deniedSaid, qPrintable(said()));
    const QString after = tinyproxy.log().mid(log.size());
    QVERIFY2(!after.contains(QStringLiteral("CONNECT")) && !after.contains(kDenied), qPrintable(after));
    qInfo().noquote() << QStringLiteral(
                             "upstream: npm install %1 ms, pip install %2 ms, the denied name failed in %3 ms")
                             .arg(npm.durationMs)
                             .arg(pip.durationMs)
                             .arg(denied.durationMs);
}

// SPEC §9 with the clients people use: the registry is a host two secrets are bound to; the sandbox gets their
// placeholders, the app ends TLS with its CA (trusted in the sandbox through the bundle of SPEC §8) and opens its
// own TLS to the registry, verified against the host's roots (the test CA through ZEUS_TEST_CA_BUNDLE). curl's
// Bearer header, npm's .npmrc `${NPM_TOKEN}` and pip's index URL credentials (a Basic header) reach the registry
// as the values; the commands never see one.
void TestRealClients::boundSecretsReachTheRegistryOnly() {
    REQUIRE_DISTRO_IMAGE();
    auto manager = makeManager(true, QString(), [this](SandboxConfig& config) {
        const QString hostPort = kHost + QLatin1Char(':') + QString::number(m_port);
        for (const QString& name : {QStringLiteral("NPM_TOKEN"), QStringLiteral("PIP_TOKEN")}) {
            config.secretBindings.insert(name, *SecretBinding::parse(name + QLatin1Char('=') + hostPort));
        }
        config.interceptCa = std::make_shared<InterceptCa>();
        QVERIFY(config.interceptCa->generate());
    });
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("bound"));
    const QByteArray npmValue = "npm_" + QUuid::createUuid().toString(QUuid::Id128).toLatin1();
    const QByteArray pipValue = "pypi-" + QUuid::createUuid().toString(QUuid::Id128).toLatin1();
    const auto run = [&](const QString& command) {
        ExecRequest request;
        request.callId = QStringLiteral("bound-%1").arg(rec.results.size());
        request.sessionId = QStringLiteral("s");
        request.workspace = ws;
        request.command = command;
        request.timeoutSeconds = 120;
        request.secrets = {SecretValue{QStringLiteral("NPM_TOKEN"), npmValue},
                           SecretValue{QStringLiteral("PIP_TOKEN"), pipValue}};
        manager->execute(request);
        return rec.waitFor(request.callId, 150000) ? rec.results.value(request.callId) : ExecResult();
    };
    const QString base = QStringLiteral("https://%1:%2").arg(kHost).arg(m_port);

    const ExecResult env = run(QStringLiteral("echo \"$NPM_TOKEN $PIP_TOKEN\""));
    QVERIFY2(env.output.startsWith(QStringLiteral("zeus-secret-NPM_TOKEN-")), qPrintable(env.output));
    QVERIFY(env.output.contains(QStringLiteral(" zeus-secret-PIP_TOKEN-")));

    const ExecResult curl =
        run(QStringLiteral(
                "curl -sSf -H \"Authorization: Bearer $NPM_TOKEN\" %1/zeus-fixture-pkg -o /dev/null && echo curl-ok")
                .arg(base));
    QVERIFY2(curl.output.contains(QStringLiteral("curl-ok")), qPrintable(curl.errorMessage + curl.output + said()));
    QTRY_VERIFY2_WITH_TIMEOUT(m_registry->output().contains(QStringLiteral("auth: /zeus-fixture-pkg Bearer ")
                                                            + QString::fromLatin1(npmValue)),
                              qPrintable(m_registry->output().right(2000)), 5000);

    const ExecResult npm =
        run(QStringLiteral("printf '//%1:%2/:_authToken=${NPM_TOKEN}\\n' > .npmrc && ").arg(kHost).arg(m_port)
            + npmInstall(kHost));
    QVERIFY2(npm.exitCode.value_or(-1) == 0 && npm.output.contains(QStringLiteral("zeus-fixture")),
             qPrintable(npm.errorMessage + npm.output + said()));
    QVERIFY2(m_registry->output().count(QStringLiteral(" Bearer ") + QString::fromLatin1(npmValue)) >= 2,
             qPrintable(m_registry->output().right(2000)));  // curl's, then npm's packument (and tarball)

    const ExecResult pip = run(pipInstall().replace(QStringLiteral("--index-url https://"),
                                                    QStringLiteral("--index-url https://__token__:$PIP_TOKEN@")));
    QVERIFY2(pip.exitCode.value_or(-1) == 0, qPrintable(pip.errorMessage + pip.output + said()));
    const QString basic = QString::fromLatin1(QByteArray("__token__:" + pipValue).toBase64());
    QVERIFY2(m_registry->output().contains(QStringLiteral(" Basic ") + basic),
             qPrintable(m_registry->output().right(2000)));

    // What each side saw, for the log (the values are this run's random test values).
    qInfo("in the sandbox: %s", qPrintable(env.output.trimmed()));
    for (const QString& line : m_registry->output().split(QLatin1Char('\n'))) {
        if (line.startsWith(QStringLiteral("auth: "))) {
            qInfo("at the registry: %s", qPrintable(line));
        }
    }
    // The values reached the registry only: no placeholder arrived there, no value is in any result.
    QVERIFY(!m_registry->output().contains(QStringLiteral("zeus-secret-")));
    for (const ExecResult& result : std::as_const(rec.results)) {
        QVERIFY(!result.output.toUtf8().contains(npmValue) && !result.output.toUtf8().contains(pipValue));
    }
    const bool counted = std::any_of(m_events.cbegin(), m_events.cend(), [](const EgressEvent& event) {
        return event.substitutions.value(QStringLiteral("NPM_TOKEN")) > 0;
    });
    QVERIFY2(counted, qPrintable(said()));
}

QTEST_GUILESS_MAIN(TestRealClients)
#include "tst_realclients.moc"
