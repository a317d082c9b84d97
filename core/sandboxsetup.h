#pragma once

#include "backend/protocolmessages.h"
#include "engine/containerruntime.h"
#include "engine/hardeningprofile.h"
#include "runtime/detectionresult.h"
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/sandboxconfig.h"

#include <QString>
#include <QVersionNumber>

#include <memory>
#include <optional>

namespace zeus {

class AppSettings;

// What the command line of one run changes about the sandbox; empty fields mean "from the settings".
struct SandboxOverrides {
    QString image;                               // --image
    std::optional<HardeningProfile> profile;     // --profile
    std::optional<ExecMode> execMode;            // --exec-mode
    std::optional<WorkspaceMode> workspaceMode;  // --workspace-mode: every folder of this run; unset: per folder
    qint64 outputCapBytes = 0;                   // > 0: the output cap of a call (headless test hook, docs/headless.md)
    // Network (SPEC §8): --network, --network-preset (unset: the settings), and rules added to the settings' own.
    std::optional<NetworkMode> network;
    std::optional<EgressPreset> networkPreset;
    QStringList allowHosts;
    QStringList denyHosts;
    QStringList resolve;
    QString upstreamProxy;  // --upstream-proxy URL|none; empty: the setting, then the environment (SPEC §8)
    // --allow-git-writes: the sandbox may write `.git` in every folder of this run (SPEC §3). Without it, only the
    // folders the user set so in the tray app, and only when folderAccessFromSettings (the tray app; headless
    // and --exec take the command line's word alone, for `.git` and for exposed host services alike).
    bool allowGitWrites = false;
    // --no-host-ca: no container gets this computer's trusted certificates (SPEC §8), whatever the setting says.
    bool noHostCertificates = false;
    // --publish [HOST_PORT:]CONTAINER_PORT (repeatable, SPEC §8 "Ports"): published for every session's container.
    QStringList publish;
    // --expose-host HOST_PORT[:CONTAINER_PORT] (repeatable, SPEC §8 "Ports"): host services for every session.
    QStringList exposeHost;
    // --bind-secret NAME=HOST[,HOST…] (repeatable, SPEC §9 "Host-bound secrets"), and the interception CA the mode
    // loaded for them (InterceptCa::load() before the first session).
    QStringList bindSecrets;
    std::shared_ptr<InterceptCa> interceptCa;
    bool folderAccessFromSettings = true;
};

// The one composition of detection, settings and command-line overrides into the sandbox every mode runs
// (gui, headless, exec, build-image): the runtime driving the CLI the detection found (its full path, and for
// Apple the CLI's version, so the version gates hold), the SandboxConfig (limits, rootless-Podman rule) and what
// hello says about the runtime. A second hand-built path is how modes drift apart, so none may exist.
//
// A value plus pure functions apart from reading settings: it starts no process and keeps no state. It must
// never pick a runtime the detection did not choose.
struct SandboxSetup {
    SandboxConfig config;
    std::unique_ptr<ContainerRuntime> runtime;  // null when no runtime is usable
    RuntimeReport report;                       // hello.runtime

    // Everything at once: the runtime, the config for it, the report.
    static SandboxSetup from(const DetectionResult& detection, AppSettings& settings,
                             const SandboxOverrides& overrides = SandboxOverrides());

    // The user's sandbox settings (image, profile, limits, idle timeout, install id), then the overrides.
    static SandboxConfig configFrom(AppSettings& settings, const SandboxOverrides& overrides = SandboxOverrides());
    // The egress policy of the settings plus the overrides (mode: the config's effective one); every rule
    // that does not parse is named in *errors and left out.
    static EgressPolicy egressPolicyFrom(AppSettings& settings, const SandboxOverrides& overrides, NetworkMode mode,
                                         QStringList* errors = nullptr);
    // The runtime the detection chose, driving the CLI that was found, or null when nothing is usable.
    // Sets config.podmanRootless from the probe (rootless Podman only).
    static std::unique_ptr<ContainerRuntime> runtimeFor(const DetectionResult& detection, SandboxConfig& config);
    // The one place an adapter is made: the engine's adapter driving `program` (empty: the usual CLI name), told
    // the CLI's version when the engine's flags depend on it (Apple; empty: not known).
    static std::unique_ptr<ContainerRuntime> adapterFor(RuntimeKind kind, const QString& program,
                                                        const QVersionNumber& version = QVersionNumber());
    // adapterFor for the layers below the composition (review copies name their engine and CLI): the version is
    // the detection's when it probed that engine's CLI.
    static RuntimeFactory adapterFactory(const DetectionResult& detection);
    // The app's own sandbox agent on this host, to mount into containers of a local Linux engine: the first
    // executable file of `candidates`; empty when none is (the image's copy is used then).
    static QString findAgent(const QStringList& candidates);
    // Where an installed or built app keeps its agent: ZEUS_SANDBOX_AGENT when set, beside the program
    // (a build tree's agent/ folder, up to two levels up) and the installed libexec folder.
    static QStringList agentCandidates();
    // What hello.runtime says about a detection.
    static RuntimeReport runtimeReport(const DetectionResult& detection);
    // The CLI the detection found (full path when known), for engine commands outside a session such as
    // --build-image; empty when nothing is chosen.
    static QString cliProgram(const DetectionResult& detection);
};

}  // namespace zeus
