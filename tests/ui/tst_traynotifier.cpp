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

    // A backend call refused for its folder is said once a minute per message; every other result says nothing.
    void callErrorsAboutTheFolderAreNoticed() {
        TrayNotifier notifier(m_tray.get());
        QSignalSpy shown(&notifier, &TrayNotifier::shown);
        zeus::ToolResultMessage result;
        result.status = zeus::ExecStatus::Error;
        result.errorCode = zeus::ProtocolErrorCode::WorkspaceInvalid;
        result.errorMessage = QStringLiteral("/home/ana/gone does not exist");
        notifier.notifyCallError(result);
        notifier.notifyCallError(result);  // a backend retrying in a loop
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.last().at(0).toString(), QStringLiteral("Folder no longer exists"));
        QVERIFY(shown.last().at(2).toBool());

        result.errorCode = zeus::ProtocolErrorCode::WorkspaceNotApproved;
        result.errorMessage = QStringLiteral("/home/ana/other is not approved");
        notifier.notifyCallError(result);
        QCOMPARE(shown.size(), 2);
        QCOMPARE(shown.last().at(0).toString(), QStringLiteral("Folder not approved"));
        QVERIFY(shown.last().at(1).toString().startsWith(result.errorMessage + QLatin1Char('\n')));

        result.errorCode = zeus::ProtocolErrorCode::ContainerFailed;  // said by the sandbox, not here
        notifier.notifyCallError(result);
        result.status = zeus::ExecStatus::Ok;
        result.errorCode = zeus::ProtocolErrorCode::WorkspaceInvalid;
        result.errorMessage = QStringLiteral("a new message");
        notifier.notifyCallError(result);
        QCOMPARE(shown.size(), 2);
    }

    void approvalQuestionsAreLimitedPerFolder() {
        TrayNotifier notifier(m_tray.get());
        QSignalSpy shown(&notifier, &TrayNotifier::shown);
        zeus::ApprovalQuestion question;
        question.folder = QStringLiteral("/home/ana/site");
        question.command = QStringLiteral("rm -rf build\n  && make");
        notifier.notifyApprovalQuestion(question);
        question.command = QStringLiteral("git push");
        notifier.notifyApprovalQuestion(question);  // same folder within the minute: the dialog queues it
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.first().at(1).toString(), QStringLiteral("rm -rf build && make\nin /home/ana/site"));
        QVERIFY(!shown.first().at(2).toBool());
        question.folder = QStringLiteral("/home/ana/other");
        notifier.notifyApprovalQuestion(question);
        QCOMPARE(shown.size(), 2);
    }
};

QTEST_MAIN(TestTrayNotifier)
#include "tst_traynotifier.moc"
