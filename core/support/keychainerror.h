#pragma once

#include <QString>
#include <qt6keychain/keychain.h>

namespace zeus {

// What a QtKeychain error means for the user, the same for the sign-in token and the secrets: a missing
// keychain service (no Secret Service on the session bus, no bus at all), a locked or refused keychain, a
// missing entry, or another error. QtKeychain reports a missing or broken session bus as OtherError with
// the D-Bus text rather than NoBackendAvailable, so the text is read too.
enum class KeychainFailure {
    None,
    NotFound,
    LockedOrDenied,
    NoService,
    Other,
};

KeychainFailure classifyKeychainError(QKeychain::Error error, const QString& errorString);

}  // namespace zeus
