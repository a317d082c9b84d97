#pragma once

#include "engine/containerspec.h"
#include "engine/hardeningprofile.h"
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/egress/secretbinding.h"
#include "sandbox/exposespec.h"
#include "sandbox/portspec.h"

#include <zeus/buildinfo.h>

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>

#include <memory>
#include <optional>

namespace zeus {

class InterceptCa;

// The enums' own namespace holds their word tables (support/vocabulary.h); zeus uses them by their names.
namespace sandboxwords {
Q_NAMESPACE

// How commands reach the container (SPEC §7); words: agent, exec (settings, --exec-mode):
//   Agent - through the session's sandbox agent, falling back to Exec (said in the log) when it cannot start;
//   Exec  - a plain `exec` per command, always.
enum class ExecMode { Agent, Exec };
Q_ENUM_NS(ExecMode)

// How an approved folder reaches the container (SPEC §10); words: direct, review (settings, --workspace-mode):
//   Direct - the folder is bind-mounted at /workspace: every write lands on this computer at once. Only an engine
//            on this machine can do that: a remote engine would mount a folder of its own machine.
//   Review - the folder is copied into the container (no mount at all) and the user reviews the changes before
//            they are applied (docs/review-mode.md).
enum class WorkspaceMode { Direct, Review };
Q_ENUM_NS(WorkspaceMode)

}  // namespace sandboxwords

using sandboxwords::ExecMode;
using sandboxwords::WorkspaceMode;

// The words, exactly as written (no case folding).
QString execModeName(ExecMode mode);
std::optional<ExecMode> execModeFromName(const QString& name);
QString workspaceModeName(WorkspaceMode mode);
std::optional<WorkspaceMode> workspaceModeFromName(const QString& name);

// What direct mode mounts over itself in `workspace` to keep the repository's metadata out of the sandbox's reach
// (SPEC §3): when the workspace holds a real `.git` directory, the whole `.git`, read-only. Read-only overlays of
// `.git/config` and `.git/hooks` alone are not enough: git follows `.git/commondir` (and `config.worktree`,
// `modules/*/config`, `worktrees/*`) to files the command chose, and runs what their config names. With
// `allowWrites` (the folder's "let the sandbox write the repository's metadata", or --allow-git-writes) `.git` is
// mounted read-write, only pinned in place. A `.git` file (worktree, submodule) or symbolic link names a folder
// outside the workspace: nothing is mounted for it. Writes nothing on the host.
QList<WorkspaceOverlay> gitProtectionOverlays(const QString& workspace, bool allowWrites = false);

// Every setting of the sandbox in one plain value, filled by the composition root from
// the user's settings and the command line. No QSettings here: the core stays testable
// and the tests choose small limits and short timeouts.
struct SandboxConfig {
    QString image = QStringLiteral(ZEUS_DEFAULT_IMAGE);
    HardeningProfile profile = HardeningProfile::Standard;
    QString ownerId;  // this install's id, the zeus.desktop.owner label

    // Resource limits of every container.
    int pidsLimit = sandboxdefaults::kPidsLimit;
    QString memory = sandboxdefaults::memoryArgument(sandboxdefaults::kMemoryMiB);
    QString cpus = sandboxdefaults::cpusArgument(sandboxdefaults::kCpus);
    // The engine network of an `open` session. Empty: the engine's default; set it to force one, e.g. "none"
    // where the engine has no bridge. `none` and `allowlist` sessions always get `--network none`.
    QString network;
    // The session's network (SPEC §8). Unset: the profile decides (standard: allowlist, hardened: none).
    std::optional<NetworkMode> networkMode;
    NetworkMode effectiveNetworkMode() const {
        if (networkMode) {
            return *networkMode;
        }
        return profile == HardeningProfile::Hardened ? NetworkMode::None : NetworkMode::Allowlist;
    }
    // The rules of `allowlist` (its mode field is ignored: effectiveNetworkMode() decides).
    EgressPolicy egress;
    // "Always for this folder" rules: approved folder -> rules added for sessions in that folder.
    QHash<QString, QStringList> folderAllow;
    // The container environment that sends every tool through the agent's proxy listeners (allowlist only).
    QStringList proxyEnvironment() const;
    // SPEC §8 "Certificates": the host's trusted roots are written into each container with a network, and every
    // command is told where (HostCertificates). Off: --no-host-ca, or the setting.
    bool hostCertificates = true;
    bool wantsHostCertificates() const { return hostCertificates && effectiveNetworkMode() != NetworkMode::None; }
    // SPEC §9 "Host-bound secrets": secrets bound to hosts, by name (--bind-secret, Settings > Secrets "Use only
    // with…"). A command that asks for one gets its session's placeholder, never the value; in an allowlist session
    // the egress proxy puts the value into requests to those hosts, with TLS ended by `interceptCa` (loaded before
    // the first session; its certificate joins the bundle of `hostCertificates`). Without a loaded CA the bound
    // hosts are refused, never tunnelled with a placeholder the server cannot use.
    QHash<QString, SecretBinding> secretBindings;
    std::shared_ptr<InterceptCa> interceptCa;
    bool interceptsSecrets() const;
    // Rootless Podman keeps the host uid through --userns=keep-id instead of --user.
    bool podmanRootless = false;

