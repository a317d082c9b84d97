// The sessions table and per-session logs: rows from SessionManager's signals, output
// routed by call id to the right session's log, result lines, Stop.
#include "sessions/sessionlogview.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"

#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using zeus::ExecResult;
using zeus::ExecStatus;
using zeus::OutputStream;
using zeus::SessionLogEntry;
using zeus::SessionsPanel;
using zeus::SessionState;
using zeus::SessionTableModel;

namespace {

QString cell(const SessionTableModel* model, int row, int column) {
    return model->data(model->index(row, column)).toString();
}

}  // namespace

class TestSessionsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void resultSummary_data();
    void resultSummary();
    void tableFollowsSessions();
    void outputGoesToItsSession();
    void stopAsksForTheSelectedSession();
    void publishedPortsShowWithTheirSession();
    void changesToReviewShowWhileStopped();
    void screenshot();
};

void TestSessionsPanel::resultSummary_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("exitCode");  // -1: none
    QTest::addColumn<qint64>("durationMs");
    QTest::addColumn<bool>("truncated");
    QTest::addColumn<QString>("expected");
    QTest::newRow("ok") << int(ExecStatus::Ok) << 0 << qint64(12) << false << QStringLiteral("exit 0 · 12 ms");
    QTest::newRow("nonzero, seconds") << int(ExecStatus::Ok) << 2 << qint64(1240) << false
                                      << QStringLiteral("exit 2 · 1.2 s");
    QTest::newRow("truncated") << int(ExecStatus::Ok) << 0 << qint64(5) << true
                               << QStringLiteral("exit 0 · 5 ms · output truncated");
    QTest::newRow("timeout") << int(ExecStatus::Timeout) << -1 << qint64(600000) << false
                             << QStringLiteral("timed out after 10 min 0 s");
    QTest::newRow("cancelled") << int(ExecStatus::Cancelled) << -1 << qint64(3000) << false
                               << QStringLiteral("cancelled after 3.0 s");
}

void TestSessionsPanel::resultSummary() {
    QFETCH(int, status);
    QFETCH(int, exitCode);
    QFETCH(qint64, durationMs);
    QFETCH(bool, truncated);
    QFETCH(QString, expected);
    ExecResult result;
    result.status = static_cast<ExecStatus>(status);
    if (exitCode >= 0) {
        result.exitCode = exitCode;
    }
    result.durationMs = durationMs;
    result.truncated = truncated;
    QCOMPARE(SessionsPanel::resultSummary(result), expected);

    ExecResult failed;
    failed.status = ExecStatus::Error;
    failed.errorCode = zeus::ExecError::ImageMissing;
    failed.errorMessage = QStringLiteral("build it");
    QCOMPARE(SessionsPanel::resultSummary(failed), QStringLiteral("failed (image_missing): build it"));
}

