#include "backend/backendtoken.h"

#include <QHostAddress>

namespace zeus {

QString BackendToken::anonymous() {
    return QStringLiteral("anonymous");
}

bool BackendToken::allowsAnonymous(const QUrl& url) {
    if (!url.isValid() || url.scheme().compare(QLatin1String("ws"), Qt::CaseInsensitive) != 0
        || !url.userInfo().isEmpty()) {
        return false;
    }
    if (url.host().compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0) {
        return true;
    }
    const QHostAddress address(url.host());
    return !address.isNull() && address.isLoopback();
}

QString BackendToken::effective(const QUrl& url, const QString& storedToken) {
    if (!storedToken.isEmpty()) {
        return storedToken;
    }
    return allowsAnonymous(url) ? anonymous() : QString();
}

}  // namespace zeus
