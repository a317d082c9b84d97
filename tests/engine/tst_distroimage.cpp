// The sandbox image built from the distribution's package archive (docs/sandbox-image.md), as a user without a
// registry gets it: ImageBuilder makes it once per recipe revision (the harness's ensure_distro_image usually has
// already, and then it is reused), and a real session through the agent runs the image's own toolchain:
// python3, node, npm, git; then `npm install` from a local npm registry (verdaccio) and `pip install` from a local
// package index, both through the egress allowlist to names that --resolve-style overrides send to loopback;
// and the image's curl reaching a TLS server whose certificate only the host trusts (a TLS-inspecting network, as
// SPEC §8 "Certificates" describes it: a CA made here, passed as the host's with ZEUS_TEST_CA_BUNDLE).
//
// Skipped, loudly under CI, only when the Debian archive is unreachable (nothing to build the image from).
// Environment: ZEUS_TEST_DISTRO_ENGINE (default podman: its overlay storage builds in a few minutes where the
// harness's Docker on vfs copies the whole file system for every Dockerfile step), ZEUS_TEST_DISTRO_IMAGE (tag),
// ZEUS_TEST_DISTRO_APT_PACKAGES (the image's apt list; empty: the Dockerfile's), ZEUS_TEST_VERDACCIO.
#include "diagnosticsections.h"
#include "distroimagefixture.h"
#include "engine/imagebuilder.h"
#include "sessionfixture.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>

#include <algorithm>
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
    // Pure: the recipe's parts as the builders read them.
    void revisionIsTheScriptsRevision();
    void hostDistribution_data();
    void hostDistribution();
    void rootfsArguments();
    // The busybox image only when not even the archive answers, and then said loudly and labelled.
    void busyboxOnlyWhenTheArchiveIsUnreachable();
    // The real image, built once per revision.
    void labelsSayHowItWasBuilt();
    void toolchainRunsThroughTheAgent();
    void npmInstallsFromALocalRegistryThroughTheAllowlist();
    void pipInstallsFromALocalIndexThroughTheAllowlist();
    void curlTrustsWhatTheHostTrusts_data();
    void curlTrustsWhatTheHostTrusts();

private:
    // Builds (or finds current) the distribution image once; sets m_skipWhy or m_failure when it cannot.
    void ensureImage();
    bool m_imageTried = false;
    QByteArray m_skipWhy;
    QString m_failure;
    QString m_revision;
    // A manager on the distribution image; `names` map to loopback ports (--resolve) and are allowed.
    std::unique_ptr<SessionManager> makeManager(const QList<std::pair<QString, int>>& names,
                                                bool hostCertificates = true);
    QString m_tlsDir;  // the test CA and the fixture's certificate it signed (initTestCase)
    QTemporaryDir m_dir;
    QStringList m_owners;
    QList<EgressEvent> m_events;
};

// In an engine test function: the engine and the image, or a skip (archive unreachable) or a failure.
#define REQUIRE_DISTRO_IMAGE()             \
    do {                                   \
        ZEUS_REQUIRE_ENGINE(engineName()); \
        ensureImage();                     \
        if (!m_failure.isEmpty())          \
            QFAIL(qPrintable(m_failure));  \
        if (!m_skipWhy.isEmpty())          \
            QSKIP(m_skipWhy.constData());  \
    } while (false)

void TestDistroImage::initTestCase() {
    QVERIFY(m_dir.isValid());
    // A CA of the test's own and a certificate for fixture.test it signed. The host "trusts" the CA through the
    // test knob, read once per process: set before the first container.
    m_tlsDir = m_dir.filePath(QStringLiteral("tls"));
    QVERIFY(QDir().mkpath(m_tlsDir));
    const QString script = QStringLiteral(
        "set -e; cd \"$1\"; "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=Zeus Inspecting CA' "
        "2>/dev/null; "
        "openssl req -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj '/CN=fixture.test' 2>/dev/null; "
        "printf 'subjectAltName=DNS:fixture.test\\n' > ext; "
        "openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 "
        "-extfile ext 2>/dev/null");
    const ProcessOutput made =
        runProgram(QStringLiteral("sh"), {QStringLiteral("-c"), script, QStringLiteral("sh"), m_tlsDir});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    qputenv("ZEUS_TEST_CA_BUNDLE", (m_tlsDir + QStringLiteral("/ca.pem")).toUtf8());
}

