#include "settings/keychaintokenstore.h"

namespace zeus {

KeychainTokenStore::KeychainTokenStore(CredentialStore* store, QObject* parent) : TokenStore(parent), m_store(store) {
    connect(m_store, &CredentialStore::readFinished, this,
            [this](const QString& url, const CredentialStore::Result& result) {
                onFinished(CredentialStore::Operation::Read, url, result);
            });
    connect(m_store, &CredentialStore::writeFinished, this,
            [this](const QString& url, const CredentialStore::Result& result) {
                onFinished(CredentialStore::Operation::Write, url, result);
            });
    connect(m_store, &CredentialStore::deleteFinished, this,
            [this](const QString& url, const CredentialStore::Result& result) {
                onFinished(CredentialStore::Operation::Delete, url, result);
            });
}

TokenStore::Status KeychainTokenStore::statusFor(CredentialStore::Status status) {
    switch (status) {
        case CredentialStore::Status::Ok:
            return Status::Stored;
        case CredentialStore::Status::SignedOut:
            return Status::NotStored;
        case CredentialStore::Status::NoKeyring:
            return Status::Unavailable;
        case CredentialStore::Status::AccessDenied:
        case CredentialStore::Status::TimedOut:
            return Status::Locked;
        case CredentialStore::Status::Failed:
            break;
    }
    return Status::Failed;
}

void KeychainTokenStore::refresh() {
    if (account().isEmpty()) {
        setStatus(Status::Unknown, tr("Enter the backend URL first: the token is stored for that backend."));
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT finished(false); }, Qt::QueuedConnection);
        return;
    }
    setBusy(true);
    m_store->readToken(account());
}

void KeychainTokenStore::store(const QString& token) {
    if (account().isEmpty()) {
        setStatus(Status::Unknown, tr("Enter the backend URL first: the token is stored for that backend."));
        QMetaObject::invokeMethod(
            this, [this] { Q_EMIT finished(false); }, Qt::QueuedConnection);
        return;
    }
    setBusy(true);
    m_store->writeToken(account(), token);
}

void KeychainTokenStore::remove() {
    if (account().isEmpty()) {
        return;
    }
    setBusy(true);
    m_store->deleteToken(account());
}

void KeychainTokenStore::onFinished(CredentialStore::Operation operation, const QString& backendUrl,
                                    const CredentialStore::Result& result) {
    if (backendUrl != account()) {
        return;  // an answer for a URL the dialog no longer shows
    }
    setBusy(false);
    const bool ok =
        result.status == CredentialStore::Status::Ok
        || (operation == CredentialStore::Operation::Delete && result.status == CredentialStore::Status::SignedOut);
    Status status = statusFor(result.status);
    QString message = result.message;
    if (ok && operation == CredentialStore::Operation::Write) {
        status = Status::Stored;
        message.clear();
    } else if (ok && operation == CredentialStore::Operation::Delete) {
        status = Status::NotStored;
        message.clear();
    } else if (operation == CredentialStore::Operation::Read && result.status == CredentialStore::Status::Ok) {
        message = result.fromEnvironment ? tr("The token comes from the ZEUS_DESKTOP_TOKEN environment variable.")
                                         : QString();
    } else if (operation == CredentialStore::Operation::Read && result.status == CredentialStore::Status::SignedOut) {
        message.clear();  // the dialog's own words: "No sign-in token is stored yet."
    }
    setStatus(status, message);
    Q_EMIT finished(ok);
}

}  // namespace zeus
