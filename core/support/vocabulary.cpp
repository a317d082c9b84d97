#include "support/vocabulary.h"

namespace zeus::vocabulary {

QString wordFromKey(const char* key) {
    QString word;
    for (const char* c = key; c != nullptr && *c != '\0'; ++c) {
        const QChar ch = QLatin1Char(*c);
        if (ch.isUpper() && c != key) {
            word.append(QLatin1Char('-'));
        }
        word.append(ch.toLower());
    }
    return word;
}

QStringList wordsOfMetaEnum(const QMetaEnum& meta) {
    QStringList words;
    words.reserve(meta.keyCount());
    for (int i = 0; i < meta.keyCount(); ++i) {
        words.append(wordFromKey(meta.key(i)));
    }
    return words;
}

QString joinedAlternatives(const QStringList& words, const QString& orPattern) {
    if (words.size() < 2) {
        return words.value(0);
    }
    return orPattern.arg(words.mid(0, words.size() - 1).join(QStringLiteral(", ")), words.constLast());
}

}  // namespace zeus::vocabulary
