#include "review/workspacemanifest.h"

#include "review/hostfile.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <algorithm>

namespace zeus {

namespace {

constexpr qint64 kHashChunk = 1024 * 1024;
constexpr int kListingFields = 6;

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::WorkspaceManifest", text);
}

QString sizeText(qint64 bytes) {
    return QLocale().formattedDataSize(bytes);
}

QByteArray sha256Hex(const QByteArray& data) {
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

bool isSha256Hex(const QByteArray& text) {
    if (text.size() != 64) {
        return false;
    }
    return std::all_of(text.cbegin(), text.cend(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

QString typeKey(ManifestEntry::Type type) {
    switch (type) {
        case ManifestEntry::Type::File:
            return QStringLiteral("file");
        case ManifestEntry::Type::Directory:
            return QStringLiteral("dir");
        case ManifestEntry::Type::Symlink:
            return QStringLiteral("symlink");
    }
    return {};
}

bool typeFromKey(const QString& key, ManifestEntry::Type& type) {
    for (const ManifestEntry::Type candidate :
         {ManifestEntry::Type::File, ManifestEntry::Type::Directory, ManifestEntry::Type::Symlink}) {
        if (typeKey(candidate) == key) {
            type = candidate;
            return true;
        }
    }
    return false;
}

bool fail(QString* error, const QString& message) {
    if (error != nullptr) {
        *error = message;
    }
    return false;
}

bool lessByPath(const ManifestEntry& a, const ManifestEntry& b) {
    return a.path < b.path;
}

bool hasDuplicates(const QList<ManifestEntry>& sorted, QString& duplicate) {
    for (qsizetype i = 1; i < sorted.size(); ++i) {
        if (sorted.at(i).path == sorted.at(i - 1).path) {
            duplicate = sorted.at(i).path;
            return true;
        }
    }
    return false;
}

}  // namespace

QString ManifestEntry::typeName(Type type) {
    return typeKey(type);
}

bool ManifestEntry::isSafePath(const QString& path) {
    if (path.isEmpty() || path.startsWith(QLatin1Char('/')) || path.contains(QChar(0))) {
        return false;
    }
    const QStringList parts = path.split(QLatin1Char('/'));
    return std::none_of(parts.cbegin(), parts.cend(), [](const QString& part) {
        return part.isEmpty() || part == QLatin1String(".") || part == QLatin1String("..");
    });
}

qint64 WorkspaceManifest::totalFileBytes() const {
    qint64 total = 0;
    for (const ManifestEntry& entry : entries) {
        if (entry.type == ManifestEntry::Type::File) {
            total += entry.size;
        }
    }
    return total;
}

const ManifestEntry* WorkspaceManifest::find(const QString& path) const {
    ManifestEntry probe;
    probe.path = path;
    const auto it = std::lower_bound(entries.cbegin(), entries.cend(), probe, lessByPath);
    if (it == entries.cend() || it->path != path) {
        return nullptr;
    }
    return &*it;
}

IgnoreMatcher WorkspaceManifest::ignoreMatcher() const {
    IgnoreMatcher matcher;
    for (auto it = ignoreFiles.cbegin(); it != ignoreFiles.cend(); ++it) {
        matcher.addPatterns(it.key(), it.value());
    }
    return matcher;
}

WorkspaceManifest WorkspaceManifest::withoutIgnored(const IgnoreMatcher& matcher) const {
    WorkspaceManifest copy;
    copy.ignoreFiles = ignoreFiles;
    copy.skipped = skipped;
    for (const ManifestEntry& entry : entries) {
        if (!matcher.isIgnored(entry.path, entry.type == ManifestEntry::Type::Directory)) {
            copy.entries.append(entry);
        }
    }
    return copy;
}

void WorkspaceManifest::sort() {
    std::sort(entries.begin(), entries.end(), lessByPath);
}

QByteArray WorkspaceManifest::toJson() const {
    QJsonArray list;
    for (const ManifestEntry& entry : entries) {
        QJsonObject object{
            {QStringLiteral("path"), entry.path},
            {QStringLiteral("type"), typeKey(entry.type)},
            {QStringLiteral("mode"), QString::number(entry.mode, 8)},
            {QStringLiteral("size"), entry.size},
        };
        if (entry.type != ManifestEntry::Type::Directory) {
            object.insert(QStringLiteral("sha256"), QString::fromLatin1(entry.sha256));
        }
        if (entry.type == ManifestEntry::Type::Symlink) {
            object.insert(QStringLiteral("target"), entry.linkTarget);
        }
        list.append(object);
    }
    QJsonObject ignore;
    for (auto it = ignoreFiles.cbegin(); it != ignoreFiles.cend(); ++it) {
        ignore.insert(it.key(), QString::fromUtf8(it.value()));
    }
    const QJsonObject root{
        {QStringLiteral("version"), kJsonVersion},
        {QStringLiteral("entries"), list},
        {QStringLiteral("ignoreFiles"), ignore},
        {QStringLiteral("skipped"), QJsonArray::fromStringList(skipped)},
    };
    return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

bool WorkspaceManifest::fromJson(const QByteArray& json, WorkspaceManifest& out, QString* error) {
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        return fail(error, tr("The stored manifest is not valid JSON: %1").arg(parseError.errorString()));
    }
    const QJsonObject root = document.object();
    if (root.value(QStringLiteral("version")).toInt() != kJsonVersion) {
        return fail(error, tr("The stored manifest has an unknown version."));
    }
    WorkspaceManifest manifest;
    const QJsonArray list = root.value(QStringLiteral("entries")).toArray();
    manifest.entries.reserve(list.size());
    for (const auto& value : list) {
        const QJsonObject object = value.toObject();
        ManifestEntry entry;
        entry.path = object.value(QStringLiteral("path")).toString();
        bool modeOk = false;
        entry.mode = object.value(QStringLiteral("mode")).toString().toUInt(&modeOk, 8);
        const QJsonValue size = object.value(QStringLiteral("size"));
        entry.size = static_cast<qint64>(size.toDouble(-1));
        entry.sha256 = object.value(QStringLiteral("sha256")).toString().toLatin1();
        entry.linkTarget = object.value(QStringLiteral("target")).toString();
        const bool typeOk = typeFromKey(object.value(QStringLiteral("type")).toString(), entry.type);
        const bool hashOk =
            entry.type == ManifestEntry::Type::Directory ? entry.sha256.isEmpty() : isSha256Hex(entry.sha256);
        if (!ManifestEntry::isSafePath(entry.path) || !typeOk || !modeOk || entry.mode > 07777 || !size.isDouble()
            || entry.size < 0 || !hashOk) {
            return fail(error, tr("The stored manifest has a malformed entry: %1").arg(entry.path));
        }
        manifest.entries.append(entry);
    }
    const QJsonObject ignore = root.value(QStringLiteral("ignoreFiles")).toObject();
    for (auto it = ignore.constBegin(); it != ignore.constEnd(); ++it) {
        if (!it.key().isEmpty() && !ManifestEntry::isSafePath(it.key())) {
            return fail(error, tr("The stored manifest has a malformed entry: %1").arg(it.key()));
        }
        manifest.ignoreFiles.insert(it.key(), it.value().toString().toUtf8());
    }
    for (const auto& value : root.value(QStringLiteral("skipped")).toArray()) {
        manifest.skipped.append(value.toString());
    }
    manifest.sort();
    QString duplicate;
    if (hasDuplicates(manifest.entries, duplicate)) {
        return fail(error, tr("The stored manifest lists %1 twice.").arg(duplicate));
    }
    out = manifest;
    return true;
}

WorkspaceManifest::ScanResult WorkspaceManifest::scan(const QString& root, WorkspaceManifest& out, qint64 sizeCap,
                                                      const std::atomic<bool>* cancel) {
    ScanResult result;
    const QFileInfo rootInfo(root);
    if (!rootInfo.isDir() || rootInfo.isSymbolicLink()) {
        result.error = tr("%1 is not a folder.").arg(QDir::toNativeSeparators(root));
        return result;
    }
    const QString rootPath = rootInfo.absoluteFilePath();

    WorkspaceManifest manifest;
    IgnoreMatcher matcher;
    QHash<QString, qint64> topLevelBytes;
    QStringList pending{QString()};  // folders still to read, relative
    while (!pending.isEmpty()) {
        if (cancel != nullptr && cancel->load()) {
            result.error = tr("The scan of the folder was cancelled.");
            return result;
        }
        const QString folder = pending.takeLast();
        const QString absolute = folder.isEmpty() ? rootPath : rootPath + QLatin1Char('/') + folder;

        const QFileInfo ignoreInfo(absolute + QLatin1Char('/') + IgnoreMatcher::ignoreFileName());
        if (ignoreInfo.isFile() && !ignoreInfo.isSymbolicLink()) {
            QFile ignoreFile(ignoreInfo.filePath());
            if (!ignoreFile.open(QIODevice::ReadOnly)) {
                result.error = tr("%1 could not be read: %2").arg(ignoreInfo.filePath(), ignoreFile.errorString());
                return result;
            }
            const QByteArray text = ignoreFile.readAll();
            matcher.addPatterns(folder, text);
            manifest.ignoreFiles.insert(folder, text);
        }

        const QDir dir(absolute);
        if (!dir.isReadable()) {
            result.error = tr("The folder %1 could not be read.").arg(QDir::toNativeSeparators(absolute));
            return result;
        }
        const QFileInfoList children =
            dir.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
        for (const QFileInfo& info : children) {
            const QString name = info.fileName();
            const QString path = folder.isEmpty() ? name : folder + QLatin1Char('/') + name;
            if (name.contains(QChar::ReplacementCharacter)) {
                result.error = tr("The name of %1 is not valid UTF-8; rename it or add it to .zeusignore.")
                                   .arg(QDir::toNativeSeparators(info.filePath()));
                return result;
            }
            ManifestEntry entry;
            entry.path = path;
            if (info.isSymbolicLink()) {
                entry.type = ManifestEntry::Type::Symlink;
            } else if (info.isDir()) {
                entry.type = ManifestEntry::Type::Directory;
            } else if (info.isFile()) {
                entry.type = ManifestEntry::Type::File;
            } else {
                if (!matcher.matchEntry(path, false).ignored) {
                    manifest.skipped.append(path);
                }
                continue;
            }
            if (matcher.matchEntry(path, entry.type == ManifestEntry::Type::Directory).ignored) {
                continue;
            }
            switch (entry.type) {
                case ManifestEntry::Type::Symlink: {
                    const QByteArray target = hostfile::readLink(info.filePath());
                    entry.mode = 0777;
                    entry.linkTarget = QFile::decodeName(target);
                    entry.size = target.size();
                    entry.sha256 = sha256Hex(target);
                    break;
                }
                case ManifestEntry::Type::Directory:
                    entry.mode = hostfile::modeOf(info.permissions());
                    pending.append(path);
                    break;
                case ManifestEntry::Type::File:
                    entry.mode = hostfile::modeOf(info.permissions());
                    entry.size = info.size();
                    result.totalFileBytes += entry.size;
                    topLevelBytes[path.section(QLatin1Char('/'), 0, 0)] += entry.size;
                    break;
            }
            manifest.entries.append(entry);
        }
    }

    if (result.totalFileBytes > sizeCap) {
        for (auto it = topLevelBytes.cbegin(); it != topLevelBytes.cend(); ++it) {
            result.largest.append({it.key(), it.value()});
        }
        std::sort(result.largest.begin(), result.largest.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        result.largest = result.largest.mid(0, kLargestListed);
        QStringList named;
        for (const auto& item : std::as_const(result.largest)) {
            named.append(QStringLiteral("%1 (%2)").arg(item.first, sizeText(item.second)));
        }
        result.error = tr("The folder holds %1 to copy, more than the limit of %2. The largest: %3. Add what the agent "
                          "does not need to .zeusignore, or raise the limit in Settings.")
                           .arg(sizeText(result.totalFileBytes), sizeText(sizeCap), named.join(QStringLiteral(", ")));
        return result;
    }

    // Hashes only once the size is known to fit: a folder over the cap is refused at the cost of a walk.
    QByteArray buffer;
    for (ManifestEntry& entry : manifest.entries) {
        if (entry.type != ManifestEntry::Type::File) {
            continue;
        }
        if (cancel != nullptr && cancel->load()) {
            result.error = tr("The scan of the folder was cancelled.");
            return result;
        }
        QFile file(rootPath + QLatin1Char('/') + entry.path);
        if (!file.open(QIODevice::ReadOnly)) {
            result.error = tr("%1 could not be read (%2); make it readable or add it to .zeusignore.")
                               .arg(QDir::toNativeSeparators(file.fileName()), file.errorString());
            return result;
        }
        QCryptographicHash hash(QCryptographicHash::Sha256);
        qint64 bytes = 0;
        while (true) {
            buffer = file.read(kHashChunk);
            if (buffer.isEmpty()) {
                break;
            }
            bytes += buffer.size();
            hash.addData(buffer);
        }
        entry.size = bytes;  // what was hashed, should the file have changed since the walk
        entry.sha256 = hash.result().toHex();
    }
    manifest.sort();
    out = manifest;
    result.ok = true;
    return result;
}

bool WorkspaceManifest::parseContainerListing(const QByteArray& listing, WorkspaceManifest& out, QString* error,
                                              const ListingLimits& limits) {
    // The caps come first: nothing is split or parsed of a listing over them.
    if (listing.size() > limits.bytes) {
        return fail(error, QCoreApplication::translate("zeus::WorkspaceManifest",
                                                       "The container's file list is more than %1 bytes, the cap for a "
                                                       "review copy: the agent left too many files or too long names "
                                                       "(add folders to .zeusignore, or discard the copy).")
                               .arg(limits.bytes));
    }
    if (listing.count('\0') / kListingFields > limits.entries) {
        return fail(error, QCoreApplication::translate("zeus::WorkspaceManifest",
                                                       "The container's file list has more than %1 entries, the cap "
                                                       "for a review copy: the agent left too many files (add folders "
                                                       "to .zeusignore, or discard the copy).")
                               .arg(limits.entries));
    }
    WorkspaceManifest manifest;
    if (!listing.isEmpty() && !listing.endsWith('\0')) {
        return fail(error, tr("The container's file list ends in the middle of a record."));
    }
    QList<QByteArray> fields = listing.split('\0');
    fields.removeLast();  // after the final NUL
    if (fields.size() % kListingFields != 0) {
        return fail(error, tr("The container's file list ends in the middle of a record."));
    }
    for (qsizetype i = 0; i < fields.size(); i += kListingFields) {
        const QByteArray& type = fields.at(i);
        const QByteArray& rawPath = fields.at(i + 4);
        const int record = static_cast<int>(i / kListingFields) + 1;
        ManifestEntry entry;
        entry.path = QString::fromUtf8(rawPath);
        if (entry.path.toUtf8() != rawPath) {
            // A name the host cannot represent: shown to the user as left out, never guessed at.
            manifest.skipped.append(QString::fromLatin1(rawPath.toPercentEncoding("/")));
            continue;
        }
        if (!ManifestEntry::isSafePath(entry.path)) {
            return fail(error, tr("The container's file list has an unsafe path in record %1.").arg(record));
        }
        bool modeOk = false;
        entry.mode = fields.at(i + 1).trimmed().toUInt(&modeOk, 8);
        bool sizeOk = false;
        entry.size = fields.at(i + 2).trimmed().toLongLong(&sizeOk);
        if (!modeOk || entry.mode > 07777 || !sizeOk || entry.size < 0) {
            return fail(error,
                        tr("The container's file list has a malformed record %1 (%2).").arg(record).arg(entry.path));
        }
        if (type == "f") {
            entry.type = ManifestEntry::Type::File;
            entry.sha256 = fields.at(i + 3);
            if (entry.sha256 == "-") {
                manifest.skipped.append(entry.path);  // unreadable in the container
                continue;
            }
            if (!isSha256Hex(entry.sha256)) {
                return fail(
                    error, tr("The container's file list has a malformed record %1 (%2).").arg(record).arg(entry.path));
            }
        } else if (type == "d") {
            entry.type = ManifestEntry::Type::Directory;
            entry.size = 0;
        } else if (type == "l") {
            // The target is what counts; its size and hash are computed here rather than trusted.
            const QByteArray& target = fields.at(i + 5);
            entry.type = ManifestEntry::Type::Symlink;
            entry.mode = 0777;
            entry.linkTarget = QString::fromUtf8(target);
            entry.size = target.size();
            entry.sha256 = sha256Hex(target);
        } else {
            return fail(error,
                        tr("The container's file list has a malformed record %1 (%2).").arg(record).arg(entry.path));
        }
        manifest.entries.append(entry);
    }
    manifest.sort();
    QString duplicate;
    if (hasDuplicates(manifest.entries, duplicate)) {
        return fail(error, tr("The container's file list names %1 twice.").arg(duplicate));
    }
    out = manifest;
    return true;
}

QString WorkspaceManifest::containerListingScript() {
    // POSIX sh plus busybox find/stat/sha256sum/readlink/wc. Every name reaches the inner shell as an argument (never
    // parsed from text) and leaves it between NULs, so any byte but NUL and '/' survives. A link's target is read
    // with a trailing "." so command substitution cannot eat its trailing newlines.
    //
    // Three walks: what is not a regular file (folders, links, anything else; find's -type never follows a link),
    // then regular files whose path holds a newline, entry by entry (`one`), then the other regular files hashed and
    // stat'ed by one sha256sum and one stat per batch of find's, not three processes per file (2000 files: 51 s
    // before, see docs/benchmarks.md). Their names still come from the arguments, in order; the tools' outputs give
    // only the hash (the first word of a line: GNU marks a line whose name it escaped with a leading backslash) and
    // "mode size", one line per file since no path there has a newline. A batch whose tools fail (a file gone
    // meanwhile) or whose line counts differ is done entry by entry again.
    return QStringLiteral(R"sh(cd "$1" || exit 1
nl="
"
one='one() {
  p=$1
  n=${p#./}
  if [ -L "$p" ]; then
    t=$(readlink "$p"; printf .); t=${t%.}; t=${t%?}
    printf "%s\0%s\0%s\0%s\0%s\0%s\0" l 777 0 - "$n" "$t"
  elif [ -d "$p" ]; then
    printf "%s\0%s\0%s\0%s\0%s\0%s\0" d "$(stat -c %a "$p")" 0 - "$n" ""
  elif [ -f "$p" ]; then
    h=$(sha256sum < "$p") || h=-
    printf "%s\0%s\0%s\0%s\0%s\0%s\0" f "$(stat -c %a "$p")" "$(stat -c %s "$p")" "${h%% *}" "$n" ""
  fi
}
'
find . -mindepth 1 ! -type f -exec sh -c "$one"'
for p do one "$p"; done' sh {} + &&
find . -mindepth 1 -type f -path "*$nl*" -exec sh -c "$one"'
for p do one "$p"; done' sh {} + &&
find . -mindepth 1 -type f ! -path "*$nl*" -exec sh -c "$one"'
if hs=$(sha256sum -- "$@" 2>/dev/null) && ss=$(stat -c "%a %s" -- "$@" 2>/dev/null) &&
   [ $(printf "%s\n" "$hs" | wc -l) -eq $# ] && [ $(printf "%s\n" "$ss" | wc -l) -eq $# ]; then
  while IFS= read -r s <&3 && IFS= read -r h <&4; do
    n=${1#./}
    shift
    h=${h#\\}
    printf "%s\0%s\0%s\0%s\0%s\0%s\0" f "${s% *}" "${s#* }" "${h%% *}" "$n" ""
  done 3<<EOS 4<<EOH
$ss
EOS
$hs
EOH
else
  for p do one "$p"; done
fi' sh {} +
)sh");
}

}  // namespace zeus
