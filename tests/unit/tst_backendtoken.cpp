// The token rule shared by the tray app and headless mode: a stored token always wins; with
// none, only plain ws:// to this computer gets the anonymous placeholder.
#include "backend/backendtoken.h"

#include <QtTest>

class TestBackendToken : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void effective_data();
    void effective();
};

void TestBackendToken::effective_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("stored");
    QTest::addColumn<bool>("allowsAnonymous");
    QTest::addColumn<QString>("expected");

    const QString anon = zeus::BackendToken::anonymous();
    QTest::newRow("ws 127.0.0.1, none") << "ws://127.0.0.1:8765" << QString() << true << anon;
    QTest::newRow("ws 127.1.2.3, none") << "ws://127.1.2.3:8765/v1" << QString() << true << anon;
    QTest::newRow("ws localhost, none") << "ws://localhost:8765" << QString() << true << anon;
    QTest::newRow("ws LOCALHOST, none") << "ws://LOCALHOST:8765" << QString() << true << anon;
    QTest::newRow("WS scheme upper, none") << "WS://127.0.0.1:1" << QString() << true << anon;
    QTest::newRow("ws ::1, none") << "ws://[::1]:8765" << QString() << true << anon;
    QTest::newRow("ws loopback, stored wins") << "ws://127.0.0.1:8765"
                                              << "t0k" << true << "t0k";
    QTest::newRow("wss loopback, none") << "wss://127.0.0.1:8765" << QString() << false << QString();
    QTest::newRow("wss remote, stored") << "wss://agent.example.com"
                                        << "t0k" << false << "t0k";
    QTest::newRow("wss remote, none") << "wss://agent.example.com" << QString() << false << QString();
    QTest::newRow("ws remote, none") << "ws://agent.example.com" << QString() << false << QString();
    QTest::newRow("ws lan address, none") << "ws://192.168.1.10:8765" << QString() << false << QString();
    QTest::newRow("ws localhost.evil, none") << "ws://localhost.example.com" << QString() << false << QString();
    QTest::newRow("ws with user info") << "ws://user:pw@127.0.0.1:8765" << QString() << false << QString();
    QTest::newRow("http loopback") << "http://127.0.0.1:8765" << QString() << false << QString();
    QTest::newRow("empty") << QString() << QString() << false << QString();
}

void TestBackendToken::effective() {
    QFETCH(QString, url);
    QFETCH(QString, stored);
    QFETCH(bool, allowsAnonymous);
    QFETCH(QString, expected);
    QCOMPARE(zeus::BackendToken::allowsAnonymous(QUrl(url)), allowsAnonymous);
    QCOMPARE(zeus::BackendToken::effective(QUrl(url), stored), expected);
}

QTEST_GUILESS_MAIN(TestBackendToken)
#include "tst_backendtoken.moc"
