// The per-install CA of host-bound secrets (SPEC §9): what it makes (a P-256 CA, leaves for one host each, cached),
// what it refuses to name, and the keychain: made once and read back the same on the test keyring, an entry that is
// not a CA refused, and no keyring at all an error that says so (never a CA held only in memory).
#include "secrets/interceptca.h"
#include "support/keychainjob.h"
#include "testenvironment.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSslCertificateExtension>
#include <QTest>

using namespace zeus;
using namespace Qt::StringLiterals;

namespace {

QString testService() {
    return u"io.zeusdesktop.test.interceptca.%1"_s.arg(QCoreApplication::applicationPid());
}

bool needKeyring() {
    return qEnvironmentVariable("ZEUS_TEST_KEYRING") == "1"_L1;
}

InterceptCa::Result loadAndWait(InterceptCa* ca) {
    QSignalSpy ready(ca, &InterceptCa::ready);
    ca->load();
    if (!ready.wait(20000)) {
        return InterceptCa::Result{InterceptCa::Status::Failed, false, u"no answer"_s};
    }
    return ready.first().first().value<InterceptCa::Result>();
}

KeychainFailure keychain(KeychainJob::Operation operation, const QByteArray& data = {}) {
    auto* job = new KeychainJob(operation, testService(), InterceptCa::keychainKey(), nullptr);
    if (operation == KeychainJob::Operation::Write) {
        job->setBinaryData(data);
    }
    QSignalSpy done(job, &KeychainJob::finished);
    job->start();
    if (!done.wait(20000)) {
        return KeychainFailure::TimedOut;
    }
    return done.first().first().value<KeychainJob::Outcome>().failure;
}

QString extensionValue(const QSslCertificate& certificate, const QString& name) {
    for (const QSslCertificateExtension& e : certificate.extensions()) {
        if (e.name() == name) {
            const QVariant v = e.value();
            const QString text = v.canConvert<QStringList>() && !v.toStringList().isEmpty()
                                     ? v.toStringList().join(u", "_s)
                                     : v.toString();
            return text + (e.isCritical() ? u" (critical)"_s : QString());
        }
    }
    return {};
}

}  // namespace

Q_DECLARE_METATYPE(zeus::KeychainJob::Outcome)

class TestInterceptCa : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void generatedCa();
    void mintedLeaf();
    void leafCachedPerHost();
    void mintRefuses_data();
    void mintRefuses();
    void keychainMessages();
    void madeOnceAndReadBack();
    void corruptEntryRefused();
    void noKeyringIsAnError();
};

void TestInterceptCa::initTestCase() {
    qRegisterMetaType<KeychainJob::Outcome>();
}

void TestInterceptCa::generatedCa() {
    InterceptCa ca(testService());
    QVERIFY(!ca.isLoaded());
    QVERIFY(ca.fingerprint().isEmpty());
    QString error;
    QVERIFY2(ca.generate(&error), qPrintable(error));
    const QSslCertificate cert = ca.certificate();
    QVERIFY(!cert.isNull());
    QVERIFY(cert.isSelfSigned());
    QCOMPARE(cert.publicKey().algorithm(), QSsl::Ec);
    QVERIFY(
        cert.subjectInfo(QSslCertificate::CommonName).first().startsWith(u"Zeus Desktop sandbox interception CA "_s));
    QVERIFY(cert.expiryDate() > QDateTime::currentDateTimeUtc().addYears(9));
    QVERIFY(cert.effectiveDate() <= QDateTime::currentDateTimeUtc());
    QVERIFY(extensionValue(cert, u"basicConstraints"_s).contains(u"(critical)"_s));
    QVERIFY(ca.certificatePem().startsWith("-----BEGIN CERTIFICATE-----"));
    QVERIFY(!ca.certificatePem().contains("PRIVATE KEY"));
    static const QRegularExpression sha256(u"^([0-9A-F]{2}:){31}[0-9A-F]{2}$"_s);
    QVERIFY2(sha256.match(ca.fingerprint()).hasMatch(), qPrintable(ca.fingerprint()));

    InterceptCa other(testService());
    QVERIFY(other.generate());
    QVERIFY(other.fingerprint() != ca.fingerprint());
}

