#include <QString>

QString defaultProfile() {
    return QStringLiteral("standard");
}
