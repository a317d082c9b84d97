#include "sandbox/hostcertificates.h"

#include "engine/containerspec.h"

#include <QCryptographicHash>
#include <QFile>
#include <QSet>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>

namespace zeus {

namespace {

QByteArray systemPem() {
    if (!QSslSocket::supportsSsl()) {
        return {};
    }
    QByteArray pem;
    const QList<QSslCertificate> roots = QSslConfiguration::systemCaCertificates();
    for (const QSslCertificate& root : roots) {
        pem += root.toPem();
    }
    return pem;
}

QByteArray testPem() {
    const QString path = qEnvironmentVariable("ZEUS_TEST_CA_BUNDLE");
    if (path.isEmpty()) {
        return {};
    }
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A trust anchor as a verifier matches it: its subject and its key (a key Qt cannot read: the certificate itself).
QByteArray anchorOf(const QSslCertificate& certificate) {
    const QByteArray key = certificate.publicKey().toDer();
    if (key.isEmpty()) {
        return certificate.digest(QCryptographicHash::Sha256);
    }
    const QByteArray anchor = certificate.subjectDisplayName().toUtf8() + '\n' + key;
    return QCryptographicHash::hash(anchor, QCryptographicHash::Sha256);
}

QString nameOf(const QSslCertificate& certificate) {
    for (const auto attribute : {QSslCertificate::CommonName, QSslCertificate::Organization}) {
        const QStringList values = certificate.subjectInfo(attribute);
        if (!values.isEmpty() && !values.first().isEmpty()) {
            return values.first();
        }
    }
    return certificate.subjectDisplayName();
}

}  // namespace

HostCertificates::Bundle HostCertificates::fromPem(const QByteArray& systemPem, const QByteArray& extraPem) {
    Bundle bundle;
    QSet<QByteArray> seen;
    const auto add = [&bundle, &seen](const QByteArray& pem, bool extra) {
        const QList<QSslCertificate> certificates = QSslCertificate::fromData(pem, QSsl::Pem);
        for (const QSslCertificate& certificate : certificates) {
            if (certificate.isNull() || seen.contains(certificate.digest(QCryptographicHash::Sha256))) {
                continue;
            }
            seen.insert(certificate.digest(QCryptographicHash::Sha256));
            bundle.pem += certificate.toPem();
            ++bundle.count;
            if (extra) {
                bundle.extra.append(certificate.subjectDisplayName());
            }
        }
    };
    add(systemPem, false);
    add(extraPem, true);
    return bundle;
}

const HostCertificates::Bundle& HostCertificates::system() {
    static const Bundle bundle = fromPem(systemPem(), testPem());
    return bundle;
}

QList<QPair<QString, QByteArray>> HostCertificates::environment() {
    const QByteArray path = containerCaBundlePath().toUtf8();
    return {
        {QStringLiteral("SSL_CERT_FILE"), path},        // OpenSSL: curl, Python's ssl, Ruby, git's https
        {QStringLiteral("NODE_EXTRA_CA_CERTS"), path},  // Node.js and npm (added to its own roots)
        {QStringLiteral("REQUESTS_CA_BUNDLE"), path},   // Python's requests
        {QStringLiteral("PIP_CERT"), path},             // pip
        {QStringLiteral("CURL_CA_BUNDLE"), path},       // curl built with another TLS library
        {QStringLiteral("GIT_SSL_CAINFO"), path},       // git over https
        // GNU wget as distributions build it (GnuTLS) reads no variable for its roots, only a wgetrc: this one
        // names the bundle. It takes the place of ~/.wgetrc; /etc/wgetrc is still read first.
        {QStringLiteral("WGETRC"), wgetrcPath().toUtf8()},
    };
}

QString HostCertificates::wgetrcPath() {
    return containerRuntimeDir() + QStringLiteral("/wgetrc");
}

QStringList HostCertificates::installCommand() {
    const QString path = containerCaBundlePath();
    return {QStringLiteral("sh"), QStringLiteral("-c"),
            QStringLiteral("umask 022 && cat > %1.part && mv -f %1.part %1 && "
                           "printf 'ca_certificate = %1\\n' > %2.part && mv -f %2.part %2")
                .arg(path, wgetrcPath())};
}

QStringList HostCertificates::imageBundleCommand() {
    return {QStringLiteral("cat"), QStringLiteral("/etc/ssl/certs/ca-certificates.crt")};
}

QStringList HostCertificates::missingFrom(const Bundle& host, const QByteArray& imagePem) {
    QSet<QByteArray> inImage;
    for (const QSslCertificate& certificate : QSslCertificate::fromData(imagePem, QSsl::Pem)) {
        inImage.insert(anchorOf(certificate));
    }
    QStringList missing;
    for (const QSslCertificate& certificate : QSslCertificate::fromData(host.pem, QSsl::Pem)) {
        if (!inImage.contains(anchorOf(certificate))) {
            missing << nameOf(certificate);
        }
    }
    return missing;
}

}  // namespace zeus
