#include "outputcollector.h"

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

QString OutputCollector::decode(OutputStream stream, const QByteArray& bytes, bool final) {
    QByteArray& pending = m_pending[stream == OutputStream::Stdout ? 0 : 1];
    QByteArray data = pending + bytes;
    pending.clear();
    if (!final) {
        const int tail = incompleteUtf8Tail(data);
        if (tail > 0) {
            pending = data.right(tail);
            data.chop(tail);
        }
    }
    // QString::fromUtf8 replaces every invalid sequence with U+FFFD.
    return QString::fromUtf8(data);
}

QString OutputCollector::append(OutputStream stream, const QByteArray& chunk) {
    if (stream == OutputStream::Stdout) {
        m_stdoutBytes += chunk.size();
    } else {
        m_stderrBytes += chunk.size();
    }
    const qint64 room = m_cap - m_kept;
    if (room <= 0) {
        m_dropped += chunk.size();
        return {};
    }
    QByteArray kept = chunk;
    if (chunk.size() > room) {
        kept = chunk.left(room);
        m_dropped += chunk.size() - room;
    }
    m_kept += kept.size();
    const QString text = decode(stream, kept, false);
    m_text += text;
    return text;
}

QString OutputCollector::finish() {
    QString text;
    if (!m_pending[0].isEmpty()) {
        text += decode(OutputStream::Stdout, {}, true);
    }
    if (!m_pending[1].isEmpty()) {
        text += decode(OutputStream::Stderr, {}, true);
    }
    m_text += text;
    return text;
}

}  // namespace zeus
