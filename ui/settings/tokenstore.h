#pragma once

#include <QObject>
#include <QString>

namespace zeus {

// What the settings dialog needs from the keychain, asynchronously: is a token stored,
// store one, remove it. The app adapts core's credential store to this; tests use a fake.
//
// An implementation owns its keychain jobs. It must never keep the token in plain text
// anywhere but the OS keychain, never fall back to a file, and never report the token
// itself (only whether there is one).
class TokenStore : public QObject {
    Q_OBJECT
public:
    enum class Status {
        Unknown,      // not asked yet, or a request is running
        Stored,       // a token is in the keychain
        NotStored,    // the keychain works and holds no token
        Unavailable,  // no keychain service (no Secret Service / D-Bus session)
        Locked,       // the keychain is locked or access was denied
        Failed,       // another keychain error (see message())
    };
    Q_ENUM(Status)

    using QObject::QObject;

    Status status() const { return m_status; }
    // For the user: what the status means and what to do.
    QString message() const { return m_message; }
    bool isBusy() const { return m_busy; }

    // Tokens are kept per backend: the URL whose token is meant (empty: none configured).
    QString account() const { return m_account; }
    void setAccount(const QString& backendUrl) { m_account = backendUrl; }

    // Each answers with statusChanged() and then finished(); never synchronously.
    virtual void refresh() = 0;
    virtual void store(const QString& token) = 0;
    virtual void remove() = 0;

Q_SIGNALS:
    void statusChanged(zeus::TokenStore::Status status);
    // ok: the last request did what was asked.
    void finished(bool ok);

protected:
    void setBusy(bool busy) { m_busy = busy; }
    void setStatus(Status status, const QString& message) {
        m_status = status;
        m_message = message;
        Q_EMIT statusChanged(status);
    }

private:
    Status m_status = Status::Unknown;
    QString m_message;
    QString m_account;
    bool m_busy = false;
};

}  // namespace zeus
