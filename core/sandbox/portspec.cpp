#include "sandbox/portspec.h"

#include <QStringList>

namespace zeus {

std::optional<quint16> PortSpec::parsePort(const QString& text, bool allowZero) {
    if (text.isEmpty() || text.size() > 5) {
        return std::nullopt;
    }
    for (const QChar c : text) {
        if (c < QLatin1Char('0') || c > QLatin1Char('9')) {
            return std::nullopt;
        }
    }
    const uint value = text.toUInt();
    if (value > 65535 || (value == 0 && !allowZero)) {
        return std::nullopt;
    }
    return quint16(value);
}

std::optional<PortSpec> PortSpec::parse(const QString& text, QString* error) {
    const QStringList parts = text.split(QLatin1Char(':'));
    std::optional<quint16> host = quint16(0);
    std::optional<quint16> container;
    if (parts.size() == 1) {
        container = parsePort(parts.at(0), false);
    } else if (parts.size() == 2) {
        host = parsePort(parts.at(0), true);
        container = parsePort(parts.at(1), false);
    }
    if (!host || !container) {
        if (error != nullptr) {
            *error = QStringLiteral(
                         "'%1' is not [HOST_PORT:]CONTAINER_PORT (ports 1-65535; the host port may be 0 "
                         "for any free one; the host side is always 127.0.0.1)")
                         .arg(text.left(64));
        }
        return std::nullopt;
    }
    PortSpec spec;
    spec.hostPort = *host;
    spec.containerPort = *container;
    return spec;
}

QString PortSpec::text() const {
    return hostPort == 0 ? QString::number(containerPort) : QStringLiteral("%1:%2").arg(hostPort).arg(containerPort);
}

}  // namespace zeus
