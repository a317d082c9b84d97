#pragma once

#include <QHash>
#include <QLatin1String>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <utility>

class QSettings;

namespace zeus {

// The network the user configured for the sandbox (SPEC §8, docs/network-policy.md): the mode, the preset, the
// user's allow, deny and resolve entries, and the "always for this folder" rules. A view on the store AppSettings
// owns.
//
// Must never: store a rule that does not parse (a setter refuses the whole list and stores nothing), or decide
// what a connection may reach (EgressPolicy does, from what this returns).
class NetworkSettings : public QObject {
    Q_OBJECT
public:
    static const QLatin1String kMode;
    static const QLatin1String kPreset;
    static const QLatin1String kAllowedHosts;
    static const QLatin1String kDeniedHosts;
    static const QLatin1String kResolve;
    static const QLatin1String kUpstreamProxy;
    static const QLatin1String kUpstreamProxyUser;
    // An array of {folder, allow}: the rules of one approved folder (the exact approval string).
    static const QLatin1String kFolderRules;
    static const QLatin1String kFolderKey;
    static const QLatin1String kFolderAllowKey;
    static const QLatin1String kHostCertificates;

    explicit NetworkSettings(QSettings& store, QObject* parent = nullptr);

    // "" (the profile decides: standard allowlist, hardened none), "open", "none" or "allowlist".
    QString mode() const;
    bool setMode(const QString& value);
    QString preset() const;  // "dev" (default) or "locked"
    bool setPreset(const QString& value);
    // Where allowed connections leave this computer (SPEC §8 "Upstream"): an http:// proxy URL, or empty (the
    // environment, then the system proxy). No credentials: they would sit in the settings file in the clear, so a
    // URL with them is refused (the user name is kept below, the password in the keychain).
    QString upstreamProxy() const;
    bool setUpstreamProxy(const QString& url);
    // The upstream proxy's user name (empty: no credentials). Its password lives in the keychain only, under the
    // entry kProxyPasswordEntry of the app's service.
    QString upstreamProxyUser() const;
    void setUpstreamProxyUser(const QString& user);
    // The password as last read from the keychain: empty until the read answers, and when it failed (the proxy is
    // then used without credentials, and answers 407). The first ask with a user name set starts that read;
    // policyChanged follows a password that arrived, so live sessions use it.
    QString upstreamProxyPassword();
    // Writes the password to the keychain (empty: deletes the entry); upstreamProxyPasswordStored() says how it went.
    void storeUpstreamProxyPassword(const QString& password);
    // Tests: a keychain service other than the app's, so they never touch the user's entries, and a timeout.
    void setKeychainService(const QString& service, int timeoutMs);
    static const QLatin1String kProxyPasswordEntry;
    // Rules as the user wrote them.
    QStringList allowedHosts() const;
    bool setAllowedHosts(const QStringList& rules);
    QStringList deniedHosts() const;
    bool setDeniedHosts(const QStringList& rules);
    // HOST:PORT:ADDRESS, like curl's --resolve.
    QStringList resolveOverrides() const;
    bool setResolveOverrides(const QStringList& entries);
    // SPEC §8 "Certificates": this computer's trusted roots go into each container (on by default).
    bool hostCertificates() const;
    void setHostCertificates(bool on);
    // "Always for this folder": rules that hold for sessions in one approved folder only.
    QStringList folderAllowedHosts(const QString& folder) const;
    QHash<QString, QStringList> allFolderAllowedHosts() const;
    bool addFolderAllowedHost(const QString& folder, const QString& rule);

    // The folder rules as stored, in order; writing replaces the whole array (the migration writes it too).
    using FolderRules = QList<std::pair<QString, QStringList>>;
    static FolderRules readFolderRules(QSettings& store);
    static void writeFolderRules(QSettings& store, const FolderRules& rules);

Q_SIGNALS:
    // The mode (or whether the host's certificates go in) changed: the sandbox is rebuilt.
    void modeChanged();
    // A rule or the preset changed: it applies to live sessions at once.
    void policyChanged();
    // storeUpstreamProxyPassword() ended; `problem` is empty on success, else the keychain's failure in words.
    void upstreamProxyPasswordStored(const QString& problem);
    // The keychain read of the password ended (with or without one).
    void upstreamProxyPasswordLoaded();

private:
    void readUpstreamProxyPassword();
    bool setRuleList(const QLatin1String& key, const QStringList& rules);

    QSettings& m_store;
    QString m_proxyPassword;  // never logged, never written anywhere but the keychain
    bool m_proxyPasswordAsked = false;
    QString m_keychainService;
    int m_keychainTimeoutMs = 10000;
};

}  // namespace zeus
