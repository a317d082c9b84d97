#include "backend/backendtoken.h"

#include "backend/backendurl.h"

namespace zeus {

QString BackendToken::anonymous() {
    return QStringLiteral("anonymous");
}

bool BackendToken::allowsAnonymous(const QUrl& url) {
    if (!url.isValid() || url.scheme().compare(QLatin1String("ws"), Qt::CaseInsensitive) != 0
        || !url.userInfo().isEmpty()) {
        return false;
    }
    return BackendUrl::isLoopbackHost(url.host());
}

QString BackendToken::effective(const QUrl& url, const QString& storedToken) {
    if (!storedToken.isEmpty()) {
        return storedToken;
    }
    return allowsAnonymous(url) ? anonymous() : QString();
}

}  // namespace zeus
