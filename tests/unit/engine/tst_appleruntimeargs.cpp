// The Apple `container` adapter driven through SessionManager against the fake CLI in
// tests/fakes/apple (Apple Containerization cannot run on Linux): the argument lists it
// sends, its parsing of the answers, version gates, orphans and a missing image.
#include "engine/appleruntime.h"
#include "sandbox/sessionmanager.h"

#include <zeus/buildinfo.h>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace zeus;

namespace {

const QString kFake = QStringLiteral(ZEUS_TEST_FAKES_DIR "/apple/container");

// The recorded invocations, each as its argument list.
QList<QStringList> invocations(const QString& logPath) {
    QFile file(logPath);
    QList<QStringList> calls;
    if (!file.open(QIODevice::ReadOnly)) {
        return calls;
    }
    QStringList current;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line == "--") {
            calls << current;
            current.clear();
        } else if (!line.isEmpty() || !current.isEmpty()) {
            current << QString::fromUtf8(line);
        }
    }
    return calls;
}

QList<QStringList> callsOf(const QList<QStringList>& calls, const QString& verb) {
    QList<QStringList> found;
    for (const QStringList& call : calls) {
        if (!call.isEmpty() && call.first() == verb) {
            found << call;
        }
    }
    return found;
}

// The execs of commands and the agent: without the one that writes the host's certificates at container start
// (SPEC §8; the fake runs it on the host, where /run/zeus does not exist, so it fails and is logged).
bool isCertificateInstall(const QStringList& call) {
    return call.join(QLatin1Char(' ')).contains(QLatin1String("/run/zeus/ca-certificates.crt"));
}

QList<QStringList> commandExecs(const QList<QStringList>& calls) {
    QList<QStringList> found;
    for (const QStringList& call : callsOf(calls, QStringLiteral("exec"))) {
        if (!isCertificateInstall(call)) {
            found << call;
        }
    }
    return found;
}

}  // namespace

class TestAppleRuntimeArgs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void sessionThroughTheFake();
    void imageWithoutAgentFallsBack();
    void orphanSweepFiltersByOwner();
    void missingImage();
    void tooOldCliIsRefusedBeforeRun();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& version, const QString& image);
    ExecResult run(SessionManager& manager, const QString& callId, const QString& command);
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_log;
    QString m_state;
    QString m_ws;
};

void TestAppleRuntimeArgs::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const QString base = QFileInfo(m_dir->path()).canonicalFilePath();
    m_log = base + QStringLiteral("/argv.log");
    m_state = base + QStringLiteral("/state");
    m_ws = base + QStringLiteral("/ws");
    QVERIFY(QDir().mkpath(m_ws));
    qputenv("ZEUS_FAKE_APPLE_LOG", m_log.toUtf8());
    qputenv("ZEUS_FAKE_APPLE_STATE", m_state.toUtf8());
    qputenv("ZEUS_FAKE_APPLE_IMAGES", "zeus-desktop-sandbox:latest");
    // The image's agent is the project's own build (Apple runs it in the container's VM; the fake, on this host).
    qputenv("ZEUS_FAKE_APPLE_AGENT", ZEUS_AGENT_BINARY);
}

std::unique_ptr<SessionManager> TestAppleRuntimeArgs::makeManager(const QString& version, const QString& image) {
    qputenv("ZEUS_FAKE_APPLE_VERSION", version.toUtf8());
    auto runtime = std::make_unique<AppleRuntime>();
    runtime->setProgram(kFake);
    runtime->setVersion(QVersionNumber::fromString(version));
    SandboxConfig config;
    config.ownerId = QStringLiteral("owner-a");
    config.image = image;
    config.memory = QStringLiteral("64m");
    return std::make_unique<SessionManager>(std::move(runtime), config);
}

ExecResult TestAppleRuntimeArgs::run(SessionManager& manager, const QString& callId, const QString& command) {
    QSignalSpy finished(&manager, &SessionManager::callFinished);
    ExecRequest request;
    request.callId = callId;
    request.sessionId = QStringLiteral("s1");
    request.workspace = m_ws;
    request.command = command;
    manager.execute(request);
    if (!QTest::qWaitFor([&] { return !finished.isEmpty(); }, 30000)) {
        return {};
    }
    return finished.first().first().value<ExecResult>();
}

