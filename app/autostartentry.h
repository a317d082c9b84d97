#pragma once

#include <QCoreApplication>
#include <QString>

namespace zeus {

// Start at login. On Linux (and other XDG desktops) an autostart entry
// ~/.config/autostart/zeus-desktop.desktop; on Windows the per-user Run key. macOS login
// items are managed by the system (docs/ui.md): there isEnabled() is false and setEnabled()
// explains where to find the switch.
//
// Owns only that one file or registry value. It must never touch another autostart
// entry, and never write anything but the app's own executable into it.
class AutostartEntry {
    Q_DECLARE_TR_FUNCTIONS(zeus::AutostartEntry)
public:
    // Whether this platform's start-at-login can be switched from the app.
    static bool isSupported();
    // ~/.config/autostart/zeus-desktop.desktop (XDG_CONFIG_HOME honoured).
    static QString defaultPath();
    // The executable to start: the AppImage when running from one, else this binary.
    static QString currentExecutable();

    // Pure: the desktop entry that starts `executable` (Exec quoted per the Desktop Entry
    // specification, so paths with spaces, quotes, $ or % work).
    static QString desktopEntry(const QString& executable);
    // Pure: `executable` quoted as one argument of an Exec key.
    static QString quoteExecArgument(const QString& executable);

    static bool isEnabled(const QString& path = defaultPath());
    // Writes or removes the entry; on failure returns false and sets *error for the user.
    static bool setEnabled(bool enabled, const QString& executable, QString* error,
                           const QString& path = defaultPath());
};

}  // namespace zeus
