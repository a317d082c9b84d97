// CredentialStore: error mapping (pure), the ZEUS_DESKTOP_TOKEN override, the real keyring (gnome-keyring on a
// private session bus, run by the harness's with_keyring, which exports ZEUS_TEST_KEYRING=1), and no session bus
// at all (a child process of this test with the bus variables removed): a clear message, fast, nothing on disk.
#include "backend/credentialstore.h"
#include "testenvironment.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <qt6keychain/keychain.h>

using zeus::CredentialStore;
using Status = zeus::CredentialStore::Status;

namespace {

const char* const kChildVariable = "ZEUS_TEST_CREDENTIALSTORE_CHILD";

QStringList g_logLines;
QtMessageHandler g_previousHandler = nullptr;

void captureLog(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    g_logLines.append(message);
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

CredentialStore::Result waitForResult(QSignalSpy& spy, int timeoutMs = 15000) {
    if (spy.isEmpty() && !spy.wait(timeoutMs))
        return CredentialStore::Result{Status::Failed, {}, QStringLiteral("no signal"), false};
    return spy.takeFirst().at(1).value<CredentialStore::Result>();
}

}  // namespace

class TestCredentialStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void classify_data();
    void classify();
    void environmentOverridesReading();
    void realKeyring();
    void timeoutEndsTheOperationOnce();
    void noSessionBus();
    void noSessionBusChild();
};

void TestCredentialStore::initTestCase() {
    g_previousHandler = qInstallMessageHandler(captureLog);
}

void TestCredentialStore::cleanupTestCase() {
    qInstallMessageHandler(g_previousHandler);
}

void TestCredentialStore::classify_data() {
    QTest::addColumn<int>("operation");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("errorString");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("messageContains");

    const int read = int(CredentialStore::Operation::Read);
    const int write = int(CredentialStore::Operation::Write);
    const int del = int(CredentialStore::Operation::Delete);
    QTest::newRow("ok") << read << int(QKeychain::NoError) << QString() << int(Status::Ok) << QString();
    QTest::newRow("not found: signed out") << read << int(QKeychain::EntryNotFound) << QStringLiteral("Entry not found")
                                           << int(Status::SignedOut) << QStringLiteral("Not signed in");
    QTest::newRow("delete not found is ok")
        << del << int(QKeychain::EntryNotFound) << QString() << int(Status::Ok) << QString();
    QTest::newRow("access denied") << read << int(QKeychain::AccessDenied) << QString() << int(Status::AccessDenied)
                                   << QStringLiteral("locked");
    QTest::newRow("denied by user") << write << int(QKeychain::AccessDeniedByUser) << QString()
                                    << int(Status::AccessDenied) << QStringLiteral("denied");
    QTest::newRow("no backend") << write << int(QKeychain::NoBackendAvailable) << QString() << int(Status::NoKeyring)
                                << QStringLiteral("never stores it in plain text");
    QTest::newRow("not implemented") << read << int(QKeychain::NotImplemented) << QString() << int(Status::NoKeyring)
                                     << QStringLiteral("ZEUS_DESKTOP_TOKEN");
    QTest::newRow("dbus autolaunch") << read << int(QKeychain::OtherError)
                                     << QStringLiteral("Cannot autolaunch D-Bus without X11 $DISPLAY")
                                     << int(Status::NoKeyring) << QStringLiteral("autolaunch");
    QTest::newRow("no secret service") << read << int(QKeychain::OtherError)
                                       << QStringLiteral(
                                              "The name org.freedesktop.secrets was not provided by any .service files")
                                       << int(Status::NoKeyring) << QStringLiteral("No keychain");
    QTest::newRow("other locked") << read << int(QKeychain::OtherError) << QStringLiteral("Collection is locked")
                                  << int(Status::AccessDenied) << QStringLiteral("Unlock");
    QTest::newRow("other") << write << int(QKeychain::OtherError) << QStringLiteral("disk full") << int(Status::Failed)
                           << QStringLiteral("disk full");
    QTest::newRow("could not delete") << del << int(QKeychain::CouldNotDeleteEntry) << QStringLiteral("busy")
                                      << int(Status::Failed) << QStringLiteral("busy");
}

