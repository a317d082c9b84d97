#include "sandbox/sandboxconfig.h"

#include <QtGlobal>

#if defined(Q_OS_LINUX)
#include <unistd.h>
#endif

namespace zeus {

QString execModeName(ExecMode mode) {
    switch (mode) {
        case ExecMode::Agent:
            return QStringLiteral("agent");
        case ExecMode::Exec:
            return QStringLiteral("exec");
    }
    return {};
}

std::optional<ExecMode> execModeFromName(const QString& name) {
    for (const ExecMode mode : {ExecMode::Agent, ExecMode::Exec}) {
        if (name == execModeName(mode)) {
            return mode;
        }
    }
    return std::nullopt;
}

ContainerSpec SandboxConfig::containerSpec(const QString& name, const QString& workspace,
                                           const QString& sessionId) const {
    ContainerSpec spec;
    spec.name = name;
    spec.image = image;
    spec.workspace = workspace;
    spec.sessionId = sessionId;
    spec.ownerId = ownerId;
    spec.profile = profile;
    spec.pidsLimit = pidsLimit;
    spec.memory = memory;
    spec.cpus = cpus;
    spec.network = network;
    spec.podmanRootless = podmanRootless;
    if (execMode == ExecMode::Agent) {
        spec.agentSource = agentHostPath;
    }
#if defined(Q_OS_LINUX)
    // So files the command writes in the workspace stay the user's.
    spec.uid = int(::getuid());
    spec.gid = int(::getgid());
#endif
    return spec;
}

}  // namespace zeus
