// The sandbox image built from the distribution's package archive (docs/sandbox-image.md), as a user without a
// registry gets it: ImageBuilder makes it once per recipe revision (the harness's ensure_distro_image usually has
// already, and then it is reused), and a real session through the agent runs the image's own toolchain:
// python3, node, npm, git; then `npm install` from a local npm registry (verdaccio) and `pip install` from a local
// package index, both through the egress allowlist to names that --resolve-style overrides send to loopback.
//
// Skipped, loudly under CI, only when the Debian archive is unreachable (nothing to build the image from).
// Environment: ZEUS_TEST_DISTRO_ENGINE (default podman: its overlay storage builds in a few minutes where the
// harness's Docker on vfs copies the whole file system for every Dockerfile step), ZEUS_TEST_DISTRO_IMAGE (tag),
// ZEUS_TEST_DISTRO_APT_PACKAGES (the image's apt list; empty: the Dockerfile's), ZEUS_TEST_VERDACCIO.
#include "engine/imagebuilder.h"
#include "sessionfixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>

#include <memory>
#include <utility>

using namespace zeus;
using namespace zeus::test;

namespace {

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

bool writeFile(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// True once `url` answers 200 (curl on the host, a few seconds at most per try).
bool waitForHttp(const QString& url, int timeoutMs) {
    return QTest::qWaitFor(
        [&] {
            return runProgram(QStringLiteral("curl"),
                              {QStringLiteral("-sf"), QStringLiteral("-m"), QStringLiteral("2"), QStringLiteral("-o"),
                               QStringLiteral("/dev/null"), url},
                              5000)
                       .exitCode
                   == 0;
        },
        timeoutMs);
}

// A host process for a fixture (verdaccio, http.server), stopped by the destructor.
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
    QByteArray output() { return m_process.readAll(); }

private:
    QProcess m_process;
};

// A tiny wheel and a PEP 503 index for it: DIR/simple/zeus-tiny-py/ links ../../packages/<wheel>.
const char* kWheelScript = R"PY(
import base64, hashlib, os, sys, zipfile
d = sys.argv[1]
os.makedirs(d + '/packages', exist_ok=True)
os.makedirs(d + '/simple/zeus-tiny-py', exist_ok=True)
files = {
    'zeus_tiny_py/__init__.py': b"VALUE = 'zeus-tiny-py works'\n",
    'zeus_tiny_py-1.0.dist-info/METADATA': b"Metadata-Version: 2.1\nName: zeus-tiny-py\nVersion: 1.0\n",
    'zeus_tiny_py-1.0.dist-info/WHEEL':
        b"Wheel-Version: 1.0\nGenerator: zeus-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = ''.join('%s,sha256=%s,%d\n' % (n, base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode(),
                                        len(b)) for n, b in files.items())
files['zeus_tiny_py-1.0.dist-info/RECORD'] = (record + 'zeus_tiny_py-1.0.dist-info/RECORD,,\n').encode()
wheel = 'zeus_tiny_py-1.0-py3-none-any.whl'
with zipfile.ZipFile(d + '/packages/' + wheel, 'w') as z:
    for n, b in files.items():
        z.writestr(n, b)
with open(d + '/simple/zeus-tiny-py/index.html', 'w') as f:
    f.write('<html><body><a href="../../packages/%s">%s</a></body></html>\n' % (wheel, wheel))
)PY";

}  // namespace

class TestDistroImage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void toolchainRunsThroughTheAgent();
    void npmInstallsFromALocalRegistryThroughTheAllowlist();
    void pipInstallsFromALocalIndexThroughTheAllowlist();

private:
    // A manager on the distribution image; `names` map to loopback ports (--resolve) and are allowed.
    std::unique_ptr<SessionManager> makeManager(const QList<std::pair<QString, int>>& names);
    QTemporaryDir m_dir;
    QStringList m_owners;
    QList<EgressEvent> m_events;
};

