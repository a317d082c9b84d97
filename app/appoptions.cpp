#include "appoptions.h"

#include "approval/commandanalyser.h"
#include "sandbox/egress/secretbinding.h"
#include "sandbox/exposespec.h"
#include "sandbox/portspec.h"
#include "secrets/secretstore.h"
#include "support/vocabulary.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <algorithm>
#include <cstring>
#include <vector>

namespace zeus {

bool wantsConsoleMode(int argc, char** argv) {
    static const char* const consoleFlags[] = {
        "--version",     "-v",           "--diagnose",      "--exec",         "--headless", "--help",  "-h",
        "--build-image", "--set-secret", "--delete-secret", "--list-secrets", "--changes",  "--apply", "--discard",
        "--mcp",         "--mcp-http"};
    for (int i = 1; i < argc; ++i) {
        for (const char* flag : consoleFlags) {
            if (std::strcmp(argv[i], flag) == 0) {
                return true;
            }
        }
    }
    return false;
}

namespace {

QString translated(const char* text) {
    return QCoreApplication::translate("main", text);
}

// One command-line option: its name, what it is for (shown by --help, translated), where its value goes in
// AppOptions, and the check its value must pass. The table below is the whole command line; the help lists
// the options in its order.
struct OptionDescriptor {
    const char* name;
    const char* help;                                  // QT_TRANSLATE_NOOP("main", …)
    const char* valueName = nullptr;                   // nullptr: a switch
    bool AppOptions::*flag = nullptr;                  // a switch's place
    QString AppOptions::*value = nullptr;              // a single value's place
    QStringList AppOptions::*values = nullptr;         // a repeatable option's place
    QString (*check)(const QString& value) = nullptr;  // the problem with one value, or empty
    // An enum's word: reads the value into its place in `options` and returns the problem, or empty.
    QString (*word)(AppOptions& options, const char* name, const QString& value) = nullptr;
};

// Reads one of E's words (support/vocabulary.h, exactly as written) into its place; any other value is a usage
// error that names every word, in the table's order: "--network must be allowlist, none or open".
template <typename E, std::optional<E> AppOptions::*Place>
QString readWord(AppOptions& options, const char* name, const QString& value) {
    const std::optional<E> parsed = fromWord<E>(value);
    if (!parsed) {
        return translated(QT_TRANSLATE_NOOP("main", "%1 must be %2"))
            .arg(QStringLiteral("--") + QString::fromLatin1(name),
                 vocabulary::joinedAlternatives(wordsOf<E>(), translated(QT_TRANSLATE_NOOP("main", "%1 or %2"))));
    }
    options.*Place = parsed;
    return {};
}

QString checkTimeout(const QString& value) {
    bool ok = false;
    const int seconds = value.toInt(&ok);
    return ok && seconds > 0 ? QString()
                             : translated(QT_TRANSLATE_NOOP("main", "--timeout needs a positive number of seconds"));
}

QString checkMcpHttpPort(const QString& value) {
    bool ok = false;
    const int port = value.toInt(&ok);
    return ok && port >= 0 && port <= 65535 && !value.startsWith(QLatin1Char('+'))
               ? QString()
               : translated(QT_TRANSLATE_NOOP("main", "--mcp-http needs a port from 0 to 65535"));
}

QString checkCommandPrefix(const QString& prefix) {
    return !CommandAnalyser::ruleWords(prefix).isEmpty()
               ? QString()
               : translated(
                     QT_TRANSLATE_NOOP(
                         "main", "--allow-command and --deny-command take plain words, such as \"git status\": %1"))
                     .arg(prefix);
}

QString checkHostRule(const QString& rule) {
    QString why;
    return HostRule::parse(rule, &why) ? QString()
                                       : translated(QT_TRANSLATE_NOOP("main", "--allow-host/--deny-host: %1")).arg(why);
}

QString checkResolve(const QString& entry) {
    QString why;
    return ResolveOverride::parse(entry, &why) ? QString()
                                               : translated(QT_TRANSLATE_NOOP("main", "--resolve: %1")).arg(why);
}

QString checkUpstreamProxy(const QString& value) {
    QString why;
    return UpstreamProxy::isValidValue(value, &why)
               ? QString()
               : translated(QT_TRANSLATE_NOOP("main", "--upstream-proxy: %1")).arg(why);
}

QString checkPublish(const QString& value) {
    QString why;
    return PortSpec::parse(value, &why) ? QString() : translated(QT_TRANSLATE_NOOP("main", "--publish: %1")).arg(why);
}

QString checkExposeHost(const QString& value) {
    QString why;
    return ExposeSpec::parse(value, &why) ? QString()
                                          : translated(QT_TRANSLATE_NOOP("main", "--expose-host: %1")).arg(why);
}

// Each exposed port is one listener of the sandbox agent in the container: a bounded number, one per port.
QString checkExposeHostCount(const QStringList& values) {
    if (values.size() > ExposeSpec::kMaxExposed) {
        return translated(QT_TRANSLATE_NOOP("main", "--expose-host: at most %1 ports")).arg(ExposeSpec::kMaxExposed);
    }
    QList<quint16> seen;
    for (const QString& value : values) {
        const std::optional<ExposeSpec> spec = ExposeSpec::parse(value);
        if (spec && seen.contains(spec->containerPort)) {
            return translated(QT_TRANSLATE_NOOP("main", "--expose-host: container port %1 is given twice"))
                .arg(spec->containerPort);
        }
        if (spec) {
            seen.append(spec->containerPort);
        }
    }
    return {};
}

QString checkAllowSecret(const QString& name) {
    return SecretStore::isValidName(name)
               ? QString()
               : translated(QT_TRANSLATE_NOOP("main", "--allow-secret: %1")).arg(SecretStore::nameProblem(name));
}

QString checkBindSecret(const QString& value) {
    QString why;
    return SecretBinding::parse(value, &why) ? QString()
                                             : translated(QT_TRANSLATE_NOOP("main", "--bind-secret: %1")).arg(why);
}

// The options that pick a mode or an action; parseAppOptions() reads them itself.
const OptionDescriptor kDiagnose{"diagnose", QT_TRANSLATE_NOOP("main", "Print a diagnostics report and exit.")};
const OptionDescriptor kChanges{
    "changes", QT_TRANSLATE_NOOP("main",
                                 "List the review copies kept for review, or with a SESSION argument the "
                                 "files changed in that session's copy.")};
const OptionDescriptor kApply{"apply",
                              QT_TRANSLATE_NOOP("main",
                                                "Apply a review copy's changes to its folder: the PATH "
                                                "arguments, or every change that needs no confirmation of its "
                                                "own."),
                              "session"};
const OptionDescriptor kDiscard{
    "discard", QT_TRANSLATE_NOOP("main", "Discard a review copy: its container and its changes are removed."),
    "session"};
const OptionDescriptor kExec{"exec", QT_TRANSLATE_NOOP("main", "Run one command in a fresh sandbox and exit."),
                             "command", nullptr, &AppOptions::command};
const OptionDescriptor kTimeout{
    "timeout",   QT_TRANSLATE_NOOP("main", "With --exec: timeout in seconds."), "seconds", nullptr, nullptr, nullptr,
    checkTimeout};
const OptionDescriptor kBuildImage{"build-image", QT_TRANSLATE_NOOP("main", "Build the sandbox image and exit.")};
const OptionDescriptor kHeadless{"headless", QT_TRANSLATE_NOOP("main", "Serve tool calls without a display.")};
const OptionDescriptor kMcp{"mcp", QT_TRANSLATE_NOOP("main",
                                                     "Be an MCP server on stdin and stdout for an agent on this "
                                                     "computer; --workspace is repeatable.")};
const OptionDescriptor kMcpHttp{
    "mcp-http",
    QT_TRANSLATE_NOOP("main",
                      "Be an MCP server over HTTP on 127.0.0.1:PORT only (0: a free port, said on stderr), with the "
                      "bearer token kept in the keychain; --workspace is repeatable."),
    "port",
    nullptr,
    &AppOptions::mcpHttpPort,
    nullptr,
    checkMcpHttpPort};
const OptionDescriptor kSetSecret{
    "set-secret", QT_TRANSLATE_NOOP("main", "Store a secret in the OS keychain; its value is read from stdin."),
    "NAME"};
const OptionDescriptor kDeleteSecret{"delete-secret", QT_TRANSLATE_NOOP("main", "Delete a secret from the keychain."),
                                     "NAME"};
const OptionDescriptor kListSecrets{"list-secrets", QT_TRANSLATE_NOOP("main", "List the names of the stored secrets.")};

// Every option, in the order --help lists them.
const std::vector<OptionDescriptor>& optionTable() {
    static const std::vector<OptionDescriptor> table{
        kDiagnose,
        {"json", QT_TRANSLATE_NOOP("main", "With --diagnose or --changes: print JSON."), nullptr, &AppOptions::json},
        {"runtime", QT_TRANSLATE_NOOP("main", "Container runtime: auto, apple, docker, podman."), "name", nullptr,
         nullptr, nullptr, nullptr, readWord<RuntimePreference, &AppOptions::runtimePreference>},
        {"image", QT_TRANSLATE_NOOP("main", "Sandbox image."), "image", nullptr, &AppOptions::image},
        {"profile", QT_TRANSLATE_NOOP("main", "Hardening profile: standard or hardened."), "profile", nullptr, nullptr,
         nullptr, nullptr, readWord<HardeningProfile, &AppOptions::hardeningProfile>},
        {"exec-mode", QT_TRANSLATE_NOOP("main", "How commands reach the container: agent (default) or exec."), "mode",
         nullptr, nullptr, nullptr, nullptr, readWord<ExecMode, &AppOptions::execMode>},
        {"workspace", QT_TRANSLATE_NOOP("main", "Working directory mounted at /workspace."), "dir", nullptr,
         &AppOptions::workspace, &AppOptions::workspaces},
        kExec,
        kTimeout,
        kBuildImage,
        kHeadless,
        kMcp,
        kMcpHttp,
        {"mcp-http-token-reset",
         QT_TRANSLATE_NOOP("main", "With --mcp-http: make a new token, keep it in the keychain and show it once."),
         nullptr, &AppOptions::mcpHttpTokenReset},
        {"backend", QT_TRANSLATE_NOOP("main", "Backend WebSocket URL (wss://, or ws:// to loopback)."), "url", nullptr,
         &AppOptions::backend},
        {"network", QT_TRANSLATE_NOOP("main", "The sandbox's network: allowlist (default), none or open."), "mode",
         nullptr, nullptr, nullptr, nullptr, readWord<NetworkMode, &AppOptions::network>},
        {"allow-host",
         QT_TRANSLATE_NOOP("main",
                           "Allow a host through the allowlist (example.com, *.example.com, host:port, an "
                           "address or a CIDR block); repeatable."),
         "rule", nullptr, nullptr, &AppOptions::allowHosts, checkHostRule},
        {"deny-host", QT_TRANSLATE_NOOP("main", "Deny a host, whatever allows it; repeatable."), "rule", nullptr,
         nullptr, &AppOptions::denyHosts, checkHostRule},
        {"network-preset",
         QT_TRANSLATE_NOOP("main", "The allowlist's preset: dev (package registries, GitHub) or locked."), "preset",
         nullptr, nullptr, nullptr, nullptr, readWord<EgressPreset, &AppOptions::networkPreset>},
        {"resolve", QT_TRANSLATE_NOOP("main", "Use this address for a host and port (HOST:PORT:ADDRESS); repeatable."),
         "entry", nullptr, nullptr, &AppOptions::resolve, checkResolve},
        {"no-host-ca",
         QT_TRANSLATE_NOOP("main",
                           "Do not give the sandbox this computer's trusted root certificates (on by default: HTTPS "
                           "through a TLS-inspecting network works as on the host)."),
         nullptr, &AppOptions::noHostCa},
        kSetSecret,
        kDeleteSecret,
        kListSecrets,
        {"allow-secret", QT_TRANSLATE_NOOP("main", "With --headless: approve the use of this secret (repeatable)."),
         "NAME", nullptr, nullptr, &AppOptions::allowedSecrets, checkAllowSecret},
        {"bind-secret",
         QT_TRANSLATE_NOOP("main",
                           "With --headless: bind a secret to hosts (NAME=HOST[,HOST…], host rules or @github, @npm, "
                           "@pypi); commands get a placeholder and the app puts the value into requests to those "
                           "hosts only (repeatable)."),
         "NAME=HOSTS", nullptr, nullptr, &AppOptions::bindSecrets, checkBindSecret},
        {"approval",
         QT_TRANSLATE_NOOP("main",
                           "Command approval for this run: auto (nothing is asked), ask-unsafe (ask for what "
                           "is not read-only) or ask-all. Headless, what would be asked is denied."),
         "mode", nullptr, nullptr, nullptr, nullptr, readWord<ApprovalMode, &AppOptions::approval>},
        {"allow-command",
         QT_TRANSLATE_NOOP("main", "Run commands starting with these words without asking (repeatable)."), "prefix",
         nullptr, nullptr, &AppOptions::allowCommands, checkCommandPrefix},
        {"deny-command",
         QT_TRANSLATE_NOOP("main", "Refuse commands starting with these words, in every mode (repeatable)."), "prefix",
         nullptr, nullptr, &AppOptions::denyCommands, checkCommandPrefix},
        {"workspace-mode",
         QT_TRANSLATE_NOOP("main",
                           "How every folder of this run reaches the container: direct (bind mount) or "
                           "review (a copy whose changes you review; refused on a remote engine in direct "
                           "mode). Default: each folder's setting."),
         "mode", nullptr, nullptr, nullptr, nullptr, readWord<WorkspaceMode, &AppOptions::workspaceMode>},
        kChanges,
        kApply,
        kDiscard,
        {"allow-git-writes",
         QT_TRANSLATE_NOOP("main",
                           "Let the sandbox write the repository's metadata (.git) of every folder of this "
                           "run. The host's git may then run code the agent writes."),
         nullptr, &AppOptions::allowGitWrites},
        {"upstream-proxy",
         QT_TRANSLATE_NOOP(
             "main",
             "Send allowed sandbox connections through this HTTP proxy (http://[user:password@]host:port), "
             "or straight out with none. Default: the setting, then HTTPS_PROXY/HTTP_PROXY/NO_PROXY, "
             "then the system proxy."),
         "url", nullptr, &AppOptions::upstreamProxy, nullptr, checkUpstreamProxy},
        {"publish",
         QT_TRANSLATE_NOOP("main",
                           "Publish a port of every session's container on this computer's 127.0.0.1 only "
                           "([HOST_PORT:]CONTAINER_PORT; without HOST_PORT, or 0, a free one); repeatable."),
         "port", nullptr, nullptr, &AppOptions::publish, checkPublish},
        {"allow-publish",
         QT_TRANSLATE_NOOP("main", "With --headless: approve the backend's requests to publish a container port."),
         nullptr, &AppOptions::allowPublish},
        {"allow-apply",
         QT_TRANSLATE_NOOP("main",
                           "With --mcp: let the client's apply_changes copy a review copy's changes into the folder "
                           "(nobody is asked)."),
         nullptr, &AppOptions::allowApply},
        {"expose-host",
         QT_TRANSLATE_NOOP(
             "main",
             "Make a service on this computer's 127.0.0.1:HOST_PORT reachable at 127.0.0.1:CONTAINER_PORT "
             "inside every session's container (HOST_PORT[:CONTAINER_PORT]; the same port when "
             "CONTAINER_PORT is left out); logged like egress; needs the sandbox agent; repeatable, at "
             "most 16."),
         "port", nullptr, nullptr, &AppOptions::exposeHost, checkExposeHost},
    };
    return table;
}

QCommandLineOption toOption(const OptionDescriptor& descriptor) {
    return descriptor.valueName ? QCommandLineOption(QString::fromLatin1(descriptor.name), translated(descriptor.help),
                                                     QString::fromLatin1(descriptor.valueName))
                                : QCommandLineOption(QString::fromLatin1(descriptor.name), translated(descriptor.help));
}

bool isSet(const QCommandLineParser& parser, const OptionDescriptor& descriptor) {
    return parser.isSet(QString::fromLatin1(descriptor.name));
}

QString valueOf(const QCommandLineParser& parser, const OptionDescriptor& descriptor) {
    return parser.value(QString::fromLatin1(descriptor.name));
}

// The one validation pass over the table: every value goes to its place and passes its check. The first
// problem is the one reported.
void readTable(const QCommandLineParser& parser, AppOptions& options) {
    const auto note = [&options](const QString& problem) {
        if (options.error.isEmpty() && !problem.isEmpty()) {
            options.error = problem;
        }
    };
    for (const OptionDescriptor& descriptor : optionTable()) {
        const QString name = QString::fromLatin1(descriptor.name);
        if (descriptor.flag) {
            options.*descriptor.flag = parser.isSet(name);
        }
        const QStringList given = descriptor.valueName && parser.isSet(name) ? parser.values(name) : QStringList();
        if (descriptor.value && !given.isEmpty()) {
            options.*descriptor.value = given.constLast();
        }
        if (descriptor.values) {
            options.*descriptor.values = given;
        }
        if (descriptor.check) {
            for (const QString& value :
                 descriptor.values ? given : given.mid(std::max<qsizetype>(0, given.size() - 1))) {
                note(descriptor.check(value));
            }
        }
        if (descriptor.word && !given.isEmpty()) {
            note(descriptor.word(options, descriptor.name, given.constLast()));
        }
    }
    note(checkExposeHostCount(options.exposeHost));
    if (parser.isSet(QString::fromLatin1(kTimeout.name)) && options.error.isEmpty()) {
        options.timeoutSeconds = valueOf(parser, kTimeout).toInt();
    }
}

// Which review action (--changes, --apply, --discard) and its arguments.
void readReview(const QCommandLineParser& parser, AppOptions& options) {
    const QStringList positional = parser.positionalArguments();
    options.mode = AppOptions::Mode::Review;
    if (isSet(parser, kChanges)) {
        options.reviewAction = AppOptions::ReviewAction::Changes;
        options.reviewSession = positional.value(0);
        if (positional.size() > 1) {
            options.error = translated(QT_TRANSLATE_NOOP("main", "--changes takes at most one SESSION"));
        }
    } else if (isSet(parser, kApply)) {
        options.reviewAction = AppOptions::ReviewAction::Apply;
        options.reviewSession = valueOf(parser, kApply);
        options.reviewPaths = positional;
    } else {
        options.reviewAction = AppOptions::ReviewAction::Discard;
        options.reviewSession = valueOf(parser, kDiscard);
        if (!positional.isEmpty()) {
            options.error = translated(QT_TRANSLATE_NOOP("main", "--discard takes one SESSION and nothing else"));
        }
    }
}

// Which secret action (--set-secret, --delete-secret, --list-secrets) and its name.
void readSecretAction(const QCommandLineParser& parser, AppOptions& options) {
    options.mode = AppOptions::Mode::Secrets;
    if (isSet(parser, kListSecrets)) {
        options.secretAction = AppOptions::SecretAction::List;
        return;
    }
    const bool set = isSet(parser, kSetSecret);
    options.secretAction = set ? AppOptions::SecretAction::Set : AppOptions::SecretAction::Delete;
    options.secretName = valueOf(parser, set ? kSetSecret : kDeleteSecret);
    if (!SecretStore::isValidName(options.secretName)) {
        options.error = SecretStore::nameProblem(options.secretName);
    }
}

// The mode: the first of version, review, secrets, diagnose, exec, build image, mcp, headless that is asked for.
void readMode(const QCommandLineParser& parser, const QCommandLineOption& version, AppOptions& options) {
    const int secretActions =
        int(isSet(parser, kSetSecret)) + int(isSet(parser, kDeleteSecret)) + int(isSet(parser, kListSecrets));
    const int reviewActions = int(isSet(parser, kChanges)) + int(isSet(parser, kApply)) + int(isSet(parser, kDiscard));
    if (parser.isSet(version)) {
        options.mode = AppOptions::Mode::Version;
    } else if (reviewActions > 1) {
        options.error = translated(QT_TRANSLATE_NOOP("main", "use one of --changes, --apply and --discard at a time"));
    } else if (reviewActions == 1) {
        readReview(parser, options);
    } else if (secretActions > 1) {
        options.error = translated(
            QT_TRANSLATE_NOOP("main", "use one of --set-secret, --delete-secret and --list-secrets at a time"));
    } else if (secretActions == 1) {
        readSecretAction(parser, options);
    } else if (isSet(parser, kDiagnose)) {
        options.mode = AppOptions::Mode::Diagnose;
    } else if (isSet(parser, kExec)) {
        options.mode = AppOptions::Mode::Exec;
        if (options.workspace.isEmpty()) {
            options.error = translated(QT_TRANSLATE_NOOP("main", "--exec needs --workspace DIR"));
        }
    } else if (isSet(parser, kBuildImage)) {
        options.mode = AppOptions::Mode::BuildImage;
    } else if (isSet(parser, kMcpHttp)) {
        options.mode = AppOptions::Mode::McpHttp;
    } else if (isSet(parser, kMcp)) {
        options.mode = AppOptions::Mode::Mcp;
    } else if (isSet(parser, kHeadless)) {
        options.mode = AppOptions::Mode::Headless;
        if (options.backend.isEmpty() || options.workspace.isEmpty()) {
            options.error = translated(QT_TRANSLATE_NOOP("main", "--headless needs --backend URL and --workspace DIR"));
        }
    }
}

}  // namespace

AppOptions parseAppOptions(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setApplicationDescription(translated(
        QT_TRANSLATE_NOOP("main", "Runs an AI agent's shell commands in a container that sees one folder.")));
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    for (const OptionDescriptor& descriptor : optionTable()) {
        parser.addOption(toOption(descriptor));
    }
    AppOptions options;
    if (!parser.parse(arguments)) {
        options.error = parser.errorText();
        return options;
    }
    if (parser.isSet(help)) {
        parser.showHelp(0);  // exits
    }
    readTable(parser, options);
    const QString optionError = options.error;
    readMode(parser, version, options);
    if (!optionError.isEmpty()) {
        options.error = optionError;  // a bad value is said before what the mode lacks
    }
    return options;
}

SandboxOverrides sandboxOverridesOf(const AppOptions& options) {
    SandboxOverrides overrides;
    overrides.image = options.image;
    overrides.profile = options.hardeningProfile;
    overrides.execMode = options.execMode;
    overrides.workspaceMode = options.workspaceMode;
    overrides.network = options.network;
    overrides.networkPreset = options.networkPreset;
    overrides.upstreamProxy = options.upstreamProxy;
    overrides.allowHosts = options.allowHosts;
    overrides.denyHosts = options.denyHosts;
    overrides.resolve = options.resolve;
    overrides.allowGitWrites = options.allowGitWrites;
    overrides.noHostCertificates = options.noHostCa;
    overrides.publish = options.publish;
    overrides.exposeHost = options.exposeHost;
    overrides.bindSecrets = options.bindSecrets;
    // The per-folder setting is the tray app's; headless and --exec take the command line's word alone.
    overrides.folderAccessFromSettings = options.mode == AppOptions::Mode::Gui;
    return overrides;
}

}  // namespace zeus
