// The zh_CN translation: complete (every tr() string of core/, ui/ and app/ is in the .ts and
// translated), placeholders and accelerators kept, embedded and loaded from the locale.
#include "apptranslator.h"
#include "tray/traystatus.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>

namespace {

struct Message {
    QString context;
    QString source;
    QString translation;
    bool unfinished = false;
};

QList<Message> readTs(const QString& path) {
    QList<Message> messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return messages;
    }
    QXmlStreamReader xml(&file);
    QString context;
    Message current;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) {
            continue;
        }
        if (xml.name() == QLatin1String("name")) {
            context = xml.readElementText();
        } else if (xml.name() == QLatin1String("source")) {
            current = Message();
            current.context = context;
            current.source = xml.readElementText();
        } else if (xml.name() == QLatin1String("translation")) {
            current.unfinished = xml.attributes().value(QLatin1String("type")) == QLatin1String("unfinished")
                                 || xml.attributes().value(QLatin1String("type")) == QLatin1String("vanished");
            current.translation = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            messages.append(current);
        }
    }
    return messages;
}

// The string literals passed to tr() in a C++ file (adjacent literals joined).
QStringList trLiterals(const QString& text) {
    QStringList out;
    static const QRegularExpression call(QStringLiteral("\\btr\\(\\s*\""));
    auto it = call.globalMatch(text);
    while (it.hasNext()) {
        const auto match = it.next();
        qsizetype pos = match.capturedEnd() - 1;  // at the opening quote
        QString literal;
        while (pos < text.size() && text.at(pos) == QLatin1Char('"')) {
            ++pos;
            while (pos < text.size() && text.at(pos) != QLatin1Char('"')) {
                if (text.at(pos) == QLatin1Char('\\') && pos + 1 < text.size()) {
                    const QChar next = text.at(pos + 1);
                    literal += next == QLatin1Char('n') ? QStringLiteral("\n") : QString(next);
                    pos += 2;
                    continue;
                }
                literal += text.at(pos++);
            }
            ++pos;  // closing quote
            while (pos < text.size() && text.at(pos).isSpace()) {
                ++pos;
            }
        }
        out.append(literal);
    }
    return out;
}

QString tsPath() {
    return QStringLiteral(ZEUS_SOURCE_DIR "/resources/translations/zeus-desktop_zh_CN.ts");
}

QSet<QString> placeholders(const QString& text) {
    QSet<QString> found;
    static const QRegularExpression marker(QStringLiteral("%\\d"));
    auto it = marker.globalMatch(text);
    while (it.hasNext()) {
        found.insert(it.next().captured());
    }
    return found;
}

bool hasAccelerator(const QString& text) {
    return QString(text).remove(QStringLiteral("&&")).contains(QLatin1Char('&'));
}

}  // namespace

class TestTranslations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyMessageTranslated();
    void everySourceStringInTheTs();
    void embeddedAndLoadedFromLocale();
};

void TestTranslations::everyMessageTranslated() {
    const QList<Message> messages = readTs(tsPath());
    QVERIFY(messages.size() > 200);
    for (const Message& message : messages) {
        const QByteArray where = (message.context + QStringLiteral(": ") + message.source).toUtf8();
        QVERIFY2(!message.unfinished && !message.translation.trimmed().isEmpty(), where.constData());
        QVERIFY2(placeholders(message.source) == placeholders(message.translation), where.constData());
        QVERIFY2(hasAccelerator(message.source) == hasAccelerator(message.translation), where.constData());
        if (message.source.endsWith(QStringLiteral("…"))) {
            QVERIFY2(message.translation.endsWith(QStringLiteral("…")), where.constData());
        }
    }
}

void TestTranslations::everySourceStringInTheTs() {
    QSet<QString> known;
    for (const Message& message : readTs(tsPath())) {
        known.insert(message.source);
    }
    int checked = 0;
    for (const QString& folder : {QStringLiteral("core"), QStringLiteral("ui"), QStringLiteral("app")}) {
        QDirIterator files(QStringLiteral(ZEUS_SOURCE_DIR "/") + folder, {QStringLiteral("*.cpp")}, QDir::Files,
                           QDirIterator::Subdirectories);
        while (files.hasNext()) {
            QFile file(files.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            for (const QString& literal : trLiterals(QString::fromUtf8(file.readAll()))) {
                ++checked;
                QVERIFY2(known.contains(literal),
                         qPrintable(QStringLiteral("%1: \"%2\" is not in the .ts; run the update_translations target")
                                        .arg(file.fileName(), literal)));
            }
        }
    }
    QVERIFY(checked > 150);
}

void TestTranslations::embeddedAndLoadedFromLocale() {
    QVERIFY2(zeus::AppTranslator::available().contains(QStringLiteral("zh_CN")),
             qPrintable(zeus::AppTranslator::available().join(QLatin1Char(','))));
    QCOMPARE(zeus::TrayStatus::stateText(zeus::TrayStatus::State::Ready), QStringLiteral("Ready"));
    const QString loaded = zeus::AppTranslator::install(QCoreApplication::instance(), QLocale(QStringLiteral("zh_CN")));
    QCOMPARE(loaded, QStringLiteral("zh_CN"));
    QCOMPARE(zeus::TrayStatus::stateText(zeus::TrayStatus::State::Ready), QStringLiteral("就绪"));
    // An English locale loads nothing and keeps the source text.
    QCOMPARE(zeus::AppTranslator::install(QCoreApplication::instance(), QLocale(QStringLiteral("en_US"))), QString());
}

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