void TestDistroImage::initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString engine = engineName();
    ZEUS_REQUIRE_ENGINE(engine);

    // The recipe as a checkout has it: the Dockerfile with the agent's source beside it.
    const QString context = m_dir.filePath(QStringLiteral("context"));
    QVERIFY(QDir().mkpath(context + QStringLiteral("/agent")));
    QVERIFY(QFile::copy(QStringLiteral(ZEUS_SOURCE_DIR "/docker/Dockerfile"), context + QStringLiteral("/Dockerfile")));
    QVERIFY(QFile::copy(QStringLiteral(ZEUS_SOURCE_DIR "/agent/zeus-sandbox-agent.c"),
                        context + QStringLiteral("/agent/zeus-sandbox-agent.c")));

    ImageBuilder builder;
    builder.setTimeout(30 * 60 * 1000);
    QStringList log;
    connect(&builder, &ImageBuilder::logLine, this, [&log](const QString& line) {
        log << line;
        if (log.size() > 400) {
            log.removeFirst();
        }
    });
    QSignalSpy finished(&builder, &ImageBuilder::finished);
    ImageBuilder::Request request;
    request.program = engine;
    request.tag = imageTag();
    request.dockerfile = context + QStringLiteral("/Dockerfile");
    request.contextDir = context;
    request.version = QStringLiteral(ZEUS_VERSION);
    request.way = ImageBuilder::Way::DistroArchive;
    request.aptPackages = qEnvironmentVariable("ZEUS_TEST_DISTRO_APT_PACKAGES");
    QElapsedTimer clock;
    clock.start();
    QVERIFY(builder.start(request));
    QVERIFY(finished.wait(30 * 60 * 1000));
    qInfo().noquote() << "distribution image" << request.tag << "with" << engine << ":" << builder.builtWay()
                      << "revision" << builder.revision() << "in" << clock.elapsed() / 1000 << "s";
    if (!finished.first().at(0).toBool()) {
        // Only an unreachable archive is a reason to skip; anything else is a failure.
        const ProcessOutput probe = runProgram(QStringLiteral("curl"),
                                               {QStringLiteral("-sSfI"), QStringLiteral("-m"), QStringLiteral("20"),
                                                QStringLiteral("http://deb.debian.org/debian/dists/bookworm/Release")},
                                               30000);
        if (probe.exitCode != 0) {
            const QByteArray why =
                "SKIPPED: the Debian archive (deb.debian.org) is unreachable, so the distribution "
                "image cannot be built: "
                + probe.err.trimmed();
            if (isCi()) {
                qWarning(
                    "\n********************************************************************************\n"
                    "tst_distroimage %s\n"
                    "********************************************************************************",
                    why.constData());
            }
            QSKIP(why.constData());
        }
        QFAIL(qPrintable(finished.first().at(2).toString() + QLatin1Char('\n') + log.join(QLatin1Char('\n'))));
    }

    // Its labels say how and from which recipe it was built (what --diagnose shows).
    const ProcessOutput labels =
        runProgram(engine, {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"),
                            QStringLiteral("{{json .Config.Labels}}"), imageTag()});
    const QJsonObject object = QJsonDocument::fromJson(labels.out.trimmed()).object();
    QCOMPARE(object.value(QStringLiteral("zeus.image.source")).toString(), QStringLiteral("debootstrap"));
    QCOMPARE(object.value(QStringLiteral("zeus.image.revision")).toString(), builder.revision());
    QCOMPARE(object.value(QStringLiteral("org.opencontainers.image.title")).toString(),
             QStringLiteral("Zeus Desktop sandbox"));
}

void TestDistroImage::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(engineName(), owner);
    }
    m_events.clear();
}

std::unique_ptr<SessionManager> TestDistroImage::makeManager(const QList<std::pair<QString, int>>& names) {
    SandboxConfig config = testConfig(uniqueOwner());
    m_owners << config.ownerId;
    config.image = imageTag();
    config.memory = QStringLiteral("1g");  // npm and pip need more than the tests' usual 256m
    config.networkMode = NetworkMode::Allowlist;
    QStringList allow;
    QStringList resolve;
    for (const auto& [name, port] : names) {
        allow << QStringLiteral("%1:%2").arg(name).arg(port);
        resolve << QStringLiteral("%1:%2:127.0.0.1").arg(name).arg(port);
    }
    QStringList errors;
    config.egress =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"), allow, {}, resolve, &errors);
    if (!errors.isEmpty()) {
        qWarning() << errors;
    }
    auto manager =
        std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engineName())), config);
    connect(manager.get(), &SessionManager::egressDecided, this,
            [this](const EgressEvent& event) { m_events << event; });
    return manager;
}

