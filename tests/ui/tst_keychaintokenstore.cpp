// The settings dialog's token store on the real CredentialStore: status mapping, the
// no-keychain path (no session bus), and a full store/read/remove round trip on the test
// keyring (tests/harness/keyring-session.sh sets ZEUS_TEST_KEYRING=1).
#include "backend/credentialstore.h"
#include "settings/keychaintokenstore.h"
#include "testenvironment.h"

#include <QProcess>
#include <QSignalSpy>
#include <QUuid>
#include <QtTest>

using zeus::CredentialStore;
using zeus::KeychainTokenStore;
using zeus::TokenStore;

class TestKeychainTokenStore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void statusFor_data();
    void statusFor();
    void needsABackendFirst();
    void roundTripOnTheKeyring();
    void noSessionBusIsUnavailable();
};

void TestKeychainTokenStore::statusFor_data() {
    QTest::addColumn<int>("keychain");
    QTest::addColumn<int>("expected");
    using K = CredentialStore::Status;
    using S = TokenStore::Status;
    QTest::newRow("ok") << int(K::Ok) << int(S::Stored);
    QTest::newRow("signed out") << int(K::SignedOut) << int(S::NotStored);
    QTest::newRow("no keyring") << int(K::NoKeyring) << int(S::Unavailable);
    QTest::newRow("access denied") << int(K::AccessDenied) << int(S::Locked);
    QTest::newRow("timed out") << int(K::TimedOut) << int(S::Locked);
    QTest::newRow("failed") << int(K::Failed) << int(S::Failed);
}

void TestKeychainTokenStore::statusFor() {
    QFETCH(int, keychain);
    QFETCH(int, expected);
    QCOMPARE(int(KeychainTokenStore::statusFor(static_cast<CredentialStore::Status>(keychain))), expected);
}

void TestKeychainTokenStore::needsABackendFirst() {
    CredentialStore credentials(QStringLiteral("zeus-desktop-test-") + QUuid::createUuid().toString(QUuid::Id128));
    KeychainTokenStore store(&credentials);
    QSignalSpy finished(&store, &TokenStore::finished);
    store.store(QStringLiteral("never-stored-token"));
    QVERIFY(finished.wait(2000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QVERIFY(store.message().contains(QStringLiteral("backend URL first")));
}

void TestKeychainTokenStore::roundTripOnTheKeyring() {
    if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
        if (zeus::test::isCi()) {
            QFAIL("no test keyring (run inside tests/harness/keyring-session.sh)");
        }
        QSKIP("no test keyring (run inside tests/harness/keyring-session.sh)");
    }
    qunsetenv(CredentialStore::kTokenVariable);
    CredentialStore credentials(QStringLiteral("zeus-desktop-test-") + QUuid::createUuid().toString(QUuid::Id128));
    KeychainTokenStore store(&credentials);
    store.setAccount(QStringLiteral("wss://backend.example.com/desktop"));
    QSignalSpy finished(&store, &TokenStore::finished);

    store.refresh();
    QVERIFY(finished.wait(15000));
    QCOMPARE(store.status(), TokenStore::Status::NotStored);

    store.store(QStringLiteral("round-trip-token-1234"));
    QVERIFY(store.isBusy());
    QVERIFY(finished.wait(15000));
    QCOMPARE(finished.last().at(0).toBool(), true);
    QCOMPARE(store.status(), TokenStore::Status::Stored);

    store.refresh();
    QVERIFY(finished.wait(15000));
    QCOMPARE(store.status(), TokenStore::Status::Stored);
    QVERIFY(!store.message().contains(QStringLiteral("round-trip-token-1234")));

    store.remove();
    QVERIFY(finished.wait(15000));
    QCOMPARE(store.status(), TokenStore::Status::NotStored);
}

void TestKeychainTokenStore::noSessionBusIsUnavailable() {
    // Without a session bus QtKeychain answers at once with an error: the store says there
    // is no keychain (and never falls back to anything else). The session bus connection is
    // per process, so this runs in a child process of this test without one.
    if (qEnvironmentVariable("ZEUS_TEST_NO_BUS_CHILD") != QLatin1String("1")) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
        env.remove(QStringLiteral("DISPLAY"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        env.remove(QString::fromLatin1(CredentialStore::kTokenVariable));
        env.insert(QStringLiteral("ZEUS_TEST_NO_BUS_CHILD"), QStringLiteral("1"));
        QProcess child;
        child.setProcessEnvironment(env);
        child.setProcessChannelMode(QProcess::MergedChannels);
        child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("noSessionBusIsUnavailable")});
        QVERIFY(child.waitForFinished(30000));
        const QByteArray output = child.readAll();
        QVERIFY2(child.exitCode() == 0, output.constData());
        QVERIFY2(output.contains("PASS   : TestKeychainTokenStore::noSessionBusIsUnavailable()"), output.constData());
        return;
    }
    CredentialStore credentials(QStringLiteral("zeus-desktop-test-") + QUuid::createUuid().toString(QUuid::Id128));
    credentials.setTimeoutMs(5000);
    KeychainTokenStore store(&credentials);
    store.setAccount(QStringLiteral("wss://backend.example.com/desktop"));
    QSignalSpy finished(&store, &TokenStore::finished);
    store.store(QStringLiteral("cannot-be-stored"));
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QVERIFY2(store.status() == TokenStore::Status::Unavailable, qPrintable(store.message()));
    QVERIFY(!store.message().isEmpty());
    QVERIFY(!store.message().contains(QStringLiteral("cannot-be-stored")));
}

QTEST_MAIN(TestKeychainTokenStore)
#include "tst_keychaintokenstore.moc"
