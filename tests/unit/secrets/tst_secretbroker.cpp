// SecretBroker: unknown names, headless denial, the user's answers and the approval timeout -- every path that is
// decided before the keychain is asked -- and, on the test keyring, the values of a granted request.
#include "secrets/secretbroker.h"
#include "testenvironment.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>

using namespace zeus;

namespace {

SecretBroker::Request request(const QString& id, const QStringList& names,
                              const QString& session = QStringLiteral("s1"),
                              const QString& folder = QStringLiteral("/w")) {
    return SecretBroker::Request{id, session, folder, QStringLiteral("git push"), names};
}

SecretBroker::Answer answerOf(QSignalSpy& spy) {
    return spy.isEmpty() ? SecretBroker::Answer{} : spy.takeFirst().at(0).value<SecretBroker::Answer>();
}

}  // namespace

class TestSecretBroker : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void unknownName();
    void headlessDeniesWhatWasNotAllowed();
    void userDenies();
    void noAnswerIsADenial();
    void cancelWhileWaiting();
    void sessionAndFolderApprovalsAskNoMore();
    void grantedValuesFromTheKeyring();
};

void TestSecretBroker::unknownName() {
    SecretBroker broker;
    broker.setKnownNames({QStringLiteral("GITHUB_TOKEN")});
    QSignalSpy answered(&broker, &SecretBroker::answered);
    broker.request(request(QStringLiteral("c1"), {QStringLiteral("NPM_TOKEN")}));
    QVERIFY(answered.wait(2000));
    const SecretBroker::Answer answer = answerOf(answered);
    QCOMPARE(answer.outcome, SecretBroker::Outcome::Unknown);
    QVERIFY(answer.message.contains(QLatin1String("NPM_TOKEN")));
    QVERIFY(answer.values.isEmpty());
}

void TestSecretBroker::headlessDeniesWhatWasNotAllowed() {
    SecretBroker broker;
    broker.setKnownNames({QStringLiteral("A_TOKEN"), QStringLiteral("B_TOKEN")});
    broker.setPreApproved({QStringLiteral("A_TOKEN")});
    QSignalSpy needed(&broker, &SecretBroker::approvalNeeded);
    QSignalSpy answered(&broker, &SecretBroker::answered);
    broker.request(request(QStringLiteral("c1"), {QStringLiteral("A_TOKEN"), QStringLiteral("B_TOKEN")}));
    QVERIFY(answered.wait(2000));
    const SecretBroker::Answer answer = answerOf(answered);
    QCOMPARE(answer.outcome, SecretBroker::Outcome::Denied);
    QVERIFY(answer.message.contains(QLatin1String("B_TOKEN")));
    QVERIFY(!answer.message.contains(QLatin1String("A_TOKEN")));
    QCOMPARE(needed.count(), 0);
}

void TestSecretBroker::userDenies() {
    SecretBroker broker;
    broker.setKnownNames({QStringLiteral("A_TOKEN")});
    broker.setInteractive(true);
    QSignalSpy needed(&broker, &SecretBroker::approvalNeeded);
    QSignalSpy settled(&broker, &SecretBroker::approvalSettled);
    QSignalSpy answered(&broker, &SecretBroker::answered);
    broker.request(request(QStringLiteral("c1"), {QStringLiteral("A_TOKEN")}));
    QCOMPARE(needed.count(), 1);
    QCOMPARE(broker.waiting().size(), 1);
    broker.decide(QStringLiteral("other"), SecretBroker::Decision::Once);  // not asked: ignored
    QCOMPARE(answered.count(), 0);
    broker.decide(QStringLiteral("c1"), SecretBroker::Decision::Deny);
    QCOMPARE(settled.count(), 1);
    QCOMPARE(answerOf(answered).outcome, SecretBroker::Outcome::Denied);
    QVERIFY(broker.waiting().isEmpty());
}

void TestSecretBroker::noAnswerIsADenial() {
    SecretBroker broker;
    QCOMPARE(broker.approvalTimeoutMs(), 120 * 1000);
    broker.setKnownNames({QStringLiteral("A_TOKEN")});
    broker.setInteractive(true);
    broker.setApprovalTimeoutMs(100);
    QSignalSpy settled(&broker, &SecretBroker::approvalSettled);
    QSignalSpy answered(&broker, &SecretBroker::answered);
    broker.request(request(QStringLiteral("c1"), {QStringLiteral("A_TOKEN")}));
    QVERIFY(answered.wait(3000));
    QCOMPARE(answerOf(answered).outcome, SecretBroker::Outcome::Denied);
    QCOMPARE(settled.count(), 1);
    broker.decide(QStringLiteral("c1"), SecretBroker::Decision::Once);  // too late
    QTest::qWait(50);
    QCOMPARE(answered.count(), 0);
}