void TestSessionsPanel::tableFollowsSessions() {
    SessionsPanel panel;
    SessionTableModel* model = panel.model();
    panel.noteCall(QStringLiteral("c1"), QStringLiteral("s1"), QStringLiteral("ls"), QStringLiteral("/w/site"));
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(cell(model, 0, SessionTableModel::SessionColumn), QStringLiteral("s1"));
    QCOMPARE(cell(model, 0, SessionTableModel::StateColumn), QStringLiteral("Stopped"));
    QCOMPARE(cell(model, 0, SessionTableModel::ContainerColumn), QStringLiteral("—"));
    QCOMPARE(cell(model, 0, SessionTableModel::WorkspaceColumn), QStringLiteral("/w/site"));

    panel.setSessionState(QStringLiteral("s1"), SessionState::Starting, QString());
    QCOMPARE(model->runningSessions(), 1);
    const QString id = QStringLiteral("0123456789abcdef0123456789abcdef");
    panel.setSessionState(QStringLiteral("s1"), SessionState::Running, id);
    QCOMPARE(cell(model, 0, SessionTableModel::StateColumn), QStringLiteral("Running"));
    QCOMPARE(cell(model, 0, SessionTableModel::ContainerColumn), QStringLiteral("0123456789ab"));
    QCOMPARE(model->data(model->index(0, SessionTableModel::ContainerColumn), Qt::ToolTipRole).toString(), id);

    SessionLogEntry entry;
    entry.kind = SessionLogEntry::Kind::Command;
    entry.exitCode = 3;
    panel.addLogEntry(QStringLiteral("s1"), entry);
    panel.addLogEntry(QStringLiteral("s1"), entry);
    QCOMPARE(cell(model, 0, SessionTableModel::CommandsColumn), QStringLiteral("2"));
    // Calls waiting in the session's queue (SPEC §3) show next to those run, until none waits.
    model->setQueuedCalls(QStringLiteral("s1"), 3);
    QCOMPARE(cell(model, 0, SessionTableModel::CommandsColumn), QStringLiteral("2 (+3 queued)"));
    model->setQueuedCalls(QStringLiteral("s1"), 0);
    QCOMPARE(cell(model, 0, SessionTableModel::CommandsColumn), QStringLiteral("2"));
    model->setQueuedCalls(QStringLiteral("no-such-session"), 5);
    QCOMPARE(model->rowOf(QStringLiteral("no-such-session")), -1);
    QCOMPARE(cell(model, 0, SessionTableModel::LastExitColumn), QStringLiteral("3"));
    entry.exitCode.reset();
    entry.status = ExecStatus::Timeout;
    panel.addLogEntry(QStringLiteral("s1"), entry);
    QCOMPARE(cell(model, 0, SessionTableModel::LastExitColumn), QStringLiteral("timeout"));

    QCOMPARE(cell(model, 0, SessionTableModel::CpuColumn), QStringLiteral("—"));
    model->setUsage(QStringLiteral("s1"), 12.5, 64 * 1024 * 1024);
    QCOMPARE(cell(model, 0, SessionTableModel::CpuColumn), QStringLiteral("12.5 %"));
    QVERIFY(cell(model, 0, SessionTableModel::MemoryColumn).startsWith(QStringLiteral("64")));

    // Engine stats name containers by short or full id.
    QVERIFY(model->setUsageForContainer(id.left(12), 50.0, 1024));
    QCOMPARE(cell(model, 0, SessionTableModel::CpuColumn), QStringLiteral("50.0 %"));
    QVERIFY(!model->setUsageForContainer(QStringLiteral("ffffffffffff"), 1.0, 1));
    QVERIFY(!model->setUsageForContainer(id.left(6), 1.0, 1));  // too short to be sure
    QVERIFY(SessionTableModel::sameContainer(id, id.left(12)));
    QVERIFY(!SessionTableModel::sameContainer(id.left(11), id));

    // The engine's events tell what the session state does not (yet).
    QVERIFY(model->applyContainerEvent(id, zeus::ContainerEvent::State::Exited, 137));
    QCOMPARE(cell(model, 0, SessionTableModel::StateColumn), QStringLiteral("Running · container: exited (137)"));
    QCOMPARE(cell(model, 0, SessionTableModel::CpuColumn), QStringLiteral("—"));
    QVERIFY(!model->applyContainerEvent(QStringLiteral("0000000000000000"), zeus::ContainerEvent::State::Removed, -1));
    QCOMPARE(SessionTableModel::containerStateText(zeus::ContainerEvent::State::Running, -1), QString());
    QCOMPARE(SessionTableModel::containerStateText(zeus::ContainerEvent::State::OutOfMemory, -1),
             QStringLiteral("out of memory"));

    panel.setSessionState(QStringLiteral("s1"), SessionState::Stopped, QString());
    QCOMPARE(cell(model, 0, SessionTableModel::StateColumn), QStringLiteral("Stopped"));  // the note is gone
    QCOMPARE(cell(model, 0, SessionTableModel::ContainerColumn), QStringLiteral("—"));
    QCOMPARE(cell(model, 0, SessionTableModel::CpuColumn), QStringLiteral("—"));
    QCOMPARE(model->runningSessions(), 0);
}

