// The local console: disabled with a reason until a workspace is ready, Run and Enter
// request a command, output and result land in its log, Stop asks to cancel, history.
#include "dashboard/localconsole.h"
#include "sessions/sessionlogview.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using zeus::ExecResult;
using zeus::ExecStatus;
using zeus::LocalConsole;
using zeus::OutputStream;

class TestLocalConsole : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void disabledUntilReady();
    void runsAndShowsResult();
    void historyWithArrows();
};

void TestLocalConsole::disabledUntilReady() {
    LocalConsole console;
    console.setReady(QString(), QStringLiteral("No container runtime detected."));
    auto* command = console.findChild<QLineEdit*>(QStringLiteral("consoleCommand"));
    QVERIFY(!command->isEnabled());
    QCOMPARE(console.findChild<QLabel*>(QStringLiteral("consoleWhere"))->text(),
             QStringLiteral("No container runtime detected."));
    console.setReady(QStringLiteral("/home/ana/site"), QString());
    QVERIFY(command->isEnabled());
    QVERIFY(
        console.findChild<QLabel*>(QStringLiteral("consoleWhere"))->text().contains(QStringLiteral("/home/ana/site")));
    QVERIFY(!console.findChild<QPushButton*>(QStringLiteral("consoleRun"))->isEnabled());  // empty command
}

void TestLocalConsole::runsAndShowsResult() {
    LocalConsole console;
    console.setReady(QStringLiteral("/w"), QString());
    QSignalSpy run(&console, &LocalConsole::runRequested);
    auto* command = console.findChild<QLineEdit*>(QStringLiteral("consoleCommand"));
    command->setText(QStringLiteral("id"));
    QTest::keyClick(command, Qt::Key_Return);
    QCOMPARE(run.count(), 1);
    QCOMPARE(run.at(0).at(0).toString(), QStringLiteral("id"));
    QVERIFY(command->text().isEmpty());

    console.callStarted(QStringLiteral("k1"), QStringLiteral("id"));
    QVERIFY(console.isRunning());
    auto* stop = console.findChild<QPushButton*>(QStringLiteral("consoleStop"));
    QVERIFY(stop->isEnabled());
    // A second command waits for the first.
    command->setText(QStringLiteral("ls"));
    QVERIFY(!console.findChild<QPushButton*>(QStringLiteral("consoleRun"))->isEnabled());
    QSignalSpy stopSpy(&console, &LocalConsole::stopRequested);
    stop->click();
    QCOMPARE(stopSpy.at(0).at(0).toString(), QStringLiteral("k1"));

    console.appendOutput(QStringLiteral("k1"), OutputStream::Stdout, QStringLiteral("uid=1000\n"));
    console.appendOutput(QStringLiteral("other"), OutputStream::Stdout, QStringLiteral("not mine\n"));
    ExecResult result;
    result.callId = QStringLiteral("k1");
    result.status = ExecStatus::Ok;
    result.exitCode = 0;
    result.durationMs = 40;
    console.callFinished(result);
    QVERIFY(!console.isRunning());
    console.log()->flushAll();
    QCOMPARE(console.log()->model()->rowCount(), 3);
    QCOMPARE(console.log()->model()->lineText(0), QStringLiteral("$ id"));
    QCOMPARE(console.log()->model()->lineText(1), QStringLiteral("uid=1000"));
    QCOMPARE(console.log()->model()->lineText(2), QStringLiteral("exit 0 · 40 ms"));
}

void TestLocalConsole::historyWithArrows() {
    LocalConsole console;
    console.setReady(QStringLiteral("/w"), QString());
    auto* command = console.findChild<QLineEdit*>(QStringLiteral("consoleCommand"));
    for (const QString& line : {QStringLiteral("one"), QStringLiteral("two")}) {
        command->setText(line);
        QTest::keyClick(command, Qt::Key_Return);
    }
    QTest::keyClick(command, Qt::Key_Up);
    QCOMPARE(command->text(), QStringLiteral("two"));
    QTest::keyClick(command, Qt::Key_Up);
    QCOMPARE(command->text(), QStringLiteral("one"));
    QTest::keyClick(command, Qt::Key_Down);
    QCOMPARE(command->text(), QStringLiteral("two"));
    QTest::keyClick(command, Qt::Key_Down);
    QCOMPARE(command->text(), QString());
}

QTEST_MAIN(TestLocalConsole)
#include "tst_localconsole.moc"
