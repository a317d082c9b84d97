// RecentErrors: the support report's ring of the errors met lately, newest last, bounded, with UTC times.
#include "support/recenterrors.h"

#include <QtTest>

using zeus::RecentErrors;

class TestRecentErrors : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void keepsTheNewestWithTheirTime() {
        RecentErrors errors(3);
        const QDateTime start(QDate(2026, 12, 2), QTime(10, 0, 0), Qt::UTC);
        for (int i = 1; i <= 5; ++i) {
            errors.record(QStringLiteral("error %1").arg(i), start.addSecs(i));
        }
        QCOMPARE(errors.lines(), QStringList({QStringLiteral("2026-12-02T10:00:03Z  error 3"),
                                              QStringLiteral("2026-12-02T10:00:04Z  error 4"),
                                              QStringLiteral("2026-12-02T10:00:05Z  error 5")}));
    }

    void emptyMessagesAndLocalTimes() {
        RecentErrors errors;
        QCOMPARE(errors.limit(), RecentErrors::kDefaultLimit);
        errors.record(QString());
        QVERIFY(errors.lines().isEmpty());
        // A local time is written in UTC, so reports from different machines compare.
        const QDateTime local(QDate(2026, 12, 2), QTime(12, 0, 0), Qt::OffsetFromUTC, 2 * 3600);
        errors.record(QStringLiteral("x"), local);
        QCOMPARE(errors.lines(), QStringList{QStringLiteral("2026-12-02T10:00:00Z  x")});
    }
};

QTEST_GUILESS_MAIN(TestRecentErrors)
#include "tst_recenterrors.moc"
