#include "sandboxfactory.h"

#include "appsettings.h"
#include "engine/hardeningprofile.h"

namespace zeus {

SandboxConfig SandboxFactory::configFrom(AppSettings& settings, const QString& imageOverride,
                                         const QString& profileOverride) {
    SandboxConfig config;
    config.image = imageOverride.isEmpty() ? settings.image() : imageOverride;
    const QString profileName = profileOverride.isEmpty() ? settings.hardeningProfile() : profileOverride;
    config.profile = parseHardeningProfile(profileName).value_or(config.profile);
    config.ownerId = settings.installId();
    config.pidsLimit = settings.pidsLimit();
    config.memory = sandboxdefaults::memoryArgument(settings.memoryMiB());
    config.cpus = sandboxdefaults::cpusArgument(settings.cpus());
    config.idleTimeoutMs = settings.idleTimeoutMinutes() * 60 * 1000;
    return config;
}

std::unique_ptr<ContainerRuntime> SandboxFactory::runtimeFor(const DetectionResult& detection, SandboxConfig& config) {
    const RuntimeProbe* probe = detection.chosenProbe();
    if (!detection.chosen || !probe) {
        return nullptr;
    }
    config.podmanRootless = *detection.chosen == RuntimeKind::Podman && probe->rootless.value_or(false);
    return ContainerRuntime::create(*detection.chosen, probe->binaryPath);
}

RuntimeReport SandboxFactory::runtimeReport(const DetectionResult& detection) {
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

}  // namespace zeus
