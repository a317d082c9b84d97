#include "autostartloginitem.h"

#include <utility>

namespace zeus {

AutostartLoginItem::AutostartLoginItem(QString path) : m_path(std::move(path)) {}

bool AutostartLoginItem::isSupported() const {
    return AutostartEntry::isSupported();
}

QString AutostartLoginItem::unsupportedReason() const {
    QString why;
    AutostartEntry::setEnabled(false, QString(), &why, m_path);
    return why;
}

bool AutostartLoginItem::isEnabled() const {
    return AutostartEntry::isEnabled(m_path);
}

bool AutostartLoginItem::setEnabled(bool enabled, QString* error) {
    return AutostartEntry::setEnabled(enabled, AutostartEntry::currentExecutable(), error, m_path);
}

}  // namespace zeus