void TestDistroImage::toolchainRunsThroughTheAgent() {
    auto manager = makeManager({});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("toolchain"));
    const ExecResult python = rec.run(QStringLiteral("s"), ws, QStringLiteral("python3 -c 'print(6 * 7)'"), 0, 180000);
    QVERIFY2(python.exitCode.value_or(-1) == 0, qPrintable(python.errorMessage + python.output));
    QCOMPARE(rec.stdoutOf.value(python.callId), QStringLiteral("42\n"));
    QVERIFY2(manager->execPath(QStringLiteral("s")).startsWith(QStringLiteral("agent ")),
             qPrintable(manager->execPath(QStringLiteral("s"))));

    const ExecResult node = rec.run(QStringLiteral("s"), ws, QStringLiteral("node -e 'console.log(6 * 7)'"));
    QVERIFY2(node.exitCode.value_or(-1) == 0, qPrintable(node.output));
    QCOMPARE(rec.stdoutOf.value(node.callId), QStringLiteral("42\n"));

    const ExecResult npm = rec.run(QStringLiteral("s"), ws, QStringLiteral("npm --version"));
    QVERIFY2(npm.exitCode.value_or(-1) == 0, qPrintable(npm.output));
    QVERIFY2(
        QRegularExpression(QStringLiteral("^\\d+\\.\\d+\\.\\d+\\n$")).match(rec.stdoutOf.value(npm.callId)).hasMatch(),
        qPrintable(rec.stdoutOf.value(npm.callId)));

    const ExecResult git = rec.run(QStringLiteral("s"), ws, QStringLiteral("git --version"));
    QVERIFY2(git.exitCode.value_or(-1) == 0, qPrintable(git.output));
    QVERIFY2(rec.stdoutOf.value(git.callId).startsWith(QStringLiteral("git version ")),
             qPrintable(rec.stdoutOf.value(git.callId)));
    qInfo() << "python3, node, npm, git took" << python.durationMs << node.durationMs << npm.durationMs
            << git.durationMs << "ms (the first includes the container's start)";
}

