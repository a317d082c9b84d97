// KeychainJob: a keychain that answers after the job timed out and after the object that asked is gone (a page
// closed while the keychain was locked) must not crash the app. The session bus here is a socket that accepts and
// then hangs up after a while, so the keychain library's answer (an error) comes late, on the event loop.
#include "support/keychainjob.h"

#include <QLocalServer>
#include <QLocalSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>
#include <optional>

using namespace zeus;

class TestKeychainJob : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void lateAnswerAfterTheAskerIsGone();

private:
    QTemporaryDir m_dir;
};

void TestKeychainJob::lateAnswerAfterTheAskerIsGone() {
    QVERIFY(m_dir.isValid());
    QLocalServer bus;
    const QString path = m_dir.filePath(QStringLiteral("bus"));
    QVERIFY(bus.listen(path));
    int hungUp = 0;
    connect(&bus, &QLocalServer::newConnection, this, [&bus, &hungUp] {
        while (QLocalSocket* client = bus.nextPendingConnection()) {
            QTimer::singleShot(400, client, [client, &hungUp] {
                client->abort();
                hungUp++;
            });
        }
    });
    qputenv("DBUS_SESSION_BUS_ADDRESS", QByteArray("unix:path=") + path.toLocal8Bit());

    auto asker = std::make_unique<QObject>();
    auto* job = new KeychainJob(KeychainJob::Operation::Read, QStringLiteral("io.zeusdesktop.test.late"),
                                QStringLiteral("nothing"), asker.get());
    job->setTimeoutMs(50);
    std::optional<KeychainFailure> failure;
    connect(job, &KeychainJob::finished, this,
            [&failure](const KeychainJob::Outcome& outcome) { failure = outcome.failure; });
    job->start();
    QTRY_VERIFY_WITH_TIMEOUT(failure.has_value(), 5000);
    QCOMPARE(*failure, KeychainFailure::TimedOut);
    asker.reset();  // the page that asked is closed while the keychain still has not answered
    QTRY_VERIFY_WITH_TIMEOUT(hungUp > 0, 5000);
    QTest::qWait(500);  // the keychain library's late answer arrives here: no crash
}

QTEST_GUILESS_MAIN(TestKeychainJob)
#include "tst_keychainjob.moc"
