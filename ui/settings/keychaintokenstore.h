#pragma once

#include "backend/credentialstore.h"
#include "settings/tokenstore.h"

namespace zeus {

// The settings dialog's TokenStore on core's CredentialStore (the OS keychain), for the
// backend URL set as account().
//
// Owns nothing but the mapping; the CredentialStore owns the keychain jobs. It must never
// keep the token after the write is handed over, and never report the token itself.
class KeychainTokenStore : public TokenStore {
    Q_OBJECT
public:
    explicit KeychainTokenStore(CredentialStore* store, QObject* parent = nullptr);

    void refresh() override;
    void store(const QString& token) override;
    void remove() override;

    // Pure: a keychain result as the dialog shows it.
    static Status statusFor(CredentialStore::Status status);

private:
    void onFinished(CredentialStore::Operation operation, const QString& backendUrl,
                    const CredentialStore::Result& result);

    CredentialStore* m_store;
};

}  // namespace zeus
