#include "support/outputcollector.h"

namespace zeus {

OutputCollector::OutputCollector(qint64 capBytes) : m_cap(capBytes < 0 ? 0 : capBytes) {}

int OutputCollector::incompleteUtf8Tail(const QByteArray& data) {
    const int size = int(data.size());
    for (int back = 1; back <= 3 && back <= size; ++back) {
        const auto byte = static_cast<unsigned char>(data.at(size - back));
        if ((byte & 0xC0) == 0x80) {
            continue;  // a continuation byte: look further back for the lead byte
        }
        int needed = 1;
        if (byte >= 0xC2 && byte <= 0xDF) {
            needed = 2;
        } else if (byte >= 0xE0 && byte <= 0xEF) {
            needed = 3;
        } else if (byte >= 0xF0 && byte <= 0xF4) {
            needed = 4;
        }
        return needed > back ? back : 0;
    }
    return 0;
}

QByteArray OutputCollector::sanitizedUtf8(const QByteArray& data) {
    if (data.isValidUtf8()) {
        return data;
    }
    // Rare: let Qt's decoder choose the replacements, so the text is what it always was.
    return QString::fromUtf8(data).toUtf8();
}

QByteArray OutputCollector::decode(QByteArray& pending, const QByteArray& bytes, bool final) {
    QByteArray data;
    if (pending.isEmpty()) {
        data = bytes;  // shared, not copied
    } else {
        data = pending + bytes;
        pending.clear();
    }
    if (!final) {
        const int tail = incompleteUtf8Tail(data);
        if (tail > 0) {
            pending = data.right(tail);
            data.chop(tail);
        }
    }
    return sanitizedUtf8(data);
}

OutputCollector::Added OutputCollector::append(OutputStream stream, const QByteArray& chunk) {
    const int index = stream == OutputStream::Stdout ? 0 : 1;
    (index == 0 ? m_stdoutBytes : m_stderrBytes) += chunk.size();
    Added added;
    added.live = decode(m_livePending[index], chunk, false);
    const qint64 room = m_cap - m_kept;
    if (room <= 0) {
        m_dropped += chunk.size();
        return added;
    }
    if (chunk.size() <= room) {
        // Below the cap both decoders have seen the same bytes of this stream: same text, same state.
        m_kept += chunk.size();
        m_keptPending[index] = m_livePending[index];
        added.kept = added.live;
    } else {
        m_kept += room;
        m_dropped += chunk.size() - room;
        added.kept = decode(m_keptPending[index], chunk.left(room), false);
    }
    m_text += added.kept;
    return added;
}

OutputCollector::Added OutputCollector::finish(OutputStream stream) {
    const int index = stream == OutputStream::Stdout ? 0 : 1;
    Added added;
    if (!m_livePending[index].isEmpty()) {
        added.live = decode(m_livePending[index], {}, true);
    }
    if (!m_keptPending[index].isEmpty()) {
        added.kept = decode(m_keptPending[index], {}, true);
    }
    m_text += added.kept;
    return added;
}

void OutputCollector::finish() {
    finish(OutputStream::Stdout);
    finish(OutputStream::Stderr);
}

}  // namespace zeus
