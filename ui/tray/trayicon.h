#pragma once

#include "tray/traystatus.h"

#include <QObject>
#include <QPointer>

class QAction;
class QMenu;
class QSystemTrayIcon;

namespace zeus {

class AppSettings;

// The tray icon and its menu: Open Dashboard, Choose Working Directory…, Recent Folders,
// Connect / Disconnect, Diagnostics, Settings…, Quit. Icon and tooltip come from one
// TrayStatus; notifications go through the tray when the platform has one.
//
// Owns the QSystemTrayIcon and the menu. It never acts by itself: every menu entry emits a
// request for the composition root.
class TrayIcon : public QObject {
    Q_OBJECT
public:
    explicit TrayIcon(AppSettings* settings, QObject* parent = nullptr);
    ~TrayIcon() override;

    static bool isAvailable();
    // The icon of a state, with PNG fallbacks where SVG icons are not supported.
    static QIcon iconFor(TrayStatus::State state);

    void show();
    void setStatus(const TrayStatus& status);
    const TrayStatus& status() const { return m_status; }
    // Connect or Disconnect in the menu.
    void setConnectionActive(bool active);
    // Active unless disconnected, signed out, refused or failed: what the Connect/Disconnect entry offers.
    void setConnectionState(BackendConnection::State state);
    void notify(const QString& title, const QString& message, bool warning = false);
    // The command line's --workspace: checked in Recent Folders like a folder the user approved.
    void setRunApprovedFolder(const QString& folder);

    QMenu* menu() const { return m_menu; }
    QSystemTrayIcon* trayIcon() const { return m_tray; }

Q_SIGNALS:
    void openDashboardRequested();
    void chooseFolderRequested();
    void recentFolderChosen(const QString& folder);
    void connectRequested();
    void disconnectRequested();
    void diagnosticsRequested();
    void settingsRequested();
    void quitRequested();

private:
    void rebuildRecent();

    AppSettings* m_settings;
    QMenu* m_menu = nullptr;
    QMenu* m_recent = nullptr;
    QAction* m_statusAction = nullptr;
    QAction* m_connect = nullptr;
    QSystemTrayIcon* m_tray = nullptr;
    TrayStatus m_status;
    QString m_runApprovedFolder;
    bool m_connectionActive = false;
};

}  // namespace zeus
