#pragma once

#include <QObject>
#include <QString>

namespace zeus {

class KeychainJob;
enum class KeychainFailure;

// The secrets' values in the OS keychain (QtKeychain), one entry per name under the key "secret:NAME" of the
// app's service (SPEC §9). Every operation is an asynchronous keychain job with an app-level timeout and ends in
// exactly one finished() whose Result says, in words for the user, what happened. The names (never the values)
// are indexed in AppSettings by the caller.
// It must never fall back to plain-text storage, never log a value, and never block or spin an event loop.
class SecretStore : public QObject {
    Q_OBJECT
public:
    enum class Status {
        Ok,            // done; for a read, `value` holds the value
        Missing,       // no entry for this name
        NoKeyring,     // no keychain service is reachable
        AccessDenied,  // the keychain is locked or the user refused access
        TimedOut,      // the keychain did not answer in time
        Failed,        // any other keychain error
        Invalid,       // refused before the keychain was asked: a bad name or value
    };
    Q_ENUM(Status)

    enum class Operation { Read, Write, Delete };
    Q_ENUM(Operation)

    struct Result {
        Status status = Status::Failed;
        QByteArray value;  // read only, Ok only
        QString message;   // for the user; empty when Ok
    };

    static constexpr int kDefaultTimeoutMs = 10000;

    explicit SecretStore(QObject* parent = nullptr);
    // `service` other than the app's is for tests, so they never touch the user's real entries.
    explicit SecretStore(QString service, QObject* parent = nullptr);

    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    QString service() const { return m_service; }

    // A secret's name: [A-Z_][A-Z0-9_]* (an environment variable name), at most 128 characters, not one the
    // sandbox sets itself (ZEUS_CALL_TAG, ZEUS_COMMAND...) nor one that changes how a shell or loader runs.
    static bool isValidName(const QString& name);
    // Why a name or value is refused, for the user; empty when acceptable.
    static QString nameProblem(const QString& name);
    static QString valueProblem(const QByteArray& value);

    void read(const QString& name);
    void write(const QString& name, const QByteArray& value);
    void remove(const QString& name);

    // What a finished keychain job means for the user (pure).
    static Result classify(Operation operation, int keychainError, const QString& errorString);

Q_SIGNALS:
    void finished(zeus::SecretStore::Operation operation, const QString& name, const zeus::SecretStore::Result& result);

private:
    void run(KeychainJob* job, Operation operation, const QString& name);
    static Result resultFor(Operation operation, KeychainFailure failure, const QString& errorString, int timeoutMs);
    void finishLater(Operation operation, const QString& name, const Result& result);

    QString m_service;
    int m_timeoutMs = kDefaultTimeoutMs;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::SecretStore::Result)
