#pragma once

#include "agentreadiness.h"
#include "appoptions.h"
#include "engine/imageinspection.h"
#include "sandboxsetup.h"

#include <QStringList>
#include <QUrl>

#include <functional>
#include <optional>

namespace zeus {

class AgentHostService;
class AppSettings;
class McpLocalBackend;
class ToolDispatcher;
struct DetectionResult;

// Each mode builds its objects, runs the event loop and returns the process exit code.
int runDiagnoseMode(const AppOptions& options);    // diagnosemode.cpp
int runExecMode(const AppOptions& options);        // execmode.cpp
int runBuildImageMode(const AppOptions& options);  // buildimagemode.cpp
int runHeadlessMode(const AppOptions& options);    // headlessmode.cpp
int runSecretsMode(const AppOptions& options);     // secretsmode.cpp
int runReviewMode(const AppOptions& options);      // reviewmode.cpp
int runMcpMode(const AppOptions& options);         // mcpmode.cpp
int runMcpHttpMode(const AppOptions& options);     // mcphttpmode.cpp

// --mcp and --mcp-http alike (mcpmode.cpp): the run's folders (each --workspace checked by WorkspaceGuard; without
// any, the tray app's approved ones), or the exit code a refusal ends the run with (0 when there are folders).
int mcpWorkspaces(const AppOptions& options, AppSettings& settings, QStringList& workspaces);
// The review tools (list_changes, apply_changes, discard_changes) every MCP session of the run answers.
void wireMcpReviewTools(McpLocalBackend& backend, AgentHostService& service, bool directMode, bool allowApply);
#ifdef ZEUS_HAS_GUI
int runGuiMode(const AppOptions& options);  // guimode.cpp (Widgets builds only)
#endif

// How each mode obtains its sandbox: always SandboxSetup, with what that mode's command line overrides. The
// tray app's is GuiService::sandbox(). Tests compare the `run` argument lists they lead to.
SandboxSetup execSandboxSetup(const AppOptions& options, AppSettings& settings,
                              const DetectionResult& detection);       // execmode.cpp
SandboxOverrides headlessSandboxOverrides(const AppOptions& options);  // headlessmode.cpp

// One GUI-free run of the core (AgentHostService), as headless and MCP mode both make it: the same service options,
// approval, secrets and port rules, the same exits (no agent 5, no token 3, refused token 4, a signal 0). What
// differs is said here. A second hand-built setup is how the two modes would drift apart, so none may exist.
struct HeadlessCore {
    QUrl backend;
    QStringList workspaces;  // canonical paths that passed WorkspaceGuard: the approved folders of this run
    QString token;           // handed over in-process; empty: ZEUS_DESKTOP_TOKEN, then the keychain
    bool journal = true;     // AgentHostService::Options::journal
    std::function<void(const QString&)> notice;  // where session notices go; empty: stdout
    // The mode's own wiring, once the service is built and before it starts; endWith(code) ends the run.
    std::function<void(AgentHostService& service, const std::function<void(int)>& endWith)> wire;
    QString description;  // said in the start-up log line
};
void installHeadlessLogFormat();                                                                  // headlessmode.cpp
int runHeadlessCore(const AppOptions& options, AppSettings& settings, const HeadlessCore& core);  // headlessmode.cpp

// Whether the image must be inspected for a sandbox agent, and why a run must not start without one, are
// core/agentreadiness.h's agentNeedsImageCheck() and missingAgentProblem() (the tray app, headless, --exec).

// What headless mode prints on stdout about a session (docs/headless.md "What the console shows"), in the terminal
// of app/run.sh next to the test backend's lines: how commands reach the container (the first line), the network in
// force and the image. Said when the session's first command knows its path, and again when that path changes.
struct SessionNoticeFacts {
    QString sessionId;
    QString execPath;     // SessionManager::execPath(): "agent 0.1.0", "exec (forced)", "exec: <why>"
    QString cli;          // the engine's command ("docker"), for "plain docker exec"
    EgressPolicy policy;  // SessionManager::egressPolicy(): the mode and rules in force
    QString image;
    std::optional<ImageInspection> inspection;  // of `image`; nullopt: not known (yet)
};
// `full`: all three lines (a session's first announcement); else the path line, and the network line when it
// depends on the path (an allowlist session that lost its agent has no network).
QStringList sessionNoticeLines(const SessionNoticeFacts& facts, bool full);  // headlessmode.cpp

// Command approval of headless and gui runs (SPEC §11): every folder's settings into the dispatcher, kept current,
// with this run's --approval mode over them and --allow-command / --deny-command added (never stored); matched
// rules' "last matched" times and rules the user adds go back to the settings.
void applyApprovalOptions(const AppOptions& options, AppSettings& settings,
                          ToolDispatcher& dispatcher);  // headlessmode.cpp

}  // namespace zeus
