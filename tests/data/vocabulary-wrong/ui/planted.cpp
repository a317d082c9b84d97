#include <QString>

bool isAllowlist(const QString& word) {
    return word == QLatin1String("allowlist");
}
