#include "review/gitbundle.h"

#include <QCryptographicHash>

#include <algorithm>

namespace zeus {

namespace {

constexpr int kMaxPlainLength = 64;

bool isPlainName(const QString& id) {
    if (id.isEmpty() || id.size() > kMaxPlainLength || id.startsWith(QLatin1Char('.'))
        || id.startsWith(QLatin1Char('-')) || id.contains(QLatin1String("..")) || id.endsWith(QLatin1String(".lock"))
        || id.endsWith(QLatin1Char('.')) || id.startsWith(QLatin1String("s-"))) {
        return false;
    }
    return std::all_of(id.cbegin(), id.cend(), [](QChar c) {
        return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))
               || (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('-') || c == QLatin1Char('_')
               || c == QLatin1Char('.');
    });
}

}  // namespace

QString GitBundle::refComponent(const QString& sessionId) {
    if (isPlainName(sessionId)) {
        return sessionId;
    }
    const QByteArray hash = QCryptographicHash::hash(sessionId.toUtf8(), QCryptographicHash::Sha256).toHex();
    return QStringLiteral("s-") + QString::fromLatin1(hash.left(20));
}

bool GitBundle::isObjectId(const QString& text) {
    if (text.size() != 40 && text.size() != 64) {
        return false;
    }
    return std::all_of(text.cbegin(), text.cend(), [](QChar c) {
        return (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || (c >= QLatin1Char('a') && c <= QLatin1Char('f'));
    });
}

}  // namespace zeus