    ExecMode execMode = ExecMode::Agent;
    // SPEC §8 "Ports": `--publish [HOST_PORT:]CONTAINER_PORT`, published for every session's container.
    QList<PortSpec> publish;
    // SPEC §8 "Ports": `--expose-host HOST_PORT[:CONTAINER_PORT]`, this computer's 127.0.0.1:HOST_PORT reachable at
    // 127.0.0.1:CONTAINER_PORT in every session's container, through the agent (any network mode).
    QList<ExposeSpec> exposeHost;
    // The same per approved folder (the exact approval string), as the user set it in the tray app's settings.
    QHash<QString, QList<ExposeSpec>> folderExposeHost;
    // What a session of `folder` exposes: the run's, then the folder's, each container port once (the run's wins),
    // at most ExposeSpec::kMaxExposed (the agent's listeners).
    QList<ExposeSpec> exposeHostFor(const QString& folder) const;
    // What a live session of `folder` made under `before` cannot keep (its `.git` rule or its exposed host
    // services changed), said for its log; empty when nothing it was made with changed.
    QString folderAccessChange(const SandboxConfig& before, const QString& folder, bool reviewCopy) const;

    // Workspace mode (SPEC §10): per approved folder (the exact approval string), else `workspaceMode`. With
    // `workspaceModeForced` (--workspace-mode) the one mode holds for every folder of this run.
    WorkspaceMode workspaceMode = WorkspaceMode::Direct;
    bool workspaceModeForced = false;
    QHash<QString, WorkspaceMode> folderWorkspaceModes;
    // Folders (exact approval strings) whose sandbox may write the repository's metadata (`.git`), and the
    // command line's --allow-git-writes for every folder of this run. Off by default: the host's git may run code
    // the agent writes there (SPEC §3).
    QSet<QString> folderGitWrites;
    bool gitWritesForced = false;
    bool gitWritesFor(const QString& folder) const { return gitWritesForced || folderGitWrites.contains(folder); }
    // On a remote engine a folder with no mode of its own is in review mode (the only one that works there); one
    // set to direct stays direct, and is refused with the reason.
    WorkspaceMode workspaceModeFor(const QString& folder) const {
        if (workspaceModeForced) {
            return workspaceMode;
        }
        return folderWorkspaceModes.value(folder, engineRemote ? WorkspaceMode::Review : workspaceMode);
    }
    // Review copies (docs/review-mode.md): the size cap of one copy, and where their records live (empty: the
    // default, ReviewStore::defaultDirectory()).
    qint64 reviewSizeCap = qint64(2) * 1024 * 1024 * 1024;
    QString reviewDirectory;
    // Where the engine runs (from the detection): a remote engine cannot bind-mount this computer's folders, and
    // never sees this host's agent binary or kernel. engineHost is the endpoint without credentials, for messages.
    bool engineRemote = false;
    QString engineHost;
    // Why a container for `folder` must not be made under this config, or empty when it may: direct mode on a
    // remote engine. workspace_invalid (docs/remote-engines.md).
    QString workspaceModeRefusal(const QString& folder) const;
    // The app's own agent binary on this host, mounted into each container (Linux, local engines); empty: the
    // image's copy at imageAgentPath() is used, if it has one.
    QString agentHostPath;
    // Where the agent is inside a container of this config.
    QString agentContainerPath() const { return agentHostPath.isEmpty() ? imageAgentPath() : containerAgentPath(); }

    // Per-call limits.
    int defaultTimeoutSeconds = 600;
    int maxTimeoutSeconds = 3600;
    qint64 outputCapBytes = 1024 * 1024;
    int killGraceMs = 2000;  // between TERM and KILL of the command's process group

    // Concurrency (SPEC §3 "Bounded, and queued rather than refused"): calls running at once, per session and in
    // all. A call past them waits in its session's FIFO queue (CallQueue), served round-robin across sessions; only
    // past a queue bound is it refused with `busy`.
    int maxCallsPerSession = 4;
    int maxCallsTotal = 8;
    int maxQueuedPerSession = 64;
    int maxQueuedTotal = 256;
    // Containers alive at once (SPEC §3 "Bounded"): a new session over it evicts the least recently used idle
    // session's container; with none idle its call waits for one this long, then is refused with `busy`.
    int maxContainers = 8;
    int containerWaitMs = 60000;
    // While the engine does not answer (restarted, its service killed) waiting calls wait for it this long, then end
    // with container_failed naming the cause; the calls that ran when it went fail at once.
    int engineWaitMs = 120000;

    // Sessions.
    int idleTimeoutMs = 30 * 60 * 1000;
    // A container idle for longer than this is inspected before the next exec, so one
    // removed from outside is recreated instead of failing the call.
    int staleCheckAfterMs = 3000;
    // Engine calls (run, rm, inspect, list).
    int engineCallTimeoutMs = 60000;

    // The timeout a call gets: the default when none (<= 0) is asked, clamped to the maximum.
    int effectiveTimeoutSeconds(int requestedSeconds) const {
        if (requestedSeconds <= 0) {
            return defaultTimeoutSeconds;
        }
        return requestedSeconds > maxTimeoutSeconds ? maxTimeoutSeconds : requestedSeconds;
    }

    // The container one session gets under this config: the only place a config becomes a ContainerSpec, so
    // what the modes would run can be compared without starting anything.
    ContainerSpec containerSpec(const QString& name, const QString& workspace, const QString& sessionId) const;
};

}  // namespace zeus