void TestSecretBroker::cancelWhileWaiting() {
    SecretBroker broker;
    broker.setKnownNames({QStringLiteral("A_TOKEN")});
    broker.setInteractive(true);
    QSignalSpy answered(&broker, &SecretBroker::answered);
    broker.request(request(QStringLiteral("c1"), {QStringLiteral("A_TOKEN")}));
    broker.cancel(QStringLiteral("c1"));
    QCOMPARE(answerOf(answered).outcome, SecretBroker::Outcome::Cancelled);
}

void TestSecretBroker::sessionAndFolderApprovalsAskNoMore() {
    SecretBroker broker;
    broker.setKnownNames({QStringLiteral("A_TOKEN"), QStringLiteral("B_TOKEN")});
    broker.setInteractive(true);
    broker.setFolderApprovals({{QStringLiteral("/w"), {QStringLiteral("B_TOKEN")}}});
    QCOMPARE(
        broker.needingApproval(request(QStringLiteral("c1"), {QStringLiteral("A_TOKEN"), QStringLiteral("B_TOKEN")})),
        QStringList{QStringLiteral("A_TOKEN")});
    QCOMPARE(broker.needingApproval(request(QStringLiteral("c1"), {QStringLiteral("B_TOKEN")}, QStringLiteral("s1"),
                                            QStringLiteral("/elsewhere"))),
             QStringList{QStringLiteral("B_TOKEN")});
    QSignalSpy always(&broker, &SecretBroker::alwaysApproved);
    broker.request(request(QStringLiteral("c2"), {QStringLiteral("A_TOKEN")}));
    broker.decide(QStringLiteral("c2"), SecretBroker::Decision::Session);
    QVERIFY(broker.needingApproval(request(QStringLiteral("c3"), {QStringLiteral("A_TOKEN")})).isEmpty());
    QCOMPARE(broker.needingApproval(request(QStringLiteral("c3"), {QStringLiteral("A_TOKEN")}, QStringLiteral("s2"))),
             QStringList{QStringLiteral("A_TOKEN")});
    broker.endSession(QStringLiteral("s1"));
    QCOMPARE(broker.needingApproval(request(QStringLiteral("c3"), {QStringLiteral("A_TOKEN")})),
             QStringList{QStringLiteral("A_TOKEN")});
    broker.request(
        request(QStringLiteral("c4"), {QStringLiteral("A_TOKEN")}, QStringLiteral("s9"), QStringLiteral("/other")));
    broker.decide(QStringLiteral("c4"), SecretBroker::Decision::AlwaysForFolder);
    QCOMPARE(always.count(), 1);
    QCOMPARE(always.first().at(1).toString(), QStringLiteral("/other"));
    QVERIFY(broker
                .needingApproval(request(QStringLiteral("c5"), {QStringLiteral("A_TOKEN")}, QStringLiteral("s8"),
                                         QStringLiteral("/other")))
                .isEmpty());
}

void TestSecretBroker::grantedValuesFromTheKeyring() {
    if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
        const char* why = "no test keyring: run under tests/harness/engines.sh with_keyring";
        if (zeus::test::isCi()) {
            QFAIL(why);
        }
        QSKIP(why);
    }
    const QString service = QStringLiteral("io.zeusdesktop.test.broker.%1").arg(QCoreApplication::applicationPid());
    SecretStore store(service);
    QSignalSpy stored(&store, &SecretStore::finished);
    store.write(QStringLiteral("A_TOKEN"), "value-of-a-token");
    QVERIFY(stored.wait(10000));
    QCOMPARE(stored.first().at(2).value<SecretStore::Result>().status, SecretStore::Status::Ok);

    SecretBroker broker(service);
    broker.setKnownNames({QStringLiteral("A_TOKEN")});
    broker.setPreApproved({QStringLiteral("A_TOKEN")});
    QSignalSpy used(&broker, &SecretBroker::used);
    QSignalSpy answered(&broker, &SecretBroker::answered);
    broker.request(request(QStringLiteral("c1"), {QStringLiteral("A_TOKEN")}));
    QVERIFY(answered.wait(10000));
    const SecretBroker::Answer answer = answerOf(answered);
    QCOMPARE(answer.outcome, SecretBroker::Outcome::Granted);
    QCOMPARE(answer.values.size(), 1);
    QCOMPARE(answer.values.first().name, QStringLiteral("A_TOKEN"));
    QVERIFY(answer.values.first().value == "value-of-a-token");
    QCOMPARE(used.count(), 1);

    stored.clear();
    store.remove(QStringLiteral("A_TOKEN"));
    QVERIFY(stored.wait(10000));
    QCOMPARE(stored.first().at(2).value<SecretStore::Result>().status, SecretStore::Status::Ok);
    store.read(QStringLiteral("A_TOKEN"));
    QVERIFY(stored.wait(10000));
    QCOMPARE(stored.last().at(2).value<SecretStore::Result>().status, SecretStore::Status::Missing);
}

QTEST_GUILESS_MAIN(TestSecretBroker)
#include "tst_secretbroker.moc"
