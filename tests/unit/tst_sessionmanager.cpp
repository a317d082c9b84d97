// SessionManager's bounds (SPEC §3 "Bounded", issue item 3: the container bomb) and the end of sessions on a
// revoked approval (item 8), with a fake container CLI (tests/fakes/engine/docker): containers are pretend and
// commands run on the host, so many session ids cost nothing. The real engines are in tests/engine.
#include "engine/containerruntime.h"
#include "sandbox/sessionmanager.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

class TestSessionManager : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_workspace;
    QString m_other;
    int m_counter = 0;

    std::unique_ptr<SessionManager> makeManager(int maxContainers = 3) {
        SandboxConfig config;
        config.image = QStringLiteral("fake:image");
        config.ownerId = QStringLiteral("owner-test");
        config.execMode = ExecMode::Exec;
        config.killGraceMs = 200;
        config.maxContainers = maxContainers;
        config.maxCallsTotal = 8;
        config.maxCallsPerSession = 4;
        return std::make_unique<SessionManager>(
            ContainerRuntime::create(RuntimeKind::Docker, QStringLiteral(ZEUS_TEST_FAKES_DIR "/engine/docker")),
            config);
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

    // Issue item 8: revoking an approval ends every session on that folder (their containers are removed); sessions
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
};

QTEST_GUILESS_MAIN(TestSessionManager)
#include "tst_sessionmanager.moc"
