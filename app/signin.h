#pragma once

#include "backend/credentialstore.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace zeus {

class AppSettings;
class BackendConnection;

// The tray app's sign-in (SPEC §5, §6): which backend (this run's --backend until Settings names another), its token
// read from the keychain and kept in memory only, and when the connection may start: once the keychain answered,
// the user has not disconnected, and the caller's `mayConnect` says the first hello can name the runtime (detection
// and the image's agent check are done). A token written or deleted in Settings takes effect at once.
class SignIn : public QObject {
    Q_OBJECT
public:
    SignIn(AppSettings* settings, CredentialStore& credentials, BackendConnection& connection, QString backendOverride,
           std::function<bool()> mayConnect, QObject* parent = nullptr);

    // Reads the token of the backend (first run without a URL: nothing to read, attentionNeeded()).
    void readToken();
    // Starts the connection when everything it waits for is there; `onlyIfIdle`: not when it runs already.
    void connectIfReady(bool onlyIfIdle = false);
    void setUserDisconnected(bool disconnected);
    // The user's Connect and Disconnect (tray menu, connection panel).
    void connectByUser() { setUserDisconnected(false); }
    void disconnectByUser() { setUserDisconnected(true); }

    // --backend for this run, else the setting.
    QString backendUrl() const;
    bool backendFromCommandLine() const { return !m_backendOverride.isEmpty(); }
    QString token() const { return m_token; }
    // The keychain answered (or there is no URL to ask about): the sign-in banner may show.
    bool tokenChecked() const { return m_tokenChecked; }
    // The keychain's answer to the last read, for the report; its token is cleared.
    const std::optional<CredentialStore::Result>& lastTokenRead() const { return m_lastTokenRead; }

Q_SIGNALS:
    // What the tray and the banner are derived from changed.
    void changed();
    // First run or signed out: the sign-in prompt is the first thing to see.
    void attentionNeeded();
    // A connection was asked for without a backend URL.
    void settingsNeeded();
    // The keychain answered (the token is empty when it holds none): what the diagnostics page redacts.
    void tokenRead(const QString& token);
    void errorOccurred(const QString& error);
    // The backend of this run changed in Settings (the command line's URL no longer applies).
    void backendChanged();

private:
    void onTokenRead(const QString& url, const CredentialStore::Result& result);
    void connectBackend();

    AppSettings* m_settings;
    CredentialStore& m_credentials;
    BackendConnection& m_connection;
    QString m_backendOverride;  // --backend, validated in runGuiMode(); never written to the settings
    std::function<bool()> m_mayConnect;
    QString m_token;  // in memory only, for the connection (and so diagnostics can redact it)
    bool m_tokenChecked = false;
    bool m_userDisconnected = false;
    std::optional<CredentialStore::Result> m_lastTokenRead;
};

}  // namespace zeus
