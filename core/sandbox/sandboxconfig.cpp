#include "sandbox/sandboxconfig.h"

#include "secrets/interceptca.h"
#include "support/vocabulary.h"

#include <QFileInfo>
#include <QtGlobal>

#include <algorithm>

#if defined(Q_OS_LINUX)
#include <unistd.h>
#endif

namespace zeus {

QString execModeName(ExecMode mode) {
    return wordOf(mode);
}

std::optional<ExecMode> execModeFromName(const QString& name) {
    return fromWord<ExecMode>(name);
}

QString workspaceModeName(WorkspaceMode mode) {
    return wordOf(mode);
}

std::optional<WorkspaceMode> workspaceModeFromName(const QString& name) {
    return fromWord<WorkspaceMode>(name);
}

QString SandboxConfig::workspaceModeRefusal(const QString& folder) const {
    if (workspaceModeFor(folder) == WorkspaceMode::Review) {
        return {};
    }
    if (engineRemote) {
        const QString where = engineHost.isEmpty() ? QStringLiteral("another machine") : engineHost;
        return QStringLiteral(
                   "Direct mode is refused on a remote container engine (%1): a bind mount would mount the folder "
                   "%2 of the engine's machine, not this computer's. Use review mode for this folder, or a local "
                   "engine.")
            .arg(where, folder);
    }
    return {};
}

QList<ExposeSpec> SandboxConfig::exposeHostFor(const QString& folder) const {
    QList<ExposeSpec> specs;
    const QList<ExposeSpec> ofFolder = folderExposeHost.value(folder);
    for (const QList<ExposeSpec>* source : {&exposeHost, &ofFolder}) {
        for (const ExposeSpec& spec : *source) {
            const bool taken = std::any_of(specs.cbegin(), specs.cend(), [&spec](const ExposeSpec& s) {
                return s.containerPort == spec.containerPort;
            });
            if (!taken && specs.size() < ExposeSpec::kMaxExposed) {
                specs.append(spec);
            }
        }
    }
    return specs;
}

QString SandboxConfig::folderAccessChange(const SandboxConfig& before, const QString& folder, bool reviewCopy) const {
    if (exposeHostFor(folder) != before.exposeHostFor(folder)) {
        return QStringLiteral("The host services reachable from the sandbox of %1 changed.").arg(folder);
    }
    const bool now = gitWritesFor(folder);
    if (reviewCopy || before.gitWritesFor(folder) == now) {
        return {};  // a review copy's .git is the copy's own
    }
    return (now ? QStringLiteral("The sandbox of %1 may now write the repository's metadata.")
                : QStringLiteral("The repository's metadata of %1 is read-only again."))
        .arg(folder);
}

bool SandboxConfig::interceptsSecrets() const {
    return !secretBindings.isEmpty() && interceptCa != nullptr && interceptCa->isLoaded()
           && effectiveNetworkMode() == NetworkMode::Allowlist;
}

QStringList SandboxConfig::proxyEnvironment() const {
    const QString http = QStringLiteral("http://127.0.0.1:3128");
    const QString socks = QStringLiteral("socks5h://127.0.0.1:1080");
    const QString local = QStringLiteral("localhost,127.0.0.1");
    return {
        QStringLiteral("HTTP_PROXY=") + http,
        QStringLiteral("HTTPS_PROXY=") + http,
        QStringLiteral("http_proxy=") + http,
        QStringLiteral("https_proxy=") + http,
        QStringLiteral("ALL_PROXY=") + socks,
        QStringLiteral("all_proxy=") + socks,
        QStringLiteral("NO_PROXY=") + local,
        QStringLiteral("no_proxy=") + local,
        QStringLiteral("NODE_USE_ENV_PROXY=1"),
        // ssh (git over ssh) has no proxy variable: its ProxyCommand is the agent's own CONNECT client.
        QStringLiteral("GIT_SSH_COMMAND=ssh -o 'ProxyCommand=%1 connect %h %p'").arg(agentContainerPath()),
    };
}

QList<WorkspaceOverlay> gitProtectionOverlays(const QString& workspace, bool allowWrites) {
    const QFileInfo git(workspace + QStringLiteral("/.git"));
    if (git.isSymLink() || !git.isDir()) {
        return {};  // no repository here, or a worktree/submodule's .git file naming a folder outside (security.md)
    }
    return {{QStringLiteral(".git"), !allowWrites, true}};
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
    const NetworkMode mode = effectiveNetworkMode();
    // allowlist: no route at all; the agent's listeners are the only way out (SPEC §8).
    spec.network = mode == NetworkMode::Open ? network : QStringLiteral("none");
    if (mode == NetworkMode::Allowlist) {
        spec.environment = proxyEnvironment();
    }
    spec.runtimeDir = wantsHostCertificates();
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
