#pragma once

#include "engine/hardeningprofile.h"

#include <QString>

namespace zeus {

// Everything that decides how one session's container is created. Built by the
// SessionManager from the SandboxConfig and a guarded workspace; turned into an argument
// list by a ContainerRuntime. It never carries anything the backend chose except the
// session id (a label value): mounts, user, working dir and flags come from the app.
struct ContainerSpec {
    QString name;  // container name (engine-safe, generated)
    QString image;
    QString workspace;  // canonical host path, already accepted by the WorkspaceGuard
    QString sessionId;
    QString ownerId;
    HardeningProfile profile = HardeningProfile::Standard;
    int pidsLimit = 512;
    QString memory = QStringLiteral("2g");
    QString cpus = QStringLiteral("2");
    QString network;  // empty: standard = engine default, hardened = none
    int uid = -1;     // host uid/gid for --user; -1: do not set (not Linux)
    int gid = -1;
    bool podmanRootless = false;

    // The network the container gets ("" = engine default).
    QString effectiveNetwork() const {
        if (!network.isEmpty()) {
            return network;
        }
        return profile == HardeningProfile::Hardened ? QStringLiteral("none") : QString();
    }
};

// Labels every container of the app carries (SPEC §3).
namespace labels {
inline QString app() {
    return QStringLiteral("zeus.desktop");
}
inline QString owner() {
    return QStringLiteral("zeus.desktop.owner");
}
inline QString session() {
    return QStringLiteral("zeus.desktop.session");
}
inline QString workspace() {
    return QStringLiteral("zeus.desktop.workspace");
}
}  // namespace labels

// Inside the container.
inline QString containerWorkspace() {
    return QStringLiteral("/workspace");
}
inline QString containerHome() {
    return QStringLiteral("/home/zeus");
}

}  // namespace zeus
