// CallQueue (SPEC §3 "Bounded, and queued rather than refused"): FIFO per session, round-robin across sessions, the
// two bounds, taking out one call, a session or everything. Plain data: no container, no event loop.
#include "sandbox/callqueue.h"

#include <QtTest>

using namespace zeus;

class TestCallQueue : public QObject {
    Q_OBJECT

    static ExecRequest call(const QString& sessionId, const QString& callId) {
        ExecRequest request;
        request.callId = callId;
        request.sessionId = sessionId;
        request.workspace = QStringLiteral("/ws");
        request.command = QStringLiteral("true");
        return request;
    }

    // Pushes "s:c" words (session s, call c), expecting each to be queued.
    static void pushAll(CallQueue& queue, const QStringList& words) {
        for (const QString& word : words) {
            const QStringList parts = word.split(u':');
            QCOMPARE(queue.push(call(parts.at(0), parts.at(1))), CallQueue::Refusal::None);
        }
    }

    // Takes calls while any may start, and returns their ids in order.
    static QStringList drain(CallQueue& queue, const std::function<bool(const QString&)>& mayStart = {}) {
        QStringList order;
        while (auto next = queue.takeNext(mayStart ? mayStart : [](const QString&) { return true; })) {
            order << next->callId;
        }
        return order;
    }

    // "a:1 a:2" -> {"a:1", "a:2"}: table rows stay readable.
    static QStringList w(const char* words) {
        return QString::fromLatin1(words).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    }

private Q_SLOTS:
    void fifoPerSession() {
        CallQueue queue(64, 256);
        pushAll(queue, {QStringLiteral("a:1"), QStringLiteral("a:2"), QStringLiteral("a:3")});
        QCOMPARE(queue.size(), 3);
        QCOMPARE(queue.size(QStringLiteral("a")), 3);
        QCOMPARE(queue.position(QStringLiteral("1")), 1);
        QCOMPARE(queue.position(QStringLiteral("3")), 3);
        QCOMPARE(queue.position(QStringLiteral("nope")), 0);
        QCOMPARE(queue.head(QStringLiteral("a"))->callId, QStringLiteral("1"));
        QCOMPARE(drain(queue), (QStringList{QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}));
        QCOMPARE(queue.size(), 0);
        QVERIFY(queue.sessions().isEmpty());
        QVERIFY(!queue.head(QStringLiteral("a")));
    }

    // The session served last goes to the end: a session with many waiting calls gets one slot in turn.
    void roundRobin_data() {
        QTest::addColumn<QStringList>("pushed");
        QTest::addColumn<QStringList>("order");
        QTest::newRow("one session") << w("a:1 a:2") << w("1 2");
        QTest::newRow("a burst, then one more session") << w("a:1 a:2 a:3 a:4 b:5") << w("1 5 2 3 4");
        QTest::newRow("three sessions interleave") << w("a:1 a:2 b:3 b:4 c:5") << w("1 3 5 2 4");
    }
    void roundRobin() {
        QFETCH(QStringList, pushed);
        QFETCH(QStringList, order);
        CallQueue queue(64, 256);
        pushAll(queue, pushed);
        QCOMPARE(drain(queue), order);
    }

    // A session that may not start (its own limit) is passed over and keeps its place; the others go on.
    void passedOverKeepsItsPlace() {
        CallQueue queue(64, 256);
        pushAll(queue, {QStringLiteral("a:1"), QStringLiteral("a:2"), QStringLiteral("b:3"), QStringLiteral("b:4")});
        QCOMPARE(drain(queue, [](const QString& s) { return s == QStringLiteral("b"); }),
                 (QStringList{QStringLiteral("3"), QStringLiteral("4")}));
        QCOMPARE(queue.sessions(), QStringList{QStringLiteral("a")});
        QCOMPARE(drain(queue, [](const QString&) { return false; }), QStringList());
        QCOMPARE(drain(queue), (QStringList{QStringLiteral("1"), QStringLiteral("2")}));
    }