void TestSessionsPanel::outputGoesToItsSession() {
    SessionsPanel panel;
    panel.noteCall(QStringLiteral("a1"), QStringLiteral("A"), QStringLiteral("echo a"), QStringLiteral("/w"));
    panel.noteCall(QStringLiteral("b1"), QStringLiteral("B"), QStringLiteral("echo b"), QStringLiteral("/w"));
    panel.appendOutput(QStringLiteral("a1"), OutputStream::Stdout, QStringLiteral("from a\n"));
    panel.appendOutput(QStringLiteral("b1"), OutputStream::Stderr, QStringLiteral("from b\n"));
    panel.appendOutput(QStringLiteral("unknown"), OutputStream::Stdout, QStringLiteral("lost\n"));
    ExecResult done;
    done.callId = QStringLiteral("a1");
    done.sessionId = QStringLiteral("A");
    done.status = ExecStatus::Ok;
    done.exitCode = 0;
    done.durationMs = 7;
    panel.callFinished(done);
    // Output after the call finished is not routed anywhere.
    panel.appendOutput(QStringLiteral("a1"), OutputStream::Stdout, QStringLiteral("late\n"));

    zeus::SessionLogView* a = panel.logFor(QStringLiteral("A"));
    zeus::SessionLogView* b = panel.logFor(QStringLiteral("B"));
    a->flushAll();
    b->flushAll();
    QCOMPARE(a->model()->rowCount(), 3);
    QCOMPARE(a->model()->lineText(0), QStringLiteral("$ echo a"));
    QCOMPARE(a->model()->lineText(1), QStringLiteral("from a"));
    QCOMPARE(a->model()->lineText(2), QStringLiteral("exit 0 · 7 ms"));
    QCOMPARE(b->model()->rowCount(), 2);
    QCOMPARE(b->model()->lineKind(1), zeus::SessionLogModel::Kind::Stderr);

    // Container events show as notices.
    SessionLogEntry event;
    event.kind = SessionLogEntry::Kind::Event;
    event.message = QStringLiteral("Container created");
    panel.addLogEntry(QStringLiteral("B"), event);
    b->flushAll();
    QCOMPARE(b->model()->lineText(2), QStringLiteral("Container created"));
    QCOMPARE(panel.model()->data(panel.model()->index(1, SessionTableModel::CommandsColumn)).toInt(), 0);
}

// SPEC §10: a session whose review copy is kept says so while it does not run.
void TestSessionsPanel::changesToReviewShowWhileStopped() {
    SessionsPanel panel;
    SessionTableModel* model = panel.model();
    panel.setSessionState(QStringLiteral("r1"), SessionState::Running, QStringLiteral("0123456789abcdef"));
    model->setChangesToReview(QStringLiteral("r1"), QStringLiteral("/w/r"), 3);
    QCOMPARE(cell(model, 0, SessionTableModel::StateColumn), QStringLiteral("Running"));
    panel.setSessionState(QStringLiteral("r1"), SessionState::Stopped, QString());
    QCOMPARE(cell(model, 0, SessionTableModel::StateColumn), QStringLiteral("Changes to review (3 files)"));
    model->setChangesToReview(QStringLiteral("gone"), QStringLiteral("/w/g"), -1);  // from a run before this one
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(cell(model, model->rowOf(QStringLiteral("gone")), SessionTableModel::StateColumn),
             QStringLiteral("Changes to review"));
    QCOMPARE(cell(model, model->rowOf(QStringLiteral("gone")), SessionTableModel::WorkspaceColumn),
             QStringLiteral("/w/g"));
    model->clearChangesToReview(QStringLiteral("r1"));
    QCOMPARE(cell(model, 0, SessionTableModel::StateColumn), QStringLiteral("Stopped"));
}

void TestSessionsPanel::stopAsksForTheSelectedSession() {
    SessionsPanel panel;
    panel.noteCall(QStringLiteral("c"), QStringLiteral("S"), QStringLiteral("sleep 100"), QStringLiteral("/w"));
    auto* stop = panel.findChild<QPushButton*>(QStringLiteral("stopSession"));
    QCOMPARE(panel.selectedSession(), QStringLiteral("S"));  // the first session is selected
    QVERIFY(!stop->isEnabled());                             // no container yet
    panel.setSessionState(QStringLiteral("S"), SessionState::Running, QStringLiteral("abcdef1234567890"));
    QVERIFY(stop->isEnabled());
    QSignalSpy spy(&panel, &SessionsPanel::stopRequested);
    stop->click();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("S"));
}

