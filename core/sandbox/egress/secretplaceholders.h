#pragma once

#include "sandbox/egress/secretbinding.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QString>

namespace zeus {

// One session's placeholders for its host-bound secrets (SPEC §9): a command that asks for a bound secret NAME
// gets `NAME=zeus-secret-NAME-<32 hex digits>` in its environment instead of the value, the same string for every
// command of the session (a tool may have written it into a config file), a new one for the next session. The
// random part is 128 bits from the system's generator, so a command cannot guess another session's placeholder.
//
// It owns the values for the proxy that substitutes them (SecretSubstitution) and the bindings that say where each
// may go; the placeholders themselves are no secret (the sandbox sees them). It must never log or hand out a
// value except through entry() to the substitution, and finds a placeholder by its name first, then compares the
// random part in constant time, so the time a lookup takes says nothing about how close a guess was.
class SecretPlaceholders {
public:
    struct Entry {
        SecretBinding binding;   // binding.name is the secret's name
        QByteArray placeholder;  // zeus-secret-NAME-<hex>
        QByteArray value;
    };

    // A placeholder found in some text: where, how long, and whose.
    struct Match {
        qsizetype offset = 0;
        qsizetype length = 0;
        const Entry* entry = nullptr;
    };

    static constexpr QByteArrayView kPrefix = "zeus-secret-";
    static constexpr int kRandomHexDigits = 32;  // 128 bits
    // The longest placeholder: the prefix, a name of at most 128 characters, '-', the random part.
    static constexpr int kMaxLength = 12 + 128 + 1 + kRandomHexDigits;

    // Makes NAME's placeholder for this session (or keeps the one it has) and takes the binding and the current
    // value (a value replaced in the keychain meanwhile replaces the old one). Returns the placeholder.
    QByteArray bind(const SecretBinding& binding, const QByteArray& value);
    void remove(const QString& name);
    // Forgets every value (the session ended). Best effort: the bytes are overwritten where this object owns them.
    void clear();

    bool isEmpty() const { return m_entries.isEmpty(); }
    QStringList names() const { return m_entries.keys(); }
    const Entry* entry(const QString& name) const;
    QByteArray placeholderFor(const QString& name) const;

    // Every placeholder of this session in `text`, in order, never overlapping. A string that only looks like one
    // (another session's, an unknown name) is not a match: it carries no value.
    QList<Match> find(QByteArrayView text) const;

    // A fresh placeholder for NAME (pure but for the random generator).
    static QByteArray makePlaceholder(const QString& name);

private:
    QHash<QString, Entry> m_entries;
};

}  // namespace zeus
