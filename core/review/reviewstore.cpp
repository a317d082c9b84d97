#include "review/reviewstore.h"

#include "review/gitbundle.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>

namespace zeus {

namespace {

const QString kRecordFile = QStringLiteral("record.json");
const QString kBaselineFile = QStringLiteral("baseline.json");
const QString kLockFile = QStringLiteral("lock");
constexpr qint64 kMaxRecordBytes = 4 * 1024 * 1024;  // a repository with many tags lists them all
constexpr qint64 kMaxBaselineBytes = qint64(512) * 1024 * 1024;
constexpr int kLockWaitMs = 30000;

QJsonObject toObject(const ReviewRecord& record) {
    return QJsonObject{
        {QStringLiteral("version"), 1},
        {QStringLiteral("session"), record.sessionId},
        {QStringLiteral("workspace"), record.workspace},
        {QStringLiteral("container"), record.containerId},
        {QStringLiteral("name"), record.containerName},
        {QStringLiteral("engine"), record.engine},
        {QStringLiteral("program"), record.engineProgram},
        {QStringLiteral("created"), record.created.toUTC().toString(Qt::ISODate)},
        {QStringLiteral("refs"), record.fetchedRefsPrefix},
        {QStringLiteral("gitBase"), QJsonArray::fromStringList(record.gitBaseTips)},
    };
}

bool fromObject(const QJsonObject& object, ReviewRecord& out) {
    ReviewRecord record;
    record.sessionId = object.value(QStringLiteral("session")).toString();
    record.workspace = object.value(QStringLiteral("workspace")).toString();
    record.containerId = object.value(QStringLiteral("container")).toString();
    record.containerName = object.value(QStringLiteral("name")).toString();
    record.engine = object.value(QStringLiteral("engine")).toString();
    record.engineProgram = object.value(QStringLiteral("program")).toString();
    record.created = QDateTime::fromString(object.value(QStringLiteral("created")).toString(), Qt::ISODate);
    record.fetchedRefsPrefix = object.value(QStringLiteral("refs")).toString();
    const QJsonArray tips = object.value(QStringLiteral("gitBase")).toArray();
    for (const QJsonValue tip : tips) {
        // Only object ids: they go into the container's git as arguments.
        if (GitBundle::isObjectId(tip.toString())) {
            record.gitBaseTips.append(tip.toString());
        }
    }
    // The container id goes into the engine's argument list: one word of hex or name characters, never a flag.
    const bool idOk =
        !record.containerId.isEmpty() && !record.containerId.startsWith(QLatin1Char('-'))
        && std::all_of(record.containerId.cbegin(), record.containerId.cend(), [](QChar c) {
               return c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('-') || c == QLatin1Char('.');
           });
    if (object.value(QStringLiteral("version")).toInt() != 1 || record.sessionId.isEmpty()
        || !QDir::isAbsolutePath(record.workspace) || !idOk) {
        return false;
    }
    out = record;
    return true;
}

bool readSmall(const QString& path, qint64 limit, QByteArray& out, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error) {
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        }
        return false;
    }
    if (file.size() > limit) {
        if (error) {
            *error = QStringLiteral("%1 is too large").arg(path);
        }
        return false;
    }
    out = file.readAll();
    return true;
}

bool writeAtomically(const QString& path, const QByteArray& data, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
        if (error) {
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        }
        return false;
    }
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return true;
}

// Held while a session's files change: the tray app and the command line share the folder.
class SessionLock {
public:
    explicit SessionLock(const QString& directory) : m_lock(directory + QLatin1Char('/') + kLockFile) {
        m_lock.setStaleLockTime(0);  // a lock left by a killed process is taken over (QLockFile checks the pid)
        m_locked = m_lock.tryLock(kLockWaitMs);
    }
    bool locked() const { return m_locked; }

private:
    QLockFile m_lock;
    bool m_locked = false;
};

}  // namespace

ReviewStore::ReviewStore(QString directory) : m_directory(std::move(directory)) {}

QString ReviewStore::defaultDirectory() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/review");
}

QString ReviewStore::sessionDirectory(const QString& sessionId) const {
    const QByteArray hash = QCryptographicHash::hash(sessionId.toUtf8(), QCryptographicHash::Sha256).toHex();
    return m_directory + QLatin1Char('/') + QString::fromLatin1(hash.left(32));
}

QList<ReviewRecord> ReviewStore::records(QStringList* errors) const {
    QList<ReviewRecord> out;
    const QDir dir(m_directory);
    const QStringList folders = dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
    for (const QString& folder : folders) {
        QByteArray json;
        QString error;
        ReviewRecord record;
        if (!readSmall(dir.filePath(folder) + QLatin1Char('/') + kRecordFile, kMaxRecordBytes, json, &error)) {
            if (errors && QFile::exists(dir.filePath(folder) + QLatin1Char('/') + kBaselineFile)) {
                errors->append(error);
            }
            continue;
        }
        if (!fromObject(QJsonDocument::fromJson(json).object(), record)
            || sessionDirectory(record.sessionId) != dir.filePath(folder)) {
            if (errors) {
                errors->append(QStringLiteral("%1: not a review record").arg(dir.filePath(folder)));
            }
            continue;
        }
        out.append(record);
    }
    std::sort(out.begin(), out.end(),
              [](const ReviewRecord& a, const ReviewRecord& b) { return a.created < b.created; });
    return out;
}

