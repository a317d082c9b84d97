#include "support/ratelimiter.h"

#include <QTest>

using namespace zeus;

class TestRateLimiter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sequence_data();
    void sequence();
    void boundedByCapacity();
};

namespace {
const QDateTime kStart = QDateTime(QDate(2026, 1, 1), QTime(12, 0), Qt::UTC);
}

void TestRateLimiter::sequence_data() {
    // Events as "key@ms" (milliseconds after the start); the expected answers as a string of 1 (shown) and 0.
    QTest::addColumn<QStringList>("events");
    QTest::addColumn<QString>("expected");
    QTest::newRow("first is shown") << QStringList{QStringLiteral("a@0")} << QStringLiteral("1");
    QTest::newRow("repeat within window")
        << QStringList{QStringLiteral("a@0"), QStringLiteral("a@1000"), QStringLiteral("a@59999")}
        << QStringLiteral("100");
    QTest::newRow("after the window") << QStringList{QStringLiteral("a@0"), QStringLiteral("a@60000"),
                                                     QStringLiteral("a@60001")}
                                      << QStringLiteral("110");
    QTest::newRow("keys are independent")
        << QStringList{QStringLiteral("a@0"), QStringLiteral("b@1"), QStringLiteral("a@2"), QStringLiteral("b@3")}
        << QStringLiteral("1100");
    QTest::newRow("a suppressed event does not extend the window")
        << QStringList{QStringLiteral("a@0"), QStringLiteral("a@50000"), QStringLiteral("a@60000")}
        << QStringLiteral("101");
    QTest::newRow("clock went back") << QStringList{QStringLiteral("a@60000"), QStringLiteral("a@0")}
                                     << QStringLiteral("11");
    QTest::newRow("a retry loop of 1000 calls") << [] {
        QStringList events;
        for (int i = 0; i < 1000; ++i) {
            events << QStringLiteral("folder@%1").arg(i * 10);
        }
        return events;
    }() << QStringLiteral("1") + QString(999, QLatin1Char('0'));
}

void TestRateLimiter::sequence() {
    QFETCH(QStringList, events);
    QFETCH(QString, expected);
    RateLimiter limiter(60000, 16);
    QString answers;
    for (const QString& event : events) {
        const QString key = event.section(QLatin1Char('@'), 0, 0);
        const qint64 ms = event.section(QLatin1Char('@'), 1).toLongLong();
        answers += limiter.allow(key, kStart.addMSecs(ms)) ? QLatin1Char('1') : QLatin1Char('0');
    }
    QCOMPARE(answers, expected);
}

void TestRateLimiter::boundedByCapacity() {
    RateLimiter limiter(60000, 8);
    for (int i = 0; i < 1000; ++i) {
        QVERIFY(limiter.allow(QStringLiteral("k%1").arg(i), kStart.addMSecs(i)));
        QVERIFY(limiter.size() <= 8);
    }
    // The most recent keys are still remembered; the oldest were dropped to make room.
    QVERIFY(!limiter.allow(QStringLiteral("k999"), kStart.addMSecs(1000)));
    QVERIFY(limiter.allow(QStringLiteral("k0"), kStart.addMSecs(1001)));
}

QTEST_GUILESS_MAIN(TestRateLimiter)
#include "tst_ratelimiter.moc"