void TestInterceptCa::mintedLeaf() {
    InterceptCa ca(testService());
    QVERIFY(ca.generate());
    const InterceptCa::Leaf leaf = ca.mint(u"Fixture.Test."_s);
    QVERIFY2(!leaf.isNull(), qPrintable(leaf.error));
    QVERIFY(leaf.error.isEmpty());
    QCOMPARE(leaf.key.algorithm(), QSsl::Ec);
    QCOMPARE(leaf.key.type(), QSsl::PrivateKey);
    QVERIFY(!leaf.certificate.isSelfSigned());
    QCOMPARE(leaf.certificate.issuerDisplayName(), ca.certificate().subjectDisplayName());
    QCOMPARE(leaf.certificate.subjectAlternativeNames().values(QSsl::DnsEntry), QList<QString>{u"fixture.test"_s});
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QVERIFY(leaf.certificate.expiryDate() <= now.addSecs(qint64(InterceptCa::kLeafValidityHours) * 3600 + 60));
    QVERIFY(leaf.certificate.expiryDate() > now.addSecs(qint64(InterceptCa::kLeafValidityHours - 1) * 3600));
    const QString usage = extensionValue(leaf.certificate, u"extendedKeyUsage"_s);
    QVERIFY2(usage.contains(u"TLS Web Server"_s) || usage.contains(u"serverAuth"_s), qPrintable(usage));
    QVERIFY(extensionValue(leaf.certificate, u"basicConstraints"_s).contains(u"(critical)"_s));

    const InterceptCa::Leaf ip = ca.mint(u"127.0.0.1"_s);
    QVERIFY2(!ip.isNull(), qPrintable(ip.error));
    QCOMPARE(ip.certificate.subjectAlternativeNames().values(QSsl::IpAddressEntry), QList<QString>{u"127.0.0.1"_s});
    const InterceptCa::Leaf v6 = ca.mint(u"[::1]"_s);
    QVERIFY2(!v6.isNull(), qPrintable(v6.error));
}

void TestInterceptCa::leafCachedPerHost() {
    InterceptCa ca(testService());
    QVERIFY(ca.generate());
    const InterceptCa::Leaf a = ca.mint(u"a.test"_s);
    QCOMPARE(ca.mint(u"A.TEST"_s).certificate, a.certificate);
    QVERIFY(ca.mint(u"b.test"_s).certificate != a.certificate);
    // A new CA forgets every leaf of the old one.
    QVERIFY(ca.generate());
    QVERIFY(ca.mint(u"a.test"_s).certificate != a.certificate);
}

void TestInterceptCa::mintRefuses_data() {
    QTest::addColumn<QString>("host");
    QTest::newRow("empty") << QString();
    QTest::newRow("wildcard") << u"*.example.com"_s;
    QTest::newRow("a second name smuggled in") << u"a.test,DNS:evil.test"_s;
    QTest::newRow("space") << u"a test"_s;
    QTest::newRow("slash") << u"a.test/x"_s;
    QTest::newRow("too long") << QString(300, u'a');
    QTest::newRow("label too long") << QString(64, u'a') + u".test"_s;
}

void TestInterceptCa::mintRefuses() {
    QFETCH(QString, host);
    InterceptCa ca(testService());
    QVERIFY(!ca.mint(u"a.test"_s).error.isEmpty());  // not loaded
    QVERIFY(ca.generate());
    const InterceptCa::Leaf leaf = ca.mint(host);
    QVERIFY(leaf.isNull());
    QVERIFY(!leaf.error.isEmpty());
}

