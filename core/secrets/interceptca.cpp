#include "secrets/interceptca.h"

#include "support/keychainjob.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QCryptographicHash>
#include <QDateTime>
#include <QHostAddress>
#include <QRegularExpression>
#include <QTimer>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <utility>

namespace zeus {

namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
    void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using KeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;

constexpr long kCaValiditySeconds = 10L * 365 * 24 * 3600;
constexpr long kBackdateSeconds = 3600;  // clocks in the sandbox and on the host may differ a little
constexpr qint64 kRemintBeforeSeconds = 3600;

KeyPtr makeP256Key() {
    KeyCtxPtr ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nullptr));
    EVP_PKEY* key = nullptr;
    if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0
        || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx.get(), NID_X9_62_prime256v1) <= 0
        || EVP_PKEY_keygen(ctx.get(), &key) <= 0) {
        return nullptr;
    }
    return KeyPtr(key);
}

QByteArray bioBytes(BIO* bio) {
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    return size > 0 ? QByteArray(data, qsizetype(size)) : QByteArray();
}

// A positive random serial of 127 bits: unique without a counter.
bool setRandomSerial(X509* cert) {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
        return false;
    }
    bytes[0] &= 0x7f;
    bytes[0] |= 0x01;  // never a short or zero serial
    BnPtr bn(BN_bin2bn(bytes, sizeof(bytes), nullptr));
    return bn && BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) != nullptr;
}

bool addExtension(X509* cert, X509* issuer, int nid, const QByteArray& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    ExtPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value.constData()));
    return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

// The parts both certificates share: version 3, a random serial, the validity, the subject's key and name.
CertPtr startCertificate(EVP_PKEY* subjectKey, const QByteArray& commonName, long validSeconds) {
    CertPtr cert(X509_new());
    if (!cert || X509_set_version(cert.get(), 2) != 1 || !setRandomSerial(cert.get())
        || X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds) == nullptr
        || X509_gmtime_adj(X509_getm_notAfter(cert.get()), validSeconds) == nullptr
        || X509_set_pubkey(cert.get(), subjectKey) != 1) {
        return nullptr;
    }
    X509_NAME* name = X509_get_subject_name(cert.get());
    const auto* cn = reinterpret_cast<const unsigned char*>(commonName.constData());
    if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>("Zeus Desktop"), -1,
                                   -1, 0)
            != 1
        || X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, cn, -1, -1, 0) != 1) {
        return nullptr;
    }
    return cert;
}

// A host as a certificate names it: "DNS:name" or "IP:address"; empty when it is not a plain host (a wildcard,
// a comma that would add another name to the extension's text, anything a DNS name cannot hold).
QByteArray subjectAltName(const QString& host) {
    static const QRegularExpression name(QStringLiteral(
        "^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$"));
    QHostAddress address;
    if (address.setAddress(host)) {
        return "IP:" + address.toString().toLatin1();
    }
    return name.match(host).hasMatch() ? "DNS:" + host.toLatin1() : QByteArray();
}

}  // namespace

// The CA's key and certificate, owned here and never copied out.
struct InterceptCa::Keys {
    KeyPtr key;
    CertPtr cert;
};

InterceptCa::InterceptCa(QObject* parent) : InterceptCa(QStringLiteral(ZEUS_APP_ID), parent) {}

InterceptCa::InterceptCa(QString service, QObject* parent) : QObject(parent), m_service(std::move(service)) {
    qRegisterMetaType<Result>();
}

InterceptCa::~InterceptCa() = default;

QString InterceptCa::keychainKey() {
    return QStringLiteral("intercept-ca");
}

QString InterceptCa::fingerprint() const {
    if (m_certificate.isNull()) {
        return {};
    }
    return QString::fromLatin1(m_certificate.digest(QCryptographicHash::Sha256).toHex(':').toUpper());
}

bool InterceptCa::generate(QString* error) {
    const auto refuse = [error](const char* why) {
        if (error != nullptr) {
            *error = QString::fromLatin1(why);
        }
        return false;
    };
    auto keys = std::make_unique<Keys>();
    keys->key = makeP256Key();
    if (!keys->key) {
        return refuse("could not make a P-256 key");
    }
    QByteArray id(8, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char*>(id.data()), int(id.size())) != 1) {
        return refuse("no random bytes");
    }
    // A name of its own per install, so two installs' CAs are told apart in a trust store listing.
    keys->cert =
        startCertificate(keys->key.get(), "Zeus Desktop sandbox interception CA " + id.toHex(), kCaValiditySeconds);
    X509* cert = keys->cert.get();
    if (!cert || X509_set_issuer_name(cert, X509_get_subject_name(cert)) != 1
        || !addExtension(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
        || !addExtension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign")
        || !addExtension(cert, cert, NID_subject_key_identifier, "hash")
        || !addExtension(cert, cert, NID_authority_key_identifier, "keyid:always")
        || X509_sign(cert, keys->key.get(), EVP_sha256()) <= 0) {
        return refuse("could not make the CA certificate");
    }
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
        return refuse("could not write the CA certificate");
    }
    m_certificate = QSslCertificate(bioBytes(bio.get()), QSsl::Pem);
    m_ca = std::move(keys);
    m_leaves.clear();
    m_leafOrder.clear();
    return true;
}

