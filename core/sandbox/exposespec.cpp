#include "sandbox/exposespec.h"

#include "sandbox/egress/egressproxy.h"
#include "sandbox/portspec.h"

#include <QStringList>

namespace zeus {

std::optional<ExposeSpec> ExposeSpec::parse(const QString& text, QString* error) {
    const QStringList parts = text.split(QLatin1Char(':'));
    std::optional<quint16> host;
    std::optional<quint16> container;
    if (parts.size() == 1 || parts.size() == 2) {
        host = PortSpec::parsePort(parts.at(0));
        container = parts.size() == 2 ? PortSpec::parsePort(parts.at(1)) : host;
    }
    if (!host || !container) {
        if (error != nullptr) {
            *error = QStringLiteral(
                         "'%1' is not HOST_PORT[:CONTAINER_PORT] (ports 1-65535; both sides are always 127.0.0.1)")
                         .arg(text.left(64));
        }
        return std::nullopt;
    }
    if (*container == EgressProxy::kHttpPort || *container == EgressProxy::kSocksPort) {
        if (error != nullptr) {
            *error = QStringLiteral(
                         "container port %1 is the sandbox agent's own proxy; pick another "
                         "(HOST_PORT:CONTAINER_PORT)")
                         .arg(*container);
        }
        return std::nullopt;
    }
    ExposeSpec spec;
    spec.hostPort = *host;
    spec.containerPort = *container;
    return spec;
}

QString ExposeSpec::text() const {
    return hostPort == containerPort ? QString::number(hostPort)
                                     : QStringLiteral("%1:%2").arg(hostPort).arg(containerPort);
}

}  // namespace zeus
