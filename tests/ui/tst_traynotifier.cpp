// TrayNotifier: the tray app's notification policy. Limited notices are shown once a minute per key, a network
// denial once a minute per session, host and port, and a click opens the page of the newest notice that has one
// (a denial or changes to review), only within its window.
#include "appsettings.h"
#include "tray/trayicon.h"
#include "tray/traynotifier.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using zeus::EgressEvent;
using zeus::TrayNotifier;

namespace {

EgressEvent denial(const QString& session, const QString& host, int port) {
    EgressEvent event;
    event.sessionId = session;
    event.host = host;
    event.port = port;
    event.rule = QStringLiteral("not in the allowlist");
    return event;
}

}  // namespace

class TestTrayNotifier : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<zeus::AppSettings> m_settings;
    std::unique_ptr<zeus::TrayIcon> m_tray;

private Q_SLOTS:
    void init() {
        QVERIFY(m_dir.isValid());
        m_settings = std::make_unique<zeus::AppSettings>(m_dir.filePath(QStringLiteral("settings.ini")));
        m_tray = std::make_unique<zeus::TrayIcon>(m_settings.get());
    }

    void clickOpensTheNewestNoticeWithAPage() {
        TrayNotifier notifier(m_tray.get());
        QSignalSpy denied(&notifier, &TrayNotifier::deniedNoticeClicked);
        QSignalSpy review(&notifier, &TrayNotifier::reviewNoticeClicked);

        notifier.handleClick();  // nothing shown yet: nothing opens
        QCOMPARE(denied.size() + review.size(), 0);

        notifier.notifyDenied(denial(QStringLiteral("s1"), QStringLiteral("evil.example"), 443));
        notifier.handleClick();
        QCOMPARE(denied.size(), 1);
        QCOMPARE(denied.first().first().value<EgressEvent>().host, QStringLiteral("evil.example"));

        notifier.notifyReviewCopy(QStringLiteral("s2"), QStringLiteral("/home/ana/site"), 3);
        notifier.handleClick();
        QCOMPARE(review.size(), 1);
        QCOMPARE(review.first().first().toString(), QStringLiteral("s2"));

        // A review copy without changes says nothing, so the newest notice stays the review above.
        notifier.notifyReviewCopy(QStringLiteral("s3"), QStringLiteral("/home/ana/site"), 0);
        notifier.handleClick();
        QCOMPARE(review.size(), 2);
        QCOMPARE(review.last().first().toString(), QStringLiteral("s2"));
    }

    void deniedIsLimitedPerSessionHostAndPort() {
        TrayNotifier notifier(m_tray.get());
        QSignalSpy denied(&notifier, &TrayNotifier::deniedNoticeClicked);
        notifier.notifyDenied(denial(QStringLiteral("s1"), QStringLiteral("a.example"), 443));
        // The same host again within the minute is not shown, so a click still opens the first one...
        notifier.notifyDenied(denial(QStringLiteral("s1"), QStringLiteral("a.example"), 443));
        notifier.handleClick();
        QCOMPARE(denied.last().first().value<EgressEvent>().host, QStringLiteral("a.example"));
        // ...while another host, or the same host in another session, is.
        notifier.notifyDenied(denial(QStringLiteral("s1"), QStringLiteral("b.example"), 443));
        notifier.handleClick();
        QCOMPARE(denied.last().first().value<EgressEvent>().host, QStringLiteral("b.example"));
        notifier.notifyDenied(denial(QStringLiteral("s2"), QStringLiteral("a.example"), 443));
        notifier.handleClick();
        QCOMPARE(denied.last().first().value<EgressEvent>().sessionId, QStringLiteral("s2"));
        // An allowed connection is no notice.
        EgressEvent allowed = denial(QStringLiteral("s3"), QStringLiteral("c.example"), 443);
        allowed.allowed = true;
        notifier.notifyDenied(allowed);
        notifier.handleClick();
        QCOMPARE(denied.last().first().value<EgressEvent>().sessionId, QStringLiteral("s2"));
    }
};

QTEST_MAIN(TestTrayNotifier)
#include "tst_traynotifier.moc"
