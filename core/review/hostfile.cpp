#include "review/hostfile.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QList>
#include <QPair>

#include <cstdio>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <unistd.h>
#endif

namespace zeus::hostfile {

namespace {

const QList<QPair<QFileDevice::Permission, quint32>>& bits() {
    static const QList<QPair<QFileDevice::Permission, quint32>> list = {
        {QFileDevice::ReadOwner, 0400}, {QFileDevice::WriteOwner, 0200}, {QFileDevice::ExeOwner, 0100},
        {QFileDevice::ReadGroup, 040},  {QFileDevice::WriteGroup, 020},  {QFileDevice::ExeGroup, 010},
        {QFileDevice::ReadOther, 04},   {QFileDevice::WriteOther, 02},   {QFileDevice::ExeOther, 01},
    };
    return list;
}

}  // namespace

bool openNoFollow(QFile& file, const QString& path) {
#ifdef Q_OS_UNIX
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return false;
    }
    return true;
#else
    if (QFileInfo(path).isSymbolicLink()) {
        return false;
    }
    file.setFileName(path);
    return file.open(QIODevice::ReadOnly);
#endif
}

QByteArray readLink(const QString& path) {
#ifdef Q_OS_UNIX
    const QByteArray encoded = QFile::encodeName(path);
    QByteArray buffer(4096, Qt::Uninitialized);
    while (true) {
        const ssize_t n = ::readlink(encoded.constData(), buffer.data(), static_cast<size_t>(buffer.size()));
        if (n < 0) {
            return {};
        }
        if (n < buffer.size()) {
            buffer.truncate(n);
            return buffer;
        }
        buffer.resize(buffer.size() * 2);
    }
#else
    return QFile::encodeName(QFileInfo(path).symLinkTarget());
#endif
}

quint32 modeOf(QFileDevice::Permissions permissions) {
    quint32 mode = 0;
    for (const auto& bit : bits()) {
        if (permissions.testFlag(bit.first)) {
            mode |= bit.second;
        }
    }
    return mode;
}

QFileDevice::Permissions permissionsOf(quint32 mode) {
    QFileDevice::Permissions permissions;
    for (const auto& bit : bits()) {
        if ((mode & bit.second) != 0) {
            permissions |= bit.first;
        }
    }
    if ((mode & 0400) != 0) {
        permissions |= QFileDevice::ReadUser;
    }
    if ((mode & 0200) != 0) {
        permissions |= QFileDevice::WriteUser;
    }
    if ((mode & 0100) != 0) {
        permissions |= QFileDevice::ExeUser;
    }
    return permissions;
}

QByteArray sha256Hex(QFile& file) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    while (true) {
        const QByteArray chunk = file.read(1024 * 1024);
        if (chunk.isEmpty()) {
            break;
        }
        hash.addData(chunk);
    }
    if (file.error() != QFileDevice::NoError) {
        return {};
    }
    return hash.result().toHex();
}

bool replace(const QString& source, const QString& target) {
#ifdef Q_OS_UNIX
    return ::rename(QFile::encodeName(source).constData(), QFile::encodeName(target).constData()) == 0;
#else
    // Not one step here: the target goes first (Qt's rename does not replace).
    if (QFileInfo::exists(target) || QFileInfo(target).isSymbolicLink()) {
        if (!QFile::remove(target)) {
            return false;
        }
    }
    return QFile::rename(source, target);
#endif
}

}  // namespace zeus::hostfile
