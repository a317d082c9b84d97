// SandboxHost: one manager and monitor per runtime and settings, rebuilt once per event-loop turn however many
// settings change, and swapped only when the old manager is idle. The container CLI is a fake script
// (tests/fakes/engine/docker): containers are pretend, so the composition is tested without an engine.
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "backend/tooldispatcher.h"
#include "monitor/containermonitor.h"
#include "runtime/detectionresult.h"
#include "sandbox/sessionmanager.h"
#include "sandboxhost.h"
#include "secrets/interceptca.h"

#include <QDir>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

namespace {

const QString kFakeEngine = QStringLiteral(ZEUS_TEST_FAKES_DIR "/engine/docker");

DetectionResult detectionOf(RuntimeKind kind, RuntimeProbe::State state = RuntimeProbe::State::Ready) {
    RuntimeProbe probe;
    probe.kind = kind;
    probe.state = state;
    probe.binaryPath = kFakeEngine;
    probe.clientVersion = QStringLiteral("1.0");
    probe.serverVersion = QStringLiteral("1.0");
    if (state != RuntimeProbe::State::Ready) {
        probe.reason = QStringLiteral("the engine is not running");
    }
    return DetectionResult::choose({probe}, RuntimePreference::Auto);
}

ExecRequest requestFor(const QString& callId, const QString& command, const QString& workspace) {
    ExecRequest request;
    request.callId = callId;
    request.sessionId = QStringLiteral("s1");
    request.workspace = workspace;
    request.command = command;
    return request;
}

}  // namespace

class TestSandboxHost : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<AppSettings> m_settings;

