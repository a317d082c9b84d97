#pragma once

#include "review/ignorematcher.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QPair>
#include <QString>

#include <atomic>

namespace zeus {

// One entry of a folder: what review mode compares (SPEC §10: path, mode, size, SHA-256).
struct ManifestEntry {
    enum class Type { File, Directory, Symlink };

    QString path;  // relative to the root, '/' separated, no leading/trailing slash (UTF-8 when encoded)
    Type type = Type::File;
    quint32 mode = 0;    // permission bits (07777); 0777 for a symlink
    qint64 size = 0;     // files: bytes; symlinks: bytes of the target; directories: 0
    QByteArray sha256;   // lower-case hex; files: of the content; symlinks: of the target; directories: empty
    QString linkTarget;  // symlinks only, as stored in the link (never resolved)

    bool isExecutable() const { return type == Type::File && (mode & 0111) != 0; }
    friend bool operator==(const ManifestEntry& a, const ManifestEntry& b) {
        return a.path == b.path && a.type == b.type && a.mode == b.mode && a.size == b.size && a.sha256 == b.sha256
               && a.linkTarget == b.linkTarget;
    }
    friend bool operator!=(const ManifestEntry& a, const ManifestEntry& b) { return !(a == b); }

    static QString typeName(Type type);
    // A relative path that stays inside the root: not empty, no leading '/', no empty, "." or ".." component, no
    // NUL. Everything read from a container or a file is checked with it before it is used.
    static bool isSafePath(const QString& path);
};

// The caps of a container listing (docs/review-mode.md "Container listing"): the copy decides how long it is.
struct ListingLimits {
    static constexpr qint64 kDefaultBytes = qint64(256) * 1024 * 1024;
    static constexpr qsizetype kDefaultEntries = 1000000;
    qint64 bytes = kDefaultBytes;
    qsizetype entries = kDefaultEntries;
};

// A folder's entries, sorted by path, with the ignore files that decided what was left out (so the same rules can
// be applied again to the container's side after a restart). A plain value: the baseline of a review session is
// one of these, stored as JSON in the app's data folder.
struct WorkspaceManifest {
    static constexpr qint64 kDefaultSizeCap = qint64(2) * 1024 * 1024 * 1024;
    static constexpr int kJsonVersion = 1;
    static constexpr int kLargestListed = 5;

    QList<ManifestEntry> entries;           // sorted by path
    QMap<QString, QByteArray> ignoreFiles;  // folder ("" for the root) -> its .zeusignore text

    // Everything the scan saw and could not copy (sockets, pipes, devices): listed to the user, not an error.
    QStringList skipped;

    qint64 totalFileBytes() const;
    // Binary search; nullptr when absent.
    const ManifestEntry* find(const QString& path) const;
    // The matcher of this folder: the default exclusions plus every recorded .zeusignore.
    IgnoreMatcher ignoreMatcher() const;
    // A copy without the entries `matcher` excludes (the container's listing shows files the copy never held).
    WorkspaceManifest withoutIgnored(const IgnoreMatcher& matcher) const;
    void sort();

    QByteArray toJson() const;
    // Fails (false, a message in `error`) on anything malformed or unsafe; `out` is then untouched.
    static bool fromJson(const QByteArray& json, WorkspaceManifest& out, QString* error = nullptr);

    // The outcome of scanning a host folder.
    struct ScanResult {
        bool ok = false;
        QString error;                          // for the user, when !ok
        QList<QPair<QString, qint64>> largest;  // when over the cap: the biggest top-level entries, largest first
        qint64 totalFileBytes = 0;              // what the copy would hold (also when over the cap)
    };
    // Walks `root` (never following a symlink), leaves out what the matcher excludes (reading each folder's
    // .zeusignore as it goes), and hashes every file. Over `sizeCap` bytes of files it fails before hashing
    // anything, naming the largest top-level entries: never a partial manifest. Blocking file I/O: run it off the
    // GUI thread. `cancel`, when set, stops the walk (then it fails).
    static ScanResult scan(const QString& root, WorkspaceManifest& out, qint64 sizeCap = kDefaultSizeCap,
                           const std::atomic<bool>* cancel = nullptr);

    // The container side (docs/review-mode.md "Container listing"): records of six NUL-terminated fields
    // type, mode (octal), size, sha256, path, link target; type is f, d or l. Untrusted (the agent controls the
    // copy): every path is checked with isSafePath and duplicates are refused; more than `limits` allow (bytes,
    // entries) is refused before anything is parsed. Fails with a message naming the record or the cap.
    static bool parseContainerListing(const QByteArray& listing, WorkspaceManifest& out, QString* error = nullptr,
                                      const ListingLimits& limits = {});
    // The busybox-compatible script that prints that listing for the folder given as its first argument:
    // run as `sh -c SCRIPT sh /workspace`.
    static QString containerListingScript();
};

}  // namespace zeus
