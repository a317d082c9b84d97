#include "secretindex.h"

#include "secrets/secretstore.h"
#include "support/logging.h"

#include <QSettings>

namespace zeus {

const QLatin1String SecretIndex::kNames("secrets/names");
const QLatin1String SecretIndex::kLastUsed("secrets/lastUsed");
const QLatin1String SecretIndex::kFolderGrants("secrets/alwaysInFolders");
const QLatin1String SecretIndex::kBindings("secrets/boundToHosts");

namespace {

QString keyOf(const QLatin1String& group, const QString& name) {
    return QString(group) + u'/' + name;
}

}  // namespace

SecretIndex::SecretIndex(QSettings& store, QObject* parent) : QObject(parent), m_store(store) {}

QStringList SecretIndex::names() const {
    QStringList names;
    for (const QString& name : m_store.value(kNames).toStringList()) {
        if (SecretStore::isValidName(name) && !names.contains(name)) {
            names.append(name);
        }
    }
    names.sort();
    return names;
}

void SecretIndex::addName(const QString& name) {
    QStringList all = names();
    if (!SecretStore::isValidName(name) || all.contains(name)) {
        return;
    }
    all.append(name);
    all.sort();
    m_store.setValue(kNames, all);
    Q_EMIT changed();
}

void SecretIndex::removeName(const QString& name) {
    QStringList all = names();
    if (all.removeAll(name) == 0) {
        return;
    }
    m_store.setValue(kNames, all);
    m_store.remove(keyOf(kLastUsed, name));
    m_store.remove(keyOf(kFolderGrants, name));
    const bool wasBound = m_store.contains(keyOf(kBindings, name));
    m_store.remove(keyOf(kBindings, name));
    Q_EMIT changed();
    if (wasBound) {
        Q_EMIT bindingsChanged();
    }
}

QDateTime SecretIndex::lastUsed(const QString& name) const {
    if (!SecretStore::isValidName(name)) {
        return {};
    }
    return m_store.value(keyOf(kLastUsed, name)).toDateTime();
}

void SecretIndex::setLastUsed(const QString& name, const QDateTime& when) {
    if (!names().contains(name)) {
        return;
    }
    m_store.setValue(keyOf(kLastUsed, name), when.toUTC());
    Q_EMIT changed();
}

QHash<QString, QStringList> SecretIndex::folderGrants() const {
    QHash<QString, QStringList> grants;
    for (const QString& name : names()) {
        for (const QString& folder : m_store.value(keyOf(kFolderGrants, name)).toStringList()) {
            if (!folder.isEmpty()) {
                grants[folder].append(name);
            }
        }
    }
    return grants;
}

void SecretIndex::addFolderGrant(const QString& name, const QString& folder) {
    if (!names().contains(name) || folder.isEmpty()) {
        return;
    }
    const QString key = keyOf(kFolderGrants, name);
    QStringList folders = m_store.value(key).toStringList();
    if (folders.contains(folder)) {
        return;
    }
    folders.append(folder);
    m_store.setValue(key, folders);
    qCInfo(lcApp).noquote() << "secret" << name << "approved always in" << folder;
    Q_EMIT changed();
}

QHash<QString, QStringList> SecretIndex::bindings() const {
    QHash<QString, QStringList> bindings;
    for (const QString& name : names()) {
        QStringList rules = m_store.value(keyOf(kBindings, name)).toStringList();
        rules.removeAll(QString());
        if (!rules.isEmpty()) {
            bindings.insert(name, rules);
        }
    }
    return bindings;
}

void SecretIndex::setBinding(const QString& name, const QStringList& rules) {
    if (!names().contains(name)) {
        return;
    }
    QStringList cleaned;
    for (const QString& rule : rules) {
        const QString trimmed = rule.trimmed();
        if (!trimmed.isEmpty() && !cleaned.contains(trimmed)) {
            cleaned.append(trimmed);
        }
    }
    const QString key = keyOf(kBindings, name);
    if (m_store.value(key).toStringList() == cleaned) {
        return;
    }
    if (cleaned.isEmpty()) {
        m_store.remove(key);
    } else {
        m_store.setValue(key, cleaned);
    }
    qCInfo(lcApp).noquote() << "secret" << name
                            << (cleaned.isEmpty() ? QStringLiteral("unbound")
                                                  : QStringLiteral("bound to ") + cleaned.join(QStringLiteral(", ")));
    Q_EMIT changed();
    Q_EMIT bindingsChanged();
}

}  // namespace zeus
