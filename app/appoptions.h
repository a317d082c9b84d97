#pragma once

#include "sandboxsetup.h"

#include <QString>
#include <QStringList>

namespace zeus {

// What the command line asked for. Parsed once in main(); each mode reads it.
struct AppOptions {
    enum class Mode { Gui, Version, Diagnose, Exec, BuildImage, Headless, Secrets, Review };
    // What --set-secret, --delete-secret and --list-secrets ask for (Mode::Secrets).
    enum class SecretAction { None, Set, Delete, List };

    Mode mode = Mode::Gui;
    bool json = false;            // --diagnose --json
    QString runtime;              // --runtime auto|apple|docker|podman (empty: settings)
    QString image;                // --image
    QString profile;              // --profile standard|hardened
    QString execMode;             // --exec-mode agent|exec (empty: settings)
    QString workspace;            // --workspace DIR
    QString workspaceMode;        // --workspace-mode direct|review (empty: each folder's setting)
    bool allowGitWrites = false;  // --allow-git-writes: the sandbox may write .git (SPEC §3)
    QString command;              // --exec COMMAND
    int timeoutSeconds = -1;      // --timeout S (-1: default)
    QString backend;              // --backend URL
    // Network (SPEC §8).
    QString network;         // --network open|none|allowlist (empty: settings)
    QString networkPreset;   // --network-preset dev|locked (empty: settings)
    QStringList allowHosts;  // --allow-host RULE (repeatable), added to the settings' rules
    QStringList denyHosts;   // --deny-host RULE (repeatable)
    QStringList resolve;     // --resolve HOST:PORT:ADDRESS (repeatable)
    SecretAction secretAction = SecretAction::None;
    QString secretName;          // --set-secret NAME, --delete-secret NAME
    QStringList allowedSecrets;  // --allow-secret NAME (repeatable): headless pre-approval
    QString approval;            // --approval auto|ask-unsafe|ask-all (empty: each folder's setting)
    QStringList allowCommands;   // --allow-command PREFIX (repeatable), this run only
    QStringList denyCommands;    // --deny-command PREFIX (repeatable), this run only
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
