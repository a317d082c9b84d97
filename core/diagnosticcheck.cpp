#include "diagnosticcheck.h"

#include <QCoreApplication>

namespace zeus {

QString DiagnosticCheck::levelToString(Level level) {
    switch (level) {
        case Level::Ok:
            return QStringLiteral("ok");
        case Level::Warning:
            return QStringLiteral("warning");
        case Level::Failed:
            return QStringLiteral("failed");
    }
    return QStringLiteral("failed");
}

QString DiagnosticCheck::levelMarker(Level level) {
    switch (level) {
        case Level::Ok:
            return QStringLiteral("[ok]");
        case Level::Warning:
            return QStringLiteral("[ !]");
        case Level::Failed:
            return QStringLiteral("[!!]");
    }
    return QStringLiteral("[!!]");
}

QString DiagnosticCheck::levelLabel(Level level) {
    switch (level) {
        case Level::Ok:
            return QCoreApplication::translate("zeus::DiagnosticCheck", "OK");
        case Level::Warning:
            return QCoreApplication::translate("zeus::DiagnosticCheck", "Warning");
        case Level::Failed:
            return QCoreApplication::translate("zeus::DiagnosticCheck", "Failed");
    }
    return {};
}

DiagnosticCheck::Level DiagnosticCheck::worst(const QList<DiagnosticCheck>& checks) {
    Level level = Level::Ok;
    for (const DiagnosticCheck& check : checks) {
        if (int(check.level) > int(level)) {
            level = check.level;
        }
    }
    return level;
}

QJsonObject DiagnosticCheck::toJson() const {
    QJsonObject object;
    object.insert(QStringLiteral("id"), id);
    object.insert(QStringLiteral("level"), levelToString(level));
    object.insert(QStringLiteral("summary"), summary);
    object.insert(QStringLiteral("action"), action);
    return object;
}

}  // namespace zeus