    void bounds() {
        CallQueue queue(2, 3);
        pushAll(queue, {QStringLiteral("a:1"), QStringLiteral("a:2")});
        QCOMPARE(queue.push(call(QStringLiteral("a"), QStringLiteral("3"))), CallQueue::Refusal::SessionFull);
        QVERIFY(!queue.contains(QStringLiteral("3")));
        pushAll(queue, {QStringLiteral("b:4")});
        QCOMPARE(queue.push(call(QStringLiteral("c"), QStringLiteral("5"))), CallQueue::Refusal::TotalFull);
        QCOMPARE(queue.push(call(QStringLiteral("b"), QStringLiteral("6"))), CallQueue::Refusal::TotalFull);
        QCOMPARE(queue.size(), 3);
        QCOMPARE(queue.sessions(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
        // Room again once one is taken.
        QVERIFY(queue.takeNext([](const QString&) { return true; }));
        QCOMPARE(queue.push(call(QStringLiteral("c"), QStringLiteral("5"))), CallQueue::Refusal::None);
    }

    // Cancel of a waiting call: it goes, those behind it move up, its session leaves with its last call.
    void removeOne() {
        CallQueue queue(64, 256);
        pushAll(queue, {QStringLiteral("a:1"), QStringLiteral("a:2"), QStringLiteral("a:3"), QStringLiteral("b:4")});
        const auto removed = queue.remove(QStringLiteral("2"));
        QVERIFY(removed);
        QCOMPARE(removed->sessionId, QStringLiteral("a"));
        QCOMPARE(queue.position(QStringLiteral("3")), 2);
        QVERIFY(!queue.remove(QStringLiteral("2")));
        QVERIFY(queue.remove(QStringLiteral("4")));
        QCOMPARE(queue.sessions(), QStringList{QStringLiteral("a")});
        QCOMPARE(queue.size(), 2);
        QCOMPARE(drain(queue), (QStringList{QStringLiteral("1"), QStringLiteral("3")}));
    }

    // A session that ends takes its calls with it, in order; nothing of it is left (memory does not grow with ids).
    void takeSessionForgetsIt() {
        CallQueue queue(64, 256);
        pushAll(queue, {QStringLiteral("a:1"), QStringLiteral("b:2"), QStringLiteral("a:3")});
        const QList<ExecRequest> taken = queue.takeSession(QStringLiteral("a"));
        QCOMPARE(taken.size(), 2);
        QCOMPARE(taken.at(0).callId, QStringLiteral("1"));
        QCOMPARE(taken.at(1).callId, QStringLiteral("3"));
        QVERIFY(!queue.contains(QStringLiteral("1")));
        QCOMPARE(queue.size(QStringLiteral("a")), 0);
        QCOMPARE(queue.sessions(), QStringList{QStringLiteral("b")});
        QVERIFY(queue.takeSession(QStringLiteral("unknown")).isEmpty());
        // A call id can wait again once it left.
        pushAll(queue, {QStringLiteral("a:1")});
        QCOMPARE(queue.takeAll().size(), 2);
        QCOMPARE(queue.size(), 0);
        QVERIFY(queue.sessions().isEmpty());
    }

    void manySessionsStayBounded() {
        CallQueue queue(4, 16);
        int refused = 0;
        for (int i = 0; i < 1000; ++i) {
            const QString id = QString::number(i);
            if (queue.push(call(QStringLiteral("s") + id, id)) != CallQueue::Refusal::None) {
                ++refused;
            }
            if (i % 2 == 1) {
                QVERIFY(queue.takeNext([](const QString&) { return true; }));
            }
        }
        QVERIFY(queue.size() <= 16);
        QVERIFY(queue.sessions().size() <= 16);
        QVERIFY(refused > 0);
        QCOMPARE(int(drain(queue).size()) + refused + 500, 1000);
    }
};

QTEST_GUILESS_MAIN(TestCallQueue)
#include "tst_callqueue.moc"
