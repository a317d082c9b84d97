#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

// The few file-system calls review mode needs that Qt does not offer without following symlinks. Plain functions;
// POSIX where it exists, the nearest Qt call elsewhere.
namespace zeus::hostfile {

// Opens `path` for reading, failing when its last component is a symlink (O_NOFOLLOW).
bool openNoFollow(QFile& file, const QString& path);
// The link's own text, never resolved; empty when `path` is not a link.
QByteArray readLink(const QString& path);
// The POSIX permission bits (0777) of Qt's permission flags.
quint32 modeOf(QFileDevice::Permissions permissions);
// Qt's permission flags for POSIX bits (the owner's also as the user's).
QFileDevice::Permissions permissionsOf(quint32 mode);
// Lower-case hex SHA-256 of an open file read to its end; empty when a read fails.
QByteArray sha256Hex(QFile& file);
// Replaces `target` by `source` in one step (rename(2)): a symlink at `target` is replaced, never followed.
bool replace(const QString& source, const QString& target);

}  // namespace zeus::hostfile
