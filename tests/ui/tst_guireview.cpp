// Review mode in the tray app, on a real Docker engine (SPEC §10): a review copy an earlier run kept is on the
// Changes page at start, with its change list and a diff read from the container; the Sessions table says it has
// changes to review; Apply All writes the unflagged change to the host folder and leaves the flagged one; Discard
// removes the container and the record. The records live in the app's data folder (a temporary XDG_DATA_HOME).
#include "../engine/sessionfixture.h"
#include "appoptions.h"
#include "appsettings.h"
#include "dashboard/dashboardwindow.h"
#include "guiservice.h"
#include "review/changelistmodel.h"
#include "review/reviewpanel.h"
#include "review/reviewstore.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "widgetlookup.h"

#include <QApplication>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace zeus;
using namespace zeus::test;

namespace {

bool writeFile(const QString& path, const QByteArray& data) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(data) == data.size();
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
}

QString allDiffText(QWidget* parent) {
    QString text;
    for (QPlainTextEdit* edit : parent->findChildren<QPlainTextEdit*>()) {
        text += edit->toPlainText();
    }
    return text;
}

}  // namespace

class TestGuiReview : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_owner;

    // An earlier run: a session in review mode runs `command` on `folder` and ends; its copy is kept with
    // `expectedCount` changes as the tray counts them.
    void keepCopyOfAnEarlierRun(const QString& folder, const QString& session, const QString& command,
                                int expectedCount) {
        m_owner = uniqueOwner();
        SandboxConfig config = testConfig(m_owner);
        config.folderWorkspaceModes.insert(folder, WorkspaceMode::Review);
        SessionManager manager(ContainerRuntime::create(RuntimeKind::Docker), config);
        QSignalSpy kept(&manager, &SessionManager::reviewCopyKept);
        Recorder recorder(manager);
        const ExecResult done = recorder.run(session, folder, command, 0, 120000);
        QVERIFY2(done.status == ExecStatus::Ok && done.exitCode == 0,
                 qPrintable(done.errorMessage + recorder.stderrOf.value(done.callId)));
        manager.endSession(session);
        QTRY_COMPARE_WITH_TIMEOUT(kept.size(), 1, 60000);
        QCOMPARE(kept.first().at(2).toInt(), expectedCount);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");  // the keychain answers at once that it cannot be reached
        qunsetenv("ZEUS_DESKTOP_TOKEN");
    }

    void cleanup() {
        if (!m_owner.isEmpty()) {
            removeContainersOf(QStringLiteral("docker"), m_owner);
        }
    }

    void keptCopyIsReviewedAndApplied() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const QString ws = QDir(m_dir.path()).filePath(QStringLiteral("project"));
        QVERIFY(QDir().mkpath(ws));
        QVERIFY(writeFile(ws + QStringLiteral("/text.txt"), "alpha\nbeta\ngamma\n"));
        QVERIFY(writeFile(ws + QStringLiteral("/Makefile"), "all:\n\ttrue\n"));
        const QString folder = QFileInfo(ws).canonicalFilePath();
        const ReviewStore store;  // the app's own folder, under this test's XDG_DATA_HOME
        QVERIFY2(store.directory().startsWith(m_dir.path()), qPrintable(store.directory()));

        // An earlier run: a session in review mode changes two files and ends; its copy is kept.
        const QString session = QStringLiteral("gui-review-session");
        keepCopyOfAnEarlierRun(
            folder, session,
            QStringLiteral("sed -i s/beta/BETA/ text.txt && printf 'all:\\n\\tcurl x | sh\\n' > Makefile"), 2);
        if (QTest::currentTestFailed()) {
            return;
        }
        QVERIFY(store.record(session));
        QCOMPARE(readFile(folder + QStringLiteral("/text.txt")), QByteArray("alpha\nbeta\ngamma\n"));

        // The tray app starts: the copy is on the Changes page, its list and a diff come from the container.
        AppSettings settings(m_dir.filePath(QStringLiteral("settings.ini")));
        settings.setRuntimePreference(QStringLiteral("docker"));
        settings.setImage(testImage());
        QVERIFY(settings.approveWorkspace(folder));
        AppOptions options;
        GuiService gui(options, &settings);
        gui.start();
        DashboardWindow* window = topLevel<DashboardWindow>();
        QVERIFY(window);
        ReviewPanel* panel = window->reviewPanel();
        QVERIFY(panel);
        window->showPage(DashboardWindow::Page::Changes);
        QCOMPARE(panel->currentSession(), session);
        QTRY_COMPARE_WITH_TIMEOUT(panel->changeModel()->rowCount(), 2, 60000);
        const SessionTableModel* table = window->sessionsPanel()->model();
        QTRY_VERIFY(table->rowOf(session) >= 0);
        QString stateText;
        for (int column = 0; column < table->columnCount(); ++column) {
            stateText += table->index(table->rowOf(session), column).data().toString() + QLatin1Char('|');
        }
        QVERIFY2(stateText.contains(QStringLiteral("Changes to review (2 files)")), qPrintable(stateText));
        // The first change is selected, and its diff is read from the container.
        QTRY_VERIFY_WITH_TIMEOUT(allDiffText(panel).contains(QStringLiteral("@@")), 30000);

        // Apply All: text.txt lands; the Makefile (make runs it) needs its own confirmation and stays.
        QPushButton* applyAll = buttonNamed(panel, QStringLiteral("Apply All"));
        QVERIFY(applyAll);
        QTRY_VERIFY(applyAll->isEnabled());
        applyAll->click();
        QTRY_COMPARE_WITH_TIMEOUT(readFile(folder + QStringLiteral("/text.txt")), QByteArray("alpha\nBETA\ngamma\n"),
                                  60000);
        QTRY_COMPARE_WITH_TIMEOUT(panel->changeModel()->rowCount(), 1, 60000);
        QCOMPARE(readFile(folder + QStringLiteral("/Makefile")), QByteArray("all:\n\ttrue\n"));

        // Discard, confirmed: the container and the record go.
        const QString containerId = store.record(session)->containerId;
        QPushButton* discard = buttonNamed(panel, QStringLiteral("Discard Copy…"));
        QVERIFY(discard);
        QTRY_VERIFY(discard->isEnabled());
        discard->click();
        QMessageBox* question = nullptr;
        QTRY_VERIFY((question = panel->findChild<QMessageBox*>()) != nullptr
                    || (question = window->findChild<QMessageBox*>()) != nullptr);
        QAbstractButton* yes = nullptr;
        for (QAbstractButton* candidate : question->buttons()) {
            if (question->buttonRole(candidate) == QMessageBox::AcceptRole
                || question->buttonRole(candidate) == QMessageBox::DestructiveRole
                || question->buttonRole(candidate) == QMessageBox::YesRole) {
                yes = candidate;
            }
        }
        QVERIFY(yes);
        yes->click();
        QTRY_VERIFY_WITH_TIMEOUT(!store.record(session), 60000);
        const ProcessOutput inspect = runProgram(QStringLiteral("docker"), {QStringLiteral("inspect"), containerId});
        QVERIFY(inspect.exitCode != 0);  // gone
        QCOMPARE(readFile(folder + QStringLiteral("/Makefile")), QByteArray("all:\n\ttrue\n"));
    }

    // A git repository: the agent commits; the tray counts the repository as one change, Apply All writes the file
    // and brings the commit into refs/zeus/<session>/, and the line under the summary says where.
    void commitsComeHomeInTheTrayApp() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const QString ws = QDir(m_dir.path()).filePath(QStringLiteral("repository"));
        QVERIFY(QDir().mkpath(ws));
        QVERIFY(writeFile(ws + QStringLiteral("/text.txt"), "alpha\n"));
        const QString folder = QFileInfo(ws).canonicalFilePath();
        const auto git = [&folder](const QStringList& arguments) {
            return runProgram(QStringLiteral("git"), QStringList{QStringLiteral("-C"), folder, QStringLiteral("-c"),
                                                                 QStringLiteral("user.name=User"), QStringLiteral("-c"),
                                                                 QStringLiteral("user.email=user@example.org")}
                                                         + arguments);
        };
        QCOMPARE(
            git({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")}).exitCode,
            0);
        QCOMPARE(git({QStringLiteral("add"), QStringLiteral(".")}).exitCode, 0);
        QCOMPARE(
            git({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("one")}).exitCode,
            0);
        const ReviewStore store;
        const QString session = QStringLiteral("gui-commits-session");
        // text.txt, and the repository as one
        keepCopyOfAnEarlierRun(folder, session,
                               QStringLiteral("echo beta >> text.txt && git -c user.name=Agent -c "
                                              "user.email=agent@example.org commit -q -am 'Add beta'"),
                               2);
        if (QTest::currentTestFailed()) {
            return;
        }

        AppSettings settings(m_dir.filePath(QStringLiteral("settings-commits.ini")));
        settings.setRuntimePreference(QStringLiteral("docker"));
        settings.setImage(testImage());
        QVERIFY(settings.approveWorkspace(folder));
        AppOptions options;
        GuiService gui(options, &settings);
        gui.start();
        DashboardWindow* window = topLevel<DashboardWindow>();
        QVERIFY(window);
        ReviewPanel* panel = window->reviewPanel();
        window->showPage(DashboardWindow::Page::Changes);
        panel->showSession(session);
        QTRY_COMPARE_WITH_TIMEOUT(panel->currentSession(), session, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(panel->changeModel()->rowCount() > 2, 60000);  // text.txt and .git's entries
        QPushButton* applyAll = buttonNamed(panel, QStringLiteral("Apply All"));
        QVERIFY(applyAll);
        QTRY_VERIFY(applyAll->isEnabled());
        applyAll->click();
        auto* commits = panel->findChild<QLabel*>(QStringLiteral("applyCommits"));
        QVERIFY(commits);
        const QString prefix = QStringLiteral("refs/zeus/") + session + QLatin1Char('/');
        QTRY_VERIFY_WITH_TIMEOUT(
            commits->isVisible() && commits->text().contains(prefix + QStringLiteral("heads/main")), 60000);
        QCOMPARE(readFile(folder + QStringLiteral("/text.txt")), QByteArray("alpha\nbeta\n"));
        QCOMPARE(git({QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s"),
                      prefix + QStringLiteral("heads/main")})
                     .out,
                 QByteArray("Add beta\n"));
        QCOMPARE(git({QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s")}).out,
                 QByteArray("one\n"));  // the user's branch is untouched
        // The file applied and the commit home: nothing is left in the list.
        QTRY_COMPARE_WITH_TIMEOUT(panel->changeModel()->rowCount(), 0, 60000);
        const QByteArray shots = qgetenv("ZEUS_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            window->resize(1100, 700);
            QTest::qWait(200);
            QVERIFY(window->grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/changes-view-commits.png")));
        }
    }
};

QTEST_MAIN(TestGuiReview)
#include "tst_guireview.moc"
