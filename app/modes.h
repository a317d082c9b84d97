#pragma once

#include "appoptions.h"
#include "sandboxsetup.h"

namespace zeus {

class AppSettings;
class ToolDispatcher;
struct DetectionResult;

// Each mode builds its objects, runs the event loop and returns the process exit code.
int runDiagnoseMode(const AppOptions& options);    // diagnosemode.cpp
int runExecMode(const AppOptions& options);        // execmode.cpp
int runBuildImageMode(const AppOptions& options);  // buildimagemode.cpp
int runHeadlessMode(const AppOptions& options);    // headlessmode.cpp
int runSecretsMode(const AppOptions& options);     // secretsmode.cpp
int runReviewMode(const AppOptions& options);      // reviewmode.cpp
#ifdef ZEUS_HAS_GUI
int runGuiMode(const AppOptions& options);  // guimode.cpp (Widgets builds only)
#endif

// How each mode obtains its sandbox: always SandboxSetup, with what that mode's command line overrides. The
// tray app's is GuiService::sandbox(). Tests compare the `run` argument lists they lead to.
SandboxSetup execSandboxSetup(const AppOptions& options, AppSettings& settings,
                              const DetectionResult& detection);       // execmode.cpp
SandboxOverrides headlessSandboxOverrides(const AppOptions& options);  // headlessmode.cpp

// Command approval of headless and gui runs (SPEC §11): every folder's settings into the dispatcher, kept current,
// with this run's --approval mode over them and --allow-command / --deny-command added (never stored); matched
// rules' "last matched" times and rules the user adds go back to the settings.
void applyApprovalOptions(const AppOptions& options, AppSettings& settings,
                          ToolDispatcher& dispatcher);  // headlessmode.cpp

}  // namespace zeus
