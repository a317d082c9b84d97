#pragma once

#include <QCoreApplication>
#include <QString>
#include <QUrl>

namespace zeus {

// The one rule for a backend address (SPEC §5), used by the settings, the Settings dialog,
// every mode's --backend and the connection itself, so no path accepts what another refuses:
// wss://, or plain ws:// only to this computer; no user name or password, no fragment, and no
// token (or key, secret, password, auth, jwt, ...: isCredentialName) in the query: the token
// lives in the keychain.
// Pure functions: nothing here opens a connection or looks a name up.
class BackendUrl {
    Q_DECLARE_TR_FUNCTIONS(zeus::BackendUrl)

public:
    BackendUrl() = delete;

    // Empty when the address may be used, otherwise why not, for the user. The text form is
    // trimmed and parsed strictly.
    static QString problem(const QString& url);
    static QString problem(const QUrl& url);

    // This computer: "localhost" (any case) or a loopback address (127.0.0.0/8, ::1). Never a
    // name that merely starts with "localhost", never 0.0.0.0.
    static bool isLoopbackHost(const QString& host);
    // A query parameter name that names a credential (token, key, secret, password, auth, jwt, ... anywhere in
    // it, any case): such a parameter is refused, whatever its value.
    static bool isCredentialName(const QString& name);
};

}  // namespace zeus
