#pragma once
// Manifest entries written by hand for review-mode tables: a file with its content's hash, a folder, a symlink.

#include "review/workspacemanifest.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QString>

namespace zeus::test {

inline ManifestEntry fileEntry(const QString& path, const QByteArray& content, quint32 mode = 0644) {
    ManifestEntry entry;
    entry.path = path;
    entry.type = ManifestEntry::Type::File;
    entry.mode = mode;
    entry.size = content.size();
    entry.sha256 = QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex();
    return entry;
}

inline ManifestEntry dirEntry(const QString& path, quint32 mode = 0755) {
    ManifestEntry entry;
    entry.path = path;
    entry.type = ManifestEntry::Type::Directory;
    entry.mode = mode;
    return entry;
}

inline ManifestEntry linkEntry(const QString& path, const QString& target) {
    ManifestEntry entry;
    entry.path = path;
    entry.type = ManifestEntry::Type::Symlink;
    entry.mode = 0777;
    entry.linkTarget = target;
    entry.size = target.toUtf8().size();
    entry.sha256 = QCryptographicHash::hash(target.toUtf8(), QCryptographicHash::Sha256).toHex();
    return entry;
}

}  // namespace zeus::test