void TestSessionsPanel::publishedPortsShowWithTheirSession() {
    SessionsPanel panel;
    panel.noteCall(QStringLiteral("c"), QStringLiteral("S"), QStringLiteral("npm run dev"), QStringLiteral("/w"));
    auto* openPort = panel.findChild<QPushButton*>(QStringLiteral("openPort"));
    auto* openInBrowser = panel.findChild<QPushButton*>(QStringLiteral("openInBrowser"));
    auto* label = panel.findChild<QLabel*>(QStringLiteral("sessionPorts"));
    QVERIFY(openPort && openInBrowser && label);
    QVERIFY(!openPort->isEnabled());  // no container: nothing to publish
    QVERIFY(!openInBrowser->isEnabled());
    panel.setSessionState(QStringLiteral("S"), SessionState::Running, QStringLiteral("abcdef1234567890"));
    QVERIFY(openPort->isEnabled());

    zeus::PublishedPorts::Port port;
    port.hostPort = 41873;
    port.containerPort = 8000;
    panel.setPorts(QStringLiteral("S"), {port});
    QVERIFY(openInBrowser->isEnabled());
    QVERIFY2(label->text().contains(QStringLiteral("href=\"http://127.0.0.1:41873/\"")), qPrintable(label->text()));
    QVERIFY(label->text().contains(QStringLiteral("8000")));
    QCOMPARE(panel.portsOf(QStringLiteral("S")).size(), 1);

    // Open Port… asks for the container's port; the answer is the request.
    QSignalSpy asked(&panel, &SessionsPanel::openPortRequested);
    openPort->click();
    auto* dialog = panel.findChild<QInputDialog*>(QStringLiteral("openPortDialog"));
    QVERIFY(dialog);
    dialog->setIntValue(5173);
    dialog->accept();
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.at(0).at(0).toString(), QStringLiteral("S"));
    QCOMPARE(asked.at(0).at(1).value<quint16>(), quint16(5173));

    // They close with the container.
    panel.setPorts(QStringLiteral("S"), {});
    QVERIFY(!openInBrowser->isEnabled());
    QVERIFY(label->text().isEmpty());

    // The backend's open_port is a question to the user: Publish says yes, anything else no, once.
    QList<bool> answers;
    panel.askToPublish(QStringLiteral("S"), 8000, [&answers](bool yes) { answers << yes; });
    auto* question = panel.findChild<QMessageBox*>(QStringLiteral("publishQuestion"));
    QVERIFY(question);
    QVERIFY(question->text().contains(QStringLiteral("8000")));
    question->buttons().constFirst()->click();  // Publish
    QTRY_COMPARE(answers, QList<bool>{true});
    QTRY_VERIFY(!panel.findChild<QMessageBox*>(QStringLiteral("publishQuestion")));  // closed and gone
    panel.askToPublish(QStringLiteral("S"), 9000, [&answers](bool yes) { answers << yes; });
    QVERIFY(panel.findChild<QMessageBox*>(QStringLiteral("publishQuestion")));
    panel.findChild<QMessageBox*>(QStringLiteral("publishQuestion"))->reject();
    QTRY_COMPARE(answers, (QList<bool>{true, false}));
    // A flood of open_port: a few questions wait, the next is denied without a dialog.
    for (int i = 0; i < SessionsPanel::kMaxPublishQuestions; ++i) {
        panel.askToPublish(QStringLiteral("S"), quint16(7000 + i), [&answers](bool yes) { answers << yes; });
    }
    QCOMPARE(answers.size(), 2);
    panel.askToPublish(QStringLiteral("S"), 7999, [&answers](bool yes) { answers << yes; });
    QCOMPARE(answers, (QList<bool>{true, false, false}));
    QTRY_COMPARE(panel.findChildren<QMessageBox*>(QStringLiteral("publishQuestion")).size(),
                 qsizetype(SessionsPanel::kMaxPublishQuestions));
}

void TestSessionsPanel::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    SessionsPanel panel;
    panel.noteCall(QStringLiteral("c1"), QStringLiteral("sess-7f2a"), QStringLiteral("npm test"),
                   QStringLiteral("/home/ana/projects/site"));
    panel.setSessionState(QStringLiteral("sess-7f2a"), SessionState::Running, QStringLiteral("4be1c2d3e4f5a6b7"));
    panel.appendOutput(QStringLiteral("c1"), OutputStream::Stdout, QStringLiteral("PASS src/app.test.js\n"));
    panel.appendOutput(QStringLiteral("c1"), OutputStream::Stderr, QStringLiteral("npm WARN deprecated\n"));
    panel.noteCall(QStringLiteral("c2"), QStringLiteral("sess-91bc"), QStringLiteral("make"),
                   QStringLiteral("/home/ana/projects/tool"));
    zeus::PublishedPorts::Port devServer;
    devServer.hostPort = 18000;
    devServer.containerPort = 8000;
    panel.setPorts(QStringLiteral("sess-7f2a"), {devServer});  // the selected session's dev server
    panel.resize(900, 420);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.logFor(QStringLiteral("sess-7f2a"))->flushAll();
    QVERIFY(panel.grab().save(shots + QStringLiteral("/sessions.png")));
}

QTEST_MAIN(TestSessionsPanel)
#include "tst_sessionspanel.moc"
