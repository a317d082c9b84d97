// ResultStore: bounded by count and bytes, oldest dropped first, never the newest; acks forget results and are
// remembered (bounded) so a repeated call_id is recognised.
#include "backend/resultstore.h"

#include <QtTest>

using zeus::ResultStore;
using zeus::ToolResultMessage;

namespace {

ToolResultMessage resultOf(const QString& callId, int outputChars) {
    ToolResultMessage result;
    result.callId = callId;
    result.output = QString(outputChars, QLatin1Char('x'));
    return result;
}

// "c0 c1" -> {"c0", "c1"}
QStringList ids(const char* list) {
    return QString::fromLatin1(list).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

}  // namespace

class TestResultStore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bounds_data() {
        QTest::addColumn<int>("maxResults");
        QTest::addColumn<qint64>("maxBytes");
        QTest::addColumn<QList<int>>("outputChars");  // one result per entry: c0, c1, ...
        QTest::addColumn<QStringList>("kept");
        QTest::addColumn<QStringList>("dropped");

        const qint64 big = 1LL << 40;
        QTest::newRow("under both bounds") << 3 << big << QList<int>{1, 2, 3} << ids("c0 c1 c2") << ids("");
        QTest::newRow("count bound drops the oldest")
            << 2 << big << QList<int>{1, 1, 1, 1} << ids("c2 c3") << ids("c0 c1");
        const qint64 w = ResultStore::weight(resultOf(QStringLiteral("c"), 1000));
        QTest::newRow("byte bound drops the oldest")
            << 100 << 2 * w << QList<int>{1000, 1000, 1000} << ids("c1 c2") << ids("c0");
        QTest::newRow("a huge newest result is kept alone")
            << 100 << 2 * w << QList<int>{1000, 1000, 100000} << ids("c2") << ids("c0 c1");
        QTest::newRow("count of one") << 1 << big << QList<int>{5, 6} << ids("c1") << ids("c0");
        QTest::newRow("nonsense count behaves as one") << 0 << big << QList<int>{5, 6} << ids("c1") << ids("c0");
    }

    void bounds() {
        QFETCH(int, maxResults);
        QFETCH(qint64, maxBytes);
        QFETCH(QList<int>, outputChars);
        QFETCH(QStringList, kept);
        QFETCH(QStringList, dropped);

        ResultStore::Limits limits;
        limits.maxResults = maxResults;
        limits.maxBytes = maxBytes;
        ResultStore store(limits);
        QStringList allDropped;
        for (int i = 0; i < outputChars.size(); ++i) {
            allDropped += store.add(resultOf(QStringLiteral("c%1").arg(i), outputChars.at(i)));
            QVERIFY(store.contains(QStringLiteral("c%1").arg(i)));  // the newest is always kept
        }
        QCOMPARE(store.pendingIds(), kept);
        QCOMPARE(allDropped, dropped);
        qint64 expectedBytes = 0;
        for (const ToolResultMessage& r : store.pending()) {
            expectedBytes += ResultStore::weight(r);
        }
        QCOMPARE(store.bytes(), expectedBytes);
    }

    void replacingKeepsOneEntry() {
        ResultStore store;
        store.add(resultOf(QStringLiteral("a"), 10));
        store.add(resultOf(QStringLiteral("b"), 10));
        ToolResultMessage again = resultOf(QStringLiteral("a"), 20);
        again.exitCode = 7;
        store.add(again);
        QCOMPARE(store.pendingIds(), (QStringList{QStringLiteral("b"), QStringLiteral("a")}));
        QCOMPARE(store.result(QStringLiteral("a"))->exitCode, std::optional<int>(7));
        QCOMPARE(store.bytes(), ResultStore::weight(resultOf(QStringLiteral("b"), 10)) + ResultStore::weight(again));
    }

    void acknowledgeForgetsAndRemembers() {
        ResultStore store;
        store.add(resultOf(QStringLiteral("a"), 10));
        store.add(resultOf(QStringLiteral("b"), 10));
        QVERIFY(store.acknowledge(QStringLiteral("a")));
        QVERIFY(!store.contains(QStringLiteral("a")));
        QVERIFY(store.wasAcknowledged(QStringLiteral("a")));
        QCOMPARE(store.pendingIds(), QStringList{QStringLiteral("b")});
        QCOMPARE(store.bytes(), ResultStore::weight(resultOf(QStringLiteral("b"), 10)));
        // A second ack, or an ack of something never kept: false, nothing remembered for the unknown one.
        QVERIFY(!store.acknowledge(QStringLiteral("a")));
        QVERIFY(!store.acknowledge(QStringLiteral("never")));
        QVERIFY(!store.wasAcknowledged(QStringLiteral("never")));
        QVERIFY(!store.result(QStringLiteral("a")).has_value());
    }

    void acknowledgedIdsAreBounded() {
        ResultStore::Limits limits;
        limits.maxAcknowledged = 3;
        ResultStore store(limits);
        for (int i = 0; i < 5; ++i) {
            const QString id = QStringLiteral("c%1").arg(i);
            store.add(resultOf(id, 1));
            QVERIFY(store.acknowledge(id));
        }
        QVERIFY(!store.wasAcknowledged(QStringLiteral("c0")));
        QVERIFY(!store.wasAcknowledged(QStringLiteral("c1")));
        QVERIFY(store.wasAcknowledged(QStringLiteral("c2")));
        QVERIFY(store.wasAcknowledged(QStringLiteral("c4")));
        QCOMPARE(store.size(), 0);
        QCOMPARE(store.bytes(), 0);
    }
};

QTEST_GUILESS_MAIN(TestResultStore)
#include "tst_resultstore.moc"
