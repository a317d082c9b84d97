#include "sandboxsetup.h"

#include "appsettings.h"
#include "engine/appleruntime.h"
#include "engine/hardeningprofile.h"
#include "runtime/runtimekind.h"
#include "support/vocabulary.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QVersionNumber>

namespace zeus {

SandboxSetup SandboxSetup::from(const DetectionResult& detection, AppSettings& settings,
                                const SandboxOverrides& overrides) {
    SandboxSetup setup;
    setup.config = configFrom(settings, overrides);
    setup.runtime = runtimeFor(detection, setup.config);
    if (const RuntimeProbe* probe = detection.chosenProbe()) {
        setup.config.engineRemote = probe->location.isRemote();
        setup.config.engineHost = probe->location.host;
    }
#if defined(Q_OS_LINUX)
    // A Linux engine runs containers on this kernel: the host's static agent runs in them as it is. Engines in a
    // VM (Apple; Docker Desktop elsewhere) use the image's copy, and so does a remote engine, which could only
    // mount a file of its own machine.
    if (setup.runtime && setup.runtime->kind() != RuntimeKind::Apple && !setup.config.engineRemote) {
        setup.config.agentHostPath = findAgent(agentCandidates());
    }
#endif
    setup.report = runtimeReport(detection);
    return setup;
}

SandboxConfig SandboxSetup::configFrom(AppSettings& settings, const SandboxOverrides& overrides) {
    const SandboxSettings& sandbox = settings.sandbox();
    SandboxConfig config;
    config.image = overrides.image.isEmpty() ? sandbox.image() : overrides.image;
    config.profile =
        overrides.profile.value_or(parseHardeningProfile(sandbox.hardeningProfile()).value_or(config.profile));
    config.ownerId = settings.installId();
    config.pidsLimit = sandbox.pidsLimit();
    config.memory = QString::number(sandbox.memoryMiB()) + QStringLiteral("m");
    config.cpus = QString::number(sandbox.cpus(), 'g', 4);
    config.idleTimeoutMs = sandbox.idleTimeoutMinutes() * 60 * 1000;
    config.maxContainers = sandbox.maxContainers();
    config.maxCallsPerSession = sandbox.maxCallsPerSession();
    config.maxQueuedPerSession = sandbox.maxQueuedPerSession();
    config.maxQueuedTotal = sandbox.maxQueuedTotal();
    config.engineWaitMs = sandbox.engineWaitSeconds() * 1000;
    config.maxCallsTotal = sandbox.maxCallsTotal();
    config.execMode = overrides.execMode.value_or(execModeFromName(sandbox.execMode()).value_or(ExecMode::Agent));
    if (overrides.outputCapBytes > 0) {
        config.outputCapBytes = overrides.outputCapBytes;
    }
    if (const auto mode = overrides.network ? overrides.network : networkModeFromName(settings.network().mode())) {
        config.networkMode = *mode;
    }
    config.hostCertificates = !overrides.noHostCertificates && settings.network().hostCertificates();
    config.egress = egressPolicyFrom(settings, overrides, config.effectiveNetworkMode());
    config.folderAllow = settings.network().allFolderAllowedHosts();
    config.folderWorkspaceModes = settings.folderPolicies().workspaceModes();
    if (overrides.folderAccessFromSettings) {
        config.folderGitWrites = settings.folderPolicies().gitWriteFolders();
        const QHash<QString, QStringList> exposed = settings.folderPolicies().exposedHostPorts();
        for (auto it = exposed.cbegin(); it != exposed.cend(); ++it) {
            for (const QString& text : it.value()) {
                if (const std::optional<ExposeSpec> spec = ExposeSpec::parse(text)) {  // a damaged entry is none
                    config.folderExposeHost[it.key()].append(*spec);
                }
            }
        }
    }
    config.gitWritesForced = overrides.allowGitWrites;
    for (const QString& text : overrides.publish) {
        if (const std::optional<PortSpec> spec = PortSpec::parse(text)) {  // the command line checked each
            config.publish.append(*spec);
        }
    }
    for (const QString& text : overrides.exposeHost) {
        if (const std::optional<ExposeSpec> spec = ExposeSpec::parse(text)) {  // the command line checked each
            config.exposeHost.append(*spec);
        }
    }
    // Settings → Secrets "Use only with…" in every mode (a secret the user bound never goes into an environment,
    // whichever front-end runs the command), then this run's --bind-secret, which replaces a name's hosts.
    const QHash<QString, QStringList> bound = settings.secrets().bindings();
    for (auto it = bound.cbegin(); it != bound.cend(); ++it) {
        // A binding that no longer parses stays a binding with no host: its placeholder goes nowhere.
        SecretBinding binding = SecretBinding::fromRules(it.key(), it.value()).value_or(SecretBinding{it.key(), {}});
        config.secretBindings.insert(it.key(), binding);
    }
    for (const QString& text : overrides.bindSecrets) {
        if (const std::optional<SecretBinding> binding = SecretBinding::parse(text)) {  // the command line checked each
            config.secretBindings.insert(binding->name, *binding);
        }
    }
    config.interceptCa = overrides.interceptCa;
    if (overrides.workspaceMode) {
        config.workspaceMode = *overrides.workspaceMode;
        config.workspaceModeForced = true;
    }
    return config;
}

EgressPolicy SandboxSetup::egressPolicyFrom(AppSettings& settings, const SandboxOverrides& overrides, NetworkMode mode,
                                            QStringList* errors) {
    const NetworkSettings& network = settings.network();
    const QString preset = overrides.networkPreset ? wordOf(*overrides.networkPreset) : network.preset();
    EgressPolicy policy = EgressPolicy::fromStrings(mode, preset, network.allowedHosts() + overrides.allowHosts,
                                                    network.deniedHosts() + overrides.denyHosts,
                                                    network.resolveOverrides() + overrides.resolve, errors);
    policy.upstream.flag = overrides.upstreamProxy;
    policy.upstream.setting = network.upstreamProxy();
    policy.upstream.user = network.upstreamProxyUser();
    policy.upstream.password = settings.network().upstreamProxyPassword();  // the keychain's: empty until it answers
    // The app's environment as it started: the proxy the user's shell named for this machine.
    policy.upstream.environment = UpstreamProxy::processEnvironment();
    return policy;
}

std::unique_ptr<ContainerRuntime> SandboxSetup::runtimeFor(const DetectionResult& detection, SandboxConfig& config) {
    const RuntimeProbe* probe = detection.chosenProbe();
    if (!detection.chosen || !probe) {
        return nullptr;
    }
    config.podmanRootless = *detection.chosen == RuntimeKind::Podman && probe->rootless.value_or(false);
    return adapterFor(*detection.chosen, probe->binaryPath, QVersionNumber::fromString(probe->clientVersion));
}

std::unique_ptr<ContainerRuntime> SandboxSetup::adapterFor(RuntimeKind kind, const QString& program,
                                                           const QVersionNumber& version) {
    std::unique_ptr<ContainerRuntime> runtime = ContainerRuntime::create(kind, program);
    if (auto* apple = dynamic_cast<AppleRuntime*>(runtime.get())) {
        // The flags depend on the CLI's version (`container --version`, "0.10.0-27-g9fd15f0" -> 0.10.0): an
        // older CLI rejects flags it does not know, and a profile it cannot honour is refused.
        apple->setVersion(version);
    }
    return runtime;
}

RuntimeFactory SandboxSetup::adapterFactory(const DetectionResult& detection) {
    return [detection](RuntimeKind kind, const QString& program) {
        const RuntimeProbe* probe = detection.probe(kind);
        // The version of the CLI that was probed; another program of that engine is not known.
        const bool probed = probe && (program.isEmpty() || program == probe->binaryPath);
        return adapterFor(kind, program, probed ? QVersionNumber::fromString(probe->clientVersion) : QVersionNumber());
    };
}

QString SandboxSetup::findAgent(const QStringList& candidates) {
    for (const QString& candidate : candidates) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable()) {
            return info.canonicalFilePath();  // the mount source names the file itself, never a link
        }
    }
    return {};
}

