#include "sandbox/egress/secretplaceholders.h"

#include <QRandomGenerator>

#include <array>

namespace zeus {

namespace {

bool isNameStart(char c) {
    return (c >= 'A' && c <= 'Z') || c == '_';
}

bool isNameChar(char c) {
    return isNameStart(c) || (c >= '0' && c <= '9');
}

// Equal in time that depends on the length only (the lengths are public: every placeholder has the same).
bool equalInConstantTime(QByteArrayView a, QByteArrayView b) {
    if (a.size() != b.size()) {
        return false;
    }
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i) {
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    }
    return diff == 0;
}

void overwrite(QByteArray* bytes) {
    // Only this object's own copy: a shared one is detached by data(), which would copy the value once more.
    if (!bytes->isEmpty() && !bytes->isDetached()) {
        bytes->clear();
        return;
    }
    bytes->fill('\0');
    bytes->clear();
}

}  // namespace

QByteArray SecretPlaceholders::makePlaceholder(const QString& name) {
    std::array<quint32, kRandomHexDigits / 8> random{};
    QRandomGenerator::system()->fillRange(random.data(), random.size());
    const QByteArray bytes(reinterpret_cast<const char*>(random.data()), qsizetype(sizeof(random)));
    return kPrefix.toByteArray() + name.toLatin1() + '-' + bytes.toHex();
}

QByteArray SecretPlaceholders::bind(const SecretBinding& binding, const QByteArray& value) {
    auto it = m_entries.find(binding.name);
    if (it == m_entries.end()) {
        it = m_entries.insert(binding.name, Entry{binding, makePlaceholder(binding.name), value});
    } else {
        it->binding = binding;
        if (it->value != value) {
            overwrite(&it->value);
            it->value = value;
        }
    }
    return it->placeholder;
}

void SecretPlaceholders::remove(const QString& name) {
    auto it = m_entries.find(name);
    if (it != m_entries.end()) {
        overwrite(&it->value);
        m_entries.erase(it);
    }
}

void SecretPlaceholders::clear() {
    for (Entry& e : m_entries) {
        overwrite(&e.value);
    }
    m_entries.clear();
}

const SecretPlaceholders::Entry* SecretPlaceholders::entry(const QString& name) const {
    const auto it = m_entries.constFind(name);
    return it == m_entries.constEnd() ? nullptr : &*it;
}

QByteArray SecretPlaceholders::placeholderFor(const QString& name) const {
    const Entry* e = entry(name);
    return e != nullptr ? e->placeholder : QByteArray();
}

QList<SecretPlaceholders::Match> SecretPlaceholders::find(QByteArrayView text) const {
    QList<Match> matches;
    if (m_entries.isEmpty()) {
        return matches;
    }
    qsizetype from = 0;
    while (from < text.size()) {
        const qsizetype at = text.indexOf(kPrefix, from);
        if (at < 0) {
            break;
        }
        from = at + 1;
        qsizetype pos = at + kPrefix.size();
        const qsizetype nameStart = pos;
        if (pos >= text.size() || !isNameStart(text[pos])) {
            continue;
        }
        while (pos < text.size() && isNameChar(text[pos]) && pos - nameStart < 128) {
            ++pos;
        }
        if (pos >= text.size() || text[pos] != '-' || text.size() - (pos + 1) < kRandomHexDigits) {
            continue;
        }
        const QString name = QString::fromLatin1(text.sliced(nameStart, pos - nameStart));
        const Entry* e = entry(name);
        if (e == nullptr) {
            continue;
        }
        const qsizetype length = pos + 1 + kRandomHexDigits - at;
        if (!equalInConstantTime(text.sliced(at, length), e->placeholder)) {
            continue;
        }
        matches.append(Match{at, length, e});
        from = at + length;
    }
    return matches;
}

}  // namespace zeus
