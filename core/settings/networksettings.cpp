#include "networksettings.h"

#include "sandbox/egress/egresspolicy.h"
#include "support/keychainjob.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QSettings>

#include <algorithm>

namespace zeus {

const QLatin1String NetworkSettings::kMode("network/mode");
const QLatin1String NetworkSettings::kPreset("network/preset");
const QLatin1String NetworkSettings::kAllowedHosts("network/allow");
const QLatin1String NetworkSettings::kDeniedHosts("network/deny");
const QLatin1String NetworkSettings::kResolve("network/resolve");
const QLatin1String NetworkSettings::kUpstreamProxy("network/upstreamProxy");
const QLatin1String NetworkSettings::kUpstreamProxyUser("network/upstreamProxyUser");
const QLatin1String NetworkSettings::kProxyPasswordEntry("upstream-proxy");
const QLatin1String NetworkSettings::kFolderRules("network/folderRules");
const QLatin1String NetworkSettings::kFolderKey("folder");
const QLatin1String NetworkSettings::kFolderAllowKey("allow");
const QLatin1String NetworkSettings::kHostCertificates("network/hostCertificates");

namespace {

bool allRulesParse(const QStringList& rules) {
    return std::all_of(rules.cbegin(), rules.cend(), [](const QString& r) { return HostRule::parse(r).has_value(); });
}

}  // namespace

NetworkSettings::NetworkSettings(QSettings& store, QObject* parent)
    : QObject(parent), m_store(store), m_keychainService(QStringLiteral(ZEUS_APP_ID)) {}

QString NetworkSettings::mode() const {
    const QString value = m_store.value(kMode).toString();
    return networkModeFromName(value) ? value : QString();
}

bool NetworkSettings::setMode(const QString& value) {
    if (!value.isEmpty() && !networkModeFromName(value)) {
        return false;
    }
    if (mode() != value) {
        m_store.setValue(kMode, value);
        Q_EMIT modeChanged();
    }
    return true;
}

bool NetworkSettings::hostCertificates() const {
    return m_store.value(kHostCertificates, true).toBool();
}

void NetworkSettings::setHostCertificates(bool on) {
    if (hostCertificates() != on) {
        m_store.setValue(kHostCertificates, on);
        Q_EMIT modeChanged();
    }
}

QString NetworkSettings::preset() const {
    const QString value = m_store.value(kPreset).toString();
    return EgressPolicy::presetNames().contains(value) ? value : QStringLiteral("dev");
}

bool NetworkSettings::setPreset(const QString& value) {
    if (!EgressPolicy::presetNames().contains(value)) {
        return false;
    }
    if (preset() != value) {
        m_store.setValue(kPreset, value);
        Q_EMIT policyChanged();
    }
    return true;
}

QString NetworkSettings::upstreamProxy() const {
    const QString value = m_store.value(kUpstreamProxy).toString().trimmed();
    const auto endpoint = UpstreamProxy::parseUrl(value);
    return endpoint && endpoint->user.isEmpty() ? value : QString();
}

bool NetworkSettings::setUpstreamProxy(const QString& url) {
    const QString value = url.trimmed();
    if (!value.isEmpty()) {
        const auto endpoint = UpstreamProxy::parseUrl(value);
        if (!endpoint || !endpoint->user.isEmpty()) {
            return false;
        }
    }
    if (upstreamProxy() != value) {
        m_store.setValue(kUpstreamProxy, value);
        Q_EMIT policyChanged();
    }
    return true;
}

QString NetworkSettings::upstreamProxyUser() const {
    return m_store.value(kUpstreamProxyUser).toString().trimmed();
}

void NetworkSettings::setUpstreamProxyUser(const QString& user) {
    if (upstreamProxyUser() != user.trimmed()) {
        m_store.setValue(kUpstreamProxyUser, user.trimmed());
        Q_EMIT policyChanged();
    }
}

QString NetworkSettings::upstreamProxyPassword() {
    if (!m_proxyPasswordAsked && !upstreamProxyUser().isEmpty()) {
        m_proxyPasswordAsked = true;
        readUpstreamProxyPassword();
    }
    return m_proxyPassword;
}

void NetworkSettings::readUpstreamProxyPassword() {
    auto* job = new KeychainJob(KeychainJob::Operation::Read, m_keychainService, kProxyPasswordEntry, this);
    job->setTimeoutMs(m_keychainTimeoutMs);
    connect(job, &KeychainJob::finished, this, [this](const KeychainJob::Outcome& outcome) {
        if (outcome.failure == KeychainFailure::None) {
            m_proxyPassword = QString::fromUtf8(outcome.data);
            Q_EMIT policyChanged();
        } else {
            // Never the value; the proxy is used without credentials and its 407 names the cause.
            qCWarning(lcSecrets).noquote()
                << "The upstream proxy's password could not be read from the keychain"
                << (outcome.failure == KeychainFailure::TimedOut ? QStringLiteral("(no answer in time)")
                                                                 : QStringLiteral("(%1)").arg(outcome.errorString))
                << "- the proxy is used without credentials";
        }
        Q_EMIT upstreamProxyPasswordLoaded();
    });
    job->start();
}

void NetworkSettings::storeUpstreamProxyPassword(const QString& password) {
    auto* job = new KeychainJob(password.isEmpty() ? KeychainJob::Operation::Delete : KeychainJob::Operation::Write,
                                m_keychainService, kProxyPasswordEntry, this);
    job->setTimeoutMs(m_keychainTimeoutMs);
    job->setText(password);
    connect(job, &KeychainJob::finished, this, [this, password](const KeychainJob::Outcome& outcome) {
        const bool done = outcome.failure == KeychainFailure::None
                          || (password.isEmpty() && outcome.failure == KeychainFailure::NotFound);
        if (!done) {
            const QString problem = outcome.failure == KeychainFailure::TimedOut
                                        ? tr("The keychain did not answer in time.")
                                        : tr("The keychain refused it: %1").arg(outcome.errorString);
            qCWarning(lcSecrets).noquote() << "The upstream proxy's password was not stored:" << problem;
            Q_EMIT upstreamProxyPasswordStored(problem);
            return;
        }
        m_proxyPasswordAsked = true;  // what the keychain now holds is known
        if (m_proxyPassword != password) {
            m_proxyPassword = password;
            Q_EMIT policyChanged();
        }
        Q_EMIT upstreamProxyPasswordStored(QString());
    });
    job->start();
}

void NetworkSettings::setKeychainService(const QString& service, int timeoutMs) {
    m_keychainService = service;
    m_keychainTimeoutMs = timeoutMs;
}

bool NetworkSettings::setRuleList(const QLatin1String& key, const QStringList& rules) {
    if (!allRulesParse(rules)) {
        return false;
    }
    if (m_store.value(key).toStringList() != rules) {
        m_store.setValue(key, rules);
        Q_EMIT policyChanged();
    }
    return true;
}

QStringList NetworkSettings::allowedHosts() const {
    return m_store.value(kAllowedHosts).toStringList();
}

bool NetworkSettings::setAllowedHosts(const QStringList& rules) {
    return setRuleList(kAllowedHosts, rules);
}

QStringList NetworkSettings::deniedHosts() const {
    return m_store.value(kDeniedHosts).toStringList();
}

bool NetworkSettings::setDeniedHosts(const QStringList& rules) {
    return setRuleList(kDeniedHosts, rules);
}

QStringList NetworkSettings::resolveOverrides() const {
    return m_store.value(kResolve).toStringList();
}

bool NetworkSettings::setResolveOverrides(const QStringList& entries) {
    for (const QString& entry : entries) {
        if (!ResolveOverride::parse(entry)) {
            return false;
        }
    }
    if (resolveOverrides() != entries) {
        m_store.setValue(kResolve, entries);
        Q_EMIT policyChanged();
    }
    return true;
}

NetworkSettings::FolderRules NetworkSettings::readFolderRules(QSettings& store) {
    FolderRules rules;
    const int size = store.beginReadArray(kFolderRules);
    for (int i = 0; i < size; ++i) {
        store.setArrayIndex(i);
        rules.append({store.value(kFolderKey).toString(), store.value(kFolderAllowKey).toStringList()});
    }
    store.endArray();
    return rules;
}

void NetworkSettings::writeFolderRules(QSettings& store, const FolderRules& rules) {
    store.remove(kFolderRules);
    if (rules.isEmpty()) {
        return;
    }
    store.beginWriteArray(kFolderRules, int(rules.size()));
    for (int i = 0; i < rules.size(); ++i) {
        store.setArrayIndex(i);
        store.setValue(kFolderKey, rules.at(i).first);
        store.setValue(kFolderAllowKey, rules.at(i).second);
    }
    store.endArray();
}

QHash<QString, QStringList> NetworkSettings::allFolderAllowedHosts() const {
    QHash<QString, QStringList> out;
    for (const auto& [folder, rules] : readFolderRules(m_store)) {
        if (!folder.isEmpty()) {
            out.insert(folder, rules);
        }
    }
    return out;
}

QStringList NetworkSettings::folderAllowedHosts(const QString& folder) const {
    return allFolderAllowedHosts().value(folder);
}

bool NetworkSettings::addFolderAllowedHost(const QString& folder, const QString& rule) {
    if (folder.isEmpty() || !HostRule::parse(rule)) {
        return false;
    }
    FolderRules rules = readFolderRules(m_store);
    auto it = std::find_if(rules.begin(), rules.end(), [&folder](const auto& entry) { return entry.first == folder; });
    if (it == rules.end()) {
        it = rules.insert(rules.end(), {folder, {}});
    }
    if (it->second.contains(rule)) {
        return true;
    }
    it->second.append(rule);
    writeFolderRules(m_store, rules);
    Q_EMIT policyChanged();
    return true;
}

}  // namespace zeus
