// SessionManager's bounds (SPEC §3 "Bounded": the container bomb) and the end of sessions on a
// revoked approval (item 8), with a fake container CLI (tests/fakes/engine/docker): containers are pretend and
// commands run on the host, so many session ids cost nothing. The real engines are in tests/engine.
#include "engine/containerruntime.h"
#include "sandbox/sessionmanager.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <functional>

using namespace zeus;

class TestSessionManager : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_workspace;
    QString m_other;
    int m_counter = 0;

    ReviewStore store() const { return ReviewStore(m_dir.path() + QStringLiteral("/reviews")); }

    std::unique_ptr<SessionManager> makeManager(int maxContainers = 3,
                                                const std::function<void(SandboxConfig&)>& adjust = {},
                                                const QString& program = QStringLiteral(ZEUS_TEST_FAKES_DIR
                                                                                        "/engine/docker")) {
        SandboxConfig config;
        config.image = QStringLiteral("fake:image");
        config.ownerId = QStringLiteral("owner-test");
        config.execMode = ExecMode::Exec;
        config.killGraceMs = 200;
        config.maxContainers = maxContainers;
        config.maxCallsTotal = 8;
        config.maxCallsPerSession = 4;
        config.reviewDirectory = store().directory();  // never the user's data folder
        if (adjust) {
            adjust(config);
        }
        return std::make_unique<SessionManager>(ContainerRuntime::create(RuntimeKind::Docker, program), config);
    }

    // The fake CLI behind a wrapper that notes each subcommand it is asked for, one per line in `log`.
    QString recordingEngine(const QString& log) {
        const QString path = QDir(m_dir.path()).filePath(QStringLiteral("recording-docker"));
        QFile script(path);
        if (!script.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            return {};
        }
        script.write(QStringLiteral("#!/bin/sh\necho \"$1\" >> '%1'\nexec '%2' \"$@\"\n")
                         .arg(log, QStringLiteral(ZEUS_TEST_FAKES_DIR "/engine/docker"))
                         .toUtf8());
        script.close();
        script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
        return path;
    }

    static QStringList linesOf(const QString& path) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            return {};
        }
        return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    QString start(SessionManager& manager, const QString& sessionId, const QString& command,
                  const QString& workspace = QString()) {
        ExecRequest request;
        request.callId = QStringLiteral("c") + QString::number(++m_counter);
        request.sessionId = sessionId;
        request.workspace = workspace.isEmpty() ? m_workspace : workspace;
        request.command = command;
        manager.execute(request);
        return request.callId;
    }

    static std::optional<ExecResult> waitFor(QSignalSpy& spy, const QString& callId, int timeoutMs = 10000) {
        std::optional<ExecResult> found;
        (void)QTest::qWaitFor(
            [&] {
                for (const QList<QVariant>& args : std::as_const(spy)) {
                    const auto result = args.at(0).value<ExecResult>();
                    if (result.callId == callId) {
                        found = result;
                        return true;
                    }
                }
                return false;
            },
            timeoutMs);
        return found;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_workspace = QDir(m_dir.path()).canonicalPath() + QStringLiteral("/ws");
        m_other = QDir(m_dir.path()).canonicalPath() + QStringLiteral("/other");
        QVERIFY(QDir().mkpath(m_workspace));
        QVERIFY(QDir().mkpath(m_other));
    }

    // SPEC §3 "Every mount source is pinned": a container whose mounts are not their pinned sources, or whose
    // check cannot run, is removed and the call fails; nothing runs in it (fail closed). The engine answers the
    // check as given in each row: this kernel's boot id with other numbers, a failed exec, or no usable output.
    void mountCheckFailsClosed_data() {
        QTest::addColumn<QString>("answer");  // shell text run for the check's exec
        QTest::addColumn<int>("code");
        QTest::newRow("another folder mounted")
            << QStringLiteral("cat /proc/sys/kernel/random/boot_id; echo '1 1'; exit 0")
            << int(ExecError::WorkspaceInvalid);
        // The fake's inspect says the container runs: a check that fails there is no container that died at start.
        QTest::newRow("the check cannot run")
            << QStringLiteral("echo 'stat: not found' >&2; exit 127") << int(ExecError::ContainerFailed);
        QTest::newRow("garbage") << QStringLiteral("cat /proc/sys/kernel/random/boot_id; echo hello; exit 0")
                                 << int(ExecError::WorkspaceInvalid);
    }
    void mountCheckFailsClosed() {
        QFETCH(QString, answer);
        QFETCH(int, code);
        const QString log = QDir(m_dir.path()).filePath(QStringLiteral("mountcheck.log"));
        QFile::remove(log);
        const QString path = QDir(m_dir.path()).filePath(QStringLiteral("mountcheck-docker"));
        QFile script(path);
        QVERIFY(script.open(QIODevice::WriteOnly | QIODevice::Truncate));
        script.write(QStringLiteral("#!/bin/sh\necho \"$1\" >> '%1'\n"
                                    "case \"$*\" in *random/boot_id*) %2 ;; esac\n"
                                    "case \"$1\" in exec) echo ran-in-container >> '%1' ;; esac\n"
                                    "exec '%3' \"$@\"\n")
                         .arg(log, answer, QStringLiteral(ZEUS_TEST_FAKES_DIR "/engine/docker"))
                         .toUtf8());
        script.close();
        script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
        auto manager = makeManager(3, {}, path);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        const auto result = waitFor(finished, start(*manager, QStringLiteral("pinned"), QStringLiteral("true")));
        QVERIFY(result);
        QCOMPARE(result->status, ExecStatus::Error);
        QCOMPARE(int(result->errorCode), code);
        QVERIFY2(result->errorMessage.contains(QLatin1String("Container removed")), qPrintable(result->errorMessage));
        const QStringList calls = linesOf(log);
        QVERIFY2(!calls.contains(QStringLiteral("ran-in-container")), qPrintable(calls.join(QLatin1Char(' '))));
        QTRY_VERIFY(linesOf(log).contains(QStringLiteral("rm")));
        QCOMPARE(manager->liveContainers(), 0);
    }

    // Over the container cap a new session evicts the least recently used idle one; none idle: busy.
    void containerCapEvictsTheLeastRecentlyUsedIdleSession() {
        auto manager = makeManager(3);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        for (const QString& id : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}) {
            const auto result = waitFor(finished, start(*manager, id, QStringLiteral("true")));
            QVERIFY(result);
            QCOMPARE(result->status, ExecStatus::Ok);
            QTest::qWait(20);  // distinct last-use times
        }
        QCOMPARE(manager->liveContainers(), 3);
        // "a" is used again: "b" is now the least recently used.
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("a"), QStringLiteral("true"))));
        const auto d = waitFor(finished, start(*manager, QStringLiteral("d"), QStringLiteral("true")));
        QVERIFY(d);
        QCOMPARE(d->status, ExecStatus::Ok);
        QCOMPARE(manager->liveContainers(), 3);
        QCOMPARE(manager->sessionState(QStringLiteral("b")), SessionState::Stopped);
        QCOMPARE(manager->sessionState(QStringLiteral("a")), SessionState::Running);

        // Every container busy: a new session is refused with busy and leaves nothing behind.
        QStringList running;
        for (const QString& id : {QStringLiteral("a"), QStringLiteral("c"), QStringLiteral("d")}) {
            running << start(*manager, id, QStringLiteral("sleep 20"));
        }
        QTRY_COMPARE(manager->runningCalls(), 3);
        const auto refused = waitFor(finished, start(*manager, QStringLiteral("e"), QStringLiteral("true")));
        QVERIFY(refused);
        QCOMPARE(refused->errorCode, ExecError::Busy);
        QVERIFY(!manager->sessionIds().contains(QStringLiteral("e")));
        QCOMPARE(manager->liveContainers(), 3);
        for (const QString& id : std::as_const(running)) {
            manager->cancel(id);
        }
        QTRY_COMPARE(manager->runningCalls(), 0);
    }

    // The container bomb: 200 calls with new session ids, each leaving a background job. Never more
    // containers than the cap, and the session map does not grow with the ids.
    void manySessionIdsStayBounded() {
        auto manager = makeManager(4);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        int peak = 0;
        connect(manager.get(), &SessionManager::sessionStateChanged, this,
                [&] { peak = qMax(peak, manager->liveContainers()); });
        for (int i = 0; i < 200; ++i) {
            const QString callId = start(*manager, QStringLiteral("bomb-%1").arg(i), QStringLiteral("true"));
            QVERIFY(waitFor(finished, callId));
            QVERIFY(manager->liveContainers() <= 4);
        }
        QTest::qWait(50);
        QVERIFY2(peak <= 4, qPrintable(QString::number(peak)));
        QVERIFY2(manager->sessionIds().size() <= 4 + SessionManager::kKeptEndedSessions,
                 qPrintable(QString::number(manager->sessionIds().size())));
        // Ended ones are forgotten too.
        for (int i = 190; i < 200; ++i) {
            manager->endSession(QStringLiteral("bomb-%1").arg(i));
        }
        QTest::qWait(50);
        QVERIFY(manager->sessionIds().size() <= SessionManager::kKeptEndedSessions);
        QCOMPARE(manager->liveContainers(), 0);
    }

    // Revoking an approval ends every session on that folder (their containers are removed); sessions
    // on other folders go on. The 2 s bound with running commands is tested on real engines (tst_session).
    void endSessionsInEndsEverySessionOnTheFolder() {
        auto manager = makeManager(8);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("r1"), QStringLiteral("true"))));
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("r2"), QStringLiteral("true"))));
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("r3"), QStringLiteral("true"), m_other)));
        QCOMPARE(manager->liveContainers(), 3);
        QCOMPARE(manager->endSessionsIn(m_workspace), 2);
        QCOMPARE(manager->sessionState(QStringLiteral("r1")), SessionState::Stopped);
        QCOMPARE(manager->sessionState(QStringLiteral("r2")), SessionState::Stopped);
        QCOMPARE(manager->sessionState(QStringLiteral("r3")), SessionState::Running);
        QCOMPARE(manager->liveContainers(), 1);
        QCOMPARE(manager->endSessionsIn(m_workspace), 0);  // nothing left there
    }

    // SPEC §10: a folder's workspace mode decides before anything reaches the engine. Direct mode on a remote
    // engine is refused (its bind mount would be of the other machine's folder): workspace_invalid, the session
    // says why, and no `run` is ever asked for. Review mode makes a container on either engine and prepares its
    // copy (which this fake engine cannot: it fails there, container_failed, after `run` and `exec`).
    void workspaceModeRefusals_data() {
        QTest::addColumn<bool>("remote");
        QTest::addColumn<QString>("mode");  // of m_workspace
        QTest::addColumn<bool>("forced");   // --workspace-mode instead of the folder's setting
        QTest::addColumn<QString>("message");
        QTest::newRow("direct on a remote engine")
            << true << "direct" << false << "Direct mode is refused on a remote container engine (tcp://127.0.0.1:1)";
        QTest::newRow("review, local") << false << "review" << false << "review";
        QTest::newRow("review, remote") << true << "review" << false << "review";
        QTest::newRow("review for the whole run") << false << "review" << true << "review";
        QTest::newRow("direct, local: runs") << false << "direct" << false << "";
    }

    void workspaceModeRefusals() {
        QFETCH(bool, remote);
        QFETCH(QString, mode);
        QFETCH(bool, forced);
        QFETCH(QString, message);
        const QString log = QDir(m_dir.path()).filePath(QStringLiteral("engine-calls-") + QString::number(++m_counter));
        auto manager = makeManager(
            3,
            [&](SandboxConfig& config) {
                config.engineRemote = remote;
                config.engineHost = remote ? QStringLiteral("tcp://127.0.0.1:1") : QString();
                const WorkspaceMode wanted = *workspaceModeFromName(mode);
                if (forced) {
                    config.workspaceMode = wanted;
                    config.workspaceModeForced = true;
                } else {
                    config.folderWorkspaceModes.insert(m_workspace, wanted);
                }
            },
            recordingEngine(log));
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        const auto result = waitFor(finished, start(*manager, QStringLiteral("m"), QStringLiteral("true")));
        QVERIFY(result);
        if (message.isEmpty()) {
            QCOMPARE(result->status, ExecStatus::Ok);
            QVERIFY2(linesOf(log).contains(QStringLiteral("run")), qPrintable(linesOf(log).join(u',')));
            return;
        }
        if (message == QLatin1String("review")) {
            QCOMPARE(result->errorCode, ExecError::ContainerFailed);
            QVERIFY2(result->errorMessage.contains(QStringLiteral("/workspace could not be prepared")),
                     qPrintable(result->errorMessage));
            QCOMPARE(linesOf(log).mid(0, 2), (QStringList{QStringLiteral("run"), QStringLiteral("exec")}));
            QVERIFY(!store().record(QStringLiteral("m")));  // nothing recorded for a copy that was not made
            return;
        }
        QCOMPARE(result->status, ExecStatus::Error);
        QCOMPARE(result->errorCode, ExecError::WorkspaceInvalid);
        QVERIFY2(result->errorMessage.startsWith(message), qPrintable(result->errorMessage));
        QVERIFY(result->errorMessage.contains(m_workspace));
        QCOMPARE(manager->sessionState(QStringLiteral("m")), SessionState::Failed);
        QCOMPARE(manager->liveContainers(), 0);
        QVERIFY(manager->containerId(QStringLiteral("m")).isEmpty());
        QVERIFY2(!linesOf(log).contains(QStringLiteral("run")), qPrintable(linesOf(log).join(u',')));
        const QList<SessionLogEntry> entries = manager->sessionLog(QStringLiteral("m"));
        QVERIFY(std::any_of(entries.cbegin(), entries.cend(),
                            [&](const SessionLogEntry& entry) { return entry.message.startsWith(message); }));
        // Another folder in direct mode on a local engine still runs: the setting is per folder.
        if (!remote && !forced) {
            const auto other = waitFor(finished, start(*manager, QStringLiteral("o"), QStringLiteral("true"), m_other));
            QVERIFY(other);
            QCOMPARE(other->status, ExecStatus::Ok);
        }
    }

    // Switching a folder's mode ends the sessions whose containers were made under the old one.
    void changingTheModeEndsLiveSessions() {
        auto manager = makeManager(8);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("d1"), QStringLiteral("true"))));
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("d2"), QStringLiteral("true"), m_other)));
        QCOMPARE(manager->liveContainers(), 2);
        manager->setWorkspaceModes({{m_workspace, WorkspaceMode::Review}});
        QCOMPARE(manager->sessionState(QStringLiteral("d1")), SessionState::Stopped);
        QCOMPARE(manager->sessionState(QStringLiteral("d2")), SessionState::Running);
        const auto again = waitFor(finished, start(*manager, QStringLiteral("d1"), QStringLiteral("true")));
        QVERIFY(again);
        QCOMPARE(again->errorCode, ExecError::ContainerFailed);  // a review copy, which this fake cannot make
        manager->setWorkspaceModes({});
        const auto direct = waitFor(finished, start(*manager, QStringLiteral("d1"), QStringLiteral("true")));
        QVERIFY(direct);
        QCOMPARE(direct->status, ExecStatus::Ok);
    }
};

QTEST_GUILESS_MAIN(TestSessionManager)
#include "tst_sessionmanager.moc"
