#include "appoptions.h"

#include "approval/commandanalyser.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstring>

namespace zeus {

bool wantsConsoleMode(int argc, char** argv) {
    static const char* const consoleFlags[] = {"--version",  "-v",     "--diagnose", "--exec",
                                               "--headless", "--help", "-h",         "--build-image"};
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
                                  QCoreApplication::translate("main", "With --diagnose: print the report as JSON."));
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
    parser.addOptions({diagnose, json, runtime, image, profile, execMode, workspace, exec, timeout, buildImage,
                       headless, backend, approval, allowCommand, denyCommand});

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

    if (parser.isSet(version)) {
        options.mode = AppOptions::Mode::Version;
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

}  // namespace zeus
