#pragma once

#include <QObject>
#include <QString>

namespace zeus {

class KeychainJob;
enum class KeychainFailure;

// The sign-in token in the OS keychain (QtKeychain: Secret Service, macOS Keychain, Windows Credential Store),
// one entry per backend URL under the service ZEUS_APP_ID. Every operation is an asynchronous keychain job with
// an app-level timeout and ends in exactly one *Finished signal whose Result says, in words for the user, what
// happened: a missing entry is "signed out", not an error. The ZEUS_DESKTOP_TOKEN environment variable, when
// set, overrides reading (headless use).
// It must never fall back to plain-text storage, never log or record the token, and never block or spin an
// event loop while the keychain answers.
class CredentialStore : public QObject {
    Q_OBJECT
public:
    enum class Status {
        Ok,            // done; for a read, `token` holds the token
        SignedOut,     // no token stored for this backend
        NoKeyring,     // no keychain service is reachable (e.g. no Secret Service on the session bus)
        AccessDenied,  // the keychain is locked or the user refused access
        TimedOut,      // the keychain did not answer in time (often: locked, waiting for an unlock prompt)
        Failed,        // any other keychain error
    };
    Q_ENUM(Status)

    struct Result {
        Status status = Status::Failed;
        QString token;    // read only, Ok only
        QString message;  // for the user; empty when Ok
        bool fromEnvironment = false;
    };

    enum class Operation { Read, Write, Delete };

    static constexpr int kDefaultTimeoutMs = 10000;
    static constexpr const char* kTokenVariable = "ZEUS_DESKTOP_TOKEN";

    explicit CredentialStore(QObject* parent = nullptr);
    // `service` other than ZEUS_APP_ID is for tests, so they never touch the user's real entries.
    explicit CredentialStore(QString service, QObject* parent = nullptr);

    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    int timeoutMs() const { return m_timeoutMs; }
    QString service() const { return m_service; }

    void readToken(const QString& backendUrl);
    void writeToken(const QString& backendUrl, const QString& token);
    void deleteToken(const QString& backendUrl);

    // What a finished keychain job means for the user. Pure: QtKeychain error code and text in, Result out.
    static Result classify(Operation operation, int keychainError, const QString& errorString);
    static QString timeoutMessage(int timeoutMs);

Q_SIGNALS:
    void readFinished(const QString& backendUrl, const zeus::CredentialStore::Result& result);
    void writeFinished(const QString& backendUrl, const zeus::CredentialStore::Result& result);
    void deleteFinished(const QString& backendUrl, const zeus::CredentialStore::Result& result);

private:
    void run(KeychainJob* job, Operation operation, const QString& backendUrl);
    static Result resultFor(Operation operation, KeychainFailure failure, const QString& errorString, int timeoutMs);
    void finish(Operation operation, const QString& backendUrl, const Result& result);

    QString m_service;
    int m_timeoutMs = kDefaultTimeoutMs;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::CredentialStore::Result)
