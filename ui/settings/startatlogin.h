#pragma once

#include <QString>

namespace zeus {

// Start at login as the settings dialog sees it: the app layer provides the platform's
// implementation (an XDG autostart entry, the Windows Run key), tests a temporary one. It
// owns the switch and nothing else.
class StartAtLogin {
public:
    virtual ~StartAtLogin() = default;

    // Whether this platform's start-at-login can be switched from the app.
    virtual bool isSupported() const = 0;
    // Why not, for the user, when it is not supported.
    virtual QString unsupportedReason() const = 0;
    virtual bool isEnabled() const = 0;
    // On failure returns false and sets *error for the user.
    virtual bool setEnabled(bool enabled, QString* error) = 0;
};

}  // namespace zeus
