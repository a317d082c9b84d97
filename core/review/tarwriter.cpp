#include "review/tarwriter.h"

#include "review/hostfile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cstring>

namespace zeus {

namespace {

constexpr int kNameField = 100;
constexpr qint64 kMaxId = 07777777;

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::TarWriter", text);
}

bool isPlainAscii(const QByteArray& bytes) {
    return std::all_of(bytes.cbegin(), bytes.cend(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

// Octal digits, zero-padded, NUL-terminated, filling `width` bytes (the ustar convention).
void putOctal(char* field, int width, qint64 value) {
    const QByteArray digits = QByteArray::number(value, 8).rightJustified(width - 1, '0');
    memcpy(field, digits.constData(), static_cast<size_t>(width - 1));
    field[width - 1] = '\0';
}

void putBytes(char* field, int width, const QByteArray& bytes) {
    memcpy(field, bytes.constData(), static_cast<size_t>(std::min<qsizetype>(width, bytes.size())));
}

// A printable stand-in for a name the ustar field cannot hold; readers that know pax use the pax record instead.
QByteArray fallbackName(const QByteArray& name) {
    QByteArray out = name;
    for (char& c : out) {
        if (c < 0x20 || c >= 0x7f) {
            c = '_';
        }
    }
    return out.right(kNameField);
}

QByteArray paxRecord(const QByteArray& key, const QByteArray& value) {
    // "<length> key=value\n", where length counts the whole record including its own digits.
    const qsizetype rest = 1 + key.size() + 1 + value.size() + 1;
    qsizetype length = rest + 1;
    while (QByteArray::number(length).size() + rest != length) {
        length = QByteArray::number(length).size() + rest;
    }
    return QByteArray::number(length) + ' ' + key + '=' + value + '\n';
}

QByteArray ustarBlock(const QByteArray& name, quint32 mode, uint uid, uint gid, qint64 size, qint64 mtime, char type,
                      const QByteArray& linkName) {
    QByteArray block(TarWriter::kBlock, '\0');
    char* h = block.data();
    putBytes(h, kNameField, name);
    putOctal(h + 100, 8, mode & 07777);
    putOctal(h + 108, 8, std::min<qint64>(uid, kMaxId));
    putOctal(h + 116, 8, std::min<qint64>(gid, kMaxId));
    putOctal(h + 124, 12, size <= TarWriter::kMaxUstarSize ? size : 0);
    putOctal(h + 136, 12, std::clamp<qint64>(mtime, 0, TarWriter::kMaxUstarSize));
    memset(h + 148, ' ', 8);
    h[156] = type;
    putBytes(h + 157, kNameField, linkName);
    memcpy(h + 257,
           "ustar\0"
           "00",
           8);
    unsigned int sum = 0;
    for (int i = 0; i < TarWriter::kBlock; ++i) {
        sum += static_cast<unsigned char>(h[i]);
    }
    const QByteArray checksum = QByteArray::number(sum, 8).rightJustified(6, '0');
    memcpy(h + 148, checksum.constData(), 6);
    h[154] = '\0';
    h[155] = ' ';
    return block;
}

QByteArray padding(qint64 size) {
    const qint64 rest = size % TarWriter::kBlock;
    return rest == 0 ? QByteArray() : QByteArray(static_cast<qsizetype>(TarWriter::kBlock - rest), '\0');
}

bool isInside(const QString& canonical, const QString& canonicalRoot) {
    return canonical == canonicalRoot || canonical.startsWith(canonicalRoot + QLatin1Char('/'));
}

}  // namespace

TarWriter::TarWriter(QString root, QList<ManifestEntry> entries, qint64 chunkSize)
    : m_root(std::move(root)), m_entries(std::move(entries)), m_chunkSize(std::max<qint64>(chunkSize, kBlock)) {}

TarWriter::~TarWriter() = default;

QByteArray TarWriter::headerFor(const ManifestEntry& entry, qint64 mtime, uint uid, uint gid) {
    QByteArray name = entry.path.toUtf8();
    char type = '0';
    quint32 mode = entry.mode;
    qint64 size = 0;
    QByteArray link;
    switch (entry.type) {
        case ManifestEntry::Type::Directory:
            name += '/';
            type = '5';
            mode |= 0700;
            break;
        case ManifestEntry::Type::Symlink:
            type = '2';
            link = entry.linkTarget.toUtf8();
            break;
        case ManifestEntry::Type::File:
            size = entry.size;
            break;
    }

    QByteArray records;
    if (name.size() > kNameField || !isPlainAscii(name)) {
        records += paxRecord("path", name);
        name = fallbackName(name);
    }
    if (link.size() > kNameField || !isPlainAscii(link)) {
        records += paxRecord("linkpath", link);
        link = fallbackName(link);
    }
    if (size > kMaxUstarSize) {
        records += paxRecord("size", QByteArray::number(size));
    }

    QByteArray out;
    if (!records.isEmpty()) {
        const QByteArray paxName = QByteArrayLiteral("PaxHeaders/") + fallbackName(name).right(80);
        out += ustarBlock(paxName, 0644, uid, gid, records.size(), mtime, 'x', {});
        out += records;
        out += padding(records.size());
    }
    out += ustarBlock(name, mode, uid, gid, size, mtime, type, link);
    return out;
}

void TarWriter::fail(const QString& message) {
    m_error = message;
    m_pending.clear();
    m_file.reset();
    m_hash.reset();
    m_state = State::Done;
}

bool TarWriter::beginEntry(const ManifestEntry& entry) {
    if (!ManifestEntry::isSafePath(entry.path)) {
        fail(tr("The copy stopped: %1 is not a path inside the folder.").arg(entry.path));
        return false;
    }
    const QString path = m_root + QLatin1Char('/') + entry.path;
    qint64 mtime = QDateTime::currentSecsSinceEpoch();
    if (entry.type == ManifestEntry::Type::File) {
        const QString canonicalRoot = QFileInfo(m_root).canonicalFilePath();
        const QString canonicalParent = QFileInfo(QFileInfo(path).absolutePath()).canonicalFilePath();
        m_file = std::make_unique<QFile>();
        if (canonicalRoot.isEmpty() || !isInside(canonicalParent, canonicalRoot)
            || !hostfile::openNoFollow(*m_file, path)) {
            fail(tr("The copy stopped: %1 changed or could not be read since the folder was scanned. Start the "
                    "session again.")
                     .arg(entry.path));
            return false;
        }
        mtime = QFileInfo(path).lastModified().toSecsSinceEpoch();
        m_hash = std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256);
        m_fileRemaining = entry.size;
    } else if (entry.type == ManifestEntry::Type::Directory) {
        mtime = QFileInfo(path).lastModified().toSecsSinceEpoch();
    }
    m_pending += headerFor(entry, mtime, m_uid, m_gid);
    return true;
}

void TarWriter::fill() {
    while (m_pending.size() < m_chunkSize && m_state != State::Done) {
        switch (m_state) {
            case State::Entries: {
                if (m_entryIndex >= m_entries.size()) {
                    m_state = State::Trailer;
                    break;
                }
                const ManifestEntry& entry = m_entries.at(m_entryIndex);
                if (!beginEntry(entry)) {
                    return;
                }
                if (entry.type == ManifestEntry::Type::File) {
                    m_state = State::FileData;
                } else {
                    ++m_entryIndex;
                }
                break;
            }
            case State::FileData: {
                const ManifestEntry& entry = m_entries.at(m_entryIndex);
                const qint64 room = std::max<qint64>(m_chunkSize - m_pending.size(), 1);
                const qint64 wanted = std::min(m_fileRemaining, room);
                if (wanted > 0) {
                    const QByteArray data = m_file->read(wanted);
                    if (data.isEmpty()) {
                        fail(tr("The copy stopped: %1 changed while it was copied. Start the session again.")
                                 .arg(entry.path));
                        return;
                    }
                    m_hash->addData(data);
                    m_pending += data;
                    m_fileRemaining -= data.size();
                    if (m_fileRemaining > 0) {
                        break;
                    }
                }
                // The whole file is out: it must end here and hash as the manifest says, or the copy is not the
                // baseline.
                if (!m_file->read(1).isEmpty() || m_hash->result().toHex() != entry.sha256) {
                    fail(tr("The copy stopped: %1 changed while it was copied. Start the session again.")
                             .arg(entry.path));
                    return;
                }
                m_pending += padding(entry.size);
                m_file.reset();
                m_hash.reset();
                ++m_entryIndex;
                m_state = State::Entries;
                break;
            }
            case State::Trailer:
                m_pending += QByteArray(2 * kBlock, '\0');
                m_state = State::Done;
                break;
            case State::Done:
                break;
        }
    }
}

QByteArray TarWriter::nextChunk() {
    if (hasError()) {
        return {};
    }
    fill();
    if (hasError()) {
        return {};
    }
    QByteArray chunk = m_pending.left(m_chunkSize);
    m_pending.remove(0, chunk.size());
    m_bytesWritten += chunk.size();
    return chunk;
}

}  // namespace zeus