void TestCredentialStore::classify() {
    QFETCH(int, operation);
    QFETCH(int, error);
    QFETCH(QString, errorString);
    QFETCH(int, status);
    QFETCH(QString, messageContains);
    const CredentialStore::Result result =
        CredentialStore::classify(CredentialStore::Operation(operation), QKeychain::Error(error), errorString);
    QCOMPARE(int(result.status), status);
    QVERIFY(result.token.isEmpty());
    if (messageContains.isEmpty())
        QVERIFY(result.message.isEmpty());
    else
        QVERIFY2(result.message.contains(messageContains), qPrintable(result.message));
}

void TestCredentialStore::environmentOverridesReading() {
    const QString token = QStringLiteral("env-token-\u00e9-42");
    qputenv(CredentialStore::kTokenVariable, token.toUtf8());
    CredentialStore store(QStringLiteral("zeus-test-env-%1").arg(QCoreApplication::applicationPid()));
    QSignalSpy spy(&store, &CredentialStore::readFinished);
    store.readToken(QStringLiteral("wss://backend.example.com"));
    QCOMPARE(spy.count(), 0);  // asynchronous like a keychain read
    const CredentialStore::Result result = waitForResult(spy, 2000);
    qunsetenv(CredentialStore::kTokenVariable);
    QCOMPARE(result.status, Status::Ok);
    QCOMPARE(result.token, token);
    QVERIFY(result.fromEnvironment);
    for (const QString& line : std::as_const(g_logLines))
        QVERIFY2(!line.contains(token), qPrintable(line));
}

void TestCredentialStore::realKeyring() {
    if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
        const char* why = "no test keyring: run under tests/harness/engines.sh with_keyring";
        if (zeus::test::isCi())
            QFAIL(why);
        QSKIP(why);
    }
    qunsetenv(CredentialStore::kTokenVariable);
    // A service of its own, so a real user's entries are never touched.
    CredentialStore store(QStringLiteral("io.zeusdesktop.test.%1").arg(QCoreApplication::applicationPid()));
    QCOMPARE(store.timeoutMs(), CredentialStore::kDefaultTimeoutMs);
    QSignalSpy reads(&store, &CredentialStore::readFinished);
    QSignalSpy writes(&store, &CredentialStore::writeFinished);
    QSignalSpy deletes(&store, &CredentialStore::deleteFinished);
    const QString url = QStringLiteral("wss://backend.example.com/v1/desktop");
    const QString otherUrl = QStringLiteral("wss://other.example.com/");
    const QString first = QStringLiteral("first-token-9d2a");
    const QString second = QStringLiteral("second-token-\u4e2d\u6587");

    store.readToken(url);
    CredentialStore::Result r = waitForResult(reads);
    QVERIFY2(r.status == Status::SignedOut, qPrintable(r.message));

    store.writeToken(url, first);
    r = waitForResult(writes);
    QVERIFY2(r.status == Status::Ok, qPrintable(r.message));
    store.readToken(url);
    r = waitForResult(reads);
    QVERIFY2(r.status == Status::Ok, qPrintable(r.message));
    QCOMPARE(r.token, first);
    QVERIFY(!r.fromEnvironment);

    // One entry per backend URL.
    store.readToken(otherUrl);
    QCOMPARE(waitForResult(reads).status, Status::SignedOut);

    store.writeToken(url, second);  // overwrite
    QCOMPARE(waitForResult(writes).status, Status::Ok);
    store.readToken(url);
    r = waitForResult(reads);
    QCOMPARE(r.status, Status::Ok);
    QCOMPARE(r.token, second);

    store.deleteToken(url);
    r = waitForResult(deletes);
    QVERIFY2(r.status == Status::Ok, qPrintable(r.message));
    store.readToken(url);
    QCOMPARE(waitForResult(reads).status, Status::SignedOut);
    store.deleteToken(url);  // deleting again: still signed out, not an error
    r = waitForResult(deletes);
    QVERIFY2(r.status == Status::Ok, qPrintable(r.message));

    // The first signal of each operation is the only one.
    QTest::qWait(100);
    QCOMPARE(reads.count() + writes.count() + deletes.count(), 0);
    for (const QString& line : std::as_const(g_logLines)) {
        QVERIFY2(!line.contains(first), qPrintable(line));
        QVERIFY2(!line.contains(second), qPrintable(line));
    }
}