void TestAppleRuntimeArgs::sessionThroughTheFake() {
    auto manager = makeManager(QStringLiteral("1.2.2"), QStringLiteral("zeus-desktop-sandbox:latest"));
    const ExecResult first = run(*manager, QStringLiteral("c1"), QStringLiteral("echo hi; exit 3"));
    QCOMPARE(first.errorMessage, QString());
    QCOMPARE(first.exitCode.value_or(-1), 3);
    QCOMPARE(first.output, QStringLiteral("hi\n"));
    const ExecResult second = run(*manager, QStringLiteral("c2"), QStringLiteral("echo again"));
    QCOMPARE(second.output, QStringLiteral("again\n"));

    const QList<QStringList> calls = invocations(m_log);
    const QList<QStringList> runs = callsOf(calls, QStringLiteral("run"));
    QCOMPARE(runs.size(), 1);  // reused for the second command
    const QStringList runArgs = runs.first();
    const QString name = manager->containerId(QStringLiteral("s1"));
    QVERIFY(name.startsWith(QLatin1String("zeus-")));
    QCOMPARE(runArgs.mid(0, 4),
             (QStringList{QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--name"), name}));
    QVERIFY(runArgs.contains(QStringLiteral("zeus.desktop.owner=owner-a")));
    QVERIFY(runArgs.contains(QStringLiteral("zeus.desktop.session=s1")));
    QVERIFY(runArgs.contains(QStringLiteral("zeus.desktop.workspace=") + m_ws));
    QVERIFY(runArgs.contains(QStringLiteral("--init")));
    QVERIFY(runArgs.contains(QStringLiteral("--cap-drop")));
    QVERIFY(runArgs.contains(QStringLiteral("200M")));  // 64m raised to Apple's minimum
    // The default network is the allowlist (SPEC §8): no network, and the proxy variables pointing at the agent.
    QVERIFY(runArgs.join(QLatin1Char(' ')).contains(QStringLiteral("--network none")));
    QVERIFY(runArgs.join(QLatin1Char(' ')).contains(QStringLiteral("--env HTTPS_PROXY=http://127.0.0.1:3128")));
    QVERIFY(runArgs.join(QLatin1Char(' ')).contains(QStringLiteral("--env ALL_PROXY=socks5h://127.0.0.1:1080")));
    QVERIFY(runArgs.contains(QStringLiteral(
        "GIT_SSH_COMMAND=ssh -o 'ProxyCommand=/usr/local/libexec/zeus/zeus-sandbox-agent connect %h %p'")));
    QVERIFY(runArgs.contains(QStringLiteral("type=bind,source=") + m_ws + QStringLiteral(",target=/workspace")));
    QCOMPARE(runArgs.mid(runArgs.size() - 3), (QStringList{QStringLiteral("zeus-desktop-sandbox:latest"),
                                                           QStringLiteral("sleep"), QStringLiteral("infinity")}));
    // The host's certificates: a tmpfs for them, and one fixed script fed the bundle on stdin (never in argv).
    QVERIFY(runArgs.join(QLatin1Char(' ')).contains(QStringLiteral("--tmpfs /run/zeus")));
    QList<QStringList> installs;
    for (const QStringList& call : callsOf(calls, QStringLiteral("exec"))) {
        if (isCertificateInstall(call)) {
            installs << call;
        }
    }
    QCOMPARE(installs.size(), 1);
    QCOMPARE(installs.first().mid(0, 5), (QStringList{QStringLiteral("exec"), QStringLiteral("-i"), name,
                                                      QStringLiteral("sh"), QStringLiteral("-c")}));
    QVERIFY(!installs.first().join(QLatin1Char(' ')).contains(QLatin1String("BEGIN CERTIFICATE")));
    // One `container exec -i` for the session's commands: the image's agent; both went through it as frames.
    const QList<QStringList> execs = commandExecs(calls);
    QCOMPARE(execs.size(), 1);
    QCOMPARE(execs.first(), (QStringList{QStringLiteral("exec"), QStringLiteral("-i"), name,
                                         QStringLiteral("/usr/local/libexec/zeus/zeus-sandbox-agent")}));
    QCOMPARE(manager->execPath(QStringLiteral("s1")), QStringLiteral("agent " ZEUS_VERSION));
    // The command text went in frames: it is in no argument.
    QVERIFY2(!execs.first().join(QLatin1Char(' ')).contains(QLatin1String("echo hi")),
             qPrintable(execs.first().join(QLatin1Char(' '))));
    // The exit code came in the agent's frame: no inspect needed.
    QCOMPARE(callsOf(calls, QStringLiteral("inspect")).size(), 0);

    QSignalSpy states(manager.get(), &SessionManager::sessionStateChanged);
    manager->endSession(QStringLiteral("s1"));
    QVERIFY(QTest::qWaitFor([&] { return callsOf(invocations(m_log), QStringLiteral("delete")).size() == 1; }, 10000));
    QCOMPARE(callsOf(invocations(m_log), QStringLiteral("delete")).first(),
             (QStringList{QStringLiteral("delete"), QStringLiteral("--force"), name}));
    QTRY_VERIFY(!QFile::exists(m_state + QLatin1Char('/') + name));
}

void TestAppleRuntimeArgs::imageWithoutAgentFallsBack() {
    qunsetenv("ZEUS_FAKE_APPLE_AGENT");
    auto manager = makeManager(QStringLiteral("1.2.2"), QStringLiteral("zeus-desktop-sandbox:latest"));
    const ExecResult result = run(*manager, QStringLiteral("c1"), QStringLiteral("echo plain"));
    QCOMPARE(result.errorMessage, QString());
    QCOMPARE(result.output, QStringLiteral("plain\n"));
    QVERIFY2(manager->execPath(QStringLiteral("s1")).startsWith(QStringLiteral("exec: the agent could not start")),
             qPrintable(manager->execPath(QStringLiteral("s1"))));
    const QList<QStringList> execs = commandExecs(invocations(m_log));
    QCOMPARE(execs.size(), 2);  // the agent, refused; then the command with plain exec
    QCOMPARE(execs.at(0).at(1), QStringLiteral("-i"));
    QCOMPARE(execs.at(1).mid(0, 5),
             (QStringList{QStringLiteral("exec"), QStringLiteral("-i"), manager->containerId(QStringLiteral("s1")),
                          QStringLiteral("sh"), QStringLiteral("-c")}));
}

void TestAppleRuntimeArgs::orphanSweepFiltersByOwner() {
    QDir().mkpath(m_state);
    const auto make = [this](const QString& id, const QString& owner) {
        QFile file(m_state + QLatin1Char('/') + id);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral("\"zeus.desktop\":\"1\",\"zeus.desktop.owner\":\"%1\"").arg(owner).toUtf8());
    };
    make(QStringLiteral("zeus-old1"), QStringLiteral("owner-a"));
    make(QStringLiteral("zeus-old2"), QStringLiteral("owner-a"));
    make(QStringLiteral("zeus-other"), QStringLiteral("owner-b"));
    auto manager = makeManager(QStringLiteral("1.2.2"), QStringLiteral("zeus-desktop-sandbox:latest"));
    QSignalSpy swept(manager.get(), &SessionManager::orphanSweepFinished);
    manager->sweepOrphans();
    QVERIFY(swept.wait(10000));
    QCOMPARE(swept.first().first().toInt(), 2);
    QVERIFY(!QFile::exists(m_state + QStringLiteral("/zeus-old1")));
    QVERIFY(!QFile::exists(m_state + QStringLiteral("/zeus-old2")));
    QVERIFY(QFile::exists(m_state + QStringLiteral("/zeus-other")));
    QCOMPARE(callsOf(invocations(m_log), QStringLiteral("list")).first(),
             (QStringList{QStringLiteral("list"), QStringLiteral("--all"), QStringLiteral("--format"),
                          QStringLiteral("json")}));
}

void TestAppleRuntimeArgs::missingImage() {
    auto manager = makeManager(QStringLiteral("1.2.2"), QStringLiteral("zeus-desktop-sandbox:other"));
    const ExecResult result = run(*manager, QStringLiteral("c1"), QStringLiteral("echo never"));
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("image_missing"));
    QVERIFY2(result.errorMessage.contains(kFake + QStringLiteral(" build -t zeus-desktop-sandbox:other")),
             qPrintable(result.errorMessage));
    QCOMPARE(callsOf(invocations(m_log), QStringLiteral("exec")).size(), 0);
}

void TestAppleRuntimeArgs::tooOldCliIsRefusedBeforeRun() {
    auto manager = makeManager(QStringLiteral("0.11.0"), QStringLiteral("zeus-desktop-sandbox:latest"));
    const ExecResult result = run(*manager, QStringLiteral("c1"), QStringLiteral("echo never"));
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("container_failed"));
    QVERIFY2(result.errorMessage.contains(QLatin1String("0.12.0")), qPrintable(result.errorMessage));
    QCOMPARE(callsOf(invocations(m_log), QStringLiteral("run")).size(), 0);
    QCOMPARE(manager->sessionState(QStringLiteral("s1")), SessionState::Failed);
}

QTEST_GUILESS_MAIN(TestAppleRuntimeArgs)
#include "tst_appleruntimeargs.moc"
