#include "signin.h"

#include "appsettings.h"
#include "backend/backendconnection.h"

#include <QUrl>

#include <utility>

namespace zeus {

SignIn::SignIn(AppSettings* settings, CredentialStore& credentials, BackendConnection& connection,
               QString backendOverride, std::function<bool()> mayConnect, QObject* parent)
    : QObject(parent),
      m_settings(settings),
      m_credentials(credentials),
      m_connection(connection),
      m_backendOverride(std::move(backendOverride)),
      m_mayConnect(std::move(mayConnect)) {
    connect(m_settings, &AppSettings::backendUrlChanged, this, [this] {
        // A URL chosen in Settings now wins over the command line's.
        m_backendOverride.clear();
        Q_EMIT backendChanged();
        m_token.clear();
        m_lastTokenRead.reset();  // it was about the old URL's account
        m_connection.stop();
        readToken();
    });
    connect(&m_credentials, &CredentialStore::readFinished, this, &SignIn::onTokenRead);
    connect(&m_credentials, &CredentialStore::writeFinished, this,
            [this](const QString&, const CredentialStore::Result& result) {
                if (result.status == CredentialStore::Status::Ok) {
                    m_userDisconnected = false;
                    readToken();
                }
            });
    connect(&m_credentials, &CredentialStore::deleteFinished, this,
            [this](const QString& url, const CredentialStore::Result& result) {
                if (result.status == CredentialStore::Status::Ok && url == backendUrl()) {
                    // Signed out: the keychain now holds no token for this account, as a read would say.
                    m_lastTokenRead =
                        CredentialStore::Result{CredentialStore::Status::SignedOut, QString(), QString(), false};
                }
                m_token.clear();
                m_connection.setToken(QString());
                Q_EMIT changed();
            });
}

QString SignIn::backendUrl() const {
    return m_backendOverride.isEmpty() ? m_settings->backendUrl() : m_backendOverride;
}

void SignIn::readToken() {
    const QString url = backendUrl();
    if (url.isEmpty()) {
        // First run: nothing can connect before the user signs in, so say so up front.
        m_tokenChecked = true;
        Q_EMIT changed();
        Q_EMIT attentionNeeded();
        return;
    }
    m_credentials.readToken(url);
}

void SignIn::onTokenRead(const QString& url, const CredentialStore::Result& result) {
    if (url != backendUrl()) {
        return;
    }
    m_tokenChecked = true;
    m_token = result.status == CredentialStore::Status::Ok ? result.token : QString();
    Q_EMIT tokenRead(m_token);
    m_lastTokenRead = result;
    m_lastTokenRead->token.clear();
    if (result.status != CredentialStore::Status::Ok && result.status != CredentialStore::Status::SignedOut) {
        Q_EMIT errorOccurred(result.message);
    }
    // The first hello must say which runtime serves the calls: connect once detection (and the image's agent
    // check, when there is one) is done.
    connectIfReady();
    Q_EMIT changed();
    if (m_token.isEmpty()) {
        Q_EMIT attentionNeeded();
    }
}

void SignIn::connectIfReady(bool onlyIfIdle) {
    if (!m_tokenChecked || m_userDisconnected || backendUrl().isEmpty() || !m_mayConnect()) {
        return;
    }
    if (onlyIfIdle && m_connection.state() != BackendConnection::State::Disconnected) {
        return;
    }
    connectBackend();
}

void SignIn::connectBackend() {
    const QString url = backendUrl();
    if (url.isEmpty()) {
        Q_EMIT settingsNeeded();
        return;
    }
    m_connection.setUrl(QUrl(url));
    // No token: SignedOut, whatever the URL (SPEC §5 "No anonymous backends").
    m_connection.setToken(m_token);
    m_connection.start();
}

void SignIn::setUserDisconnected(bool disconnected) {
    m_userDisconnected = disconnected;
    if (disconnected) {
        m_connection.stop();
    } else {
        connectBackend();
    }
}

}  // namespace zeus
