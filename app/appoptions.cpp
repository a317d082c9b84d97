#include "appoptions.h"

#include "approval/commandanalyser.h"
#include "secrets/secretstore.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstring>

namespace zeus {

bool wantsConsoleMode(int argc, char** argv) {
    static const char* const consoleFlags[] = {
        "--version",     "-v",           "--diagnose",      "--exec",         "--headless", "--help",  "-h",
        "--build-image", "--set-secret", "--delete-secret", "--list-secrets", "--changes",  "--apply", "--discard"};
    for (int i = 1; i < argc; ++i) {
        for (const char* flag : consoleFlags) {
            if (std::strcmp(argv[i], flag) == 0) {
                return true;
            }
        }
    }
    return false;
}

AppOptions parseAppOptions(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Runs an AI agent's shell commands in a container that sees one folder."));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const QCommandLineOption diagnose(QStringLiteral("diagnose"),
                                      QCoreApplication::translate("main", "Print a diagnostics report and exit."));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QCoreApplication::translate("main", "With --diagnose or --changes: print JSON."));
    const QCommandLineOption changes(
        QStringLiteral("changes"),
        QCoreApplication::translate("main",
                                    "List the review copies kept for review, or with a SESSION argument the files "
                                    "changed in that session's copy."));
    const QCommandLineOption apply(
        QStringLiteral("apply"),
        QCoreApplication::translate("main",
                                    "Apply a review copy's changes to its folder: the PATH arguments, or every change "
                                    "that needs no confirmation of its own."),
        QStringLiteral("session"));
    const QCommandLineOption discard(
        QStringLiteral("discard"),
        QCoreApplication::translate("main", "Discard a review copy: its container and its changes are removed."),
        QStringLiteral("session"));
    const QCommandLineOption runtime(
        QStringLiteral("runtime"),
        QCoreApplication::translate("main", "Container runtime: auto, apple, docker, podman."), QStringLiteral("name"));
    const QCommandLineOption image(QStringLiteral("image"), QCoreApplication::translate("main", "Sandbox image."),
                                   QStringLiteral("image"));
    const QCommandLineOption profile(QStringLiteral("profile"),
                                     QCoreApplication::translate("main", "Hardening profile: standard or hardened."),
                                     QStringLiteral("profile"));
    const QCommandLineOption execMode(
        QStringLiteral("exec-mode"),
        QCoreApplication::translate("main", "How commands reach the container: agent (default) or exec."),
        QStringLiteral("mode"));
    const QCommandLineOption workspaceMode(
        QStringLiteral("workspace-mode"),
        QCoreApplication::translate("main",
                                    "How every folder of this run reaches the container: direct (bind mount) or "
                                    "review (a copy whose changes you review; refused on a remote engine in direct "
                                    "mode). Default: each folder's setting."),
        QStringLiteral("mode"));
    const QCommandLineOption workspace(QStringLiteral("workspace"),
                                       QCoreApplication::translate("main", "Working directory mounted at /workspace."),
                                       QStringLiteral("dir"));
    const QCommandLineOption exec(QStringLiteral("exec"),
                                  QCoreApplication::translate("main", "Run one command in a fresh sandbox and exit."),
                                  QStringLiteral("command"));
    const QCommandLineOption timeout(QStringLiteral("timeout"),
                                     QCoreApplication::translate("main", "With --exec: timeout in seconds."),
                                     QStringLiteral("seconds"));
    const QCommandLineOption buildImage(QStringLiteral("build-image"),
                                        QCoreApplication::translate("main", "Build the sandbox image and exit."));
    const QCommandLineOption headless(QStringLiteral("headless"),
                                      QCoreApplication::translate("main", "Serve tool calls without a display."));
    const QCommandLineOption backend(
        QStringLiteral("backend"),
        QCoreApplication::translate("main", "Backend WebSocket URL (wss://, or ws:// to loopback)."),
        QStringLiteral("url"));
    const QCommandLineOption approval(
        QStringLiteral("approval"),
        QCoreApplication::translate("main",
                                    "Command approval for this run: auto (nothing is asked), ask-unsafe (ask for what "
                                    "is not read-only) or ask-all. Headless, what would be asked is denied."),
        QStringLiteral("mode"));
    const QCommandLineOption allowCommand(
        QStringLiteral("allow-command"),
        QCoreApplication::translate("main", "Run commands starting with these words without asking (repeatable)."),
        QStringLiteral("prefix"));
    const QCommandLineOption denyCommand(
        QStringLiteral("deny-command"),
        QCoreApplication::translate("main", "Refuse commands starting with these words, in every mode (repeatable)."),
        QStringLiteral("prefix"));
    const QCommandLineOption network(
        QStringLiteral("network"),
        QCoreApplication::translate("main", "The sandbox's network: allowlist (default), none or open."),
        QStringLiteral("mode"));
    const QCommandLineOption allowHost(
        QStringLiteral("allow-host"),
        QCoreApplication::translate("main",
                                    "Allow a host through the allowlist (example.com, *.example.com, "
                                    "host:port, an address or a CIDR block); repeatable."),
        QStringLiteral("rule"));
    const QCommandLineOption denyHost(
        QStringLiteral("deny-host"),
        QCoreApplication::translate("main", "Deny a host, whatever allows it; repeatable."), QStringLiteral("rule"));
    const QCommandLineOption networkPreset(
        QStringLiteral("network-preset"),
        QCoreApplication::translate("main", "The allowlist's preset: dev (package registries, GitHub) or locked."),
        QStringLiteral("preset"));
    const QCommandLineOption resolve(
        QStringLiteral("resolve"),
        QCoreApplication::translate("main", "Use this address for a host and port (HOST:PORT:ADDRESS); repeatable."),
        QStringLiteral("entry"));
    const QCommandLineOption setSecret(
        QStringLiteral("set-secret"),
        QCoreApplication::translate("main", "Store a secret in the OS keychain; its value is read from stdin."),
        QStringLiteral("NAME"));
    const QCommandLineOption deleteSecret(QStringLiteral("delete-secret"),
                                          QCoreApplication::translate("main", "Delete a secret from the keychain."),
                                          QStringLiteral("NAME"));
    const QCommandLineOption listSecrets(QStringLiteral("list-secrets"),
                                         QCoreApplication::translate("main", "List the names of the stored secrets."));
    const QCommandLineOption allowSecret(
        QStringLiteral("allow-secret"),
        QCoreApplication::translate("main", "With --headless: approve the use of this secret (repeatable)."),
        QStringLiteral("NAME"));
    const QCommandLineOption allowGitWrites(
        QStringLiteral("allow-git-writes"),
        QCoreApplication::translate("main",
                                    "Let the sandbox write the repository's metadata (.git) of every folder of "
                                    "this run. The host's git may then run code the agent writes."));
    parser.addOptions({diagnose,      json,        runtime,     image,         profile,       execMode,
                       workspace,     exec,        timeout,     buildImage,    headless,      backend,
                       network,       allowHost,   denyHost,    networkPreset, resolve,       setSecret,
                       deleteSecret,  listSecrets, allowSecret, approval,      allowCommand,  denyCommand,
                       workspaceMode, changes,     apply,       discard,       allowGitWrites});

    AppOptions options;
    if (!parser.parse(arguments)) {
        options.error = parser.errorText();
        return options;
    }
    if (parser.isSet(help)) {
        parser.showHelp(0);  // exits
    }
    options.json = parser.isSet(json);
    options.runtime = parser.value(runtime);
    options.image = parser.value(image);
    options.profile = parser.value(profile);
    options.execMode = parser.value(execMode);
    options.workspaceMode = parser.value(workspaceMode);
    options.allowGitWrites = parser.isSet(allowGitWrites);
    options.workspace = parser.value(workspace);
    options.command = parser.value(exec);
    options.backend = parser.value(backend);
    options.approval = parser.value(approval);
    options.allowCommands = parser.values(allowCommand);
    options.denyCommands = parser.values(denyCommand);
    if (!options.approval.isEmpty() && !approvalModeFromName(options.approval)) {
        options.error = QCoreApplication::translate("main", "--approval must be auto, ask-unsafe or ask-all");
    }
    for (const QString& prefix : options.allowCommands + options.denyCommands) {
        if (CommandAnalyser::ruleWords(prefix).isEmpty()) {
            options.error =
                QCoreApplication::translate(
                    "main", "--allow-command and --deny-command take plain words, such as \"git status\": %1")
                    .arg(prefix);
        }
    }
    options.network = parser.value(network);
    options.networkPreset = parser.value(networkPreset);
    options.allowHosts = parser.values(allowHost);
    options.denyHosts = parser.values(denyHost);
    options.resolve = parser.values(resolve);
    if (!options.network.isEmpty() && !networkModeFromName(options.network)) {
        options.error = QCoreApplication::translate("main", "--network must be allowlist, none or open");
    }
    if (!options.networkPreset.isEmpty() && !EgressPolicy::presetNames().contains(options.networkPreset)) {
        options.error = QCoreApplication::translate("main", "--network-preset must be dev or locked");
    }
    for (const QString& rule : options.allowHosts + options.denyHosts) {
        QString why;
        if (!HostRule::parse(rule, &why)) {
            options.error = QCoreApplication::translate("main", "--allow-host/--deny-host: %1").arg(why);
        }
    }
    for (const QString& entry : std::as_const(options.resolve)) {
        QString why;
        if (!ResolveOverride::parse(entry, &why)) {
            options.error = QCoreApplication::translate("main", "--resolve: %1").arg(why);
        }
    }
    options.allowedSecrets = parser.values(allowSecret);
    for (const QString& name : std::as_const(options.allowedSecrets)) {
        if (!SecretStore::isValidName(name)) {
            options.error =
                QCoreApplication::translate("main", "--allow-secret: %1").arg(SecretStore::nameProblem(name));
        }
    }
    if (parser.isSet(timeout)) {
        bool ok = false;
        options.timeoutSeconds = parser.value(timeout).toInt(&ok);
        if (!ok || options.timeoutSeconds <= 0) {
            options.error = QCoreApplication::translate("main", "--timeout needs a positive number of seconds");
        }
    }
    if (!options.runtime.isEmpty()
        && !QStringList{QStringLiteral("auto"), QStringLiteral("apple"), QStringLiteral("docker"),
                        QStringLiteral("podman")}
                .contains(options.runtime)) {
        options.error = QCoreApplication::translate("main", "--runtime must be auto, apple, docker or podman");
    }
    if (!options.profile.isEmpty() && options.profile != QStringLiteral("standard")
        && options.profile != QStringLiteral("hardened")) {
        options.error = QCoreApplication::translate("main", "--profile must be standard or hardened");
    }

    if (!options.execMode.isEmpty() && options.execMode != QStringLiteral("agent")
        && options.execMode != QStringLiteral("exec")) {
        options.error = QCoreApplication::translate("main", "--exec-mode must be agent or exec");
    }

    if (!options.workspaceMode.isEmpty() && !workspaceModeFromName(options.workspaceMode)) {
        options.error = QCoreApplication::translate("main", "--workspace-mode must be direct or review");
    }

    const int secretActions =
        int(parser.isSet(setSecret)) + int(parser.isSet(deleteSecret)) + int(parser.isSet(listSecrets));
    const int reviewActions = int(parser.isSet(changes)) + int(parser.isSet(apply)) + int(parser.isSet(discard));
    const QStringList positional = parser.positionalArguments();
    if (parser.isSet(version)) {
        options.mode = AppOptions::Mode::Version;
    } else if (reviewActions > 1) {
        options.error = QCoreApplication::translate("main", "use one of --changes, --apply and --discard at a time");
    } else if (reviewActions == 1) {
        options.mode = AppOptions::Mode::Review;
        if (parser.isSet(changes)) {
            options.reviewAction = AppOptions::ReviewAction::Changes;
            options.reviewSession = positional.value(0);
            if (positional.size() > 1) {
                options.error = QCoreApplication::translate("main", "--changes takes at most one SESSION");
            }
        } else if (parser.isSet(apply)) {
            options.reviewAction = AppOptions::ReviewAction::Apply;
            options.reviewSession = parser.value(apply);
            options.reviewPaths = positional;
        } else {
            options.reviewAction = AppOptions::ReviewAction::Discard;
            options.reviewSession = parser.value(discard);
            if (!positional.isEmpty()) {
                options.error = QCoreApplication::translate("main", "--discard takes one SESSION and nothing else");
            }
        }
    } else if (secretActions > 1) {
        options.error = QCoreApplication::translate(
            "main", "use one of --set-secret, --delete-secret and --list-secrets at a time");
    } else if (secretActions == 1) {
        options.mode = AppOptions::Mode::Secrets;
        if (parser.isSet(listSecrets)) {
            options.secretAction = AppOptions::SecretAction::List;
        } else {
            options.secretAction =
                parser.isSet(setSecret) ? AppOptions::SecretAction::Set : AppOptions::SecretAction::Delete;
            options.secretName = parser.value(parser.isSet(setSecret) ? setSecret : deleteSecret);
            if (!SecretStore::isValidName(options.secretName)) {
                options.error = SecretStore::nameProblem(options.secretName);
            }
        }
    } else if (parser.isSet(diagnose)) {
        options.mode = AppOptions::Mode::Diagnose;
    } else if (parser.isSet(exec)) {
        options.mode = AppOptions::Mode::Exec;
        if (options.workspace.isEmpty()) {
            options.error = QCoreApplication::translate("main", "--exec needs --workspace DIR");
        }
    } else if (parser.isSet(buildImage)) {
        options.mode = AppOptions::Mode::BuildImage;
    } else if (parser.isSet(headless)) {
        options.mode = AppOptions::Mode::Headless;
        if (options.backend.isEmpty() || options.workspace.isEmpty()) {
            options.error = QCoreApplication::translate("main", "--headless needs --backend URL and --workspace DIR");
        }
    }
    return options;
}

SandboxOverrides sandboxOverridesOf(const AppOptions& options) {
    SandboxOverrides overrides;
    overrides.image = options.image;
    overrides.profile = options.profile;
    overrides.execMode = options.execMode;
    overrides.workspaceMode = options.workspaceMode;
    overrides.network = options.network;
    overrides.networkPreset = options.networkPreset;
    overrides.allowHosts = options.allowHosts;
    overrides.denyHosts = options.denyHosts;
    overrides.resolve = options.resolve;
    overrides.allowGitWrites = options.allowGitWrites;
    // The per-folder setting is the tray app's; headless and --exec take the command line's word alone.
    overrides.folderGitWritesFromSettings = options.mode == AppOptions::Mode::Gui;
    return overrides;
}

}  // namespace zeus
