// ReviewWorker (SPEC §10): the one thread review work runs on, shared by the Changes view and the sessions. Its tasks
// run one at a time in the order given, whoever gave them; a user of the worker waits for its own tasks only; and a
// change of the store reaches every listener.
#include "sandbox/review/reviewworker.h"

#include <QMutex>
#include <QMutexLocker>
#include <QSignalSpy>
#include <QStringList>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <memory>

using namespace zeus;

class TestReviewWorker : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void tasksOfTwoUsersRunOneAtATimeInOrder();
    void aUserWaitsForItsOwnTasksOnly();
    void storeChangedReachesListeners();
};

void TestReviewWorker::tasksOfTwoUsersRunOneAtATimeInOrder() {
    QTemporaryDir dir;
    ReviewWorker worker{ReviewStore(dir.path())};
    ReviewWorker::Tasks first;
    ReviewWorker::Tasks second;
    QMutex mutex;
    QStringList order;
    std::atomic<int> running{0};
    std::atomic<int> overlaps{0};
    for (int i = 0; i < 6; ++i) {
        ReviewWorker::Tasks& tasks = i % 2 == 0 ? first : second;
        worker.run(tasks, [&, i] {
            if (running.fetch_add(1) != 0) {
                ++overlaps;
            }
            QThread::msleep(5);
            {
                const QMutexLocker lock(&mutex);
                order << QString::number(i);
            }
            running.fetch_sub(1);
        });
    }
    first.waitForDone();
    second.waitForDone();
    QCOMPARE(overlaps.load(), 0);
    QCOMPARE(order.join(QLatin1Char(',')), QStringLiteral("0,1,2,3,4,5"));
}

void TestReviewWorker::aUserWaitsForItsOwnTasksOnly() {
    QTemporaryDir dir;
    ReviewWorker worker{ReviewStore(dir.path())};
    ReviewWorker::Tasks mine;
    auto others = std::make_unique<ReviewWorker::Tasks>();
    std::atomic<bool> release{false};
    std::atomic<bool> mineDone{false};
    worker.run(mine, [&] { mineDone = true; });
    // Another user's task that holds the thread until told: waiting for mine must not wait for it.
    worker.run(*others, [&] {
        while (!release.load()) {
            QThread::msleep(1);
        }
    });
    mine.waitForDone();
    QVERIFY(mineDone.load());
    QVERIFY(!release.load());
    release = true;
    others.reset();  // waits for its own task
}

void TestReviewWorker::storeChangedReachesListeners() {
    QTemporaryDir dir;
    ReviewWorker worker{ReviewStore(dir.path())};
    QCOMPARE(worker.store().directory(), dir.path());
    QSignalSpy spy(&worker, &ReviewWorker::storeChanged);
    worker.notifyStoreChanged();
    QCOMPARE(spy.count(), 1);
}

QTEST_GUILESS_MAIN(TestReviewWorker)
#include "tst_reviewworker.moc"
