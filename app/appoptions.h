#pragma once

#include "approval/approvalpolicy.h"
#include "engine/hardeningprofile.h"
#include "runtime/runtimekind.h"
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/sandboxconfig.h"
#include "sandboxsetup.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// What the command line asked for. Parsed once in main(); each mode reads it. An option that takes one of an
// enum's words (support/vocabulary.h) is read into that enum here: a word that is not one is a usage error, so no
// mode ever sees one. Unset (nullopt): the settings decide.
struct AppOptions {
    enum class Mode { Gui, Version, Diagnose, Exec, BuildImage, Headless, Secrets, Review, Mcp, McpHttp };
    // What --set-secret, --delete-secret and --list-secrets ask for (Mode::Secrets).
    enum class SecretAction { None, Set, Delete, List };

    Mode mode = Mode::Gui;
    bool json = false;                                   // --diagnose --json
    std::optional<RuntimePreference> runtimePreference;  // --runtime auto|apple|docker|podman
    QString image;                                       // --image
    std::optional<HardeningProfile> hardeningProfile;    // --profile standard|hardened
    std::optional<ExecMode> execMode;                    // --exec-mode agent|exec
    QString workspace;                                   // --workspace DIR
    QStringList workspaces;  // every --workspace DIR given, in order (--mcp serves them all; others take the last)
    std::optional<WorkspaceMode> workspaceMode;  // --workspace-mode direct|review (nullopt: each folder's setting)
    bool allowGitWrites = false;                 // --allow-git-writes: the sandbox may write .git (SPEC §3)
    QString command;                             // --exec COMMAND
    int timeoutSeconds = -1;                     // --timeout S (-1: default)
    QString backend;                             // --backend URL
    // Network (SPEC §8).
    std::optional<NetworkMode> network;         // --network allowlist|none|open
    std::optional<EgressPreset> networkPreset;  // --network-preset dev|locked
    QString upstreamProxy;                      // --upstream-proxy URL|none (empty: the settings, the environment)
    QStringList allowHosts;                     // --allow-host RULE (repeatable), added to the settings' rules
    QStringList denyHosts;                      // --deny-host RULE (repeatable)
    QStringList resolve;                        // --resolve HOST:PORT:ADDRESS (repeatable)
    bool noHostCa = false;                      // --no-host-ca: not this computer's trusted certificates
    QStringList publish;                        // --publish [HOST_PORT:]CONTAINER_PORT (repeatable), SPEC §8 "Ports"
    bool allowPublish = false;                  // --allow-publish: headless, the backend's open_port is approved
    bool allowApply = false;         // --allow-apply: with --mcp, apply_changes may copy the review copy's changes home
    QString mcpHttpPort;             // --mcp-http PORT: MCP over HTTP on 127.0.0.1:PORT (0: a free port)
    bool mcpHttpTokenReset = false;  // --mcp-http-token-reset: a new token replaces the kept one
    QStringList exposeHost;          // --expose-host HOST_PORT[:CONTAINER_PORT] (repeatable), SPEC §8 "Ports"
    SecretAction secretAction = SecretAction::None;
    QString secretName;                    // --set-secret NAME, --delete-secret NAME
    QStringList allowedSecrets;            // --allow-secret NAME (repeatable): headless pre-approval
    QStringList bindSecrets;               // --bind-secret NAME=HOST[,HOST…] (repeatable), SPEC §9
    std::optional<ApprovalMode> approval;  // --approval auto|ask-unsafe|ask-all (nullopt: each folder's setting)
    QStringList allowCommands;             // --allow-command PREFIX (repeatable), this run only
    QStringList denyCommands;              // --deny-command PREFIX (repeatable), this run only
    // Review copies (SPEC §10, Mode::Review): --changes [SESSION], --apply SESSION [PATH…], --discard SESSION.
    enum class ReviewAction { None, Changes, Apply, Discard };
    ReviewAction reviewAction = ReviewAction::None;
    QString reviewSession;    // the session (or its container's name or id prefix); empty with --changes: all
    QStringList reviewPaths;  // --apply's paths (empty: every change Apply all would take)
    QString error;            // set when the command line is invalid
};

// True when argv asks for a mode that must run without a display, decided before any
// QCoreApplication exists (so the right application class can be created).
bool wantsConsoleMode(int argc, char** argv);

// Parses the application's arguments; on a usage error, AppOptions::error is set.
AppOptions parseAppOptions(const QStringList& arguments);

// What the command line changes about the sandbox, for every mode alike.
SandboxOverrides sandboxOverridesOf(const AppOptions& options);

}  // namespace zeus