void TestInterceptCa::keychainMessages() {
    QCOMPARE(InterceptCa::resultFor(KeychainFailure::None, {}, 10000).status, InterceptCa::Status::Ok);
    const InterceptCa::Result none = InterceptCa::resultFor(KeychainFailure::NoService, {}, 10000);
    QCOMPARE(none.status, InterceptCa::Status::NoKeyring);
    QVERIFY(none.message.contains(u"plain text"_s));
    QCOMPARE(InterceptCa::resultFor(KeychainFailure::LockedOrDenied, {}, 10000).status,
             InterceptCa::Status::AccessDenied);
    QVERIFY(InterceptCa::resultFor(KeychainFailure::LockedOrDenied, {}, 10000).message.contains(u"locked"_s));
    QVERIFY(InterceptCa::resultFor(KeychainFailure::TimedOut, {}, 10000).message.contains(u"10 seconds"_s));
    const InterceptCa::Result other = InterceptCa::resultFor(KeychainFailure::Other, u"boom"_s, 10000);
    QCOMPARE(other.status, InterceptCa::Status::Failed);
    QVERIFY(other.message.contains(u"boom"_s) && other.message.contains(u"plain text"_s));
}

void TestInterceptCa::madeOnceAndReadBack() {
    if (!needKeyring()) {
        const char* why = "no test keyring: run under tests/harness/engines.sh with_keyring";
        if (zeus::test::isCi()) {
            QFAIL(why);
        }
        QSKIP(why);
    }
    keychain(KeychainJob::Operation::Delete);
    InterceptCa first(testService());
    const InterceptCa::Result made = loadAndWait(&first);
    QVERIFY2(made.status == InterceptCa::Status::Ok, qPrintable(made.message));
    QVERIFY(made.created);
    QVERIFY(first.isLoaded());

    InterceptCa second(testService());
    const InterceptCa::Result read = loadAndWait(&second);
    QVERIFY2(read.status == InterceptCa::Status::Ok, qPrintable(read.message));
    QVERIFY(!read.created);
    QCOMPARE(second.fingerprint(), first.fingerprint());
    // The key came back too: a leaf from the second is signed by the same CA.
    const InterceptCa::Leaf leaf = second.mint(u"fixture.test"_s);
    QVERIFY2(!leaf.isNull(), qPrintable(leaf.error));
    QCOMPARE(leaf.certificate.issuerDisplayName(), first.certificate().subjectDisplayName());
    QCOMPARE(keychain(KeychainJob::Operation::Delete), KeychainFailure::None);
}

void TestInterceptCa::corruptEntryRefused() {
    if (!needKeyring()) {
        const char* why = "no test keyring: run under tests/harness/engines.sh with_keyring";
        if (zeus::test::isCi()) {
            QFAIL(why);
        }
        QSKIP(why);
    }
    InterceptCa other(testService());
    QVERIFY(other.generate());
    // A CA certificate without its key, and text that is no PEM at all.
    for (const QByteArray& entry : {other.certificatePem(), QByteArray("not a pem at all")}) {
        QCOMPARE(keychain(KeychainJob::Operation::Write, entry), KeychainFailure::None);
        InterceptCa ca(testService());
        const InterceptCa::Result result = loadAndWait(&ca);
        QCOMPARE(result.status, InterceptCa::Status::Corrupt);
        QVERIFY(result.message.contains(InterceptCa::keychainKey()));
        QVERIFY(!ca.isLoaded());
        QVERIFY(ca.certificate().isNull());
    }
    QCOMPARE(keychain(KeychainJob::Operation::Delete), KeychainFailure::None);
}

void TestInterceptCa::noKeyringIsAnError() {
    if (qEnvironmentVariable("ZEUS_TEST_NO_KEYRING") != "1"_L1) {
        QSKIP("run as tst_interceptca_nokeyring (a session bus that is not there)");
    }
    InterceptCa ca(testService());
    ca.setTimeoutMs(5000);
    const InterceptCa::Result result = loadAndWait(&ca);
    qInfo().noquote() << "what the user is told:" << result.message;
    QVERIFY(result.status != InterceptCa::Status::Ok);
    QVERIFY2(result.message.contains(u"keychain"_s, Qt::CaseInsensitive), qPrintable(result.message));
    QVERIFY2(result.message.contains(u"plain text"_s), qPrintable(result.message));
    QVERIFY(!ca.isLoaded());
    QVERIFY(ca.certificate().isNull());
    QVERIFY(ca.mint(u"fixture.test"_s).isNull());
}

QTEST_GUILESS_MAIN(TestInterceptCa)
#include "tst_interceptca.moc"
