#pragma once

#include "backend/protocolmessages.h"
#include "engine/containerruntime.h"
#include "runtime/detectionresult.h"
#include "sandbox/sandboxconfig.h"

#include <QString>

#include <memory>

namespace zeus {

class AppSettings;

// The composition of detection, settings and command-line overrides into what a SessionManager needs, shared by
// the headless, exec and GUI modes so they build the same sandbox. Pure functions apart from reading settings:
// it owns no object and starts no process. It must never pick a runtime the detection did not choose.
class SandboxFactory {
public:
    SandboxFactory() = delete;

    // The user's sandbox settings (image, profile, limits, idle timeout, install id), then the overrides
    // (--image, --profile; empty means "from settings"). An unknown profile name leaves the setting.
    static SandboxConfig configFrom(AppSettings& settings, const QString& imageOverride = QString(),
                                    const QString& profileOverride = QString());

    // The runtime the detection chose, driving the CLI that was found (its full path), or null when nothing is
    // usable. Sets config.podmanRootless from the probe.
    static std::unique_ptr<ContainerRuntime> runtimeFor(const DetectionResult& detection, SandboxConfig& config);

    // What hello.runtime says about a detection.
    static RuntimeReport runtimeReport(const DetectionResult& detection);
};

}  // namespace zeus