void TestDistroImage::npmInstallsFromALocalRegistryThroughTheAllowlist() {
    QString verdaccio = qEnvironmentVariable("ZEUS_TEST_VERDACCIO");
    if (verdaccio.isEmpty()) {
        verdaccio = QStandardPaths::findExecutable(QStringLiteral("verdaccio"));
    }
    if (verdaccio.isEmpty()) {
        const char* why = "verdaccio is not installed (tests/harness/engines.sh installs it: ensure_verdaccio)";
        if (isCi()) {
            QFAIL(why);
        }
        QSKIP(why);
    }
    // verdaccio on loopback: no uplinks (nothing from the internet), anyone may publish.
    const int port = freePort();
    const QString home = m_dir.filePath(QStringLiteral("verdaccio"));
    QVERIFY(writeFile(home + QStringLiteral("/config.yaml"),
                      "storage: " + home.toUtf8()
                          + "/storage\n"
                            "auth:\n  htpasswd:\n    file: "
                          + home.toUtf8()
                          + "/htpasswd\n    max_users: 10\n"
                            "uplinks: {}\n"
                            "packages:\n  '**':\n    access: $all\n    publish: $authenticated\n"
                            "log: { type: stdout, format: pretty, level: warn }\n"));
    const QString local = QStringLiteral("http://127.0.0.1:%1/").arg(port);
    HostProcess server(verdaccio, {QStringLiteral("--config"), home + QStringLiteral("/config.yaml"),
                                   QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(port)});
    QVERIFY2(waitForHttp(local + QStringLiteral("-/ping"), 60000), server.output().constData());

    // A user, and a tiny package of our own published with the host's npm.
    const ProcessOutput user =
        runProgram(QStringLiteral("curl"),
                   {QStringLiteral("-sf"), QStringLiteral("-X"), QStringLiteral("PUT"), QStringLiteral("-H"),
                    QStringLiteral("content-type: application/json"), QStringLiteral("-d"),
                    QStringLiteral(R"({"name":"zeus","password":"zeus-test-password"})"),
                    local + QStringLiteral("-/user/org.couchdb.user:zeus")});
    const QString token = QJsonDocument::fromJson(user.out).object().value(QStringLiteral("token")).toString();
    QVERIFY2(!token.isEmpty(), user.out.constData());
    const QString package = m_dir.filePath(QStringLiteral("zeus-tiny"));
    QVERIFY(writeFile(package + QStringLiteral("/package.json"),
                      R"({"name":"zeus-tiny","version":"1.0.0","main":"index.js","license":"MIT"})"));
    QVERIFY(writeFile(package + QStringLiteral("/index.js"), "module.exports = 'zeus-tiny works';\n"));
    const QString npmrc = m_dir.filePath(QStringLiteral("npmrc"));
    QVERIFY(writeFile(npmrc, QStringLiteral("//127.0.0.1:%1/:_authToken=%2\n").arg(port).arg(token).toUtf8()));
    const ProcessOutput publish = runProgram(QStringLiteral("npm"),
                                             {QStringLiteral("publish"), package, QStringLiteral("--registry"), local,
                                              QStringLiteral("--userconfig"), npmrc},
                                             120000);
    QVERIFY2(publish.exitCode == 0, QByteArray(publish.out + publish.err).constData());

    // The image's npm, through the agent's proxy, to a name the allowlist lets through.
    auto manager = makeManager({{QStringLiteral("registry.test"), port}});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("npm"));
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("npm install --no-audit --no-fund --fetch-retries=0 --registry http://registry.test:%1/ "
                               "zeus-tiny && node -e \"console.log(require('zeus-tiny'))\"")
                    .arg(port),
                240, 300000);
    QVERIFY2(result.exitCode.value_or(-1) == 0, qPrintable(result.errorMessage + result.output));
    QVERIFY2(rec.stdoutOf.value(result.callId).endsWith(QStringLiteral("zeus-tiny works\n")),
             qPrintable(result.output));
    QVERIFY(QFileInfo::exists(ws + QStringLiteral("/node_modules/zeus-tiny/index.js")));
    QVERIFY(!m_events.isEmpty());
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY2(event.allowed && event.host == QStringLiteral("registry.test"), qPrintable(event.host + event.rule));
    }
}

void TestDistroImage::pipInstallsFromALocalIndexThroughTheAllowlist() {
    const QString index = m_dir.filePath(QStringLiteral("index"));
    const ProcessOutput made =
        runProgram(QStringLiteral("python3"), {QStringLiteral("-c"), QString::fromUtf8(kWheelScript), index});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    const int port = freePort();
    HostProcess server(QStringLiteral("python3"),
                       {QStringLiteral("-m"), QStringLiteral("http.server"), QString::number(port),
                        QStringLiteral("--bind"), QStringLiteral("127.0.0.1"), QStringLiteral("--directory"), index});
    QVERIFY2(waitForHttp(QStringLiteral("http://127.0.0.1:%1/simple/zeus-tiny-py/").arg(port), 30000),
             server.output().constData());

    auto manager = makeManager({{QStringLiteral("pypi.test"), port}});
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("pip"));
    // The image's python3 and its pip, in a venv (a global install needs root); http needs --trusted-host.
    const ExecResult result =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("python3 -m venv /tmp/venv && /tmp/venv/bin/pip install --no-cache-dir --index-url "
                               "http://pypi.test:%1/simple/ --trusted-host pypi.test zeus-tiny-py && "
                               "/tmp/venv/bin/python -c 'import zeus_tiny_py; print(zeus_tiny_py.VALUE)'")
                    .arg(port),
                240, 300000);
    QVERIFY2(result.exitCode.value_or(-1) == 0, qPrintable(result.errorMessage + result.output));
    QVERIFY2(rec.stdoutOf.value(result.callId).endsWith(QStringLiteral("zeus-tiny-py works\n")),
             qPrintable(result.output));
    QVERIFY(!m_events.isEmpty());
    for (const EgressEvent& event : std::as_const(m_events)) {
        QVERIFY2(event.allowed && event.host == QStringLiteral("pypi.test"), qPrintable(event.host + event.rule));
    }
}

QTEST_GUILESS_MAIN(TestDistroImage)
#include "tst_distroimage.moc"