InterceptCa::Leaf InterceptCa::mint(const QString& rawHost) {
    Leaf leaf;
    QString host = rawHost.trimmed().toLower();
    if (host.endsWith(QLatin1Char('.'))) {
        host.chop(1);
    }
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']'))) {
        host = host.mid(1, host.size() - 2);
    }
    const QByteArray san = subjectAltName(host);
    if (!m_ca) {
        leaf.error = tr("The interception CA is not loaded.");
        return leaf;
    }
    if (san.isEmpty()) {
        leaf.error = tr("'%1' is not a host a certificate can name.").arg(rawHost);
        return leaf;
    }
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const auto cached = m_leaves.constFind(host);
    if (cached != m_leaves.constEnd() && cached->notAfterSecs - now > kRemintBeforeSeconds) {
        return cached->leaf;
    }
    KeyPtr key = makeP256Key();
    CertPtr cert =
        key ? startCertificate(key.get(), host.toLatin1().left(64), long(kLeafValidityHours) * 3600) : nullptr;
    X509* ca = m_ca->cert.get();
    if (!cert || X509_set_issuer_name(cert.get(), X509_get_subject_name(ca)) != 1
        || !addExtension(cert.get(), ca, NID_basic_constraints, "critical,CA:FALSE")
        || !addExtension(cert.get(), ca, NID_key_usage, "critical,digitalSignature")
        || !addExtension(cert.get(), ca, NID_ext_key_usage, "serverAuth")
        || !addExtension(cert.get(), ca, NID_subject_alt_name, san)
        || !addExtension(cert.get(), ca, NID_subject_key_identifier, "hash")
        || !addExtension(cert.get(), ca, NID_authority_key_identifier, "keyid:always")
        || X509_sign(cert.get(), m_ca->key.get(), EVP_sha256()) <= 0) {
        leaf.error = tr("Could not make a certificate for %1.").arg(host);
        return leaf;
    }
    BioPtr certBio(BIO_new(BIO_s_mem()));
    BioPtr keyBio(BIO_new(BIO_s_mem()));
    if (!certBio || !keyBio || PEM_write_bio_X509(certBio.get(), cert.get()) != 1
        || PEM_write_bio_PrivateKey(keyBio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        leaf.error = tr("Could not write the certificate for %1.").arg(host);
        return leaf;
    }
    leaf.certificate = QSslCertificate(bioBytes(certBio.get()), QSsl::Pem);
    QByteArray keyPem = bioBytes(keyBio.get());
    leaf.key = QSslKey(keyPem, QSsl::Ec, QSsl::Pem, QSsl::PrivateKey);
    keyPem.fill('\0');
    if (leaf.isNull()) {
        leaf.error = tr("The TLS library could not read the certificate made for %1.").arg(host);
        return leaf;
    }
    if (!m_leaves.contains(host)) {
        m_leafOrder.append(host);
    }
    m_leaves.insert(host, Cached{leaf, now + qint64(kLeafValidityHours) * 3600});
    while (m_leafOrder.size() > kMaxCachedLeaves) {
        m_leaves.remove(m_leafOrder.takeFirst());
    }
    return leaf;
}

QByteArray InterceptCa::exportPem() const {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!m_ca || !bio
        || PEM_write_bio_PrivateKey(bio.get(), m_ca->key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1
        || PEM_write_bio_X509(bio.get(), m_ca->cert.get()) != 1) {
        return {};
    }
    return bioBytes(bio.get());
}