void TestDistroImage::ensureImage() {
    if (m_imageTried) {
        return;
    }
    m_imageTried = true;
    const DistroImage image = ensureDistroImage(engineName(), imageTag(), m_dir.path(),
                                                qEnvironmentVariable("ZEUS_TEST_DISTRO_APT_PACKAGES"));
    m_failure = image.failure;
    m_revision = image.revision;
    if (!image.skipWhy.isEmpty()) {
        m_skipWhy = "SKIPPED: " + image.skipWhy;
        if (isCi()) {
            qWarning(
                "\n********************************************************************************\n"
                "tst_distroimage %s\n"
                "********************************************************************************",
                m_skipWhy.constData());
        }
    }
}

void TestDistroImage::revisionIsTheScriptsRevision() {
    // docker/ensure-image.sh and ImageBuilder must agree, or each would rebuild what the other built.
    QFile dockerfile(QStringLiteral(ZEUS_SOURCE_DIR "/docker/Dockerfile"));
    QVERIFY(dockerfile.open(QIODevice::ReadOnly));
    const QByteArray text = dockerfile.readAll();
    const QByteArray source = ImageBuilder::agentSources(QStringLiteral(ZEUS_SOURCE_DIR "/agent"));
    QVERIFY(source.contains("int main(") && source.contains("#define TUNNEL_BIT"));  // main.c and protocol.h
    const QString packages = ImageBuilder::dockerfileArgDefault(text, QStringLiteral("ZEUS_APT_PACKAGES"));
    for (const char* tool : {"python3", "python3-pip", "python3-venv", "git", "curl", "ca-certificates",
                             "build-essential", "ripgrep", "jq"}) {
        QVERIFY2(packages.split(QLatin1Char(' ')).contains(QLatin1String(tool)), tool);
    }
    QCOMPARE(ImageBuilder::dockerfileArgDefault(text, QStringLiteral("ZEUS_DISTRO_PACKAGES")),
             QStringLiteral("nodejs npm musl-tools"));
    QVERIFY(ImageBuilder::dockerfileArgDefault(text, QStringLiteral("NO_SUCH_ARG")).isEmpty());
    const QString script = QStringLiteral(ZEUS_SOURCE_DIR "/docker/ensure-image.sh");
    const ProcessOutput full = runProgram(script, {QStringLiteral("--revision")});
    QCOMPARE(QString::fromUtf8(full.out.trimmed()), ImageBuilder::recipeRevision(text, source, packages));
    // Another package list is another recipe.
    const ProcessOutput small = runProgram(
        QStringLiteral("env"), {QStringLiteral("ZEUS_APT_PACKAGES=bash git"), script, QStringLiteral("--revision")});
    QCOMPARE(QString::fromUtf8(small.out.trimmed()),
             ImageBuilder::recipeRevision(text, source, QStringLiteral("bash git")));
    QVERIFY(small.out != full.out);
}

