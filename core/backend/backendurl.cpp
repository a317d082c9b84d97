#include "backend/backendurl.h"

#include <QHostAddress>
#include <QUrlQuery>

namespace zeus {

QString BackendUrl::problem(const QString& url) {
    const QString trimmed = url.trimmed();
    if (trimmed.isEmpty()) {
        return problem(QUrl());
    }
    return problem(QUrl(trimmed, QUrl::StrictMode));
}

QString BackendUrl::problem(const QUrl& url) {
    if (url.isEmpty()) {
        return tr("Enter the backend address, for example wss://backend.example.com/desktop.");
    }
    if (!url.isValid() || url.scheme().isEmpty() || url.host().isEmpty()) {
        return tr("The backend address is not a valid URL.");
    }
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("wss") && scheme != QLatin1String("ws")) {
        return tr("The backend address must start with wss:// (or ws:// to this computer only).");
    }
    if (scheme == QLatin1String("ws") && !isLoopbackHost(url.host())) {
        return tr("Unencrypted ws:// is allowed only to this computer (localhost); use wss:// for %1.").arg(url.host());
    }
    if (!url.userName().isEmpty() || !url.password().isEmpty()) {
        return tr("The backend address must not contain a user name or password; sign in with a token instead.");
    }
    if (url.hasFragment()) {
        // Never sent to the backend, but kept with the address and shown in logs: a token there leaks all the same.
        return tr("The backend address must not carry a token; the token is kept in the system keychain.");
    }
    const QUrlQuery query(url);
    for (const auto& item : query.queryItems(QUrl::FullyDecoded)) {
        if (isCredentialName(item.first)) {
            return tr("The backend address must not carry a token; the token is kept in the system keychain.");
        }
    }
    return {};
}

bool BackendUrl::isCredentialName(const QString& name) {
    static const char* const parts[] = {"token", "key",    "secret",     "password",  "passwd", "auth",
                                        "jwt",   "bearer", "credential", "signature", "session"};
    const QString lower = name.toLower();
    for (const char* part : parts) {
        if (lower.contains(QLatin1String(part))) {
            return true;
        }
    }
    return false;
}

bool BackendUrl::isLoopbackHost(const QString& host) {
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0) {
        return true;
    }
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

}  // namespace zeus
