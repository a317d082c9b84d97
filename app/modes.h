#pragma once

#include "appoptions.h"

namespace zeus {

// Each mode builds its objects, runs the event loop and returns the process exit code.
int runDiagnoseMode(const AppOptions& options);    // diagnosemode.cpp
int runExecMode(const AppOptions& options);        // execmode.cpp
int runBuildImageMode(const AppOptions& options);  // buildimagemode.cpp
int runHeadlessMode(const AppOptions& options);    // headlessmode.cpp
#ifdef ZEUS_HAS_GUI
int runGuiMode(const AppOptions& options);  // guimode.cpp (Widgets builds only)
#endif

}  // namespace zeus
