// The connection panel: states in words, the next attempt's countdown, and the button
// that asks to connect, disconnect or sign in depending on the state.
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "dashboard/connectionpanel.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using zeus::AppSettings;
using zeus::BackendConnection;
using zeus::ConnectionPanel;

class TestConnectionPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyStateHasWords();
    void nextAttemptText();
    void buttonFollowsState();
    void commandLineUrlShownForThisRun();
};

void TestConnectionPanel::everyStateHasWords() {
    using S = BackendConnection::State;
    QStringList seen;
    for (S state :
         {S::Disconnected, S::SignedOut, S::Connecting, S::Connected, S::Reconnecting, S::AuthFailed, S::Error}) {
        const QString text = BackendConnection::stateName(state);
        QVERIFY(!text.isEmpty());
        QVERIFY2(!seen.contains(text), qPrintable(text));
        seen.append(text);
    }
}

void TestConnectionPanel::nextAttemptText() {
    const QDateTime now(QDate(2026, 3, 4), QTime(10, 0, 0));
    QVERIFY(ConnectionPanel::nextAttemptText(now.addSecs(8), now).endsWith(QStringLiteral("(in 8 s)")));
    QVERIFY(ConnectionPanel::nextAttemptText(now.addSecs(-3), now).endsWith(QStringLiteral("(in 0 s)")));
    QCOMPARE(ConnectionPanel::nextAttemptText(QDateTime(), now), QStringLiteral("—"));
}

void TestConnectionPanel::commandLineUrlShownForThisRun() {
    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("s.ini")));
    BackendConnection connection;
    ConnectionPanel panel(&connection, &settings);
    auto* url = panel.findChild<QLabel*>(QStringLiteral("connectionUrl"));
    auto* button = panel.findChild<QPushButton*>(QStringLiteral("connectToggle"));
    auto* error = panel.findChild<QLabel*>(QStringLiteral("connectionError"));
    QVERIFY(!button->isEnabled());
    // No error: the placeholder is not painted as one.
    QCOMPARE(error->text(), QStringLiteral("—"));
    QCOMPARE(error->palette().color(QPalette::WindowText), panel.palette().color(QPalette::WindowText));

    panel.setBackendUrlOverride(QStringLiteral("ws://127.0.0.1:8765"));
    QVERIFY2(url->text().startsWith(QStringLiteral("ws://127.0.0.1:8765 (from the command line")),
             qPrintable(url->text()));
    QVERIFY(button->isEnabled());  // there is something to connect to
    QVERIFY(settings.backendUrl().isEmpty());
    panel.setBackendUrlOverride(QString());
    QVERIFY(url->text().contains(QStringLiteral("not configured")));
}

void TestConnectionPanel::buttonFollowsState() {
    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("s.ini")));
    BackendConnection connection;
    ConnectionPanel panel(&connection, &settings);
    auto* button = panel.findChild<QPushButton*>(QStringLiteral("connectToggle"));
    auto* state = panel.findChild<QLabel*>(QStringLiteral("connectionState"));
    auto* url = panel.findChild<QLabel*>(QStringLiteral("connectionUrl"));
    QCOMPARE(state->text(), BackendConnection::stateName(BackendConnection::State::Disconnected));
    QVERIFY(url->text().contains(QStringLiteral("not configured")));
    QVERIFY(!button->isEnabled());  // nothing to connect to

    QVERIFY(settings.setBackendUrl(QStringLiteral("ws://127.0.0.1:9/desktop")));
    QCOMPARE(url->text(), QStringLiteral("ws://127.0.0.1:9/desktop"));
    QVERIFY(button->isEnabled());
    QSignalSpy connectSpy(&panel, &ConnectionPanel::connectRequested);
    button->click();
    QCOMPARE(connectSpy.count(), 1);

    // No token: the connection says signed out, and the button offers to sign in.
    connection.setUrl(QUrl(settings.backendUrl()));
    connection.start();
    QTRY_COMPARE(state->text(), BackendConnection::stateName(connection.state()));
    if (connection.state() == BackendConnection::State::SignedOut) {
        QSignalSpy signIn(&panel, &ConnectionPanel::signInRequested);
        button->click();
        QCOMPARE(signIn.count(), 1);
    }

    // With a token, a refused port makes it reconnect, with a countdown; Disconnect stops.
    connection.setToken(QStringLiteral("t0k3n-for-test"));
    QTRY_VERIFY_WITH_TIMEOUT(connection.state() == BackendConnection::State::Reconnecting, 10000);
    QTRY_COMPARE(state->text(), BackendConnection::stateName(BackendConnection::State::Reconnecting));
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("nextAttempt"))->text().contains(QStringLiteral("(in ")));
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("connectionError"))->text() != QStringLiteral("—"));
    QSignalSpy disconnectSpy(&panel, &ConnectionPanel::disconnectRequested);
    button->click();
    QCOMPARE(disconnectSpy.count(), 1);
    connection.stop();
}

QTEST_MAIN(TestConnectionPanel)
#include "tst_connectionpanel.moc"
