// HostCertificates (SPEC §8 "Certificates"): the bundle the sandbox gets from this computer's trust store, the
// variables every command is told, the script that writes it, and which containers get it.
#include "engine/containerruntime.h"
#include "engine/containerspec.h"
#include "sandbox/hostcertificates.h"
#include "sandbox/sandboxconfig.h"

#include <QFile>
#include <QSslCertificate>
#include <QtTest>

using namespace zeus;

class TestHostCertificates : public QObject {
    Q_OBJECT

private:
    static QByteArray testCa() {
        QFile file(QStringLiteral(ZEUS_TEST_DATA_DIR "/certs/test-ca.pem"));
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

private Q_SLOTS:
    void bundleKeepsEachRootOnce();
    void systemStoreIsRead();
    void everyClientIsTold();
    void installScriptIsFixed();
    void rootsTheImageLacksAreNamed();
    void onlyContainersWithANetworkGetTheFolder_data();
    void onlyContainersWithANetworkGetTheFolder();
};

void TestHostCertificates::bundleKeepsEachRootOnce() {
    const QByteArray ca = testCa();
    QVERIFY(!ca.isEmpty());
    const HostCertificates::Bundle none = HostCertificates::fromPem(QByteArray(), QByteArray());
    QCOMPARE(none.count, 0);
    QVERIFY(none.pem.isEmpty());
    // The test knob's root, given twice and also found in the "system" text, is in the bundle once; it counts as
    // the knob's only when the system did not have it.
    const HostCertificates::Bundle extra = HostCertificates::fromPem(QByteArray("not a certificate\n"), ca + ca);
    QCOMPARE(extra.count, 1);
    QCOMPARE(extra.extra, QStringList{QStringLiteral("Zeus Desktop Test Root CA")});
    QCOMPARE(QSslCertificate::fromData(extra.pem).size(), 1);
    const HostCertificates::Bundle both = HostCertificates::fromPem(ca, ca);
    QCOMPARE(both.count, 1);
    QVERIFY(both.extra.isEmpty());
}

void TestHostCertificates::systemStoreIsRead() {
    // This machine has a CA store (ca-certificates): its roots are what a sandbox gets.
    const HostCertificates::Bundle& bundle = HostCertificates::system();
    QVERIFY2(bundle.count > 10, qPrintable(QString::number(bundle.count)));
    QCOMPARE(QSslCertificate::fromData(bundle.pem).size(), bundle.count);
}

void TestHostCertificates::everyClientIsTold() {
    QStringList names;
    for (const auto& variable : HostCertificates::environment()) {
        // GNU wget is told through the wgetrc written beside the bundle; every other client, the bundle itself.
        QCOMPARE(variable.second, variable.first == QLatin1String("WGETRC")
                                      ? QByteArray("/run/zeus/wgetrc")
                                      : QByteArray("/run/zeus/ca-certificates.crt"));
        names << variable.first;
    }
    QCOMPARE(names, (QStringList{QStringLiteral("SSL_CERT_FILE"), QStringLiteral("NODE_EXTRA_CA_CERTS"),
                                 QStringLiteral("REQUESTS_CA_BUNDLE"), QStringLiteral("PIP_CERT"),
                                 QStringLiteral("CURL_CA_BUNDLE"), QStringLiteral("GIT_SSL_CAINFO"),
                                 QStringLiteral("WGETRC")}));
}

void TestHostCertificates::installScriptIsFixed() {
    const QStringList command = HostCertificates::installCommand();
    QCOMPARE(command.size(), 3);
    QCOMPARE(command.at(0), QStringLiteral("sh"));
    QVERIFY(command.at(2).contains(QStringLiteral("cat > /run/zeus/ca-certificates.crt.part")));
    QVERIFY(command.at(2).contains(QStringLiteral("mv -f /run/zeus/ca-certificates.crt.part")));
    QVERIFY(command.at(2).contains(
        QStringLiteral("printf 'ca_certificate = /run/zeus/ca-certificates.crt\\n' > /run/zeus/wgetrc.part")));
}

void TestHostCertificates::rootsTheImageLacksAreNamed() {
    // This computer's roots plus the test's own CA, against an image that has every system root: only the test's
    // CA is missing, by its name; an image with no bundle lacks them all; a bundle with all of them lacks none.
    const HostCertificates::Bundle host = HostCertificates::fromPem(HostCertificates::system().pem, testCa());
    const QByteArray systemPem = HostCertificates::fromPem(HostCertificates::system().pem, {}).pem;
    const QStringList missing = HostCertificates::missingFrom(host, systemPem);
    if (HostCertificates::system().extra.isEmpty()) {
        QCOMPARE(missing, QStringList{QStringLiteral("Zeus Desktop Test Root CA")});
    }
    QCOMPARE(HostCertificates::missingFrom(host, QByteArray()).size(), host.count);
    QCOMPARE(HostCertificates::missingFrom(host, "garbage\n" + host.pem), QStringList());
    QCOMPARE(HostCertificates::imageBundleCommand(),
             (QStringList{QStringLiteral("cat"), QStringLiteral("/etc/ssl/certs/ca-certificates.crt")}));
}

void TestHostCertificates::onlyContainersWithANetworkGetTheFolder_data() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<bool>("on");
    QTest::addColumn<bool>("folder");
    QTest::newRow("allowlist") << int(NetworkMode::Allowlist) << true << true;
    QTest::newRow("open") << int(NetworkMode::Open) << true << true;
    QTest::newRow("none: nothing to trust") << int(NetworkMode::None) << true << false;
    QTest::newRow("allowlist, --no-host-ca") << int(NetworkMode::Allowlist) << false << false;
}

void TestHostCertificates::onlyContainersWithANetworkGetTheFolder() {
    QFETCH(int, mode);
    QFETCH(bool, on);
    QFETCH(bool, folder);
    SandboxConfig config;
    config.networkMode = NetworkMode(mode);
    config.hostCertificates = on;
    const ContainerSpec spec =
        config.containerSpec(QStringLiteral("zeus-test"), QStringLiteral("/tmp/w"), QStringLiteral("s"));
    QCOMPARE(spec.runtimeDir, folder);
    const QStringList args = ContainerRuntime::create(RuntimeKind::Docker)->runArguments(spec);
    QCOMPARE(args.contains(QStringLiteral("/run/zeus:rw,nosuid,nodev,mode=1777")), folder);
}

QTEST_GUILESS_MAIN(TestHostCertificates)
#include "tst_hostcertificates.moc"