private Q_SLOTS:
    void init() {
        QVERIFY(m_dir.isValid());
        QFile::remove(m_dir.filePath(QStringLiteral("settings.ini")));
        m_settings = std::make_unique<AppSettings>(m_dir.filePath(QStringLiteral("settings.ini")));
    }

    void firstDetectionBuildsAtOnce() {
        SandboxHost host(m_settings.get(), SandboxOverrides());
        BackendConnection connection;
        ToolDispatcher dispatcher(&connection);
        host.setDispatcher(&dispatcher);
        QCOMPARE(host.state(), SandboxHost::State::NoRuntime);
        QSignalSpy rebuilt(&host, &SandboxHost::rebuilt);
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QCOMPARE(rebuilt.size(), 1);
        QCOMPARE(host.state(), SandboxHost::State::Ready);
        QVERIFY(host.manager());
        QVERIFY(host.monitor());
        QCOMPARE(host.manager()->runtime().program(), kFakeEngine);
        QCOMPARE(dispatcher.hello().runtime.kind, QStringLiteral("docker"));
        QVERIFY(dispatcher.hello().runtime.ready);
    }

    // What one Settings -> OK does: six setters in one event-loop turn.
    void severalChangesInOneTurnAreOneRebuild_data() {
        QTest::addColumn<int>("fields");
        QTest::newRow("one field") << 1;
        QTest::newRow("five fields") << 5;
        QTest::newRow("six fields") << 6;
    }

    void severalChangesInOneTurnAreOneRebuild() {
        QFETCH(int, fields);
        SandboxHost host(m_settings.get(), SandboxOverrides());
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QCOMPARE(host.rebuilds(), 1);
        QSignalSpy rebuilt(&host, &SandboxHost::rebuilt);
        const QList<std::function<bool()>> changes = {
            [this] { return m_settings->setImage(QStringLiteral("other/sandbox:2")); },
            [this] { return m_settings->setHardeningProfile(QStringLiteral("hardened")); },
            [this] { return m_settings->setPidsLimit(300); },
            [this] { return m_settings->setMemoryMiB(1024); },
            [this] { return m_settings->setCpus(1.5); },
            [this] { return m_settings->setIdleTimeoutMinutes(9); },
        };
        for (int i = 0; i < fields; ++i) {
            QVERIFY(changes.at(i)());
        }
        QCOMPARE(host.state(), SandboxHost::State::SwapPending);
        QCOMPARE(rebuilt.size(), 0);  // not within the turn
        QVERIFY(rebuilt.wait(2000));
        QTest::qWait(100);  // and nothing follows
        QCOMPARE(rebuilt.size(), 1);
        QCOMPARE(host.rebuilds(), 2);
        QCOMPARE(host.state(), SandboxHost::State::Ready);
        QCOMPARE(host.manager()->config().image, QStringLiteral("other/sandbox:2"));
        if (fields == 6) {
            QCOMPARE(host.manager()->config().cpus, QStringLiteral("1.5"));
            QCOMPARE(host.manager()->config().idleTimeoutMs, 9 * 60 * 1000);
        }
    }

    void settingsThatDoNotShapeContainersRebuildNothing() {
        SandboxHost host(m_settings.get(), SandboxOverrides());
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QVERIFY(m_settings->setBackendUrl(QStringLiteral("ws://127.0.0.1:9/ws")));
        m_settings->addRecentFolder(m_dir.path());
        QTest::qWait(50);
        QCOMPARE(host.rebuilds(), 1);
        QCOMPARE(host.state(), SandboxHost::State::Ready);
    }

    // Replacing a manager would kill the user's work: the swap waits for the running call and the open session.
    void swapWaitsUntilIdle() {
        SandboxHost host(m_settings.get(), SandboxOverrides());
        host.setMonitorEnabled(false);
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QPointer<SessionManager> first = host.manager();
        QSignalSpy finished(first.data(), &SessionManager::callFinished);
        first->execute(requestFor(QStringLiteral("c1"), QStringLiteral("sleep 0.5"), m_dir.path()));
        QTRY_COMPARE(first->runningCalls(), 1);
        QVERIFY(m_settings->setImage(QStringLiteral("other/sandbox:3")));
        QTest::qWait(50);
        QCOMPARE(host.state(), SandboxHost::State::SwapPending);
        QCOMPARE(host.manager(), first.data());  // still serving

        QVERIFY(finished.wait(5000));
        QTest::qWait(50);
        QCOMPARE(host.manager(), first.data());  // the session's container is still open
        QCOMPARE(host.state(), SandboxHost::State::SwapPending);

        QSignalSpy rebuilt(&host, &SandboxHost::rebuilt);
        first->endSession(QStringLiteral("s1"));
        QVERIFY(rebuilt.wait(5000));
        QCOMPARE(host.rebuilds(), 2);
        QVERIFY(host.manager() != first.data());
        QCOMPARE(host.manager()->config().image, QStringLiteral("other/sandbox:3"));
        QCOMPARE(host.state(), SandboxHost::State::Ready);
        QTRY_VERIFY(first.isNull());  // the old one is gone once it has shut down
    }

    // The tray app reads the interception CA of host-bound secrets while calls may already run: its `ready` reaches
    // the serving manager, which ends the sessions whose container got the certificate bundle without it.
    void interceptCaReadyReachesTheManager() {
        SandboxOverrides overrides;
        overrides.bindSecrets = {QStringLiteral("GH_TOKEN=@github")};
        overrides.interceptCa = std::make_shared<InterceptCa>();
        SandboxHost host(m_settings.get(), overrides);
        host.setMonitorEnabled(false);
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QVERIFY(host.manager());
        QSignalSpy finished(host.manager(), &SessionManager::callFinished);
        host.manager()->execute(requestFor(QStringLiteral("c1"), QStringLiteral("true"), m_dir.path()));
        QVERIFY(finished.wait(5000));
        QCOMPARE(host.manager()->sessionState(QStringLiteral("s1")), SessionState::Running);
        QString error;
        QVERIFY2(overrides.interceptCa->generate(&error), qPrintable(error));
        InterceptCa::Result failed;
        failed.message = QStringLiteral("the keychain is locked");
        Q_EMIT overrides.interceptCa->ready(failed);  // a keychain that refused: nothing changes
        QCOMPARE(host.manager()->sessionState(QStringLiteral("s1")), SessionState::Running);
        InterceptCa::Result loaded;
        loaded.status = InterceptCa::Status::Ok;
        Q_EMIT overrides.interceptCa->ready(loaded);
        QCOMPARE(host.manager()->sessionState(QStringLiteral("s1")), SessionState::Stopped);
    }

    void runtimeChangeAndLoss() {
        SandboxHost host(m_settings.get(), SandboxOverrides());
        BackendConnection connection;
        ToolDispatcher dispatcher(&connection);
        host.setDispatcher(&dispatcher);
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QSignalSpy rebuilt(&host, &SandboxHost::rebuilt);

        host.setDetection(detectionOf(RuntimeKind::Docker));  // a recheck with the same answer
        QTest::qWait(50);
        QCOMPARE(rebuilt.size(), 0);

        host.setDetection(detectionOf(RuntimeKind::Podman));  // another preference
        QVERIFY(rebuilt.wait(2000));
        QCOMPARE(host.manager()->runtime().kind(), zeus::RuntimeKind::Podman);

        host.setDetection(detectionOf(RuntimeKind::Docker, RuntimeProbe::State::NotRunning));
        QCOMPARE(host.state(), SandboxHost::State::NoRuntime);
        QVERIFY(host.manager());  // kept to clean up what it started
        QVERIFY(!dispatcher.hello().runtime.ready);
        QTest::qWait(50);
        QCOMPARE(rebuilt.size(), 1);
    }

    // No sandbox agent it can use (SPEC §7): hello says "unavailable" with the reason, the manager is kept but does
    // not serve, and clearing the problem (the image was rebuilt) makes it ready without a rebuild.
    void readinessProblemKeepsTheManagerButNotReady() {
        SandboxHost host(m_settings.get(), SandboxOverrides());
        BackendConnection connection;
        ToolDispatcher dispatcher(&connection);
        host.setDispatcher(&dispatcher);
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QSignalSpy rebuilt(&host, &SandboxHost::rebuilt);
        QSignalSpy states(&host, &SandboxHost::stateChanged);
        const QString problem = QStringLiteral("no sandbox agent to run commands through");

        host.setReadinessProblem(problem);
        QCOMPARE(host.state(), SandboxHost::State::NotReady);
        QVERIFY(!dispatcher.hello().runtime.ready);
        QCOMPARE(dispatcher.hello().runtime.reason, problem);
        QCOMPARE(dispatcher.hello().runtime.kind, QStringLiteral("docker"));
        QVERIFY(host.manager());
        QCOMPARE(host.runtimeReport().reason, problem);

        // A recheck with the same answer keeps it not ready; a lost runtime says the runtime's words instead.
        host.setDetection(detectionOf(RuntimeKind::Docker));
        QCOMPARE(host.state(), SandboxHost::State::NotReady);
        QVERIFY(!dispatcher.hello().runtime.ready);
        host.setDetection(detectionOf(RuntimeKind::Docker, RuntimeProbe::State::NotRunning));
        QCOMPARE(host.state(), SandboxHost::State::NoRuntime);
        QVERIFY2(dispatcher.hello().runtime.reason.startsWith(QStringLiteral("No container runtime detected")),
                 qPrintable(dispatcher.hello().runtime.reason));
        host.setDetection(detectionOf(RuntimeKind::Docker));

        host.setReadinessProblem({});
        QCOMPARE(host.state(), SandboxHost::State::Ready);
        QVERIFY(dispatcher.hello().runtime.ready);
        QVERIFY(dispatcher.hello().runtime.reason.isEmpty());
        QTest::qWait(50);
        QCOMPARE(rebuilt.size(), 0);
        QVERIFY(states.size() >= 2);
    }

    void shutdownFinishesWithAndWithoutManager_data() {
        QTest::addColumn<bool>("usable");
        QTest::newRow("with a manager") << true;
        QTest::newRow("without a runtime") << false;
    }

    void shutdownFinishesWithAndWithoutManager() {
        QFETCH(bool, usable);
        SandboxHost host(m_settings.get(), SandboxOverrides());
        host.setDetection(
            detectionOf(RuntimeKind::Docker, usable ? RuntimeProbe::State::Ready : RuntimeProbe::State::NotRunning));
        QSignalSpy finished(&host, &SandboxHost::shutdownFinished);
        host.shutdown();
        QCOMPARE(host.state(), SandboxHost::State::ShuttingDown);
        QVERIFY(finished.wait(5000));
        QCOMPARE(host.state(), SandboxHost::State::Stopped);
        QVERIFY(m_settings->setImage(QStringLiteral("late/change:1")));  // nothing is built any more
        QTest::qWait(50);
        QCOMPARE(host.rebuilds(), usable ? 1 : 0);
    }
};

QTEST_GUILESS_MAIN(TestSandboxHost)
#include "tst_sandboxhost.moc"
