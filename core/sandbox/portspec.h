#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace zeus {

// One published port (SPEC §8 "Ports"): `--publish [HOST_PORT:]CONTAINER_PORT`. The host side is always
// 127.0.0.1 (there is no address in the spelling, so none can be given); HOST_PORT 0 or left out lets the system
// pick a free one. A pure value with its parser, so the flag, the backend's open_port and the tests read ports alike.
struct PortSpec {
    quint16 hostPort = 0;  // 0: any free port on 127.0.0.1
    quint16 containerPort = 0;

    // "8000" or "18000:8000" (decimal, 1-65535; the host port may be 0). nullopt and *error on anything else.
    static std::optional<PortSpec> parse(const QString& text, QString* error = nullptr);
    // One port number: decimal digits only (toUInt() alone would take "+80", " 80" or "0x50"), 1-65535, or 0 too
    // when `allowZero`. --expose-host reads its ports with it as well.
    static std::optional<quint16> parsePort(const QString& text, bool allowZero = false);
    QString text() const;
    bool operator==(const PortSpec& other) const {
        return hostPort == other.hostPort && containerPort == other.containerPort;
    }
};

}  // namespace zeus
