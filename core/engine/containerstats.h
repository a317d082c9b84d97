#pragma once

#include <QMetaType>
#include <QString>

namespace zeus {

// One container's resource figures from one `stats --no-stream` sample, as parsed by the
// ContainerEventParser. A plain value; -1 means the engine did not say (podman prints "--"
// for a container that is starting or stopping).
struct ContainerStats {
    QString containerId;     // as printed: docker's short ID (12 hex) or podman's id
    double cpuPercent = -1;  // percent of one CPU, as the engines print it (may exceed 100)
    qint64 memoryBytes = -1;
    qint64 memoryLimitBytes = -1;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ContainerStats)