void TestCredentialStore::timeoutEndsTheOperationOnce() {
    if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
        const char* why = "no test keyring: run under tests/harness/engines.sh with_keyring";
        if (zeus::test::isCi())
            QFAIL(why);
        QSKIP(why);
    }
    qunsetenv(CredentialStore::kTokenVariable);
    CredentialStore store(QStringLiteral("io.zeusdesktop.test.timeout.%1").arg(QCoreApplication::applicationPid()));
    QSignalSpy reads(&store, &CredentialStore::readFinished);
    // A keychain answer needs a D-Bus round trip to another process; a zero timeout always fires first.
    store.setTimeoutMs(0);
    store.readToken(QStringLiteral("wss://backend.example.com"));
    QVERIFY(reads.wait(5000));
    const auto result = reads.first().at(1).value<CredentialStore::Result>();
    QCOMPARE(result.status, Status::TimedOut);
    QVERIFY2(result.message.contains(QStringLiteral("did not answer")), qPrintable(result.message));
    // The job's late answer is ignored: exactly one result per operation.
    QTest::qWait(1000);
    QCOMPARE(reads.count(), 1);
    // And the store still works with a sane timeout.
    store.setTimeoutMs(CredentialStore::kDefaultTimeoutMs);
    reads.clear();
    store.readToken(QStringLiteral("wss://backend.example.com"));
    QCOMPARE(waitForResult(reads).status, Status::SignedOut);
}

void TestCredentialStore::noSessionBus() {
    // In a child process: the session bus connection is process-wide in Qt, so it must start without one.
    QTemporaryDir home;
    QVERIFY(home.isValid());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "ZEUS_DESKTOP_TOKEN",
                             "GNOME_KEYRING_CONTROL", "KDE_FULL_SESSION", "XDG_CURRENT_DESKTOP"})
        env.remove(QString::fromLatin1(name));
    // No runtime dir, so libdbus cannot find a bus socket there either; a fresh HOME shows what is written.
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("run")));
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    env.insert(QString::fromLatin1(kChildVariable), QStringLiteral("1"));
    QProcess child;
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("noSessionBusChild")});
    QVERIFY(child.waitForFinished(60000));
    const QByteArray output = child.readAll();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, output.constData());
    QVERIFY2(output.contains("PASS   : TestCredentialStore::noSessionBusChild()"), output.constData());

    // No plain-text fallback: nothing was written anywhere under the fresh HOME.
    QStringList files;
    QDirIterator it(home.path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        files.append(it.next());
    QVERIFY2(files.isEmpty(), qPrintable(files.join(QLatin1Char('\n'))));
}

void TestCredentialStore::noSessionBusChild() {
    if (qEnvironmentVariable(kChildVariable) != QLatin1String("1"))
        QSKIP("runs as the child process of noSessionBus");
    CredentialStore store(QStringLiteral("io.zeusdesktop.test.nobus"));
    QSignalSpy reads(&store, &CredentialStore::readFinished);
    QSignalSpy writes(&store, &CredentialStore::writeFinished);
    QElapsedTimer timer;
    timer.start();
    store.readToken(QStringLiteral("wss://backend.example.com"));
    const CredentialStore::Result read = waitForResult(reads);
    const qint64 readMs = timer.elapsed();
    qInfo("read without a session bus answered in %lld ms: %s", readMs, qPrintable(read.message));
    QCOMPARE(read.status, Status::NoKeyring);
    QVERIFY2(readMs < 3000, "should fail fast, well under the 10 s timeout");
    QVERIFY(read.message.contains(QStringLiteral("No keychain")));

    store.writeToken(QStringLiteral("wss://backend.example.com"), QStringLiteral("never-on-disk"));
    const CredentialStore::Result write = waitForResult(writes);
    QCOMPARE(write.status, Status::NoKeyring);
    QVERIFY(timer.elapsed() < 6000);
}

QTEST_GUILESS_MAIN(TestCredentialStore)
#include "tst_credentialstore.moc"
