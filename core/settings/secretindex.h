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
// when each was last handed to a command, the folders each is approved for "always", and the hosts each is bound
// to (SPEC §9 "Host-bound secrets": the rules as the user wrote them, presets as `@word`). A view on the store
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
    static const QLatin1String kBindings;      // group: NAME -> host rules it may be sent to (Settings → Secrets)

    explicit SecretIndex(QSettings& store, QObject* parent = nullptr);

    QStringList names() const;
    void addName(const QString& name);     // a valid name only (SecretStore::isValidName)
    void removeName(const QString& name);  // with its last-used time, folder approvals and binding
    QDateTime lastUsed(const QString& name) const;
    void setLastUsed(const QString& name, const QDateTime& when);
    // folder (canonical) -> names approved "always" in it.
    QHash<QString, QStringList> folderGrants() const;
    void addFolderGrant(const QString& name, const QString& folder);
    // NAME -> the host rules it is bound to, for the listed names that have any. The rules are kept as written;
    // SandboxSetup parses them (SecretBinding::fromRules) and leaves out a binding that no longer parses, whose
    // secret then gets a placeholder that nothing replaces, never its value (SandboxSession::bindSecrets).
    QHash<QString, QStringList> bindings() const;
    // Binds a listed name to `rules` (empty: unbound, its value goes into the environment again).
    void setBinding(const QString& name, const QStringList& rules);

Q_SIGNALS:
    // A secret was added or removed, used, or approved for a folder.
    void changed();
    // The bindings changed (also said by changed()): the live sessions follow them (SessionManager).
    void bindingsChanged();

private:
    QSettings& m_store;
};

}  // namespace zeus
