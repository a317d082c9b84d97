#pragma once

#include "engine/hardeningprofile.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace zeus {

// The resource limits a container gets unless the user chose others. Defined here only:
// ContainerSpec, SandboxConfig and the settings take their defaults from it.
namespace sandboxdefaults {
inline constexpr int kPidsLimit = 512;
inline constexpr int kMemoryMiB = 2048;
inline constexpr double kCpus = 2.0;
// The engine CLIs' spelling of a limit: 2048 -> "2048m", 2.0 -> "2", 1.5 -> "1.5".
inline QString memoryArgument(int mebibytes) {
    return QString::number(mebibytes) + QStringLiteral("m");
}
inline QString cpusArgument(double cpus) {
    return QString::number(cpus, 'g', 4);
}
}  // namespace sandboxdefaults

// A path inside the workspace mounted over itself (SPEC §3 "Direct mode protects git's executable config").
struct WorkspaceOverlay {
    QString path;           // relative to the workspace, "/"-separated, no ".." (".git/config")
    bool readOnly = false;  // read-write: only pinned in place (a mount point cannot be renamed or removed)
    bool directory = true;  // a file otherwise (Apple's CLI mounts directories only)
};

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
    int pidsLimit = sandboxdefaults::kPidsLimit;
    QString memory = sandboxdefaults::memoryArgument(sandboxdefaults::kMemoryMiB);
    QString cpus = sandboxdefaults::cpusArgument(sandboxdefaults::kCpus);
    QString network;  // empty: standard = engine default, hardened = none
    int uid = -1;     // host uid/gid for --user; -1: do not set (not Linux)
    int gid = -1;
    bool podmanRootless = false;
    // The host's sandbox agent, mounted read-only at containerAgentPath(); empty: none (the image's copy is used).
    QString agentSource;
    // The session's lane folder (docs/agent-protocol.md "The lane"): a private folder of the app's holding the Unix
    // socket the agent may move its frames to, mounted read-only at containerLanePath(); empty: none.
    QString laneSource;
    // NAME=value entries for the container's environment (the egress proxy's variables). Never a secret: the
    // engine shows them in `inspect`.
    QStringList environment;
    // Mounted over themselves after the workspace, in this order (a parent before what is inside it).
    QList<WorkspaceOverlay> overlays;
    // A writable tmpfs at containerRuntimeDir() for the files the app writes for the commands after `run` (the
    // host's trusted certificates, SPEC §8 "Certificates"): no host path is mounted for them.
    bool runtimeDir = false;
    // Review mode (SPEC §10): no bind mount of the folder at all; /workspace is a volume of the container's own,
    // filled with a copy of the folder through the exec channel. `workspace` then only names the folder (a label).
    bool reviewCopy = false;

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
// Where the app mounts its own sandbox agent, and where the sandbox image carries one (SPEC §7).
inline QString containerAgentPath() {
    return QStringLiteral("/run/zeus/agent");
}
// Where the session's lane folder is mounted (read-only), and the socket in it.
inline QString containerLanePath() {
    return QStringLiteral("/run/zeus/lane");
}
inline QString laneSocketName() {
    return QStringLiteral("socket");
}
inline QString imageAgentPath() {
    return QStringLiteral("/usr/local/libexec/zeus/zeus-sandbox-agent");
}
// The app's own folder in the container (ContainerSpec::runtimeDir), and the certificate bundle it writes there.
inline QString containerRuntimeDir() {
    return QStringLiteral("/run/zeus");
}
inline QString containerCaBundlePath() {
    return QStringLiteral("/run/zeus/ca-certificates.crt");
}

}  // namespace zeus
