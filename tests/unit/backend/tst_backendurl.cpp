// One rule for a backend address (SPEC §5): the settings, the Settings dialog, every mode's
// --backend and the connection all use BackendUrl, so these rows hold for each of them.
#include "backend/backendurl.h"

#include <QtTest>

using zeus::BackendUrl;

class TestBackendUrl : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void problem_data();
    void problem();
    void isLoopbackHost_data();
    void isLoopbackHost();
};

void TestBackendUrl::problem_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("messagePart");  // empty: accepted

    QTest::newRow("wss") << QStringLiteral("wss://backend.example.com/desktop") << QString();
    QTest::newRow("wss with port") << QStringLiteral("wss://backend.example.com:8443/v1") << QString();
    QTest::newRow("wss to an address") << QStringLiteral("wss://10.0.0.5:8443/ws") << QString();
    QTest::newRow("WSS upper case scheme") << QStringLiteral("WSS://backend.example.com/") << QString();
    QTest::newRow("wss surrounded by spaces") << QStringLiteral("  wss://b.example.com  ") << QString();
    QTest::newRow("ws localhost") << QStringLiteral("ws://localhost:8765/") << QString();
    QTest::newRow("ws LOCALHOST") << QStringLiteral("ws://LOCALHOST:8765/") << QString();
    QTest::newRow("ws 127.0.0.1") << QStringLiteral("ws://127.0.0.1:8765/ws") << QString();
    QTest::newRow("ws 127.1.2.3") << QStringLiteral("ws://127.1.2.3:1/") << QString();
    QTest::newRow("ws ::1") << QStringLiteral("ws://[::1]:8765/") << QString();
    QTest::newRow("wss with harmless query") << QStringLiteral("wss://b.example.com/?region=eu") << QString();

    QTest::newRow("empty") << QString() << QStringLiteral("Enter the backend address");
    QTest::newRow("spaces only") << QStringLiteral("   ") << QStringLiteral("Enter the backend address");
    QTest::newRow("no scheme") << QStringLiteral("backend.example.com") << QStringLiteral("not a valid URL");
    QTest::newRow("no host") << QStringLiteral("wss:///path") << QStringLiteral("not a valid URL");
    QTest::newRow("garbage") << QStringLiteral("wss://") << QStringLiteral("not a valid URL");
    QTest::newRow("https") << QStringLiteral("https://backend.example.com") << QStringLiteral("wss://");
    QTest::newRow("http") << QStringLiteral("http://127.0.0.1") << QStringLiteral("wss://");
    QTest::newRow("file") << QStringLiteral("file:///etc/passwd") << QStringLiteral("not a valid URL");
    QTest::newRow("ws remote") << QStringLiteral("ws://backend.example.com/")
                               << QStringLiteral("only to this computer");
    QTest::newRow("ws lan address") << QStringLiteral("ws://192.168.1.10:8765/")
                                    << QStringLiteral("only to this computer");
    QTest::newRow("ws 0.0.0.0") << QStringLiteral("ws://0.0.0.0:8765/") << QStringLiteral("only to this computer");
    QTest::newRow("ws localhost lookalike")
        << QStringLiteral("ws://localhost.evil.example/") << QStringLiteral("only to this computer");
    QTest::newRow("credentials") << QStringLiteral("wss://user:secret@backend.example.com/")
                                 << QStringLiteral("user name or password");
    QTest::newRow("user name only") << QStringLiteral("wss://user@backend.example.com/")
                                    << QStringLiteral("user name or password");
    // Headless mode once accepted these; no path does now.
    QTest::newRow("token in query") << QStringLiteral("wss://backend.example.com/?token=abc")
                                    << QStringLiteral("must not carry a token");
    QTest::newRow("access_token in query")
        << QStringLiteral("wss://backend.example.com/?access_token=abc") << QStringLiteral("must not carry a token");
    QTest::newRow("Token in query, upper case")
        << QStringLiteral("wss://backend.example.com/?Token=abc") << QStringLiteral("must not carry a token");
    QTest::newRow("token to localhost") << QStringLiteral("ws://127.0.0.1:8765/?token=abc")
                                        << QStringLiteral("must not carry a token");
    QTest::newRow("key in query") << QStringLiteral("wss://b.example.com/?key=abc")
                                  << QStringLiteral("must not carry a token");
    QTest::newRow("secret in query") << QStringLiteral("wss://b.example.com/?client_secret=abc")
                                     << QStringLiteral("must not carry a token");
    QTest::newRow("password in query") << QStringLiteral("wss://b.example.com/?password=abc")
                                       << QStringLiteral("must not carry a token");
    QTest::newRow("auth in query") << QStringLiteral("wss://b.example.com/?auth=abc")
                                   << QStringLiteral("must not carry a token");
    // The spellings backends use for the same thing; the fragment is never sent, but it is kept and logged.
    QTest::newRow("api_key in query") << QStringLiteral("ws://127.0.0.1:8765/?api_key=abc")
                                      << QStringLiteral("must not carry a token");
    QTest::newRow("apikey in query") << QStringLiteral("wss://b.example.com/?apiKey=abc")
                                     << QStringLiteral("must not carry a token");
    QTest::newRow("jwt in query") << QStringLiteral("wss://b.example.com/?jwt=abc")
                                  << QStringLiteral("must not carry a token");
    QTest::newRow("percent-encoded token key")
        << QStringLiteral("ws://127.0.0.1:8765/?%74oken=abc") << QStringLiteral("must not carry a token");
    QTest::newRow("authorization in query") << QStringLiteral("wss://b.example.com/?Authorization=Bearer%20abc")
                                            << QStringLiteral("must not carry a token");
    QTest::newRow("token in fragment") << QStringLiteral("ws://127.0.0.1:8765/#token=abc")
                                       << QStringLiteral("must not carry a token");
}

void TestBackendUrl::problem() {
    QFETCH(QString, url);
    QFETCH(QString, messagePart);
    // The text form (settings, --backend) and the parsed form (the connection) agree.
    const QString fromText = BackendUrl::problem(url);
    QCOMPARE(fromText.isEmpty(), messagePart.isEmpty());
    if (!messagePart.isEmpty()) {
        QVERIFY2(fromText.contains(messagePart), qPrintable(fromText));
    }
    const QString fromUrl = BackendUrl::problem(QUrl(url.trimmed(), QUrl::StrictMode));
    QCOMPARE(fromUrl, fromText);
}

void TestBackendUrl::isLoopbackHost_data() {
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("loopback");
    QTest::newRow("localhost") << QStringLiteral("localhost") << true;
    QTest::newRow("LocalHost") << QStringLiteral("LocalHost") << true;
    QTest::newRow("127.0.0.1") << QStringLiteral("127.0.0.1") << true;
    QTest::newRow("127.255.0.9") << QStringLiteral("127.255.0.9") << true;
    QTest::newRow("::1") << QStringLiteral("::1") << true;
    QTest::newRow("0.0.0.0") << QStringLiteral("0.0.0.0") << false;
    QTest::newRow("lan") << QStringLiteral("192.168.1.10") << false;
    QTest::newRow("lookalike") << QStringLiteral("localhost.evil.example") << false;
    QTest::newRow("remote name") << QStringLiteral("backend.example.com") << false;
    QTest::newRow("empty") << QString() << false;
}

void TestBackendUrl::isLoopbackHost() {
    QFETCH(QString, host);
    QFETCH(bool, loopback);
    QCOMPARE(BackendUrl::isLoopbackHost(host), loopback);
}

QTEST_GUILESS_MAIN(TestBackendUrl)
#include "tst_backendurl.moc"
