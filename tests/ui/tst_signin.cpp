// SignIn: the tray app's token and when the connection may start. Against the real Secret Service of the test
// harness (tests/run.sh runs the suite on a private keyring); the connection goes to a loopback port nothing
// listens on, so starting it is observable without a backend.
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "backend/credentialstore.h"
#include "signin.h"
#include "testenvironment.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using zeus::BackendConnection;
using zeus::CredentialStore;
using zeus::SignIn;

class TestSignIn : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<zeus::AppSettings> m_settings;
    QString m_url;

    // A loopback URL nothing answers on (the port was free a moment ago).
    static QString deadLoopbackUrl() {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        const quint16 port = probe.serverPort();
        probe.close();
        return QStringLiteral("ws://127.0.0.1:%1/agent").arg(port);
    }

    bool storeToken(CredentialStore& credentials, const QString& url, const QString& token) {
        QSignalSpy written(&credentials, &CredentialStore::writeFinished);
        credentials.writeToken(url, token);
        return written.wait(10000)
               && written.first().at(1).value<CredentialStore::Result>().status == CredentialStore::Status::Ok;
    }

private Q_SLOTS:
    void init() {
        QVERIFY(m_dir.isValid());
        m_settings = std::make_unique<zeus::AppSettings>(m_dir.filePath(QStringLiteral("settings.ini")));
        m_url = deadLoopbackUrl();
    }

    void firstRunWithoutUrlAsksForAttention() {
        CredentialStore credentials;
        BackendConnection connection;
        SignIn signIn(m_settings.get(), credentials, connection, QString(), [] { return true; });
        QSignalSpy attention(&signIn, &SignIn::attentionNeeded);
        signIn.readToken();
        QCOMPARE(attention.size(), 1);
        QVERIFY(signIn.tokenChecked());
        QVERIFY(signIn.backendUrl().isEmpty());
        signIn.connectIfReady();
        QCOMPARE(connection.state(), BackendConnection::State::Disconnected);
    }

    // The first hello must name the runtime: nothing connects before the caller says it may, and the user's
    // Disconnect holds until their Connect.
    void connectsOnlyWhenEverythingIsThere() {
        if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
            const char* why = "no test keyring: run under tests/harness/engines.sh with_keyring";
            if (zeus::test::isCi())
                QFAIL(why);
            QSKIP(why);
        }
        qunsetenv(CredentialStore::kTokenVariable);
        // A service of its own, so a real user's entries are never touched.
        CredentialStore credentials(QStringLiteral("io.zeusdesktop.test.%1").arg(QCoreApplication::applicationPid()));
        QVERIFY(storeToken(credentials, m_url, QStringLiteral("sign-in-test-token")));
        BackendConnection connection;
        bool mayConnect = false;
        SignIn signIn(m_settings.get(), credentials, connection, m_url, [&mayConnect] { return mayConnect; });
        QSignalSpy read(&signIn, &SignIn::tokenRead);
        signIn.readToken();
        QVERIFY(read.wait(10000));
        QCOMPARE(read.first().first().toString(), QStringLiteral("sign-in-test-token"));
        QVERIFY(signIn.backendFromCommandLine());
        QVERIFY(signIn.lastTokenRead().has_value());
        QVERIFY(signIn.lastTokenRead()->token.isEmpty());  // the report's copy never holds it
        QCOMPARE(connection.state(), BackendConnection::State::Disconnected);

        mayConnect = true;
        signIn.disconnectByUser();
        signIn.connectIfReady();
        QCOMPARE(connection.state(), BackendConnection::State::Disconnected);
        signIn.connectByUser();
        QVERIFY(connection.state() != BackendConnection::State::Disconnected);
        QVERIFY(connection.state() != BackendConnection::State::SignedOut);
        signIn.disconnectByUser();
        QCOMPARE(connection.state(), BackendConnection::State::Disconnected);
    }

    // A URL chosen in Settings wins over the command line's, and its token is read again.
    void settingsUrlReplacesTheCommandLine() {
        CredentialStore credentials;
        BackendConnection connection;
        SignIn signIn(m_settings.get(), credentials, connection, m_url, [] { return false; });
        QSignalSpy changed(&signIn, &SignIn::backendChanged);
        const QString other = deadLoopbackUrl();
        m_settings->setBackendUrl(other);
        QCOMPARE(changed.size(), 1);
        QVERIFY(!signIn.backendFromCommandLine());
        QCOMPARE(signIn.backendUrl(), other);
        QVERIFY(signIn.token().isEmpty());
    }
};

QTEST_MAIN(TestSignIn)
#include "tst_signin.moc"
