#pragma once

#include "backend/backendconnection.h"

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPushButton;

namespace zeus {

class AppSettings;

// The backend connection at a glance: state in words, URL, last error, when the next
// attempt is due, and Connect / Disconnect (or Sign In when there is no token).
//
// Owns its widgets and a one-second countdown timer. It never opens a connection or reads
// a token itself: the buttons emit requests for the composition root.
class ConnectionPanel : public QWidget {
    Q_OBJECT
public:
    ConnectionPanel(BackendConnection* connection, AppSettings* settings, QWidget* parent = nullptr);

    // Pure: "in 12 s" style countdown text for the next attempt.
    static QString nextAttemptText(const QDateTime& next, const QDateTime& now);

    void refresh();
    // The command line's --backend of this run, shown instead of the setting (empty: the setting).
    void setBackendUrlOverride(const QString& url);

Q_SIGNALS:
    void connectRequested();
    void disconnectRequested();
    void signInRequested();

private:
    QPointer<BackendConnection> m_connection;
    AppSettings* m_settings;
    QString m_backendUrlOverride;
    QPalette m_errorPalette;
    QTimer m_countdown;

    QLabel* m_state = nullptr;
    QLabel* m_url = nullptr;
    QLabel* m_error = nullptr;
    QLabel* m_next = nullptr;
    QPushButton* m_toggle = nullptr;
};

}  // namespace zeus