void TestDistroImage::hostDistribution_data() {
    QTest::addColumn<QString>("osRelease");
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("suite");
    QTest::addColumn<QString>("components");
    QTest::newRow("debian 12")
        << "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_CODENAME=bookworm\n"
        << "debian"
        << "bookworm"
        << "main";
    QTest::newRow("debian 13") << "ID=debian\nVERSION_CODENAME=trixie\n"
                               << "debian"
                               << "trixie"
                               << "main";
    QTest::newRow("ubuntu") << "ID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=jammy\nUBUNTU_CODENAME=jammy\n"
                            << "ubuntu"
                            << "jammy"
                            << "main,universe";
    QTest::newRow("mint: ubuntu's codename")
        << "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\nVERSION_CODENAME=virginia\nUBUNTU_CODENAME=jammy\n"
        << "ubuntu"
        << "jammy"
        << "main,universe";
    QTest::newRow("a debian derivative: stable") << "ID=raspbian\nID_LIKE=debian\nVERSION_CODENAME=foo\n"
                                                 << "debian"
                                                 << "bookworm"
                                                 << "main";
    QTest::newRow("fedora: debian stable") << "ID=fedora\nVERSION_ID=40\n"
                                           << "debian"
                                           << "bookworm"
                                           << "main";
    QTest::newRow("odd codename") << "ID=debian\nVERSION_CODENAME=\"a b;c\"\n"
                                  << "debian"
                                  << "bookworm"
                                  << "main";
    QTest::newRow("nothing") << ""
                             << "debian"
                             << "bookworm"
                             << "main";
}

void TestDistroImage::hostDistribution() {
    QFETCH(QString, osRelease);
    QFETCH(QString, id);
    QFETCH(QString, suite);
    QFETCH(QString, components);
    const ImageBuilder::Distribution distribution = ImageBuilder::hostDistribution(osRelease);
    QCOMPARE(distribution.id, id);
    QCOMPARE(distribution.suite, suite);
    QCOMPARE(distribution.components, components);
}

void TestDistroImage::rootfsArguments() {
    const QStringList args = ImageBuilder::rootfsArguments(
        {QStringLiteral("ubuntu"), QStringLiteral("jammy"), QStringLiteral("main,universe")},
        {QStringLiteral("python3"), QStringLiteral("nodejs")}, QStringLiteral("http://mirror.example/ubuntu"),
        QStringLiteral("/tmp/x/rootfs.tar"));
    QVERIFY(args.contains(QStringLiteral("--include=python3,nodejs")));
    QVERIFY(args.contains(QStringLiteral("--components=main,universe")));
    QVERIFY(args.contains(QStringLiteral("--mode=auto")));
    QCOMPARE(args.mid(args.size() - 3), (QStringList{QStringLiteral("jammy"), QStringLiteral("/tmp/x/rootfs.tar"),
                                                     QStringLiteral("http://mirror.example/ubuntu")}));
    const QStringList noMirror =
        ImageBuilder::rootfsArguments({QStringLiteral("debian"), QStringLiteral("bookworm"), QStringLiteral("main")},
                                      {QStringLiteral("git")}, QString(), QStringLiteral("out.tar"));
    QCOMPARE(noMirror.last(), QStringLiteral("out.tar"));
}

void TestDistroImage::busyboxOnlyWhenTheArchiveIsUnreachable() {
    const QString engine = engineName();
    ZEUS_REQUIRE_ENGINE(engine);
    // No registry (the archive's way only) and an archive that refuses every connection: the last resort.
    const QString tag = QStringLiteral("zeus-fallback-check:") + uniqueOwner();
    const auto removeTag = qScopeGuard([&] { removeImage(engine, tag); });
    const QStringList args{QStringLiteral("ZEUS_IMAGE_WAY=distro"),
                           QStringLiteral("ZEUS_DISTRO_MIRROR=http://127.0.0.1:9/debian"),
                           QStringLiteral(ZEUS_SOURCE_DIR "/docker/ensure-image.sh"), engine, tag};
    const ProcessOutput run = runProgram(QStringLiteral("env"), args, 180000);
    QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
    QVERIFY2(run.err.contains("the distribution's package archive is not reachable either"), run.err.constData());
    QVERIFY2(run.err.contains(QByteArray("NOTE: " + tag.toUtf8() + " is now the MINIMAL OFFLINE TEST IMAGE")),
             run.err.constData());
    const ProcessOutput labels =
        runProgram(engine, {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"),
                            QStringLiteral("{{json .Config.Labels}}"), tag});
    ImageInspection inspection;
    inspection.outcome = ImageInspection::Outcome::Present;
    const QJsonObject object = QJsonDocument::fromJson(labels.out.trimmed()).object();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        inspection.labels.insert(it.key(), it.value().toString());
    }
    QCOMPARE(inspection.labels.value(QStringLiteral("zeus.image.source")), QStringLiteral("busybox-fallback"));
    QCOMPARE(DiagnosticSections::classifyImage(inspection), DiagnosticSections::ImageKind::OfflineTest);
    // It never counts as built: the next run tries the real ways again.
    const ProcessOutput again = runProgram(QStringLiteral("env"), args, 180000);
    QVERIFY2(again.out.contains("is from another recipe"), again.out.constData());
}

