// ReconnectPolicy: 1 s, x2, capped at 60 s, +/-20 % jitter, reset after a connection that held a minute.
#include "backend/reconnectpolicy.h"

#include <QtTest>

using zeus::ReconnectPolicy;

class TestReconnectPolicy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void baseDelay_data();
    void baseDelay();
    void jitter_data();
    void jitter();
    void sequenceWithoutJitter();
    void jitterStaysInBounds();
    void resetAfterStableConnection_data();
    void resetAfterStableConnection();
    void defaultsMatchSpec();
};

void TestReconnectPolicy::baseDelay_data() {
    QTest::addColumn<int>("attempt");
    QTest::addColumn<qint64>("delay");
    const qint64 expected[] = {1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000};
    for (int i = 0; i < int(std::size(expected)); ++i)
        QTest::addRow("attempt %d", i) << i << expected[i];
    QTest::newRow("attempt 1000 (no overflow)") << 1000 << qint64(60000);
    QTest::newRow("attempt 100000 (no overflow)") << 100000 << qint64(60000);
}

void TestReconnectPolicy::baseDelay() {
    QFETCH(int, attempt);
    QFETCH(qint64, delay);
    QCOMPARE(ReconnectPolicy::baseDelayMs(ReconnectPolicy::Settings{}, attempt), delay);
}

void TestReconnectPolicy::jitter_data() {
    QTest::addColumn<qint64>("base");
    QTest::addColumn<double>("random");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("lowest") << qint64(1000) << 0.0 << qint64(800);
    QTest::newRow("middle") << qint64(1000) << 0.5 << qint64(1000);
    QTest::newRow("almost highest") << qint64(1000) << 0.999999 << qint64(1200);
    QTest::newRow("quarter") << qint64(60000) << 0.25 << qint64(54000);
    QTest::newRow("cap highest") << qint64(60000) << 1.0 << qint64(72000);
    QTest::newRow("out of range random clamped") << qint64(1000) << 7.0 << qint64(1200);
    QTest::newRow("zero base") << qint64(0) << 0.9 << qint64(0);
}

void TestReconnectPolicy::jitter() {
    QFETCH(qint64, base);
    QFETCH(double, random);
    QFETCH(qint64, expected);
    QCOMPARE(ReconnectPolicy::jittered(base, 0.2, random), expected);
}

void TestReconnectPolicy::sequenceWithoutJitter() {
    ReconnectPolicy policy({}, [] { return 0.5; });
    QList<qint64> delays;
    for (int i = 0; i < 9; ++i)
        delays.append(policy.nextDelayMs());
    QCOMPARE(delays, (QList<qint64>{1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000}));
    QCOMPARE(policy.attempts(), 9);
}

void TestReconnectPolicy::jitterStaysInBounds() {
    // With the real random source every delay is within +/-20 % of its base, and they are not all equal.
    ReconnectPolicy policy;
    QSet<qint64> seen;
    for (int i = 0; i < 200; ++i) {
        policy.reset();
        const qint64 delay = policy.nextDelayMs();
        QVERIFY2(delay >= 800 && delay <= 1200, qPrintable(QString::number(delay)));
        seen.insert(delay);
    }
    QVERIFY(seen.size() > 10);
}

void TestReconnectPolicy::resetAfterStableConnection_data() {
    QTest::addColumn<qint64>("heldMs");
    QTest::addColumn<qint64>("nextDelay");
    QTest::newRow("dropped at once") << qint64(0) << qint64(8000);
    QTest::newRow("held 59.999 s") << qint64(59999) << qint64(8000);
    QTest::newRow("held 60 s") << qint64(60000) << qint64(1000);
    QTest::newRow("held an hour") << qint64(3600000) << qint64(1000);
}

void TestReconnectPolicy::resetAfterStableConnection() {
    QFETCH(qint64, heldMs);
    QFETCH(qint64, nextDelay);
    ReconnectPolicy policy({}, [] { return 0.5; });
    policy.nextDelayMs();
    policy.nextDelayMs();
    policy.nextDelayMs();
    policy.connectionEnded(heldMs);
    QCOMPARE(policy.nextDelayMs(), nextDelay);
}

void TestReconnectPolicy::defaultsMatchSpec() {
    const ReconnectPolicy::Settings s;
    QCOMPARE(s.initialDelayMs, qint64(1000));
    QCOMPARE(s.factor, 2.0);
    QCOMPARE(s.maxDelayMs, qint64(60000));
    QCOMPARE(s.jitter, 0.2);
    QCOMPARE(s.stableAfterMs, qint64(60000));
}

QTEST_GUILESS_MAIN(TestReconnectPolicy)
#include "tst_reconnectpolicy.moc"
