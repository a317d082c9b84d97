#pragma once

#include <QLocale>
#include <QString>

class QCoreApplication;

namespace zeus {

// Loads the app's translation (embedded :/i18n/zeus-desktop_<locale>.qm) and Qt's own for
// the user's language, chosen from the system locale at start.
//
// Owns the QTranslator objects (children of the application). Never fails loudly: a
// missing translation leaves the English text.
class AppTranslator {
public:
    // Returns the language that was loaded ("zh_CN"), or an empty string for English.
    static QString install(QCoreApplication* app, const QLocale& locale = QLocale::system());
    // The embedded translations ("zh_CN", ...).
    static QStringList available();
};

}  // namespace zeus
