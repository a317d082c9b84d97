#include "support/keychainerror.h"

namespace zeus {

namespace {

bool mentionsMissingService(const QString& text) {
    static const char* const markers[] = {"d-bus",
                                          "dbus",
                                          "autolaunch",
                                          "secret service",
                                          "org.freedesktop.secrets",
                                          "no such interface",
                                          "not provided by any .service",
                                          "kwallet"};
    const QString lower = text.toLower();
    for (const char* marker : markers) {
        if (lower.contains(QLatin1String(marker))) {
            return true;
        }
    }
    return false;
}

}  // namespace

KeychainFailure classifyKeychainError(QKeychain::Error error, const QString& errorString) {
    switch (error) {
        case QKeychain::NoError:
            return KeychainFailure::None;
        case QKeychain::EntryNotFound:
            return KeychainFailure::NotFound;
        case QKeychain::AccessDenied:
        case QKeychain::AccessDeniedByUser:
            return KeychainFailure::LockedOrDenied;
        case QKeychain::NoBackendAvailable:
        case QKeychain::NotImplemented:
            return KeychainFailure::NoService;
        case QKeychain::CouldNotDeleteEntry:
        case QKeychain::OtherError:
            break;
    }
    if (mentionsMissingService(errorString)) {
        return KeychainFailure::NoService;
    }
    if (errorString.contains(QLatin1String("locked"), Qt::CaseInsensitive)
        || errorString.contains(QLatin1String("denied"), Qt::CaseInsensitive)) {
        return KeychainFailure::LockedOrDenied;
    }
    return KeychainFailure::Other;
}

}  // namespace zeus