void TestDistroImage::labelsSayHowItWasBuilt() {
    REQUIRE_DISTRO_IMAGE();
    const QString engine = engineName();
    const ProcessOutput labels =
        runProgram(engine, {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"),
                            QStringLiteral("{{json .Config.Labels}}"), imageTag()});
    const QJsonObject object = QJsonDocument::fromJson(labels.out.trimmed()).object();
    QCOMPARE(object.value(QStringLiteral("zeus.image.source")).toString(), QStringLiteral("debootstrap"));
    QCOMPARE(object.value(QStringLiteral("zeus.image.revision")).toString(), m_revision);
    QCOMPARE(object.value(QStringLiteral("org.opencontainers.image.title")).toString(),
             QStringLiteral("Zeus Desktop sandbox"));
    QFile osRelease(QStringLiteral("/etc/os-release"));
    QVERIFY(osRelease.open(QIODevice::ReadOnly));
    const ImageBuilder::Distribution host = ImageBuilder::hostDistribution(QString::fromUtf8(osRelease.readAll()));
    const QString distribution = host.id + QLatin1Char(':') + host.suite;
    QCOMPARE(object.value(QStringLiteral("zeus.image.distribution")).toString(), distribution);
    QCOMPARE(object.value(QStringLiteral("org.opencontainers.image.base.name")).toString(), distribution);

    // What --diagnose and the image check say about it.
    ImageInspection inspection;
    inspection.outcome = ImageInspection::Outcome::Present;
    inspection.image = imageTag();
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        inspection.labels.insert(it.key(), it.value().toString());
    }
    QCOMPARE(DiagnosticSections::classifyImage(inspection), DiagnosticSections::ImageKind::Sandbox);
    DiagnosticSections::ImageFacts facts;
    facts.image = imageTag();
    facts.runtimeName = QStringLiteral("Podman");
    facts.inspection = inspection;
    const DiagnosticSection section = DiagnosticSections::image(facts);
    QVERIFY2(section.text.contains(QStringLiteral("Built from the distribution's package archive (%1), revision %2")
                                       .arg(distribution, m_revision)),
             qPrintable(section.text));
    QCOMPARE(section.value.toObject().value(QStringLiteral("source")).toString(), QStringLiteral("debootstrap"));
    QCOMPARE(section.checks.value(0).level, DiagnosticCheck::Level::Ok);
}

void TestDistroImage::cleanup() {
    for (const QString& owner : std::exchange(m_owners, {})) {
        removeContainersOf(engineName(), owner);
    }
    m_events.clear();
}