bool InterceptCa::adopt(const QByteArray& pem, QString* error) {
    BioPtr bio(BIO_new_mem_buf(pem.constData(), int(pem.size())));
    auto keys = std::make_unique<Keys>();
    if (bio) {
        keys->key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
        keys->cert.reset(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    }
    if (!keys->key || !keys->cert) {
        *error = tr("it holds no key and certificate");
        return false;
    }
    if (X509_check_private_key(keys->cert.get(), keys->key.get()) != 1) {
        *error = tr("its key does not belong to its certificate");
        return false;
    }
    if (X509_check_ca(keys->cert.get()) <= 0) {
        *error = tr("its certificate is not a CA");
        return false;
    }
    if (X509_cmp_current_time(X509_get0_notAfter(keys->cert.get())) <= 0) {
        *error = tr("its certificate has expired");
        return false;
    }
    BioPtr out(BIO_new(BIO_s_mem()));
    if (!out || PEM_write_bio_X509(out.get(), keys->cert.get()) != 1) {
        *error = tr("its certificate cannot be written");
        return false;
    }
    m_certificate = QSslCertificate(bioBytes(out.get()), QSsl::Pem);
    m_ca = std::move(keys);
    m_leaves.clear();
    m_leafOrder.clear();
    return true;
}

void InterceptCa::load() {
    auto* job = new KeychainJob(KeychainJob::Operation::Read, m_service, keychainKey(), this);
    job->setTimeoutMs(m_timeoutMs);
    connect(job, &KeychainJob::finished, this, [this](const KeychainJob::Outcome& outcome) {
        if (outcome.failure == KeychainFailure::None) {
            QByteArray pem = outcome.data;
            QString why;
            const bool ok = adopt(pem, &why);
            pem.fill('\0');
            if (!ok) {
                qCWarning(lcSecrets) << "the interception CA in the keychain cannot be used:" << why;
                Q_EMIT ready(Result{Status::Corrupt, false,
                                    tr("The interception CA stored in the keychain cannot be used (%1). Remove the "
                                       "keychain entry \"%2\" of %3 and a new one is made.")
                                        .arg(why, keychainKey(), m_service)});
                return;
            }
            Q_EMIT ready(Result{Status::Ok, false, {}});
            return;
        }
        if (outcome.failure != KeychainFailure::NotFound) {
            Q_EMIT ready(resultFor(outcome.failure, outcome.errorString, m_timeoutMs));
            return;
        }
        // The first run: make one and keep it only once the keychain has it.
        QString why;
        if (!generate(&why)) {
            Q_EMIT ready(Result{Status::Failed, false, tr("Could not make the interception CA: %1.").arg(why)});
            return;
        }
        auto* write = new KeychainJob(KeychainJob::Operation::Write, m_service, keychainKey(), this);
        write->setTimeoutMs(m_timeoutMs);
        QByteArray pem = exportPem();
        write->setBinaryData(pem);
        pem.fill('\0');
        connect(write, &KeychainJob::finished, this, [this](const KeychainJob::Outcome& written) {
            Result result = resultFor(written.failure, written.errorString, m_timeoutMs);
            result.created = result.status == Status::Ok;
            stored(result);
        });
        write->start();
    });
    job->start();
}

void InterceptCa::stored(const Result& result) {
    if (result.status != Status::Ok) {
        // Never a CA the keychain does not hold: the next run would make another, and the sandboxes' trust with it.
        m_ca.reset();
        m_certificate = QSslCertificate();
        m_leaves.clear();
        m_leafOrder.clear();
    } else {
        qCInfo(lcSecrets).noquote() << "made the interception CA, SHA-256" << fingerprint();
    }
    Q_EMIT ready(result);
}

InterceptCa::Result InterceptCa::resultFor(KeychainFailure failure, const QString& errorString, int timeoutMs) {
    switch (failure) {
        case KeychainFailure::None:
            return Result{Status::Ok, false, {}};
        case KeychainFailure::NotFound:
            return Result{Status::Failed, false, tr("The keychain has no interception CA.")};
        case KeychainFailure::LockedOrDenied:
            return Result{Status::AccessDenied, false,
                          tr("The keychain is locked or access to it was denied, so the interception CA for "
                             "host-bound secrets cannot be used. Unlock it and try again.")};
        case KeychainFailure::TimedOut:
            return Result{Status::TimedOut, false,
                          tr("The keychain did not answer within %1 seconds. It may be locked and waiting for its "
                             "password.")
                              .arg(timeoutMs / 1000.0)};
        case KeychainFailure::Other:
            return Result{Status::Failed, false,
                          tr("The keychain reported an error (%1), so the interception CA for host-bound secrets "
                             "cannot be used. Zeus Desktop never keeps its key in plain text.")
                              .arg(errorString)};
        case KeychainFailure::NoService:
            break;
    }
    return Result{Status::NoKeyring, false,
                  tr("No keychain is available for the interception CA of host-bound secrets (%1). Zeus Desktop "
                     "never keeps its key in plain text: start a keyring such as GNOME Keyring or KWallet.")
                      .arg(errorString.isEmpty() ? tr("no keychain service") : errorString)};
}

}  // namespace zeus
