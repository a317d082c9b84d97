#pragma once

#include "review/workspacemanifest.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QList>
#include <QString>

#include <memory>

namespace zeus {

// Writes the tar stream of a review copy (POSIX ustar, with pax extended headers for names and link targets that
// are long or not ASCII and for sizes of 8 GiB and more): regular files, folders, symlinks and their modes, from a
// manifest and the folder it describes, in the manifest's order (parents before children).
//
// Incremental: nextChunk() returns the next at most chunkSize() bytes, so a file of any size is never in memory
// whole; the caller writes each chunk into the exec channel as flow control allows. Every file is read without
// following a final symlink and hashed as it is streamed; a file that no longer matches its manifest entry (size,
// hash, or replaced by a link) stops the stream with an error, so the copy is exactly the baseline or it is
// discarded — the caller must discard a copy whose stream ended in error. Owners are numeric (setOwner, default
// 0:0); folders get u+rwx in the stream so a read-only folder can still be filled and worked in.
//
// It never writes anything to the host and never reads outside `root` through a symlink it can see.
class TarWriter {
public:
    static constexpr qint64 kDefaultChunkSize = 1024 * 1024;
    static constexpr qint64 kBlock = 512;
    static constexpr qint64 kMaxUstarSize = 077777777777;  // 8 GiB - 1: the largest size the ustar field holds

    TarWriter(QString root, QList<ManifestEntry> entries, qint64 chunkSize = kDefaultChunkSize);
    ~TarWriter();
    TarWriter(const TarWriter&) = delete;
    TarWriter& operator=(const TarWriter&) = delete;

    void setOwner(uint uid, uint gid) {
        m_uid = uid;
        m_gid = gid;
    }
    qint64 chunkSize() const { return m_chunkSize; }

    // The next bytes of the stream, at most chunkSize(); empty once the stream is complete or has failed.
    QByteArray nextChunk();
    bool atEnd() const { return m_state == State::Done && m_pending.isEmpty(); }
    bool hasError() const { return !m_error.isEmpty(); }
    QString errorString() const { return m_error; }
    qint64 bytesWritten() const { return m_bytesWritten; }
    int entriesWritten() const { return m_entryIndex; }

    // The header block(s) of one entry: a pax 'x' block with its records when needed, then the ustar block.
    // Pure, for the tests (large sizes are tested here, not with 8 GiB files).
    static QByteArray headerFor(const ManifestEntry& entry, qint64 mtime, uint uid = 0, uint gid = 0);

private:
    enum class State { Entries, FileData, Trailer, Done };

    void fill();
    bool beginEntry(const ManifestEntry& entry);
    void fail(const QString& message);

    QString m_root;
    QList<ManifestEntry> m_entries;
    qint64 m_chunkSize;
    uint m_uid = 0;
    uint m_gid = 0;

    State m_state = State::Entries;
    int m_entryIndex = 0;
    QByteArray m_pending;
    std::unique_ptr<QFile> m_file;
    std::unique_ptr<QCryptographicHash> m_hash;
    qint64 m_fileRemaining = 0;
    qint64 m_bytesWritten = 0;
    QString m_error;
};

}  // namespace zeus
