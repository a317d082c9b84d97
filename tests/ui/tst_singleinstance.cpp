// One tray app per user: the second claimant fails, asks the first to activate, and the
// first hears it; a lock left by a dead process is taken over.
#include "singleinstance.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QUuid>
#include <QtTest>

using zeus::SingleInstance;

class TestSingleInstance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void secondInstanceActivatesFirst();
    void noFirstInstanceMeansNoAnswer();
    void staleLockIsTakenOver();
    void keyIsPerUser();
    void socketIsInTheRuntimeFolder();
};

namespace {

QString uniqueKey() {
    return QStringLiteral("zeus-test-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
}

}  // namespace

void TestSingleInstance::secondInstanceActivatesFirst() {
    const QString key = uniqueKey();
    SingleInstance first(key);
    QVERIFY(first.claim());
    SingleInstance second(key);
    QVERIFY(!second.claim());
    QSignalSpy activated(&first, &SingleInstance::activationRequested);
    bool answered = false;
    bool ok = false;
    second.activateRunningInstance([&](bool result) {
        answered = true;
        ok = result;
    });
    QVERIFY(activated.wait(5000));
    QTRY_VERIFY(answered);
    QVERIFY(ok);
}

void TestSingleInstance::noFirstInstanceMeansNoAnswer() {
    SingleInstance lonely(uniqueKey());
    bool answered = false;
    bool ok = true;
    lonely.activateRunningInstance(
        [&](bool result) {
            answered = true;
            ok = result;
        },
        2000);
    QTRY_VERIFY_WITH_TIMEOUT(answered, 5000);
    QVERIFY(!ok);
}

void TestSingleInstance::staleLockIsTakenOver() {
    const QString key = uniqueKey();
    SingleInstance probe(key);
    // A lock file written by a process that has exited.
    QProcess dead;
    dead.start(QStringLiteral("true"), {});
    QVERIFY(dead.waitForStarted(5000));
    const qint64 pid = dead.processId();
    QVERIFY(dead.waitForFinished(5000));
    QFile lock(probe.lockFilePath());
    QVERIFY(lock.open(QIODevice::WriteOnly));
    lock.write(QByteArray::number(pid) + "\nzeus-desktop\n" + QSysInfo::machineHostName().toUtf8() + "\n");
    lock.close();
    SingleInstance next(key);
    QVERIFY(next.claim());
}

void TestSingleInstance::keyIsPerUser() {
    const QString key = SingleInstance::defaultKey();
    QVERIFY(key.startsWith(QStringLiteral("zeus-desktop-")));
    QCOMPARE(key, SingleInstance::defaultKey());
}

void TestSingleInstance::socketIsInTheRuntimeFolder() {
    // Another local user must not be able to take the name first: the socket lives in this user's runtime folder
    // ($XDG_RUNTIME_DIR), not in the shared /tmp, and only its owner can use it.
    const QString runtime = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    QVERIFY(!runtime.isEmpty());
    SingleInstance instance(uniqueKey());
    QVERIFY(instance.claim());
    QVERIFY2(instance.serverName().startsWith(runtime + QLatin1Char('/')), qPrintable(instance.serverName()));
    const QFileInfo socket(instance.serverName());
    QVERIFY2(socket.exists(), qPrintable(instance.serverName()));
    QVERIFY(!QFileInfo::exists(QDir::tempPath() + QLatin1Char('/') + QFileInfo(instance.serverName()).fileName()));
    QCOMPARE(
        socket.permissions()
            & (QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ReadGroup | QFileDevice::WriteGroup),
        QFileDevice::Permissions());
}

QTEST_GUILESS_MAIN(TestSingleInstance)
#include "tst_singleinstance.moc"
