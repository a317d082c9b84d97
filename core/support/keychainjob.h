#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

namespace zeus {

// What a keychain operation means for the user, the same for the sign-in token and the secrets: a missing
// keychain service (no Secret Service on the session bus, no bus at all), a locked or refused keychain, a
// missing entry, no answer in time, or another error.
enum class KeychainFailure {
    None,
    NotFound,
    LockedOrDenied,
    NoService,
    TimedOut,
    Other,
};

// One read, write or delete of one entry in the OS keychain (QtKeychain: Secret Service, macOS Keychain, Windows
// Credential Store), the only place the app speaks to QtKeychain. It is asynchronous and ends in exactly one
// finished(), then deletes itself: whichever comes first, the keychain's answer or the app-level timeout, ends
// it and the other is ignored. A keychain that never answers cannot be cancelled (QtKeychain has no API for it),
// so its job is left to finish on its own, owned by this job's parent.
// It must never fall back to plain-text storage, never log an entry's value, and never block or spin an event
// loop while the keychain answers.
class KeychainJob : public QObject {
    Q_OBJECT
public:
    enum class Operation { Read, Write, Delete };

    struct Outcome {
        KeychainFailure failure = KeychainFailure::Other;
        QByteArray data;      // a read's value, None only
        QString errorString;  // the keychain's own words, for logs and messages; empty on success and timeout
    };

    static constexpr int kDefaultTimeoutMs = 10000;

    // `service` and `key` name the entry; the parent owns the job until it has finished.
    KeychainJob(Operation operation, QString service, QString key, QObject* parent);

    // A write's value. Text is stored as the keychain's text entry, binary as its binary entry (on Secret Service
    // a different encoding), so an entry is read back the way it was always written.
    void setText(const QString& text);
    void setBinaryData(const QByteArray& data);
    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }

    // Starts the operation; finished() follows later, never from within start().
    void start();

    // What a QtKeychain error code and text mean (pure). QtKeychain reports a missing or broken session bus as
    // OtherError with the D-Bus text rather than NoBackendAvailable, so the text is read too.
    static KeychainFailure classify(int keychainError, const QString& errorString);

Q_SIGNALS:
    void finished(const zeus::KeychainJob::Outcome& outcome);

private:
    void settle(const Outcome& outcome);

    Operation m_operation;
    QString m_service;
    QString m_key;
    QString m_text;
    QByteArray m_data;
    bool m_binary = false;
    int m_timeoutMs = kDefaultTimeoutMs;
    bool m_settled = false;
    QTimer m_timer;
};

}  // namespace zeus
