// The local console and the sessions panel on a real engine: a command typed in the
// console runs in the workspace's container; its stdout and stderr stream into the
// console log and the session's log apart; the sessions table shows the container; Stop
// removes it. (The wiring is the same as app/guimode.cpp's.)
#include "../engine/sessionfixture.h"
#include "dashboard/localconsole.h"
#include "monitor/containermonitor.h"
#include "sandbox/sessionmanager.h"
#include "sessions/sessionlogview.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"

#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

class TestConsoleSandbox : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void consoleRunsInTheSandbox();
};

void TestConsoleSandbox::consoleRunsInTheSandbox() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const QString owner = test::uniqueOwner();
    QTemporaryDir workspace;
    QVERIFY(workspace.isValid());
    QFile marker(workspace.filePath(QStringLiteral("visible-from-the-sandbox.txt")));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();
    const QString folder = QFileInfo(workspace.path()).canonicalFilePath();

    SessionManager manager(ContainerRuntime::create(RuntimeKind::Docker), test::testConfig(owner));
    LocalConsole console;
    SessionsPanel sessions;
    console.setReady(folder, QString());
    QObject::connect(&manager, &SessionManager::output,
                     [&](const QString& callId, OutputStream stream, const QString& text) {
                         sessions.appendOutput(callId, stream, text);
                         console.appendOutput(callId, stream, text);
                     });
    QObject::connect(&manager, &SessionManager::callFinished, [&](const ExecResult& result) {
        sessions.callFinished(result);
        console.callFinished(result);
    });
    QObject::connect(&manager, &SessionManager::sessionStateChanged, &sessions, &SessionsPanel::setSessionState);
    QObject::connect(&sessions, &SessionsPanel::stopRequested, &manager, &SessionManager::endSession);
    int counter = 0;
    QObject::connect(&console, &LocalConsole::runRequested, [&](const QString& command) {
        ExecRequest request;
        request.callId = QStringLiteral("console-%1").arg(++counter);
        request.sessionId = LocalConsole::kSessionId;
        request.workspace = console.workspace();
        request.command = command;
        console.callStarted(request.callId, command);
        sessions.noteCall(request.callId, request.sessionId, command, request.workspace);
        manager.execute(request);
    });

    auto* line = console.findChild<QLineEdit*>(QStringLiteral("consoleCommand"));
    line->setText(QStringLiteral("echo to-stdout; echo to-stderr >&2; ls /workspace; pwd"));
    QTest::keyClick(line, Qt::Key_Return);
    QVERIFY(console.isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!console.isRunning(), 60000);
    console.log()->flushAll();

    const SessionLogModel* log = console.log()->model();
    QStringList lines;
    for (int row = 0; row < log->rowCount(); ++row) {
        lines << log->lineText(row);
    }
    const QString all = lines.join(QLatin1Char('\n'));
    QVERIFY2(lines.first().startsWith(QStringLiteral("$ echo to-stdout")), qPrintable(all));
    const int out = static_cast<int>(lines.indexOf(QStringLiteral("to-stdout")));
    const int err = static_cast<int>(lines.indexOf(QStringLiteral("to-stderr")));
    QVERIFY2(out > 0 && err > 0, qPrintable(all));
    QCOMPARE(log->lineKind(out), SessionLogModel::Kind::Stdout);
    QCOMPARE(log->lineKind(err), SessionLogModel::Kind::Stderr);
    QVERIFY2(lines.contains(QStringLiteral("visible-from-the-sandbox.txt")), qPrintable(all));
    QVERIFY2(lines.contains(QStringLiteral("/workspace")), qPrintable(all));
    QVERIFY2(lines.last().startsWith(QStringLiteral("exit 0 · ")), qPrintable(all));

    // The session's own log got the same, and the table shows its container.
    SessionLogView* sessionLog = sessions.logFor(LocalConsole::kSessionId);
    sessionLog->flushAll();
    QCOMPARE(sessionLog->model()->rowCount(), log->rowCount());
    const SessionTableModel* table = sessions.model();
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->data(table->index(0, SessionTableModel::StateColumn)).toString(), QStringLiteral("Running"));
    const QString container =
        table->data(table->index(0, SessionTableModel::ContainerColumn), Qt::ToolTipRole).toString();
    QVERIFY(!container.isEmpty());
    QCOMPARE(test::containersOf(QStringLiteral("docker"), owner).size(), 1);

    // The engine's stats reach the table (the same wiring as app/guimode.cpp).
    ContainerMonitor monitor(manager.runtime(), owner);
    monitor.setStatsIntervalMs(500);
    QObject::connect(&monitor, &ContainerMonitor::statsUpdated,
                     [&](const QString& id, double cpuPercent, qint64 memoryBytes) {
                         sessions.model()->setUsageForContainer(id, cpuPercent, memoryBytes);
                     });
    QObject::connect(&monitor, &ContainerMonitor::containerEvent,
                     [&](const QString& id, const QString&, ContainerEvent::State state, int exitCode) {
                         sessions.model()->applyContainerEvent(id, state, exitCode);
                     });
    monitor.trackContainer(container, LocalConsole::kSessionId);
    monitor.setStatsPollingEnabled(true);
    monitor.start();
    QTRY_VERIFY_WITH_TIMEOUT(
        table->data(table->index(0, SessionTableModel::MemoryColumn)).toString() != QStringLiteral("—"), 30000);
    QVERIFY(table->data(table->index(0, SessionTableModel::CpuColumn)).toString().endsWith(QStringLiteral("%")));
    qInfo("stats shown: cpu %s, memory %s",
          qPrintable(table->data(table->index(0, SessionTableModel::CpuColumn)).toString()),
          qPrintable(table->data(table->index(0, SessionTableModel::MemoryColumn)).toString()));
    monitor.setStatsPollingEnabled(false);

    // Stop removes the container.
    sessions.selectSession(LocalConsole::kSessionId);
    QSignalSpy state(&manager, &SessionManager::sessionStateChanged);
    Q_EMIT sessions.stopRequested(LocalConsole::kSessionId);
    QTRY_COMPARE_WITH_TIMEOUT(table->data(table->index(0, SessionTableModel::StateColumn)).toString(),
                              QStringLiteral("Stopped"), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(test::containersOf(QStringLiteral("docker"), owner).isEmpty(), 30000);
    monitor.stop();

    QSignalSpy done(&manager, &SessionManager::shutdownFinished);
    manager.shutdown();
    QVERIFY(done.count() > 0 || done.wait(30000));
    test::removeContainersOf(QStringLiteral("docker"), owner);
}

QTEST_MAIN(TestConsoleSandbox)
#include "tst_consolesandbox.moc"
