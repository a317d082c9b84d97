#pragma once

#include "support/outputstream.h"

#include <QByteArray>
#include <QString>

namespace zeus {

// Collects one call's output. It owns the kept output (the first cap bytes of combined
// stdout+stderr, in arrival order, as valid UTF-8), the byte counts per stream and the
// UTF-8 state of each stream, so a character split across two chunks stays whole and
// invalid bytes become U+FFFD. Each chunk yields two texts: the live one (all of the
// output, for the backend's tool_output stream) and the kept one (its part within the cap,
// for the result and the local views). It works on UTF-8 bytes throughout: valid output
// (nearly all of it) is never converted to UTF-16 while the command runs. It must never
// keep more than the cap: past it, bytes are only counted and passed on live. It is binary
// safe (NUL bytes pass through).
class OutputCollector {
public:
    static constexpr qint64 kDefaultCap = 1024 * 1024;

    // What one chunk adds, as valid UTF-8.
    struct Added {
        QByteArray live;  // all of it (a character split across chunks comes whole with the later chunk)
        QByteArray kept;  // the part within the cap: a prefix of `live`, empty once the cap is reached
    };

    explicit OutputCollector(qint64 capBytes = kDefaultCap);

    Added append(OutputStream stream, const QByteArray& chunk);
    // Flushes an incomplete trailing character of the stream (as U+FFFD). Call for each
    // stream when the command has ended; finish() does both.
    Added finish(OutputStream stream);
    void finish();

    // The kept output: UTF-8, and decoded (the result's `output`).
    const QByteArray& utf8() const { return m_text; }
    QString text() const { return QString::fromUtf8(m_text); }
    // Frees the kept output once the result holds its own copy (the counts stay).
    void releaseText() { m_text = QByteArray(); }
    bool truncated() const { return m_dropped > 0; }
    qint64 capBytes() const { return m_cap; }
    qint64 keptBytes() const { return m_kept; }
    qint64 droppedBytes() const { return m_dropped; }
    qint64 totalBytes() const { return m_stdoutBytes + m_stderrBytes; }
    qint64 bytes(OutputStream stream) const { return stream == OutputStream::Stdout ? m_stdoutBytes : m_stderrBytes; }

    // Length of an incomplete (but so far valid) UTF-8 sequence at the end of data, 0..3.
    static int incompleteUtf8Tail(const QByteArray& data);
    // `data` with every invalid sequence replaced by U+FFFD exactly as QString::fromUtf8 does;
    // valid input (the common case) is returned as is, without a copy.
    static QByteArray sanitizedUtf8(const QByteArray& data);

private:
    static QByteArray decode(QByteArray& pending, const QByteArray& bytes, bool final);

    qint64 m_cap;
    qint64 m_kept = 0;
    qint64 m_dropped = 0;
    qint64 m_stdoutBytes = 0;
    qint64 m_stderrBytes = 0;
    // Undecoded tail per stream, of everything and of the kept part. They are the same until
    // the chunk that reaches the cap; after it only the live one moves on.
    QByteArray m_livePending[2];
    QByteArray m_keptPending[2];
    QByteArray m_text;
};

}  // namespace zeus