std::optional<ReviewRecord> ReviewStore::record(const QString& sessionId) const {
    QByteArray json;
    ReviewRecord record;
    if (!readSmall(sessionDirectory(sessionId) + QLatin1Char('/') + kRecordFile, kMaxRecordBytes, json, nullptr)
        || !fromObject(QJsonDocument::fromJson(json).object(), record) || record.sessionId != sessionId) {
        return std::nullopt;
    }
    return record;
}

std::optional<ReviewRecord> ReviewStore::find(const QString& sessionOrContainer) const {
    if (sessionOrContainer.isEmpty()) {
        return std::nullopt;
    }
    if (auto exact = record(sessionOrContainer)) {
        return exact;
    }
    std::optional<ReviewRecord> found;
    const QList<ReviewRecord> all = records();
    for (const ReviewRecord& r : all) {
        if (r.containerName == sessionOrContainer
            || (sessionOrContainer.size() >= 4 && r.containerId.startsWith(sessionOrContainer))) {
            if (found) {
                return std::nullopt;  // ambiguous
            }
            found = r;
        }
    }
    return found;
}

bool ReviewStore::save(const ReviewRecord& record, const WorkspaceManifest& baseline, QString* error) {
    const QString dir = sessionDirectory(record.sessionId);
    if (!QDir().mkpath(dir)) {
        if (error) {
            *error = QStringLiteral("cannot create %1").arg(dir);
        }
        return false;
    }
    QFile::setPermissions(m_directory, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    const SessionLock lock(dir);
    if (!lock.locked()) {
        if (error) {
            *error = QStringLiteral("the review record of this session is locked by another process");
        }
        return false;
    }
    // The baseline first: a record without a baseline is never listed as reviewable.
    return writeAtomically(dir + QLatin1Char('/') + kBaselineFile, baseline.toJson(), error)
           && writeAtomically(dir + QLatin1Char('/') + kRecordFile,
                              QJsonDocument(toObject(record)).toJson(QJsonDocument::Compact), error);
}

bool ReviewStore::saveRecord(const ReviewRecord& record, QString* error) const {
    const QString dir = sessionDirectory(record.sessionId);
    const SessionLock lock(dir);
    if (!lock.locked()) {
        if (error) {
            *error = QStringLiteral("the review record of this session is locked by another process");
        }
        return false;
    }
    return writeAtomically(dir + QLatin1Char('/') + kRecordFile,
                           QJsonDocument(toObject(record)).toJson(QJsonDocument::Compact), error);
}

bool ReviewStore::loadBaseline(const QString& sessionId, WorkspaceManifest& out, QString* error) const {
    QByteArray json;
    return readSmall(sessionDirectory(sessionId) + QLatin1Char('/') + kBaselineFile, kMaxBaselineBytes, json, error)
           && WorkspaceManifest::fromJson(json, out, error);
}

bool ReviewStore::markApplied(const QString& sessionId, const QList<Change>& applied, QString* error) const {
    const QString dir = sessionDirectory(sessionId);
    const SessionLock lock(dir);
    if (!lock.locked()) {
        if (error) {
            *error = QStringLiteral("the review record of this session is locked by another process");
        }
        return false;
    }
    WorkspaceManifest baseline;
    if (!loadBaseline(sessionId, baseline, error)) {
        return false;
    }
    for (const Change& change : applied) {
        baseline.entries.erase(std::remove_if(baseline.entries.begin(), baseline.entries.end(),
                                              [&change](const ManifestEntry& e) { return e.path == change.path; }),
                               baseline.entries.end());
        if (change.hasAfter) {
            baseline.entries.append(change.after);
        }
    }
    baseline.sort();
    return writeAtomically(dir + QLatin1Char('/') + kBaselineFile, baseline.toJson(), error);
}

bool ReviewStore::remove(const QString& sessionId, QString* error) const {
    const QString dir = sessionDirectory(sessionId);
    if (!QFileInfo::exists(dir)) {
        return true;
    }
    {
        const SessionLock lock(dir);
        if (!lock.locked()) {
            if (error) {
                *error = QStringLiteral("the review record of this session is locked by another process");
            }
            return false;
        }
        QFile::remove(dir + QLatin1Char('/') + kRecordFile);
        QFile::remove(dir + QLatin1Char('/') + kBaselineFile);
    }
    QFile::remove(dir + QLatin1Char('/') + kLockFile);
    if (!QDir().rmdir(dir)) {
        if (error) {
            *error = QStringLiteral("cannot remove %1").arg(dir);
        }
        return false;
    }
    return true;
}

}  // namespace zeus