QStringList SandboxSetup::agentCandidates() {
    const QString name = QStringLiteral("zeus-sandbox-agent");
    QStringList candidates;
    const QString fromEnvironment = qEnvironmentVariable("ZEUS_SANDBOX_AGENT");
    if (!fromEnvironment.isEmpty()) {
        candidates << fromEnvironment;
    }
    if (QCoreApplication::instance() != nullptr) {
        const QDir program(QCoreApplication::applicationDirPath());
        candidates << program.filePath(QStringLiteral("../libexec/zeus-desktop/") + name)
                   << program.filePath(QStringLiteral("agent/") + name)
                   << program.filePath(QStringLiteral("../agent/") + name)
                   << program.filePath(QStringLiteral("../../agent/") + name);
    }
    return candidates;
}

RuntimeReport SandboxSetup::runtimeReport(const DetectionResult& detection) {
    RuntimeReport report;
    const RuntimeProbe* probe = detection.chosenProbe();
    if (detection.chosen && probe) {
        report.kind = runtimeKindToString(*detection.chosen);
        report.version = probe->serverVersion.isEmpty() ? probe->clientVersion : probe->serverVersion;
        report.ready = true;
        return report;
    }
    report.ready = false;
    report.reason = detection.unusableReason();
    return report;
}

QString SandboxSetup::cliProgram(const DetectionResult& detection) {
    if (!detection.chosen) {
        return {};
    }
    const RuntimeProbe* probe = detection.chosenProbe();
    return probe && !probe->binaryPath.isEmpty() ? probe->binaryPath : runtimeProgram(*detection.chosen);
}

}  // namespace zeus
