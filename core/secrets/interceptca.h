#pragma once

#include <QHash>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>

#include <memory>

namespace zeus {

enum class KeychainFailure;

// The per-install certificate authority with which the egress proxy terminates TLS for the hosts a secret is bound
// to (SPEC §9 "Host-bound secrets"), and only for them. Made once (ECDSA P-256, ten years), its private key kept in
// the OS keychain with its certificate (one entry, "intercept-ca" of the app's service), its certificate added to
// the bundle the sandbox trusts (SPEC §8 "Certificates") and never to the host's: nothing outside a sandbox ever
// trusts it. mint() makes a leaf for one host (SAN dNSName or iPAddress, valid 24 hours, a fresh key), cached per
// host until an hour before it ends, for a server-side QSslSocket.
//
// load() is asynchronous like every keychain job and ends in exactly one ready(). A locked, refused or missing
// keychain, or an entry that does not read back as a CA with its key, is an error that says so; there is never a
// plain-text fallback and never a CA kept only in memory behind the user's back. It must never log, show or hand
// out the CA's private key: only certificates, the fingerprint, and leaf keys (which sign nothing but one
// handshake's transcript).
class InterceptCa : public QObject {
    Q_OBJECT
public:
    enum class Status {
        Ok,            // loaded (or made and stored)
        NoKeyring,     // no keychain service is reachable
        AccessDenied,  // the keychain is locked or the user refused access
        TimedOut,      // the keychain did not answer in time
        Failed,        // any other keychain or crypto error
        Corrupt,       // the stored entry is not a CA with its key
    };
    Q_ENUM(Status)

    struct Result {
        Status status = Status::Failed;
        bool created = false;  // Ok: made now (the first run), not read back
        QString message;       // for the user; empty when Ok
    };

    struct Leaf {
        QSslCertificate certificate;
        QSslKey key;
        QString error;  // why there is none; empty when there is
        bool isNull() const { return certificate.isNull() || key.isNull(); }
    };

    static constexpr int kLeafValidityHours = 24;
    static constexpr int kMaxCachedLeaves = 256;
    static constexpr int kDefaultTimeoutMs = 10000;

    // `service`: the keychain service; tests use their own, never the user's.
    explicit InterceptCa(QObject* parent = nullptr);
    explicit InterceptCa(QString service, QObject* parent = nullptr);
    ~InterceptCa() override;

    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    static QString keychainKey();

    // Reads the CA from the keychain; when there is none, makes one and stores it first.
    void load();
    // Makes a fresh CA in memory without the keychain, replacing any loaded one (a one-run CA, for tests and a
    // diagnostics run). False and *error when the crypto library fails.
    bool generate(QString* error = nullptr);

    bool isLoaded() const { return m_ca != nullptr; }
    QSslCertificate certificate() const { return m_certificate; }
    QByteArray certificatePem() const { return m_certificate.toPem(); }
    // SHA-256 of the certificate, "AB:CD:…", for diagnostics.
    QString fingerprint() const;

    // A certificate and key for `host` (a DNS name or an IP literal), signed by the CA.
    Leaf mint(const QString& host);

    // What a keychain failure means for the user (pure).
    static Result resultFor(KeychainFailure failure, const QString& errorString, int timeoutMs);

Q_SIGNALS:
    void ready(const zeus::InterceptCa::Result& result);

private:
    struct Keys;
    struct Cached {
        Leaf leaf;
        qint64 notAfterSecs = 0;
    };
    void stored(const Result& result);
    bool adopt(const QByteArray& pem, QString* error);
    QByteArray exportPem() const;

    QString m_service;
    int m_timeoutMs = kDefaultTimeoutMs;
    std::unique_ptr<Keys> m_ca;
    QSslCertificate m_certificate;
    QHash<QString, Cached> m_leaves;
    QList<QString> m_leafOrder;  // oldest first
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::InterceptCa::Result)
