#pragma once

#include "autostartentry.h"
#include "settings/startatlogin.h"

namespace zeus {

// The settings dialog's start-at-login switch backed by AutostartEntry: the XDG autostart
// file (or the Windows Run key) at one path, for this executable. Owns that one entry only.
class AutostartLoginItem : public StartAtLogin {
public:
    explicit AutostartLoginItem(QString path = AutostartEntry::defaultPath());

    bool isSupported() const override;
    QString unsupportedReason() const override;
    bool isEnabled() const override;
    bool setEnabled(bool enabled, QString* error) override;

private:
    QString m_path;
};

}  // namespace zeus
