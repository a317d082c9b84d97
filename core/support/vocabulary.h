#pragma once

#include <QList>
#include <QMetaEnum>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace zeus {

// The stable words of the settings enums: what settings files, the command line, combo boxes' item data, the
// diagnostics JSON and the backend protocol store. They exist once, as the enum's keys (a Q_ENUM_NS): the word
// is the key in lower case with a '-' before each inner capital (AskUnsafe -> "ask-unsafe", Allowlist ->
// "allowlist"), in declaration order. Renaming a key renames a word people have stored, so never do it; what
// people read is a translated label in the UI, never the word.

namespace vocabulary {
// "AskUnsafe" -> "ask-unsafe".
QString wordFromKey(const char* key);
// The words of every key of `meta`, in its order.
QStringList wordsOfMetaEnum(const QMetaEnum& meta);
// "a, b or c": all words but the last joined by ", ", then `orPattern` ("%1 or %2", in the caller's language)
// with that and the last word. One word alone stays as it is.
QString joinedAlternatives(const QStringList& words, const QString& orPattern);
}  // namespace vocabulary

// Every word of E, in declaration order.
template <typename E>
const QStringList& wordsOf() {
    static const QStringList words = vocabulary::wordsOfMetaEnum(QMetaEnum::fromType<E>());
    return words;
}

// Every value of E, in declaration order (the order of wordsOf<E>()).
template <typename E>
QList<E> valuesOf() {
    const QMetaEnum meta = QMetaEnum::fromType<E>();
    QList<E> values;
    values.reserve(meta.keyCount());
    for (int i = 0; i < meta.keyCount(); ++i) {
        values.append(static_cast<E>(meta.value(i)));
    }
    return values;
}

// The word of one value; empty for a value that is not one of E's keys.
template <typename E>
QString wordOf(E value) {
    const QMetaEnum meta = QMetaEnum::fromType<E>();
    for (int i = 0; i < meta.keyCount(); ++i) {
        if (meta.value(i) == static_cast<int>(value)) {
            return wordsOf<E>().at(i);
        }
    }
    return {};
}

// The value a word names, exactly as written unless `cs` says otherwise (no blanks trimmed); nullopt for any
// other text, the empty one included.
template <typename E>
std::optional<E> fromWord(QStringView word, Qt::CaseSensitivity cs = Qt::CaseSensitive) {
    const QStringList& words = wordsOf<E>();
    for (qsizetype i = 0; i < words.size(); ++i) {
        if (word.compare(words.at(i), cs) == 0) {
            return static_cast<E>(QMetaEnum::fromType<E>().value(int(i)));
        }
    }
    return std::nullopt;
}

}  // namespace zeus
