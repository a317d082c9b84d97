// The tray app as a process: it starts (offscreen: no tray, so the dashboard is a window),
// a second launch asks the first to show its dashboard and exits 0 at once.
#include "testenvironment.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

class TestGuiMode : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void secondLaunchRaisesFirst();
};

void TestGuiMode::secondLaunchRaisesFirst() {
    QTemporaryDir home;
    QVERIFY(home.isValid());
    QVERIFY(QDir().mkpath(home.filePath(QStringLiteral("runtime"))));
    QFile::setPermissions(home.filePath(QStringLiteral("runtime")),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral(".config")));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("runtime")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("zeus.*.info=true"));

    QProcess first;
    first.setProcessEnvironment(env);
    first.setProcessChannelMode(QProcess::MergedChannels);
    first.start(QStringLiteral(ZEUS_APP_BINARY), {});
    QVERIFY(first.waitForStarted(10000));
    // Up and running: it stays (the tray app only ends on Quit).
    if (first.waitForFinished(3000)) {
        const QByteArray output = first.readAll();
        if (output.contains("this build has no GUI")) {
            QSKIP("headless build: no tray app");
        }
        QFAIL(output.constData());
    }
    QCOMPARE(first.state(), QProcess::Running);

    QProcess second;
    second.setProcessEnvironment(env);
    second.setProcessChannelMode(QProcess::MergedChannels);
    QElapsedTimer clock;
    clock.start();
    second.start(QStringLiteral(ZEUS_APP_BINARY), {});
    QVERIFY(second.waitForFinished(10000));
    const QByteArray secondOutput = second.readAll();
    QVERIFY2(second.exitStatus() == QProcess::NormalExit && second.exitCode() == 0, secondOutput.constData());
    qInfo("second launch exited after %lld ms", static_cast<long long>(clock.elapsed()));

    QByteArray firstOutput;
    QTRY_VERIFY_WITH_TIMEOUT((firstOutput += first.readAll()).contains("another launch asked for the dashboard"), 5000);
    QCOMPARE(first.state(), QProcess::Running);
    first.terminate();
    if (!first.waitForFinished(10000)) {
        first.kill();
        first.waitForFinished(5000);
    }
}

QTEST_GUILESS_MAIN(TestGuiMode)
#include "tst_guimode.moc"
