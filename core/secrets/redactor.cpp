#include "secrets/redactor.h"

#include <QByteArrayView>
#include <QHash>

#include <algorithm>
#include <cctype>

namespace zeus {

namespace {

// The base64 characters that depend only on the value's bytes when it starts `offset` bytes into a 3-byte group:
// the characters that cover bits of what comes before or after it differ with the surrounding text, so they are
// left out (a base64 of "token=VALUE\n" holds these cores whatever the prefix and suffix).
QByteArray base64Core(const QByteArray& value, int offset, QByteArray::Base64Options options) {
    QByteArray shifted(offset, '\0');
    shifted += value;
    const QByteArray encoded = shifted.toBase64(options | QByteArray::OmitTrailingEquals);
    const qsizetype first = (8 * offset + 5) / 6;
    const qsizetype end = (8 * (offset + value.size())) / 6;
    return encoded.mid(first, end - first);
}

}  // namespace

Redactor::Redactor(const QList<SecretValue>& secrets, Marker marker) : m_marker(marker) {
    for (const SecretValue& secret : secrets) {
        add(secret);
    }
}

bool Redactor::acceptable(const QByteArray& value) {
    return value.size() >= kMinValueBytes && value.size() <= kMaxValueBytes && !value.contains('\0');
}

QList<QByteArray> Redactor::formsOf(const QByteArray& value) {
    QList<QByteArray> forms;
    const auto addForm = [&forms](const QByteArray& form) {
        if (!form.isEmpty() && !forms.contains(form)) {
            forms.append(form);
        }
    };
    addForm(value);
    addForm(value.toHex());
    addForm(value.toHex().toUpper());
    const QByteArray url = value.toPercentEncoding();  // upper-case hex digits, RFC 3986 unreserved kept
    addForm(url);
    // The same with lower-case hex digits (some encoders write %2f).
    QByteArray lower = url;
    for (qsizetype i = 0; i + 2 < lower.size(); ++i) {
        if (lower.at(i) == '%') {
            lower[i + 1] = char(std::tolower(uchar(lower.at(i + 1))));
            lower[i + 2] = char(std::tolower(uchar(lower.at(i + 2))));
            i += 2;
        }
    }
    addForm(lower);
    for (const auto options : {QByteArray::Base64Encoding, QByteArray::Base64UrlEncoding}) {
        addForm(value.toBase64(options));
        addForm(value.toBase64(options | QByteArray::OmitTrailingEquals));
        for (int offset = 0; offset < 3; ++offset) {
            addForm(base64Core(value, offset, options));
        }
    }
    return forms;
}

QByteArray Redactor::marker(const QString& name) {
    return "[REDACTED:" + name.toUtf8() + ']';
}

bool Redactor::add(const SecretValue& secret) {
    if (!acceptable(secret.value)) {
        return false;
    }
    for (const SecretValue& known : std::as_const(m_secrets)) {
        if (known.value == secret.value) {
            return false;
        }
    }
    m_secrets.append(secret);
    const QByteArray tag = marker(secret.name);
    for (const QByteArray& bytes : formsOf(secret.value)) {
        m_forms.append(
            Form{bytes, QByteArrayMatcher(bytes), m_marker == Marker::Masked ? QByteArray(bytes.size(), '*') : tag});
        m_firstBytes[static_cast<unsigned char>(bytes.front())] = true;
        m_maxLength = std::max(m_maxLength, bytes.size());
    }
    std::stable_sort(m_forms.begin(), m_forms.end(),
                     [](const Form& a, const Form& b) { return a.bytes.size() > b.bytes.size(); });
    return true;
}

QStringList Redactor::names() const {
    QStringList names;
    for (const SecretValue& secret : m_secrets) {
        names.append(secret.name);
    }
    return names;
}

QByteArray Redactor::feed(const QByteArray& chunk) {
    if (m_forms.isEmpty()) {
        return chunk;
    }
    m_pending += chunk;
    return drain(false);
}

QByteArray Redactor::flush() {
    return drain(true);
}

QByteArray Redactor::drain(bool final) {
    QByteArray out;
    qsizetype pos = 0;
    const qsizetype size = m_pending.size();
    qsizetype safeEnd = -1;
    while (pos < size) {
        qsizetype bestAt = -1;
        const Form* best = nullptr;
        for (const Form& form : std::as_const(m_forms)) {
            const qsizetype at = form.matcher.indexIn(m_pending, pos);
            if (at >= 0 && (bestAt < 0 || at < bestAt)) {
                bestAt = at;
                best = &form;
            }
        }
        if (!best) {
            break;
        }
        if (!final && size - bestAt < m_maxLength && longerFormMayFollow(bestAt, best->bytes.size())) {
            // A longer form may still complete at this position with the next chunk: wait for it. Only then is the
            // outcome the same however the stream is split.
            safeEnd = bestAt;
            break;
        }
        out += QByteArrayView(m_pending).sliced(pos, bestAt - pos);
        out += best->marker;
        ++m_count;
        pos = bestAt + best->bytes.size();
    }
    if (safeEnd < 0) {
        // No form starts in [pos, size): everything but the last maxLength-1 bytes is safe to pass on, since a form
        // starting before that would lie wholly in the buffer and would have been found.
        safeEnd = final ? size : firstPossibleStart(std::max(pos, size - (m_maxLength - 1)));
    }
    out += QByteArrayView(m_pending).sliced(pos, safeEnd - pos);
    m_pending.remove(0, safeEnd);
    return out;
}

bool Redactor::longerFormMayFollow(qsizetype at, qsizetype matched) const {
    const QByteArrayView tail = QByteArrayView(m_pending).sliced(at);
    return std::any_of(m_forms.cbegin(), m_forms.cend(), [&](const Form& form) {
        return form.bytes.size() > matched && form.bytes.size() > tail.size()
               && QByteArrayView(form.bytes).startsWith(tail);
    });
}

qsizetype Redactor::firstPossibleStart(qsizetype from) const {
    // Output a command writes a little at a time (a progress line, a prompt) must not wait for the next chunk just
    // because a secret is set: only a tail that really begins one of its forms is held back. The work is bounded;
    // past the budget (output crafted to resemble a long secret) the whole window is held, as it always may be.
    constexpr qsizetype kBudget = 4 * 1024 * 1024;
    qsizetype spent = 0;
    const qsizetype size = m_pending.size();
    for (qsizetype at = from; at < size; ++at) {
        if (!m_firstBytes[static_cast<unsigned char>(m_pending.at(at))]) {
            continue;
        }
        const QByteArrayView tail = QByteArrayView(m_pending).sliced(at);
        for (const Form& form : m_forms) {
            spent += tail.size();
            if (form.bytes.size() > tail.size() && QByteArrayView(form.bytes).startsWith(tail)) {
                return at;
            }
        }
        if (spent > kBudget) {
            return from;
        }
    }
    return size;
}

QByteArray Redactor::redacted(const QByteArray& text, qint64* count) const {
    if (m_forms.isEmpty()) {
        if (count) {
            *count = 0;
        }
        return text;
    }
    Redactor once(m_secrets, m_marker);
    QByteArray out = once.feed(text);
    out += once.flush();
    if (count) {
        *count = once.count();
    }
    return out;
}

QList<Redactor::Found> Redactor::find(const QByteArray& text) const {
    QList<Found> found;
    for (qsizetype at = 0; at < text.size();) {
        int match = -1;
        for (int i = 0; i < m_forms.size(); ++i) {  // longest first
            const QByteArray& bytes = m_forms.at(i).bytes;
            if (bytes.size() <= text.size() - at && QByteArrayView(text).sliced(at, bytes.size()) == bytes) {
                match = i;
                break;
            }
        }
        if (match < 0) {
            ++at;
            continue;
        }
        found.append({at, m_forms.at(match).bytes.size(), match});
        at += m_forms.at(match).bytes.size();
    }
    return found;
}

QByteArray Redactor::redactedInterleaved(const QList<Segment>& segments, qint64* count) const {
    QByteArray combined;
    QHash<int, QByteArray> streams;        // each stream's own bytes
    QHash<int, QList<qsizetype>> offsets;  // a stream's byte i is combined byte offsets[stream][i]
    for (const Segment& segment : segments) {
        QList<qsizetype>& map = offsets[segment.stream];
        for (qsizetype i = 0; i < segment.bytes.size(); ++i) {
            map.append(combined.size() + i);
        }
        combined += segment.bytes;
        streams[segment.stream] += segment.bytes;
    }
    // Every combined byte that belongs to a found form gets that finding's number; its marker goes where the
    // finding's first byte was.
    QList<int> owner(combined.size(), -1);
    QList<int> formOf;
    const auto claim = [&](const QList<qsizetype>& positions, int form) {
        const int id = int(formOf.size());
        bool any = false;
        for (const qsizetype position : positions) {
            if (owner.at(position) < 0) {
                owner[position] = id;
                any = true;
            }
        }
        if (any) {
            formOf.append(form);
        }
    };
    for (const Found& hit : find(combined)) {
        QList<qsizetype> positions;
        for (qsizetype i = 0; i < hit.length; ++i) {
            positions.append(hit.start + i);
        }
        claim(positions, hit.form);
    }
    for (auto it = streams.cbegin(); it != streams.cend(); ++it) {
        const QList<qsizetype>& map = offsets.value(it.key());
        for (const Found& hit : find(it.value())) {
            claim(map.mid(hit.start, hit.length), hit.form);
        }
    }
    QByteArray out;
    QList<bool> emitted(formOf.size(), false);
    for (qsizetype i = 0; i < combined.size(); ++i) {
        const int id = owner.at(i);
        if (id < 0) {
            out.append(combined.at(i));
        } else if (!emitted.at(id)) {
            emitted[id] = true;
            out.append(m_forms.at(formOf.at(id)).marker);
        }
    }
    if (count) {
        *count = formOf.size();
    }
    return out;
}

QString Redactor::redactedIgnoringCase(const QString& text, qint64* count) const {
    const QByteArray original = text.toUtf8();
    const QByteArray lower = original.toLower();  // ASCII only: positions stay the same
    QByteArray out;
    qint64 found = 0;
    for (qsizetype at = 0; at < original.size();) {
        const Form* match = nullptr;
        for (const Form& form : m_forms) {  // longest first
            if (lower.mid(at, form.bytes.size()) == form.bytes.toLower()) {
                match = &form;
                break;
            }
        }
        if (match == nullptr) {
            out.append(original.at(at));
            ++at;
            continue;
        }
        out.append(match->marker);
        at += match->bytes.size();
        ++found;
    }
    if (count) {
        *count = found;
    }
    return QString::fromUtf8(out);
}

QString Redactor::redacted(const QString& text, qint64* count) const {
    if (m_forms.isEmpty()) {
        if (count) {
            *count = 0;
        }
        return text;
    }
    return QString::fromUtf8(redacted(text.toUtf8(), count));
}

}  // namespace zeus
