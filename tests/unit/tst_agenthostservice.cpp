// AgentHostService: the GUI-free service of the tray app and headless mode, from detection to an orderly stop. The
// container CLI is the fake engine (tests/fakes/engine/docker, containers are pretend) behind a script that answers
// the detector's `docker info` as a ready Docker would; the backend is an in-process QWebSocketServer.
#include "../e2e/backendserver.h"
#include "agenthostservice.h"
#include "appsettings.h"
#include "backend/resultjournal.h"

#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace zeus;
using zeus::test::BackendServer;

namespace {

using State = AgentHostService::State;

const QString kFakeEngine = QStringLiteral(ZEUS_TEST_FAKES_DIR "/engine/docker");
const QString kDockerInfo = QStringLiteral(ZEUS_TEST_DATA_DIR "/probes/docker28-engine20-ready.stdout");

QString errorCodeOf(const QJsonObject& result) {
    return result.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
}

}  // namespace

class TestAgentHostService : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_workspace;
    std::unique_ptr<AppSettings> m_settings;

    // A PATH holding only `docker`: the fake engine, with `info` answered as a ready Docker 28 would.
    QString engineDirectory() const { return m_dir.filePath(QStringLiteral("bin")); }

    AgentHostService::Options optionsFor(const BackendServer& server, bool withEngine) const {
        AgentHostService::Options options;
        options.backend = QUrl(server.url());
        options.sandbox.execMode = ExecMode::Exec;  // no agent to look for: the fake runs commands itself
        options.monitorEnabled = false;
        options.ackWaitMs = 500;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(QStringLiteral("DOCKER_HOST"));
        environment.remove(QStringLiteral("CONTAINER_HOST"));
        environment.insert(QStringLiteral("PATH"),
                           withEngine ? engineDirectory() : m_dir.filePath(QStringLiteral("empty")));
        options.detector.environment = environment;
        options.detector.extraSearchPaths.clear();
        return options;
    }

    static QList<QJsonObject> resultsOf(const BackendServer& server, const QString& callId) {
        return server.resultsFor(callId);
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir().mkpath(engineDirectory()));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("empty"))));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("workspace"))));
        m_workspace = QDir(m_dir.filePath(QStringLiteral("workspace"))).canonicalPath();
        QFile script(engineDirectory() + QStringLiteral("/docker"));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(QStringLiteral("#!/bin/sh\nexport PATH=/usr/bin:/bin\n"
                                    "[ \"$1\" = info ] && exec cat '%1'\nexec '%2' \"$@\"\n")
                         .arg(kDockerInfo, kFakeEngine)
                         .toUtf8());
        script.close();
        QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        qputenv("ZEUS_DESKTOP_TOKEN", "test-token");
    }

    void init() {
        QFile::remove(m_dir.filePath(QStringLiteral("settings.ini")));
        m_settings = std::make_unique<AppSettings>(m_dir.filePath(QStringLiteral("settings.ini")));
    }

    // Detection, token, connection and a hello naming the runtime; a call served on the fake engine, another
    // refused for its folder; then the shutdown, in order, to Stopped.
    void servesThenStopsInOrder() {
        BackendServer server;
        QVERIFY(server.listen());
        AgentHostService service(m_settings.get(), optionsFor(server, true));
        service.dispatcher().setApprovedWorkspaces({m_workspace});
        QSignalSpy states(&service, &AgentHostService::stateChanged);
        QCOMPARE(service.state(), State::Starting);
        service.start();
        QTRY_COMPARE_WITH_TIMEOUT(service.state(), State::Serving, 15000);
        QVERIFY(server.waitForType(QStringLiteral("hello"), 5000));
        const QJsonObject runtime =
            server.ofType(QStringLiteral("hello")).first().value(QStringLiteral("runtime")).toObject();
        QCOMPARE(runtime.value(QStringLiteral("kind")).toString(), QStringLiteral("docker"));
        QCOMPARE(runtime.value(QStringLiteral("status")).toString(), QStringLiteral("ready"));
        QCOMPARE(server.authorizations().value(0), QByteArray("Bearer test-token"));

        server.send(BackendServer::toolCall(QStringLiteral("c1"), QStringLiteral("s1"), QStringLiteral("echo served"),
                                            m_workspace));
        QVERIFY(server.waitForResult(QStringLiteral("c1"), 10000));
        const QJsonObject served = resultsOf(server, QStringLiteral("c1")).first();
        QCOMPARE(served.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(served.value(QStringLiteral("exit_code")).toInt(), 0);
        QVERIFY(server.streamed(QStringLiteral("c1"), QStringLiteral("stdout")).contains(QStringLiteral("served")));

        server.send(
            BackendServer::toolCall(QStringLiteral("c2"), QStringLiteral("s1"), QStringLiteral("ls"), m_dir.path()));
        QVERIFY(server.waitForResult(QStringLiteral("c2"), 10000));
        QCOMPARE(errorCodeOf(resultsOf(server, QStringLiteral("c2")).first()),
                 QStringLiteral("workspace_not_approved"));

        // A call still running at shutdown is cancelled, and its result reaches the backend before Stopped. (The
        // fake engine's `rm` stops nothing: the pretend container's command keeps the output pipe open until it
        // ends, so it is short.)
        server.send(BackendServer::toolCall(QStringLiteral("c3"), QStringLiteral("s1"), QStringLiteral("sleep 3"),
                                            m_workspace));
        QTRY_COMPARE_WITH_TIMEOUT(service.dispatcher().runningCalls(), 1, 10000);
        QVERIFY(service.shutdown());
        QVERIFY(!service.shutdown());  // once
        QCOMPARE(service.state(), State::ShuttingDown);
        QTRY_COMPARE_WITH_TIMEOUT(service.state(), State::Stopped, 10000);
        QCOMPARE(service.sandbox().state(), SandboxHost::State::Stopped);
        QCOMPARE(resultsOf(server, QStringLiteral("c3")).size(), 1);
        QCOMPARE(resultsOf(server, QStringLiteral("c3")).first().value(QStringLiteral("status")).toString(),
                 QStringLiteral("cancelled"));
        QList<State> seen;
        for (const QList<QVariant>& args : states) {
            seen.append(args.first().value<State>());
        }
        QCOMPARE(seen, (QList<State>{State::DetectingRuntime, State::ReadingToken, State::Connecting, State::Serving,
                                     State::ShuttingDown, State::Stopped}));
    }

    // A token handed over in-process (the MCP mode's local backend) wins over the environment's, and with the
    // journal off an unacknowledged result leaves no file; with it on (the control) the same run leaves one.
    void handedTokenIsUsedAndTheJournalCanBeOff_data() {
        QTest::addColumn<bool>("journal");
        QTest::newRow("journal off") << false;
        QTest::newRow("journal on") << true;
    }
    void handedTokenIsUsedAndTheJournalCanBeOff() {
        QFETCH(bool, journal);
        BackendServer server;
        server.autoAck = false;
        QVERIFY(server.listen());
        AgentHostService::Options options = optionsFor(server, true);
        options.token = QStringLiteral("handed-token");
        options.journal = journal;
        const QString journalPath = ResultJournal::pathFor(
            QStandardPaths::writableLocation(QStandardPaths::AppDataLocation), options.backend.toString());
        QFile::remove(journalPath);
        {
            AgentHostService service(m_settings.get(), options);
            service.dispatcher().setApprovedWorkspaces({m_workspace});
            service.start();
            QTRY_COMPARE_WITH_TIMEOUT(service.state(), State::Serving, 15000);
            QCOMPARE(server.authorizations().value(0), QByteArray("Bearer handed-token"));
            server.send(BackendServer::toolCall(QStringLiteral("j1"), QStringLiteral("s1"), QStringLiteral("echo j"),
                                                m_workspace));
            QVERIFY(server.waitForResult(QStringLiteral("j1"), 10000));
            QVERIFY(service.shutdown());
            QTRY_COMPARE_WITH_TIMEOUT(service.state(), State::Stopped, 10000);
        }
        QCOMPARE(QFile::exists(journalPath), journal);
        QFile::remove(journalPath);
    }

    // No usable runtime: it still connects, hello says so, and every call is refused with no_runtime.
    void noRuntimeRefusesCalls() {
        BackendServer server;
        QVERIFY(server.listen());
        AgentHostService service(m_settings.get(), optionsFor(server, false));
        service.dispatcher().setApprovedWorkspaces({m_workspace});
        service.start();
        QTRY_COMPARE_WITH_TIMEOUT(service.state(), State::Serving, 15000);
        QVERIFY(!service.sandbox().manager());
        QVERIFY(server.waitForType(QStringLiteral("hello"), 5000));
        const QJsonObject runtime =
            server.ofType(QStringLiteral("hello")).first().value(QStringLiteral("runtime")).toObject();
        QCOMPARE(runtime.value(QStringLiteral("status")).toString(), QStringLiteral("unavailable"));

        server.send(
            BackendServer::toolCall(QStringLiteral("n1"), QStringLiteral("s1"), QStringLiteral("true"), m_workspace));
        QVERIFY(server.waitForResult(QStringLiteral("n1"), 10000));
        QCOMPARE(errorCodeOf(resultsOf(server, QStringLiteral("n1")).first()), QStringLiteral("no_runtime"));

        QVERIFY(service.shutdown());
        QTRY_COMPARE_WITH_TIMEOUT(service.state(), State::Stopped, 10000);
    }
};

QTEST_GUILESS_MAIN(TestAgentHostService)
#include "tst_agenthostservice.moc"
