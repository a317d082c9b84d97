#pragma once

#include <QDateTime>
#include <QHash>
#include <QLatin1String>
#include <QObject>
#include <QString>
#include <QStringList>

class QSettings;

namespace zeus {

// What this computer knows about its secrets besides their values (SPEC §9, docs/secrets.md): the names, sorted,
// when each was last handed to a command, and the folders each is approved for "always". A view on the store
// AppSettings owns.
//
// Must never: hold a value (those live in the OS keychain, SecretStore), or keep the time or the folders of a
// name it no longer lists.
class SecretIndex : public QObject {
    Q_OBJECT
public:
    static const QLatin1String kNames;
    static const QLatin1String kLastUsed;      // group: NAME -> UTC time
    static const QLatin1String kFolderGrants;  // group: NAME -> folders approved "always" for it

    explicit SecretIndex(QSettings& store, QObject* parent = nullptr);

    QStringList names() const;
    void addName(const QString& name);     // a valid name only (SecretStore::isValidName)
    void removeName(const QString& name);  // with its last-used time and folder approvals
    QDateTime lastUsed(const QString& name) const;
    void setLastUsed(const QString& name, const QDateTime& when);
    // folder (canonical) -> names approved "always" in it.
    QHash<QString, QStringList> folderGrants() const;
    void addFolderGrant(const QString& name, const QString& folder);

Q_SIGNALS:
    // A secret was added or removed, used, or approved for a folder.
    void changed();

private:
    QSettings& m_store;
};

}  // namespace zeus
