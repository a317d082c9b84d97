// SessionManager and its SandboxSessions with a fake container CLI (tests/fakes/engine/docker): the bounds (SPEC §3
// "Bounded, and queued rather than refused": the container bomb, the limits, the queue and its bounds), a stale
// container, the failures of making one, the idle timer, shutdown, and the end of sessions on a revoked approval (item
// 8). Containers are pretend and commands run on the host, so many session ids cost nothing. The real engines are in
// tests/engine.
#include "engine/containerruntime.h"
#include "sandbox/sessionmanager.h"
#include "secrets/interceptca.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
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

    // The fake CLI behind a wrapper that notes each subcommand in `log` and first runs `before` (shell text that
    // may answer for the fake and exit), for the rows that need an engine to misbehave.
    QString scriptedEngine(const QString& name, const QString& log, const QString& before) {
        const QString path = QDir(m_dir.path()).filePath(name);
        QFile script(path);
        if (!script.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            return {};
        }
        script.write(QStringLiteral("#!/bin/sh\necho \"$1\" >> '%1'\n%2\nexec '%3' \"$@\"\n")
                         .arg(log, before, QStringLiteral(ZEUS_TEST_FAKES_DIR "/engine/docker"))
                         .toUtf8());
        script.close();
        script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
        return path;
    }

    QString freshLog(const QString& name) {
        const QString log = QDir(m_dir.path()).filePath(name + QString::number(++m_counter) + QStringLiteral(".log"));
        QFile::remove(log);
        return log;
    }

    static bool logSays(const SessionManager& manager, const QString& sessionId, const QString& text) {
        const QList<SessionLogEntry> entries = manager.sessionLog(sessionId);
        return std::any_of(entries.cbegin(), entries.cend(),
                           [&](const SessionLogEntry& entry) { return entry.message.contains(text); });
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

        // Every container busy: a new session waits (queued) and makes no container; once a call ends, its idle
        // container makes room and the waiting call runs.
        QSignalSpy queued(manager.get(), &SessionManager::callQueued);
        QStringList running;
        for (const QString& id : {QStringLiteral("a"), QStringLiteral("c"), QStringLiteral("d")}) {
            running << start(*manager, id, QStringLiteral("sleep 20"));
        }
        QTRY_COMPARE(manager->runningCalls(), 3);
        const QString waiting = start(*manager, QStringLiteral("e"), QStringLiteral("true"));
        QCOMPARE(queued.count(), 1);
        QCOMPARE(queued.at(0).at(0).toString(), waiting);
        QCOMPARE(queued.at(0).at(1).toInt(), 1);
        QVERIFY(!waitFor(finished, waiting, 300));
        QVERIFY(!manager->sessionIds().contains(QStringLiteral("e")));
        QCOMPARE(manager->liveContainers(), 3);
        QVERIFY(manager->cancel(running.takeFirst()));
        const auto e = waitFor(finished, waiting);
        QVERIFY(e);
        QCOMPARE(e->status, ExecStatus::Ok);
        QCOMPARE(manager->sessionState(QStringLiteral("a")), SessionState::Stopped);
        QCOMPARE(manager->liveContainers(), 3);
        for (const QString& id : std::as_const(running)) {
            manager->cancel(id);
        }
        QTRY_COMPARE(manager->runningCalls(), 0);
    }

    // A new session waits for a container at most containerWaitMs (SPEC §3: 60 s), then is refused with busy
    // naming the bound, and leaves nothing behind.
    void containerWaitIsBounded() {
        auto manager = makeManager(1, [](SandboxConfig& config) { config.containerWaitMs = 300; });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        const QString running = start(*manager, QStringLiteral("a"), QStringLiteral("sleep 20"));
        QTRY_COMPARE(manager->sessionState(QStringLiteral("a")), SessionState::Running);
        QElapsedTimer waited;
        waited.start();
        const auto refused = waitFor(finished, start(*manager, QStringLiteral("b"), QStringLiteral("true")));
        QVERIFY(refused);
        QVERIFY(waited.elapsed() >= 250);
        QCOMPARE(refused->errorCode, ExecError::Busy);
        QVERIFY2(refused->errorMessage.contains(QStringLiteral("(the container bound)")),
                 qPrintable(refused->errorMessage));
        QVERIFY(!manager->sessionIds().contains(QStringLiteral("b")));
        QCOMPARE(manager->queuedCalls(), 0);
        QCOMPARE(manager->liveContainers(), 1);
        QVERIFY(manager->cancel(running));
        QTRY_COMPARE(manager->runningCalls(), 0);
    }

    // SPEC §3 "queued rather than refused": a burst past the per-session limit waits in the session's FIFO
    // (callQueued with its place), every call starts in arrival order (callRunning) and ends ok.
    void burstPastTheSessionLimitRunsInOrder() {
        auto manager = makeManager(3, [](SandboxConfig& config) { config.maxCallsPerSession = 2; });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QSignalSpy queued(manager.get(), &SessionManager::callQueued);
        QSignalSpy counts(manager.get(), &SessionManager::queuedCallsChanged);
        QStringList startOrder;
        connect(manager.get(), &SessionManager::callRunning, this,
                [&](const QString& callId) { startOrder << callId; });
        QStringList calls;
        for (int i = 0; i < 12; ++i) {
            calls << start(*manager, QStringLiteral("burst"), QStringLiteral("sleep 0.05; echo n%1").arg(i));
        }
        QCOMPARE(queued.count(), 10);
        for (int i = 0; i < 10; ++i) {
            QCOMPARE(queued.at(i).at(0).toString(), calls.at(i + 2));
            QCOMPARE(queued.at(i).at(1).toInt(), i + 1);
        }
        QCOMPARE(manager->queuedCalls(QStringLiteral("burst")), 10);
        QVERIFY(manager->runningCalls() <= 2);
        for (int i = 0; i < 12; ++i) {
            const auto result = waitFor(finished, calls.at(i), 20000);
            QVERIFY(result);
            QCOMPARE(result->status, ExecStatus::Ok);
            QCOMPARE(result->output, QStringLiteral("n%1\n").arg(i));
        }
        QCOMPARE(startOrder, calls.mid(2));
        QCOMPARE(finished.count(), 12);
        QCOMPARE(counts.count(), 20);  // 10 queued, 10 started
        QCOMPARE(counts.at(9).at(1).toInt(), 10);
        QCOMPARE(counts.last().at(0).toString(), QStringLiteral("burst"));
        QCOMPARE(counts.last().at(1).toInt(), 0);
        QCOMPARE(manager->queuedCalls(), 0);
        // How close the burst came to the bounds, for diagnostics.
        QCOMPARE(manager->peaks().running, 2);
        QCOMPARE(manager->peaks().queued, 10);
        QCOMPARE(manager->peaks().containers, 1);
    }

    // A queued call's timeout starts when it runs: one that waits longer than its timeout still runs to its end.
    void queuedTimeoutStartsWhenItRuns() {
        auto manager = makeManager(3, [](SandboxConfig& config) { config.maxCallsPerSession = 1; });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        const QString first = start(*manager, QStringLiteral("t"), QStringLiteral("sleep 1.5"));
        ExecRequest request;
        request.callId = QStringLiteral("timed-") + QString::number(++m_counter);
        request.sessionId = QStringLiteral("t");
        request.workspace = m_workspace;
        request.command = QStringLiteral("sleep 0.3; echo done");
        request.timeoutSeconds = 1;
        manager->execute(request);
        QCOMPARE(manager->queuedCalls(), 1);
        QVERIFY(waitFor(finished, first));
        const auto result = waitFor(finished, request.callId);
        QVERIFY(result);
        QCOMPARE(result->status, ExecStatus::Ok);
        QCOMPARE(result->output, QStringLiteral("done\n"));
    }

    // Round-robin: a second session's call runs in the next free slot, not after the first session's whole queue.
    void roundRobinAcrossSessions() {
        auto manager = makeManager(3, [](SandboxConfig& config) {
            config.maxCallsTotal = 2;
            config.maxCallsPerSession = 2;
        });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QStringList startOrder;
        connect(manager.get(), &SessionManager::callRunning, this,
                [&](const QString& callId) { startOrder << callId; });
        QStringList first;
        for (int i = 0; i < 8; ++i) {
            first << start(*manager, QStringLiteral("many"), QStringLiteral("sleep 0.2"));
        }
        const QString other = start(*manager, QStringLiteral("other"), QStringLiteral("true"));
        QCOMPARE(manager->queuedCalls(QStringLiteral("many")), 6);
        QCOMPARE(manager->queuedCalls(QStringLiteral("other")), 1);
        const auto result = waitFor(finished, other, 20000);
        QVERIFY(result);
        QCOMPARE(result->status, ExecStatus::Ok);
        QVERIFY2(startOrder.indexOf(other) >= 0 && startOrder.indexOf(other) <= 1, qPrintable(startOrder.join(u',')));
        for (const QString& id : std::as_const(first)) {
            QVERIFY(waitFor(finished, id, 20000));
        }
        QCOMPARE(finished.count(), 9);
    }

    // The engine goes away (SPEC §3; a dockerd restart, a killed service): the call that meets it first fails with
    // container_failed; calls that come while it is away wait (queued) instead of failing one by one, and run once it
    // answers again; the engine's own words name the cause. Rows: it comes back in time, or not within the deadline.
    void callsWaitForAnEngineThatWentAway_data() {
        QTest::addColumn<bool>("comesBack");
        QTest::newRow("back in time") << true;
        QTest::newRow("not back within the deadline") << false;
    }
    void callsWaitForAnEngineThatWentAway() {
        QFETCH(bool, comesBack);
        const QString down = QDir(m_dir.path()).filePath(QStringLiteral("engine-down"));
        QFile marker(down);
        QVERIFY(marker.open(QIODevice::WriteOnly));
        marker.close();
        const QString log = QDir(m_dir.path()).filePath(QStringLiteral("down.log"));
        QFile::remove(log);
        const QString path = scriptedEngine(
            QStringLiteral("down-docker"), log,
            QStringLiteral(
                "[ -e '%1' ] && { echo 'Cannot connect to the Docker daemon at unix:///x.sock.' >&2; exit 1; }")
                .arg(down));
        auto manager = makeManager(
            3, [](SandboxConfig& config) { config.engineWaitMs = 3000; }, path);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QSignalSpy queued(manager.get(), &SessionManager::callQueued);
        const auto first = waitFor(finished, start(*manager, QStringLiteral("e"), QStringLiteral("echo first")));
        QVERIFY(first);
        QCOMPARE(first->errorCode, ExecError::ContainerFailed);
        QTRY_COMPARE(manager->engineState(), EngineWatch::State::Down);

        const QString second = start(*manager, QStringLiteral("e"), QStringLiteral("echo second"));
        const QString other = start(*manager, QStringLiteral("f"), QStringLiteral("echo other"));
        QCOMPARE(queued.count(), 2);  // they wait for the engine, they do not fail against it
        QCOMPARE(manager->queuedCalls(), 2);
        QTest::qWait(500);
        QCOMPARE(finished.count(), 1);
        if (comesBack) {
            QVERIFY(QFile::remove(down));
            const auto ran = waitFor(finished, second, 10000);
            QVERIFY(ran);
            QCOMPARE(ran->status, ExecStatus::Ok);
            QCOMPARE(ran->output, QStringLiteral("second\n"));
            const auto ranToo = waitFor(finished, other, 10000);
            QVERIFY(ranToo);
            QCOMPARE(ranToo->output, QStringLiteral("other\n"));
            QCOMPARE(manager->engineState(), EngineWatch::State::Up);
            QTRY_VERIFY(linesOf(log).contains(QStringLiteral("ps")));  // the sweep for what the engine left behind
        } else {
            const auto failed = waitFor(finished, second, 10000);
            QVERIFY(failed);
            QCOMPARE(failed->errorCode, ExecError::ContainerFailed);
            QVERIFY2(failed->errorMessage.contains(QLatin1String("did not answer within 3 s"))
                         && failed->errorMessage.contains(QLatin1String("Cannot connect to the Docker daemon")),
                     qPrintable(failed->errorMessage));
            QVERIFY(waitFor(finished, other, 2000));
            QCOMPARE(manager->queuedCalls(), 0);
            QVERIFY(logSays(*manager, QStringLiteral("e"), QStringLiteral("did not answer within 3 s")));
        }
        QTest::qWait(50);
        QCOMPARE(finished.count(), 3);  // each call exactly once
    }

    // Cancel of a queued call takes it out at once (cancelled, never run); those behind it still run.
    void cancelOfAQueuedCall() {
        auto manager = makeManager(3, [](SandboxConfig& config) { config.maxCallsPerSession = 1; });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QSignalSpy running(manager.get(), &SessionManager::callRunning);
        const QString first = start(*manager, QStringLiteral("q"), QStringLiteral("sleep 20"));
        const QString second = start(*manager, QStringLiteral("q"), QStringLiteral("echo second"));
        const QString third = start(*manager, QStringLiteral("q"), QStringLiteral("echo third"));
        QCOMPARE(manager->queuedCalls(QStringLiteral("q")), 2);
        QVERIFY(manager->cancel(second));
        QCOMPARE(manager->queuedCalls(QStringLiteral("q")), 1);
        const auto cancelled = waitFor(finished, second, 1000);
        QVERIFY(cancelled);
        QCOMPARE(cancelled->status, ExecStatus::Cancelled);
        QVERIFY(!cancelled->exitCode);
        // The session's log says what became of the call it never ran.
        QVERIFY(logSays(*manager, QStringLiteral("q"), QStringLiteral("Call %1 did not run: cancelled.").arg(second)));
        QVERIFY(!manager->cancel(second));
        QVERIFY(manager->cancel(first));
        const auto last = waitFor(finished, third);
        QVERIFY(last);
        QCOMPARE(last->status, ExecStatus::Ok);
        QCOMPARE(last->output, QStringLiteral("third\n"));
        QCOMPARE(running.count(), 1);
        QCOMPARE(running.at(0).at(0).toString(), third);
        QTest::qWait(50);
        QCOMPARE(finished.count(), 3);  // each call exactly once
    }

    // The end of a session, the revocation of its folder and the app's shutdown end its queued calls too:
    // each gets exactly one result (cancelled), none starts.
    void queuedCallsEndWithTheirSession_data() {
        QTest::addColumn<QString>("how");
        QTest::newRow("session end") << QStringLiteral("end");
        QTest::newRow("approval revoked") << QStringLiteral("revoke");
        QTest::newRow("shutdown") << QStringLiteral("shutdown");
    }
    void queuedCallsEndWithTheirSession() {
        QFETCH(QString, how);
        auto manager = makeManager(3, [](SandboxConfig& config) {
            config.maxCallsPerSession = 1;
            config.maxCallsTotal = 2;
        });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QSignalSpy running(manager.get(), &SessionManager::callRunning);
        QStringList calls;
        // Short, since an abandoned exec of the fake engine ends with its command (the fake's `rm` stops nothing), but
        // long enough to outlast the setup on a loaded machine: a call that ended before the end of its session freed
        // its slot, and a queued call started (2 s was not always enough).
        calls << start(*manager, QStringLiteral("e"), QStringLiteral("sleep 6"));
        calls << start(*manager, QStringLiteral("x"), QStringLiteral("sleep 6"));
        QTRY_COMPARE(manager->sessionState(QStringLiteral("e")), SessionState::Running);
        QStringList waiting;
        for (int i = 0; i < 3; ++i) {
            waiting << start(*manager, QStringLiteral("e"), QStringLiteral("true"));
        }
        waiting << start(*manager, QStringLiteral("w"), QStringLiteral("true"));  // only queued: no container yet
        QCOMPARE(manager->queuedCalls(), 4);
        QString message;
        if (how == QStringLiteral("end")) {
            manager->endSession(QStringLiteral("e"));
            manager->endSession(QStringLiteral("w"));
            message = QStringLiteral("The session ended.");
        } else if (how == QStringLiteral("revoke")) {
            QCOMPARE(manager->endSessionsIn(m_workspace), 3);
            message = QStringLiteral("The session ended.");
        } else {
            manager->shutdown();
            message = QStringLiteral("Zeus Desktop is shutting down.");
        }
        QCOMPARE(manager->queuedCalls(), 0);
        for (const QString& id : std::as_const(waiting)) {
            const auto result = waitFor(finished, id, 1000);
            QVERIFY(result);
            QCOMPARE(result->status, ExecStatus::Cancelled);
            QCOMPARE(result->errorMessage, message);
        }
        if (how != QStringLiteral("shutdown")) {
            for (const QString& id : std::as_const(calls)) {
                manager->cancel(id);
            }
        }
        QTRY_COMPARE_WITH_TIMEOUT(manager->runningCalls(), 0, 15000);
        QTest::qWait(100);
        QCOMPARE(running.count(), 0);
        QCOMPARE(finished.count(), int(calls.size() + waiting.size()));  // each exactly once
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

    // SPEC §9: a secret bound to hosts after a session started must not go into its next command's environment, so
    // a change of the bindings ends every live session (its next call gets a new container under them); the same
    // bindings again change nothing.
    void changingSecretBindingsEndsLiveSessions() {
        auto manager = makeManager(8);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("b1"), QStringLiteral("true"))));
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("b2"), QStringLiteral("true"), m_other)));
        manager->setSecretBindings({});
        QCOMPARE(manager->sessionState(QStringLiteral("b1")), SessionState::Running);
        const std::optional<SecretBinding> binding = SecretBinding::parse(QStringLiteral("GH_TOKEN=@github"));
        QVERIFY(binding);
        manager->setSecretBindings({{binding->name, *binding}});
        QCOMPARE(manager->sessionState(QStringLiteral("b1")), SessionState::Stopped);
        QCOMPARE(manager->sessionState(QStringLiteral("b2")), SessionState::Stopped);
        QVERIFY(logSays(*manager, QStringLiteral("b1"), QStringLiteral("The secrets bound to hosts changed")));
        QVERIFY(manager->config().secretBindings.contains(QStringLiteral("GH_TOKEN")));
        const auto again = waitFor(finished, start(*manager, QStringLiteral("b1"), QStringLiteral("true")));
        QVERIFY(again);
        QCOMPARE(again->status, ExecStatus::Ok);
        manager->setSecretBindings({{binding->name, *binding}});
        QCOMPARE(manager->sessionState(QStringLiteral("b1")), SessionState::Running);
    }

    // The tray app does not wait for the keychain to give the interception CA of host-bound secrets: a call may
    // start a session first. Once the CA is loaded, a session whose container got the certificate bundle without it
    // ends and says why (its commands would not trust the app's TLS to a bound host); one that got it, or that has
    // no bundle to fix (--no-host-ca), goes on.
    void interceptCaLoadedEndsSessionsWithoutIt_data() {
        QTest::addColumn<bool>("hostCertificates");
        QTest::newRow("the host's bundle") << true;
        QTest::newRow("--no-host-ca") << false;
    }

    void interceptCaLoadedEndsSessionsWithoutIt() {
        QFETCH(bool, hostCertificates);
        const auto ca = std::make_shared<InterceptCa>();
        const std::optional<SecretBinding> binding = SecretBinding::parse(QStringLiteral("GH_TOKEN=@github"));
        QVERIFY(binding);
        auto manager = makeManager(8, [&](SandboxConfig& config) {
            config.interceptCa = ca;
            config.secretBindings = {{binding->name, *binding}};
            config.hostCertificates = hostCertificates;
        });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("early"), QStringLiteral("true"))));
        manager->interceptCaLoaded();  // not loaded yet: nothing to do
        QCOMPARE(manager->sessionState(QStringLiteral("early")), SessionState::Running);
        QString error;
        QVERIFY2(ca->generate(&error), qPrintable(error));
        manager->interceptCaLoaded();
        const QString said = QStringLiteral("The interception CA of host-bound secrets is loaded now");
        QCOMPARE(manager->sessionState(QStringLiteral("early")),
                 hostCertificates ? SessionState::Stopped : SessionState::Running);
        QCOMPARE(logSays(*manager, QStringLiteral("early"), said), hostCertificates);
        const auto again = waitFor(finished, start(*manager, QStringLiteral("early"), QStringLiteral("true")));
        QVERIFY(again);
        QCOMPARE(again->status, ExecStatus::Ok);
        manager->interceptCaLoaded();
        QCOMPARE(manager->sessionState(QStringLiteral("early")), SessionState::Running);
    }

    // What a folder's sandbox may reach beyond the folder (its `.git`, the host services exposed to it) is fixed when
    // its container is made: a change ends that folder's live sessions (their next call gets a new container) and
    // says why in their log; other folders' sessions, and a change that changes nothing for them, go on.
    void changingFolderAccessEndsLiveSessions_data() {
        QTest::addColumn<QString>(
            "before");  // exposed to m_workspace before: "" or --expose-host spellings, comma-separated
        QTest::addColumn<QString>("after");
        QTest::addColumn<bool>("gitWrites");  // m_workspace's .git made writable by the change
        QTest::addColumn<QString>("said");    // in the ended session's log; empty: it goes on
        QTest::newRow("a host service exposed") << ""
                                                << "5432" << false << "The host services reachable";
        QTest::newRow("one taken away") << "5432,6379"
                                        << "5432" << false << "The host services reachable";
        QTest::newRow("another host port") << "15432:5432"
                                           << "25432:5432" << false << "The host services reachable";
        QTest::newRow("all taken away") << "5432"
                                        << "" << false << "The host services reachable";
        QTest::newRow(".git made writable") << ""
                                            << "" << true << "may now write the repository's metadata";
        QTest::newRow("nothing changed") << "5432"
                                         << "5432" << false << "";
    }

    void changingFolderAccessEndsLiveSessions() {
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(bool, gitWrites);
        QFETCH(QString, said);
        const auto exposed = [this](const QString& specs) {
            QHash<QString, QList<ExposeSpec>> byFolder;
            for (const QString& text : specs.split(u',', Qt::SkipEmptyParts)) {
                byFolder[m_workspace].append(*ExposeSpec::parse(text));
            }
            return byFolder;
        };
        auto manager = makeManager(8, [&](SandboxConfig& config) { config.folderExposeHost = exposed(before); });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("f1"), QStringLiteral("true"))));
        QVERIFY(waitFor(finished, start(*manager, QStringLiteral("f2"), QStringLiteral("true"), m_other)));
        const QSet<QString> writable = gitWrites ? QSet<QString>{m_workspace} : QSet<QString>{};
        manager->setFolderAccess(writable, exposed(after));
        QCOMPARE(manager->sessionState(QStringLiteral("f2")), SessionState::Running);
        if (said.isEmpty()) {
            QCOMPARE(manager->sessionState(QStringLiteral("f1")), SessionState::Running);
            return;
        }
        QCOMPARE(manager->sessionState(QStringLiteral("f1")), SessionState::Stopped);
        const QList<SessionLogEntry> entries = manager->sessionLog(QStringLiteral("f1"));
        QVERIFY(std::any_of(entries.cbegin(), entries.cend(),
                            [&](const SessionLogEntry& entry) { return entry.message.contains(said); }));
        const auto again = waitFor(finished, start(*manager, QStringLiteral("f1"), QStringLiteral("true")));
        QVERIFY(again);
        QCOMPARE(again->status, ExecStatus::Ok);  // a new container under the new rule
    }

    // SPEC §3 "Bounded, and queued rather than refused": past a queue bound (or a call id twice, or another folder
    // while the session is busy) a call is refused with busy at once, naming the bound, and what runs or waits goes
    // on.
    void limits_data() {
        QTest::addColumn<QString>("runningIn");  // sessions of the `sleep` calls that fill the limit (comma-separated)
        QTest::addColumn<QString>("queuedIn");   // sessions of calls that then wait (comma-separated; may be empty)
        QTest::addColumn<QString>("session");    // of the refused call
        QTest::addColumn<bool>("otherFolder");   // the refused call asks for another folder
        QTest::addColumn<bool>("sameCallId");    // the refused call reuses the first running call's id
        QTest::addColumn<int>("maxTotal");
        QTest::addColumn<int>("maxPerSession");
        QTest::addColumn<int>("maxQueuedPerSession");
        QTest::addColumn<int>("maxQueuedTotal");
        QTest::addColumn<QString>("message");
        QTest::newRow("the per-session queue bound")
            << "a,a"
            << "a,a"
            << "a" << false << false << 8 << 2 << 2 << 256
            << "2 calls already wait in this session's queue (the per-session queue bound)";
        QTest::newRow("the total queue bound")
            << "a,b"
            << "c,d,c"
            << "e" << false << false << 2 << 4 << 64 << 3
            << "3 calls already wait in the queues of all sessions (the total queue bound)";
        QTest::newRow("a call id twice") << "a"
                                         << ""
                                         << "b" << false << true << 8 << 4 << 64 << 256
                                         << "A call with this id is already running.";
        QTest::newRow("another folder while busy")
            << "a"
            << ""
            << "a" << true << false << 8 << 4 << 64 << 256 << "This session is running commands in another folder.";
        QTest::newRow("another folder while waiting")
            << "a,b"
            << "c"
            << "c" << true << false << 2 << 4 << 64 << 256 << "This session is running commands in another folder.";
    }
    void limits() {
        QFETCH(QString, runningIn);
        QFETCH(QString, queuedIn);
        QFETCH(QString, session);
        QFETCH(bool, otherFolder);
        QFETCH(bool, sameCallId);
        QFETCH(int, maxTotal);
        QFETCH(int, maxPerSession);
        QFETCH(int, maxQueuedPerSession);
        QFETCH(int, maxQueuedTotal);
        QFETCH(QString, message);
        const QStringList running = runningIn.split(u',');
        const QStringList queued = queuedIn.split(u',', Qt::SkipEmptyParts);
        auto manager = makeManager(8, [&](SandboxConfig& config) {
            config.maxCallsTotal = maxTotal;
            config.maxCallsPerSession = maxPerSession;
            config.maxQueuedPerSession = maxQueuedPerSession;
            config.maxQueuedTotal = maxQueuedTotal;
        });
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        QStringList calls;
        for (const QString& id : std::as_const(running)) {
            calls << start(*manager, id, QStringLiteral("sleep 20"));
        }
        QTRY_COMPARE(manager->runningCalls(), int(running.size()));
        QTRY_VERIFY(std::all_of(running.cbegin(), running.cend(),
                                [&](const QString& id) { return manager->sessionState(id) == SessionState::Running; }));
        for (const QString& id : std::as_const(queued)) {
            calls << start(*manager, id, QStringLiteral("true"));
        }
        QCOMPARE(manager->queuedCalls(), int(queued.size()));
        const bool known = manager->sessionIds().contains(session);
        const int live = manager->liveContainers();
        ExecRequest request;
        request.callId = sameCallId ? calls.first() : QStringLiteral("refused-") + QString::number(++m_counter);
        request.sessionId = session;
        request.workspace = otherFolder ? m_other : m_workspace;
        request.command = QStringLiteral("true");
        manager->execute(request);
        const auto refused = waitFor(finished, request.callId);
        QVERIFY(refused);
        QCOMPARE(refused->status, ExecStatus::Error);
        QCOMPARE(refused->errorCode, ExecError::Busy);
        QVERIFY2(refused->errorMessage.contains(message), qPrintable(refused->errorMessage));
        QCOMPARE(manager->runningCalls(), int(running.size()));  // nothing that ran or waited was touched
        QCOMPARE(manager->queuedCalls(), int(queued.size()));
        QCOMPARE(manager->sessionIds().contains(session), known);
        QCOMPARE(manager->liveContainers(), live);
        QCOMPARE(manager->sessionWorkspace(running.first()), m_workspace);
        for (const QString& id : std::as_const(calls)) {
            QVERIFY(manager->cancel(id));
        }
        QTRY_COMPARE(manager->runningCalls(), 0);
        QCOMPARE(manager->queuedCalls(), 0);
    }

    // A container idle for longer than staleCheckAfterMs is inspected before the next call: one still running is
    // used again, one that exited or was removed from outside is replaced (and the dead one removed) and the call
    // runs in the new one.
    void staleContainer_data() {
        QTest::addColumn<QString>("inspect");  // the engine's answer to inspect; empty: running
        QTest::addColumn<QString>("said");     // in the session's log; empty: nothing replaced
        QTest::newRow("still running") << QString() << QString();
        QTest::newRow("exited") << QStringLiteral(
            "case \"$1\" in inspect) echo '[{\"Id\":\"fakecontainer0123456789\",\"Name\":\"/f\",\"State\":"
            "{\"Status\":\"exited\",\"Running\":false},\"Config\":{\"Labels\":{}}}]'; exit 0 ;; esac")
                                << QStringLiteral("is gone (exited); starting a new one.");
        QTest::newRow("removed from outside")
            << QStringLiteral("case \"$1\" in inspect) echo 'Error: No such object: x' >&2; exit 1 ;; esac")
            << QStringLiteral("is gone (not found); starting a new one.");
    }
    void staleContainer() {
        QFETCH(QString, inspect);
        QFETCH(QString, said);
        const QString log = freshLog(QStringLiteral("stale"));
        auto manager = makeManager(
            3, [](SandboxConfig& config) { config.staleCheckAfterMs = 0; },
            scriptedEngine(QStringLiteral("stale-docker"), log, inspect));
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        const auto first = waitFor(finished, start(*manager, QStringLiteral("s"), QStringLiteral("true")));
        QVERIFY(first);
        QCOMPARE(first->status, ExecStatus::Ok);
        QTest::qWait(20);  // idle for longer than the (zero) stale check interval
        const auto second = waitFor(finished, start(*manager, QStringLiteral("s"), QStringLiteral("true")));
        QVERIFY(second);
        QCOMPARE(second->status, ExecStatus::Ok);
        QCOMPARE(manager->sessionState(QStringLiteral("s")), SessionState::Running);
        QCOMPARE(manager->liveContainers(), 1);
        const QStringList calls = linesOf(log);
        QVERIFY2(calls.contains(QStringLiteral("inspect")), qPrintable(calls.join(u',')));
        if (said.isEmpty()) {
            QCOMPARE(calls.count(QStringLiteral("run")), 1);
            QVERIFY2(!calls.contains(QStringLiteral("rm")), qPrintable(calls.join(u',')));
            return;
        }
        QCOMPARE(calls.count(QStringLiteral("run")), 2);
        QVERIFY(logSays(*manager, QStringLiteral("s"), said));
        QTRY_VERIFY2(linesOf(log).contains(QStringLiteral("rm")), qPrintable(linesOf(log).join(u',')));
    }

    // A container that cannot be made fails the session's waiting calls with the code that says why, and leaves
    // nothing behind: a `run` that failed is removed by its name whatever the error.
    void createFailures_data() {
        QTest::addColumn<QString>("engine");  // shell text run before the fake for every CLI call
        QTest::addColumn<QString>("image");   // the image setting
        QTest::addColumn<bool>("noProgram");  // the CLI does not exist
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("ran");  // `run` was asked for (and the container then removed by its name)
        QTest::newRow("image missing") << QStringLiteral(
            "case \"$1\" in run) echo 'Unable to find image' >&2; exit 125 ;; "
            "image) echo 'Error: No such image: fake:image' >&2; exit 1 ;; esac")
                                       << "fake:image" << false << int(ExecError::ImageMissing)
                                       << "The sandbox image fake:image is not installed. Build it with: " << true;
        QTest::newRow("run fails") << QStringLiteral(
            "case \"$1\" in run) echo 'docker: Error response from daemon: boom.' >&2; "
            "echo \"Run 'docker run --help' for more information\" >&2; exit 125 ;; esac")
                                   << "fake:image" << false << int(ExecError::ContainerFailed)
                                   << "The container could not be started: docker: Error response from daemon: boom."
                                   << true;
        QTest::newRow("run says no id") << QStringLiteral("case \"$1\" in run) exit 0 ;; esac") << "fake:image" << false
                                        << int(ExecError::ContainerFailed) << "The container could not be started"
                                        << true;
        QTest::newRow("no engine CLI") << QString() << "fake:image" << true << int(ExecError::NoRuntime)
                                       << "command could not be started" << false;
        QTest::newRow("not an image reference")
            << QString() << "not an image!" << false << int(ExecError::ContainerFailed)
            << "The sandbox image setting \"not an image!\" is not an image "
               "reference."
            << false;
    }
    void createFailures() {
        QFETCH(QString, engine);
        QFETCH(QString, image);
        QFETCH(bool, noProgram);
        QFETCH(int, code);
        QFETCH(QString, message);
        QFETCH(bool, ran);
        const QString log = freshLog(QStringLiteral("create"));
        const QString program = noProgram ? QDir(m_dir.path()).filePath(QStringLiteral("no-such-engine"))
                                          : scriptedEngine(QStringLiteral("create-docker"), log, engine);
        auto manager = makeManager(
            3, [&](SandboxConfig& config) { config.image = image; }, program);
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        const QString first = start(*manager, QStringLiteral("f"), QStringLiteral("true"));
        const QString second = start(*manager, QStringLiteral("f"), QStringLiteral("true"));  // waits for the same
        for (const QString& callId : {first, second}) {
            const auto result = waitFor(finished, callId);
            QVERIFY(result);
            QCOMPARE(result->status, ExecStatus::Error);
            QCOMPARE(int(result->errorCode), code);
            QVERIFY2(result->errorMessage.contains(message), qPrintable(result->errorMessage));
        }
        QCOMPARE(manager->sessionState(QStringLiteral("f")), SessionState::Failed);
        QVERIFY(manager->containerId(QStringLiteral("f")).isEmpty());
        QCOMPARE(manager->liveContainers(), 0);
        QCOMPARE(manager->runningCalls(), 0);
        QVERIFY(logSays(*manager, QStringLiteral("f"), message));
        const QStringList calls = linesOf(log);
        QCOMPARE(calls.count(QStringLiteral("run")), ran ? 1 : 0);
        if (ran) {
            QCOMPARE(calls.mid(calls.indexOf(QStringLiteral("run")) + 1, 1), QStringList{QStringLiteral("rm")});
        }
    }

    // A session's container goes after idleTimeoutMs without a call; a running call keeps it, an ended session
    // has nothing left to time out.
    void idleTimer_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<bool>("endFirst");
        QTest::newRow("after a call") << "true" << false;
        QTest::newRow("a running call is never idle") << "sleep 1" << false;
        QTest::newRow("ended before the timeout") << "true" << true;
    }
    void idleTimer() {
        QFETCH(QString, command);
        QFETCH(bool, endFirst);
        const QString log = freshLog(QStringLiteral("idle"));
        auto manager = makeManager(
            3, [](SandboxConfig& config) { config.idleTimeoutMs = 300; },
            scriptedEngine(QStringLiteral("idle-docker"), log, QString()));
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        const QString callId = start(*manager, QStringLiteral("i"), command);
        QTRY_COMPARE(manager->sessionState(QStringLiteral("i")), SessionState::Running);
        if (command != QLatin1String("true")) {
            QTest::qWait(700);  // past the timeout while the call runs
            QCOMPARE(manager->sessionState(QStringLiteral("i")), SessionState::Running);
            QCOMPARE(manager->runningCalls(), 1);
        }
        const auto result = waitFor(finished, callId);
        QVERIFY(result);
        QCOMPARE(result->status, ExecStatus::Ok);
        QCOMPARE(manager->sessionState(QStringLiteral("i")), SessionState::Running);
        if (endFirst) {
            manager->endSession(QStringLiteral("i"));
            QTest::qWait(600);
            QVERIFY(logSays(*manager, QStringLiteral("i"), QStringLiteral("Session ended.")));
            QVERIFY(!logSays(*manager, QStringLiteral("i"), QStringLiteral("Idle for")));
            QCOMPARE(linesOf(log).count(QStringLiteral("rm")), 1);
            return;
        }
        QTRY_COMPARE(manager->sessionState(QStringLiteral("i")), SessionState::Stopped);
        QVERIFY(logSays(*manager, QStringLiteral("i"), QStringLiteral("Idle for 0 s: container removed.")));
        QCOMPARE(manager->liveContainers(), 0);
        QVERIFY(manager->containerId(QStringLiteral("i")).isEmpty());
        QTRY_COMPARE(linesOf(log).count(QStringLiteral("rm")), 1);
        // The session comes back with a new container on its next call.
        const auto again = waitFor(finished, start(*manager, QStringLiteral("i"), QStringLiteral("true")));
        QVERIFY(again);
        QCOMPARE(again->status, ExecStatus::Ok);
        QCOMPARE(linesOf(log).count(QStringLiteral("run")), 2);
    }

    // shutdown() ends every call, removes every container (also one whose `run` is still under way, once it
    // returns) and only then says shutdownFinished; a call after it is refused.
    void shutdown_data() {
        QTest::addColumn<int>("idle");         // sessions whose call has finished
        QTest::addColumn<QString>("running");  // a call still running at shutdown; empty: none
        QTest::addColumn<bool>("creating");    // a session whose `run` is under way (it takes a second)
        QTest::newRow("nothing to do") << 0 << QString() << false;
        QTest::newRow("idle containers") << 2 << QString() << false;
        QTest::newRow("a running command") << 1 << QStringLiteral("sleep 2") << false;
        QTest::newRow("a container being created") << 0 << QString() << true;
    }
    void shutdown() {
        QFETCH(int, idle);
        QFETCH(QString, running);
        QFETCH(bool, creating);
        const QString log = freshLog(QStringLiteral("shutdown"));
        const QString slow = QDir(m_dir.path()).filePath(QStringLiteral("slow-run-") + QString::number(m_counter));
        auto manager =
            makeManager(8, {},
                        scriptedEngine(QStringLiteral("shutdown-docker"), log,
                                       QStringLiteral("case \"$1\" in run) [ -e '%1' ] && sleep 1 ;; esac").arg(slow)));
        QSignalSpy finished(manager.get(), &SessionManager::callFinished);
        for (int i = 0; i < idle; ++i) {
            const auto result =
                waitFor(finished, start(*manager, QStringLiteral("idle-%1").arg(i), QStringLiteral("true")));
            QVERIFY(result);
            QCOMPARE(result->status, ExecStatus::Ok);
        }
        QStringList ending;
        if (!running.isEmpty()) {
            ending << start(*manager, QStringLiteral("busy"), running);
            QTRY_COMPARE(manager->sessionState(QStringLiteral("busy")), SessionState::Running);
            QTest::qWait(100);
        }
        if (creating) {
            QFile marker(slow);
            QVERIFY(marker.open(QIODevice::WriteOnly));
            marker.close();
            ending << start(*manager, QStringLiteral("new"), QStringLiteral("true"));
            QTRY_VERIFY(linesOf(log).contains(QStringLiteral("run")));
            QCOMPARE(manager->sessionState(QStringLiteral("new")), SessionState::Starting);
        }
        const int runs = int(linesOf(log).count(QStringLiteral("run")));
        QStringList atFinish;
        bool finishedTwice = false;
        QSignalSpy done(manager.get(), &SessionManager::shutdownFinished);
        connect(manager.get(), &SessionManager::shutdownFinished, this, [&] {
            finishedTwice = !atFinish.isEmpty();
            atFinish = linesOf(log) << QStringLiteral("finished");
        });
        manager->shutdown();
        QVERIFY(done.wait(10000));
        QCOMPARE(done.count(), 1);
        QVERIFY(!finishedTwice);
        const QStringList removals = atFinish.filter(QRegularExpression(QStringLiteral("^rm$")));
        if (idle + int(!running.isEmpty()) + int(creating) == 0) {
            QCOMPARE(atFinish, QStringList{QStringLiteral("finished")});
        } else {
            // Every container was removed before shutdownFinished; the one being made once its `run` returned.
            QVERIFY2(!removals.isEmpty(), qPrintable(atFinish.join(u',')));
            QVERIFY2(atFinish.lastIndexOf(QStringLiteral("rm")) > atFinish.lastIndexOf(QStringLiteral("run")),
                     qPrintable(atFinish.join(u',')));
        }
        QCOMPARE(int(atFinish.count(QStringLiteral("run"))), runs);
        for (const QString& callId : std::as_const(ending)) {
            const auto result = waitFor(finished, callId, 20000);
            QVERIFY(result);
            QCOMPARE(result->status, ExecStatus::Cancelled);
            QCOMPARE(result->errorMessage, QStringLiteral("Zeus Desktop is shutting down."));
        }
        for (const QString& id : manager->sessionIds()) {
            QCOMPARE(manager->sessionState(id), SessionState::Stopped);
        }
        QCOMPARE(manager->liveContainers(), 0);
        QTRY_COMPARE(manager->runningCalls(), 0);
        const auto refused = waitFor(finished, start(*manager, QStringLiteral("late"), QStringLiteral("true")));
        QVERIFY(refused);
        QCOMPARE(refused->errorCode, ExecError::ContainerFailed);
        QCOMPARE(refused->errorMessage, QStringLiteral("Zeus Desktop is shutting down."));
        QVERIFY(!manager->sessionIds().contains(QStringLiteral("late")));
    }
};

QTEST_GUILESS_MAIN(TestSessionManager)
#include "tst_sessionmanager.moc"
