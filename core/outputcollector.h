#pragma once

#include <QByteArray>
#include <QString>

namespace zeus {

// stdout or stderr of a command.
enum class OutputStream { Stdout, Stderr };

// Collects one call's output. It owns the kept text (the first cap bytes of combined
// stdout+stderr, in arrival order), the byte counts per stream and the UTF-8 decoding
// state of each stream, so a character split across two chunks is decoded whole and
// invalid bytes become U+FFFD. It must never grow beyond the cap: past it, bytes are
// only counted. It is binary safe (NUL bytes pass through).
class OutputCollector {
public:
    static constexpr qint64 kDefaultCap = 1024 * 1024;

    explicit OutputCollector(qint64 capBytes = kDefaultCap);

    // Adds a chunk and returns the text it contributes to the kept output (what a
    // consumer should stream); empty once the cap is reached.
    QString append(OutputStream stream, const QByteArray& chunk);
    // Flushes an incomplete trailing character of each stream (as U+FFFD); returns the
    // text it adds. Call once, when the command has ended.
    QString finish();

    QString text() const { return m_text; }
    bool truncated() const { return m_dropped > 0; }
    qint64 capBytes() const { return m_cap; }
    qint64 keptBytes() const { return m_kept; }
    qint64 droppedBytes() const { return m_dropped; }
    qint64 totalBytes() const { return m_stdoutBytes + m_stderrBytes; }
    qint64 bytes(OutputStream stream) const { return stream == OutputStream::Stdout ? m_stdoutBytes : m_stderrBytes; }

    // Length of an incomplete (but so far valid) UTF-8 sequence at the end of data, 0..3.
    static int incompleteUtf8Tail(const QByteArray& data);

private:
    QString decode(OutputStream stream, const QByteArray& bytes, bool final);

    qint64 m_cap;
    qint64 m_kept = 0;
    qint64 m_dropped = 0;
    qint64 m_stdoutBytes = 0;
    qint64 m_stderrBytes = 0;
    QByteArray m_pending[2];  // undecoded tail per stream
    QString m_text;
};

}  // namespace zeus