std::unique_ptr<SessionManager> TestDistroImage::makeManager(const QList<std::pair<QString, int>>& names,
                                                             bool hostCertificates) {
    SandboxConfig config = testConfig(uniqueOwner());
    config.hostCertificates = hostCertificates;
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
    REQUIRE_DISTRO_IMAGE();
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
    REQUIRE_DISTRO_IMAGE();
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
    REQUIRE_DISTRO_IMAGE();
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

void TestDistroImage::curlTrustsWhatTheHostTrusts_data() {
    QTest::addColumn<bool>("hostCertificates");
    QTest::addColumn<bool>("python");
    QTest::newRow("host certificates (the default)") << true << false;
    QTest::newRow("--no-host-ca") << false << false;
    QTest::newRow("--no-host-ca, python") << false << true;
}

void TestDistroImage::curlTrustsWhatTheHostTrusts() {
    QFETCH(bool, hostCertificates);
    QFETCH(bool, python);
    REQUIRE_DISTRO_IMAGE();
    const int port = freePort();
    HostProcess server(QStringLiteral("openssl"),
                       {QStringLiteral("s_server"), QStringLiteral("-accept"), QStringLiteral("127.0.0.1:%1").arg(port),
                        QStringLiteral("-cert"), m_tlsDir + QStringLiteral("/leaf.pem"), QStringLiteral("-key"),
                        m_tlsDir + QStringLiteral("/leaf.key"), QStringLiteral("-www"), QStringLiteral("-quiet")});
    // The host's own curl, told the CA, says the fixture is up.
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     return runProgram(
                                QStringLiteral("curl"),
                                {QStringLiteral("-sf"), QStringLiteral("-m"), QStringLiteral("2"),
                                 QStringLiteral("--cacert"), m_tlsDir + QStringLiteral("/ca.pem"),
                                 QStringLiteral("--resolve"), QStringLiteral("fixture.test:%1:127.0.0.1").arg(port),
                                 QStringLiteral("-o"), QStringLiteral("/dev/null"),
                                 QStringLiteral("https://fixture.test:%1/").arg(port)},
                                5000)
                                .exitCode
                            == 0;
                 },
                 20000),
             server.output().constData());

    auto manager = makeManager({{QStringLiteral("fixture.test"), port}}, hostCertificates);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_dir, hostCertificates ? QStringLiteral("tls-on") : QStringLiteral("tls-off"));
    // The image's curl (or Python), no flag of its own: what an agent would run.
    const QString command =
        python ? QStringLiteral(
                     "python3 -c \"import urllib.request; "
                     "urllib.request.urlopen('https://fixture.test:%1/')\"")
                     .arg(port)
               : QStringLiteral("curl -sS -o /dev/null -w '%{http_code}' https://fixture.test:%1/").arg(port);
    const ExecResult result = rec.run(QStringLiteral("s"), ws, command, 60, 120000);
    if (hostCertificates) {
        QVERIFY2(result.exitCode.value_or(-1) == 0, qPrintable(result.errorMessage + result.output));
        QCOMPARE(rec.stdoutOf.value(result.callId), QStringLiteral("200"));
    } else if (python) {
        QVERIFY2(result.output.contains(QStringLiteral("CERTIFICATE_VERIFY_FAILED")), qPrintable(result.output));
    } else {
        // curl's "SSL certificate problem": the image's own roots do not know the CA.
        QVERIFY2(result.exitCode.value_or(-1) == 60, qPrintable(result.output));
    }
    // The refusal is said as SPEC §8 says (tls_untrusted, after the allowed connection); a connection that worked
    // says nothing of the kind.
    const auto untrusted = [this] {
        return std::count_if(m_events.cbegin(), m_events.cend(), [](const EgressEvent& e) { return e.tlsUntrusted; });
    };
    if (hostCertificates) {
        QTest::qWait(500);
    } else {
        QVERIFY(QTest::qWaitFor([&] { return untrusted() > 0; }, 5000));
    }
    QStringList said;
    for (const EgressEvent& event : std::as_const(m_events)) {
        said << event.decisionWord() + QLatin1Char(' ') + event.host + QLatin1Char(' ') + event.detail;
        QCOMPARE(event.host, QStringLiteral("fixture.test"));
        QVERIFY(event.allowed);
    }
    QVERIFY2(untrusted() == (hostCertificates ? 0 : 1), qPrintable(said.join(QLatin1Char('\n'))));
    if (!hostCertificates) {
        QVERIFY2(said.join(QLatin1Char('\n'))
                     .contains(QStringLiteral("tls_untrusted fixture.test the client refused the "
                                              "server's certificate (TLS alert unknown_ca)")),
                 qPrintable(said.join(QLatin1Char('\n'))));
    }
}

QTEST_GUILESS_MAIN(TestDistroImage)
#include "tst_distroimage.moc"
