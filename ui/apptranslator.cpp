#include "apptranslator.h"

#include "support/logging.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>
#include <QTranslator>

namespace zeus {

QStringList AppTranslator::available() {
    QStringList languages;
    const QStringList files = QDir(QStringLiteral(":/i18n")).entryList({QStringLiteral("zeus-desktop_*.qm")});
    for (const QString& file : files) {
        languages.append(file.mid(13, file.size() - 13 - 3));
    }
    return languages;
}

QString AppTranslator::install(QCoreApplication* app, const QLocale& locale) {
    auto* own = new QTranslator(app);
    if (!own->load(locale, QStringLiteral("zeus-desktop"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        delete own;
        return {};
    }
    QCoreApplication::installTranslator(own);
    // Qt's own strings (standard buttons, file dialogs) in the same language, when installed.
    auto* qt = new QTranslator(app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt);
    } else {
        delete qt;
    }
    qCInfo(lcApp) << "translation loaded:" << own->language();
    return own->language();
}

}  // namespace zeus
