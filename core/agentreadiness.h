#pragma once

#include "engine/imageinspection.h"
#include "sandboxsetup.h"

#include <QString>

#include <optional>

namespace zeus {

// The sandbox agent at start-up (SPEC §7): a run that uses the agent (no --exec-mode exec) on an engine of this Linux
// host mounts the app's own agent; without one, only an image known to carry its own copy (the Zeus sandbox image)
// will do. Whether the image must be inspected before the run may call itself ready (tray app, headless, --exec):
bool agentNeedsImageCheck(const SandboxSetup& setup);
// Why the run must not start: no agent it can use, with the fix (build the agent, set ZEUS_SANDBOX_AGENT, or
// --exec-mode exec); empty when it may. `image` is the inspection of setup.config.image (nullopt: not asked).
QString missingAgentProblem(const SandboxSetup& setup, const std::optional<ImageInspection>& image);

}  // namespace zeus
