// --headless --backend URL --workspace DIR [--runtime R] [--image I] [--profile P]: serve the backend's tool calls
// with no display (docs/headless.md). The named workspace is the only approved folder of this run. Logs go to
// stderr by category; SIGINT/SIGTERM cancel running calls, send their results, remove the containers and exit 0.
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "backend/backendurl.h"
#include "backend/credentialstore.h"
#include "backend/resultjournal.h"
#include "backend/tooldispatcher.h"
#include "diagnosticsections.h"
#include "engine/imageinspector.h"
#include "modes.h"
#include "monitor/containermonitor.h"
#include "quitsignals.h"
#include "runtime/runtimedetector.h"
#include "runtime/runtimekind.h"
#include "sandbox/sessionmanager.h"
#include "sandbox/workspaceguard.h"
#include "sandboxhost.h"
#include "secrets/secretbroker.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTextStream>
#include <QTimer>
#include <QUrl>

#include <cstdio>

namespace zeus {

namespace {

// Exit codes of headless mode (docs/headless.md).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitNoToken = 3;
constexpr int kExitAuthFailed = 4;
constexpr int kExitNoAgent = 5;
constexpr int kExitWorkspaceRefused = 125;

constexpr int kShutdownDeadlineMs = 30000;  // cancelling calls and removing containers
constexpr int kAckWaitMs = 2000;            // after that, for the backend to ack the last results

// Test hooks, read only here and documented in docs/headless.md as such: short heartbeat and backoff so the
// end-to-end tests detect a dead backend in seconds, and a larger output cap for the benchmark.
qint64 testHook(const char* name, qint64 fallback) {
    bool ok = false;
    const qint64 value = qEnvironmentVariable(name).toLongLong(&ok);
    return ok && value > 0 ? value : fallback;
}

void installLogFormat() {
    if (qEnvironmentVariableIsEmpty("QT_MESSAGE_PATTERN")) {
        qSetMessagePattern(
            QStringLiteral("%{time yyyy-MM-ddTHH:mm:ss.zzz} %{category} "
                           "%{if-debug}debug%{endif}%{if-info}info%{endif}%{if-warning}warning%{endif}"
                           "%{if-critical}critical%{endif}%{if-fatal}fatal%{endif}: %{message}"));
    }
}

// A line for the terminal: text the app did not write itself (an image name, an engine's words) loses its control
// characters, so it cannot move the cursor or talk to the terminal.
QString terminalText(const QString& text) {
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        out += (u < 0x20 && u != u'\t') || (u >= 0x7f && u <= 0x9f) ? QChar(u'?') : c;
    }
    return out;
}

// Session notices go to stdout: app/run.sh sends stderr (the log) to a file and leaves stdout on the terminal,
// where the test backend prints the calls and results.
void printNotice(const QString& line) {
    const QByteArray bytes = (terminalText(line) + QLatin1Char('\n')).toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

bool isExecPath(const QString& execPath) {
    return execPath.startsWith(QLatin1String("exec"));
}

// Everything one headless run owns, wired in runHeadlessMode().
struct HeadlessService {
    explicit HeadlessService(const AppOptions& runOptions)
        : options(runOptions), sandbox(&settings, headlessSandboxOverrides(runOptions)) {}

    AppOptions options;
    QString workspace;  // canonical
    QUrl url;
    AppSettings settings;
    RuntimeDetector detector;
    CredentialStore credentials;
    SecretBroker secrets;
    BackendConnection connection;
    ToolDispatcher dispatcher{&connection};
    SandboxHost sandbox;
    std::optional<DetectionResult> detection;
    ImageInspector imageInspector;
    std::optional<ImageInspection> image;  // the sandbox image as the engine described it at start-up
    bool agentCheckPending = false;        // the token is read once the image shows it carries an agent
    QHash<QString, QString> announced;     // session -> the exec path its notices last said
    bool shuttingDown = false;
    bool managerDone = false;
    bool finishing = false;
    int exitCode = kExitOk;
    QTimer shutdownDeadline;

    void onDetection(const DetectionResult& result) {
        detection = result;
        sandbox.setDetection(result);
        if (!sandbox.manager()) {
            qCWarning(lcApp).noquote() << "no usable container runtime; every command is refused:" << result.reason;
            credentials.readToken(url.toString());
            return;
        }
        // What the image is (for the console's session lines), and whether it carries an agent when this host has
        // none to mount: without an agent it can use, the run does not call itself ready (SPEC §7).
        const SandboxSetup setup = sandbox.setupFor(result);
        agentCheckPending = agentNeedsImageCheck(setup);
        imageInspector.inspect(*setup.runtime, setup.config.image);
        if (!agentCheckPending) {
            credentials.readToken(url.toString());
        }
    }

    void onImageInspected(const ImageInspection& inspection) {
        image = inspection;
        if (!agentCheckPending || shuttingDown) {
            return;
        }
        agentCheckPending = false;
        const QString problem = missingAgentProblem(sandbox.setupFor(*detection), image);
        if (!problem.isEmpty()) {
            QTextStream(stderr) << "zeus-desktop: " << problem << "\n";
            beginShutdown(kExitNoAgent);
            return;
        }
        credentials.readToken(url.toString());
    }

    // A manager now serves: its sessions' paths are said on stdout.
    void watch(SessionManager* manager) {
        QObject::connect(manager, &SessionManager::sessionExecPathChanged, &dispatcher,
                         [this, manager](const QString& sessionId, const QString& execPath) {
                             announce(*manager, sessionId, execPath);
                         });
        QObject::connect(manager, &SessionManager::sessionStateChanged, &dispatcher,
                         [this](const QString& sessionId, SessionState state, const QString&) {
                             if (state == SessionState::Stopped) {
                                 announced.remove(sessionId);  // the next container is said again
                             }
                         });
    }

    void announce(const SessionManager& manager, const QString& sessionId, const QString& execPath) {
        if (execPath.isEmpty() || execPath.endsWith(QLatin1String("(starting)"))) {
            return;  // no container, or the agent is still saying hello: the line follows
        }
        const auto last = announced.constFind(sessionId);
        if (last != announced.constEnd() && *last == execPath) {
            return;
        }
        const bool full = last == announced.constEnd();
        announced.insert(sessionId, execPath);
        SessionNoticeFacts facts;
        facts.sessionId = sessionId;
        facts.execPath = execPath;
        facts.cli = QFileInfo(manager.runtime().program().isEmpty() ? runtimeProgram(manager.runtime().kind())
                                                                    : manager.runtime().program())
                        .fileName();
        facts.policy = manager.egressPolicy(sessionId);
        facts.image = manager.config().image;
        if (image && image->image == facts.image) {
            facts.inspection = image;
        }
        for (const QString& line : sessionNoticeLines(facts, full)) {
            printNotice(line);
        }
    }

    void onToken(const CredentialStore::Result& result) {
        QString token;
        if (result.status == CredentialStore::Status::Ok && !result.token.isEmpty()) {
            token = result.token;
            qCInfo(lcApp) << "sign-in token from" << (result.fromEnvironment ? "ZEUS_DESKTOP_TOKEN" : "the keychain");
        } else {
            // Every backend needs a token, a ws:// one on this computer too (SPEC §5 "No anonymous backends"):
            // another local user can bind a loopback port first.
            QTextStream(stderr) << "zeus-desktop: no sign-in token for " << url.toString() << ": " << result.message
                                << "\nSet ZEUS_DESKTOP_TOKEN or sign in from the tray app.\n";
            beginShutdown(kExitNoToken);
            return;
        }
        if (shuttingDown) {
            return;
        }
        connection.setUrl(url);
        connection.setToken(token);
        connection.start();
    }

    void onConnectionState(BackendConnection::State state) {
        if (state == BackendConnection::State::AuthFailed) {
            qCCritical(lcBackend).noquote() << connection.lastError();
            beginShutdown(kExitAuthFailed);
        } else if (state == BackendConnection::State::Error) {
            qCCritical(lcBackend).noquote() << connection.lastError();
        }
    }

    void beginShutdown(int code) {
        if (shuttingDown) {
            qCInfo(lcApp) << "already shutting down";
            return;
        }
        shuttingDown = true;
        exitCode = code;
        qCInfo(lcApp) << "shutting down:" << dispatcher.runningCalls() << "calls running";
        shutdownDeadline.setSingleShot(true);
        QObject::connect(&shutdownDeadline, &QTimer::timeout, &dispatcher, [this] {
            qCWarning(lcApp) << "shutdown took longer than" << kShutdownDeadlineMs << "ms; exiting";
            QCoreApplication::exit(exitCode);
        });
        shutdownDeadline.start(kShutdownDeadlineMs);
        // Cancels (abandons) every call -- their results go out as cancelled -- and removes every container.
        sandbox.shutdown();
    }

    void maybeFinish() {
        if (!shuttingDown || !managerDone || dispatcher.runningCalls() > 0 || finishing) {
            return;
        }
        finishing = true;
        if (connection.state() == BackendConnection::State::Connected && dispatcher.results().size() > 0) {
            // Give the backend a moment to acknowledge the last results; the frames are flushed meanwhile.
            qCInfo(lcApp) << "waiting up to" << kAckWaitMs << "ms for" << dispatcher.results().size() << "acks";
            QObject::connect(&dispatcher, &ToolDispatcher::resultAcknowledged, &dispatcher, [this] {
                if (dispatcher.results().size() == 0) {
                    QCoreApplication::exit(exitCode);
                }
            });
            QTimer::singleShot(kAckWaitMs, &dispatcher, [this] { QCoreApplication::exit(exitCode); });
            return;
        }
        // Let queued frames leave before the socket is torn down.
        QTimer::singleShot(100, &dispatcher, [this] { QCoreApplication::exit(exitCode); });
    }
};

}  // namespace

SandboxOverrides headlessSandboxOverrides(const AppOptions& options) {
    SandboxOverrides overrides = sandboxOverridesOf(options);
    overrides.outputCapBytes = testHook("ZEUS_TEST_OUTPUT_CAP_BYTES", 0);
    return overrides;
}

bool agentNeedsImageCheck(const SandboxSetup& setup) {
#if defined(Q_OS_LINUX)
    // Only an engine on this kernel mounts the host's agent; a VM or remote engine uses the image's copy anyway, and
    // a session that finds none there falls back to plain exec and says so.
    return setup.runtime && setup.config.execMode == ExecMode::Agent && setup.runtime->kind() != RuntimeKind::Apple
           && !setup.config.engineRemote && setup.config.agentHostPath.isEmpty();
#else
    Q_UNUSED(setup)
    return false;
#endif
}

QString missingAgentProblem(const SandboxSetup& setup, const std::optional<ImageInspection>& image) {
    if (!agentNeedsImageCheck(setup)) {
        return {};
    }
    const QString name = setup.config.image;
    QString imageSays;
    if (!image || image->outcome == ImageInspection::Outcome::Failed) {
        imageSays =
            QStringLiteral("the engine could not say whether the image %1 has one%2")
                .arg(name, image && !image->error.isEmpty() ? QStringLiteral(" (%1)").arg(image->error) : QString());
    } else if (image->outcome == ImageInspection::Outcome::Missing) {
        imageSays = QStringLiteral("there is no image %1 either").arg(name);
    } else {
        switch (DiagnosticSections::classifyImage(*image)) {
            case DiagnosticSections::ImageKind::Sandbox:
                return {};  // the Zeus sandbox image carries its own copy
            case DiagnosticSections::ImageKind::OfflineTest:
                imageSays = QStringLiteral("the image %1 is the offline test image, which has none").arg(name);
                break;
            case DiagnosticSections::ImageKind::Custom:
                imageSays = QStringLiteral("the image %1 is not the Zeus sandbox image (which carries one)").arg(name);
                break;
        }
    }
    QStringList looked;
    for (const QString& candidate : SandboxSetup::agentCandidates()) {
        looked << QDir::cleanPath(candidate);
    }
    return QStringLiteral(
               "no sandbox agent to run commands through: zeus-sandbox-agent is not beside the app (looked for %1), "
               "and %2. Without it every command would be a plain exec (slower) and the network allowlist would "
               "have no network. Build it (cmake --build BUILD_DIR --target zeus_sandbox_agent; app/run.sh does), "
               "point ZEUS_SANDBOX_AGENT at it, or run with --exec-mode exec to accept plain exec.")
        .arg(looked.join(QStringLiteral(", ")), imageSays);
}

namespace {

QString ruleList(const QList<HostRule>& rules) {
    constexpr int kShown = 6;
    QStringList texts;
    for (const HostRule& rule : rules) {
        if (texts.size() == kShown) {
            texts << QStringLiteral("%1 more").arg(rules.size() - kShown);
            break;
        }
        texts << rule.text;
    }
    return texts.join(QStringLiteral(", "));
}

QString networkNotice(const SessionNoticeFacts& facts) {
    switch (facts.policy.mode) {
        case NetworkMode::Open:
            return QStringLiteral("network open: the engine's own network, nothing filtered");
        case NetworkMode::None:
            return QStringLiteral("network none: the container has no network");
        case NetworkMode::Allowlist:
            break;
    }
    if (facts.execPath == QLatin1String("exec (forced)")) {
        return QStringLiteral(
            "no network: the sandbox agent is not used (--exec-mode exec), and the allowlist "
            "reaches the container only through it");
    }
    if (isExecPath(facts.execPath)) {
        return QStringLiteral(
            "no network: the sandbox agent is not available, and the allowlist reaches the "
            "container only through it");
    }
    QStringList allowed;
    if (!EgressPolicy::presetRules(facts.policy.preset).isEmpty()) {
        allowed << QStringLiteral("the %1 preset (package registries and GitHub)").arg(facts.policy.preset);
    }
    if (!facts.policy.allow.isEmpty()) {
        allowed << ruleList(facts.policy.allow);
    }
    QString text = QStringLiteral("network allowlist through the agent's proxy: ")
                   + (allowed.isEmpty() ? QStringLiteral("no host allowed")
                                        : QStringLiteral("allowed %1").arg(allowed.join(QStringLiteral(" and "))));
    if (!facts.policy.deny.isEmpty()) {
        text += QStringLiteral("; denied %1").arg(ruleList(facts.policy.deny));
    }
    return text + QStringLiteral("; any other host gets HTTP 403");
}

QString imageNotice(const SessionNoticeFacts& facts) {
    QString prefix = QStringLiteral("image ") + facts.image;
    if (!facts.inspection) {
        return prefix;
    }
    const ImageInspection& inspection = *facts.inspection;
    switch (inspection.outcome) {
        case ImageInspection::Outcome::Missing:
            return prefix + QStringLiteral(": missing (zeus-desktop --build-image builds it)");
        case ImageInspection::Outcome::Failed:
            return prefix + QStringLiteral(" (the engine did not describe it: %1)").arg(inspection.error);
        case ImageInspection::Outcome::Present:
            break;
    }
    switch (DiagnosticSections::classifyImage(inspection)) {
        case DiagnosticSections::ImageKind::Sandbox: {
            QString text = prefix + QStringLiteral(": the Zeus sandbox image");
            const QString version = inspection.labels.value(QStringLiteral("org.opencontainers.image.version"));
            const QString base = inspection.labels.value(QStringLiteral("org.opencontainers.image.base.name"));
            if (!version.isEmpty()) {
                text += QStringLiteral(", version ") + version;
            }
            // How it was built (docker/ensure-image.sh's labels): a registry's base, or the distribution's archive.
            if (inspection.labels.value(QStringLiteral("zeus.image.source")) == QLatin1String("debootstrap")) {
                const QString distribution = inspection.labels.value(QStringLiteral("zeus.image.distribution"));
                text += QStringLiteral(", built from the distribution's package archive")
                        + (distribution.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(distribution));
            } else if (!base.isEmpty()) {
                text += QStringLiteral(", on ") + base;
            }
            return text;
        }
        case DiagnosticSections::ImageKind::OfflineTest:
            return prefix
                   + QStringLiteral(
                       ": only the offline test image (busybox, bash and git; no Python, Node.js "
                       "or compilers), not the real sandbox image (zeus-desktop --build-image)");
        case DiagnosticSections::ImageKind::Custom:
            break;
    }
    return prefix + QStringLiteral(": a custom image, not built from the app's Dockerfile");
}

}  // namespace

QStringList sessionNoticeLines(const SessionNoticeFacts& facts, bool full) {
    const QString prefix = QStringLiteral("session %1: ").arg(facts.sessionId);
    const QString cli = facts.cli.isEmpty() ? QStringLiteral("engine") : facts.cli;
    QStringList lines;
    if (facts.execPath.startsWith(QLatin1String("agent "))) {
        lines << prefix
                     + QStringLiteral("commands run through the sandbox agent %1 (one channel per session)")
                           .arg(facts.execPath.mid(6));
    } else if (facts.execPath == QLatin1String("exec (forced)")) {
        lines << prefix + QStringLiteral("commands run with a plain %1 exec each (--exec-mode exec)").arg(cli);
    } else {
        const QString why = facts.execPath.startsWith(QLatin1String("exec: ")) ? facts.execPath.mid(6) : facts.execPath;
        lines << prefix
                     + QStringLiteral(
                           "commands run with a plain %1 exec each (slower): the sandbox agent is not "
                           "available (%2)")
                           .arg(cli, why);
    }
    if (full || facts.policy.mode == NetworkMode::Allowlist) {
        lines << prefix + networkNotice(facts);
    }
    if (full) {
        lines << prefix + imageNotice(facts);
    }
    return lines;
}

void applyApprovalOptions(const AppOptions& options, AppSettings& settings, ToolDispatcher& dispatcher) {
    ApprovalPolicy rules;
    rules.allow = options.allowCommands;
    rules.deny = options.denyCommands;
    dispatcher.setApprovalPolicies(settings.approvalPolicies());
    dispatcher.setApprovalOverrides(rules, approvalModeFromName(options.approval));
    QObject::connect(&settings, &AppSettings::approvalPoliciesChanged, &dispatcher,
                     [&settings, &dispatcher] { dispatcher.setApprovalPolicies(settings.approvalPolicies()); });
    QObject::connect(&dispatcher, &ToolDispatcher::approvalRulesMatched, &settings,
                     [&settings](const QString& folder, const QStringList& matched) {
                         settings.noteApprovalRulesMatched(folder, matched);
                     });
    QObject::connect(&dispatcher, &ToolDispatcher::approvalRuleAdded, &settings,
                     [&settings](const QString& folder, const QString& prefix) {
                         settings.addApprovalRule(folder, ApprovalRuleKind::Allow, prefix);
                     });
}

int runHeadlessMode(const AppOptions& options) {
    installLogFormat();

    const WorkspaceGuard::Result guard = WorkspaceGuard::check(options.workspace);
    if (!guard.accepted()) {
        QTextStream(stderr) << "zeus-desktop: refused workspace " << options.workspace << ": " << guard.message
                            << " (rule: " << WorkspaceGuard::ruleName(guard.rule) << ")\n";
        return kExitWorkspaceRefused;
    }
    // The rule the tray app and the settings use: a URL carrying a token is refused here too.
    if (const QString problem = BackendUrl::problem(options.backend); !problem.isEmpty()) {
        QTextStream(stderr) << "zeus-desktop: " << problem << "\n";
        return kExitUsage;
    }
    const QUrl url(options.backend.trimmed());
    QuitSignals quitSignals;
    if (!quitSignals.install()) {
        QTextStream(stderr) << "zeus-desktop: cannot install the signal handlers\n";
        return 1;
    }

    HeadlessService service(options);
    const QString runtimeName = options.runtime.isEmpty() ? service.settings.runtimePreference() : options.runtime;
    const std::optional<RuntimePreference> preference = runtimePreferenceFromString(runtimeName);
    if (!preference) {
        QTextStream(stderr) << "zeus-desktop: unknown runtime '" << runtimeName << "'\n";
        return kExitUsage;
    }
    service.workspace = guard.canonicalPath;
    service.url = url;

    BackendConnection::Settings connectionSettings;
    const qint64 heartbeat = testHook("ZEUS_TEST_HEARTBEAT_MS", 0);
    if (heartbeat > 0) {
        connectionSettings.pingIntervalMs = heartbeat;
        connectionSettings.pongTimeoutMs = heartbeat;
        connectionSettings.handshakeTimeoutMs = qMax<qint64>(heartbeat * 4, 1000);
    }
    const qint64 backoff = testHook("ZEUS_TEST_RECONNECT_MS", 0);
    if (backoff > 0) {
        connectionSettings.reconnect.initialDelayMs = backoff;
        connectionSettings.reconnect.maxDelayMs = backoff * 8;
    }
    service.connection.setSettings(connectionSettings);

    HelloMessage client;
    client.clientName = QStringLiteral(ZEUS_APP_NAME);
    client.clientVersion = QStringLiteral(ZEUS_VERSION);
    client.os = QSysInfo::prettyProductName();
    client.arch = QSysInfo::currentCpuArchitecture();
    client.deviceId = service.settings.deviceId();
    service.dispatcher.setClientInfo(client);
    service.dispatcher.setApprovedWorkspaces({service.workspace});
    // Command approval (SPEC §11): the folder's settings plus this run's --approval and rules. No queue is set:
    // headless there is nobody to ask, so what would be asked is denied.
    applyApprovalOptions(options, service.settings, service.dispatcher);
    // No one to ask: only the names given with --allow-secret are approved (SPEC §9).
    service.secrets.setKnownNames(service.settings.secretNames());
    service.secrets.setPreApproved(options.allowedSecrets);
    service.secrets.setInteractive(false);
    QObject::connect(&service.secrets, &SecretBroker::used, &service.dispatcher, [&service](const QStringList& names) {
        for (const QString& name : names) {
            service.settings.setSecretLastUsed(name, QDateTime::currentDateTimeUtc());
        }
    });
    service.dispatcher.setSecretBroker(&service.secrets);
    // Results the last run owed this backend, and the calls it left running (SPEC §5 "Results survive the app").
    service.dispatcher.setJournalPath(
        ResultJournal::pathFor(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation), url.toString()));
    service.sandbox.setMonitorEnabled(false);  // nothing shows container states here
    service.sandbox.setDispatcher(&service.dispatcher);

    QObject::connect(&service.sandbox, &SandboxHost::rebuilt, &service.dispatcher,
                     [&service](SessionManager* manager, ContainerMonitor*) { service.watch(manager); });
    QObject::connect(&service.imageInspector, &ImageInspector::finished, &service.dispatcher,
                     [&service](const ImageInspection& inspection) { service.onImageInspected(inspection); });
    QObject::connect(&service.detector, &RuntimeDetector::detectionFinished, &service.dispatcher,
                     [&service](const DetectionResult& detection) { service.onDetection(detection); });
    QObject::connect(&service.credentials, &CredentialStore::readFinished, &service.dispatcher,
                     [&service](const QString&, const CredentialStore::Result& result) { service.onToken(result); });
    QObject::connect(&service.connection, &BackendConnection::stateChanged, &service.dispatcher,
                     [&service](BackendConnection::State state) { service.onConnectionState(state); });
    QObject::connect(&service.dispatcher, &ToolDispatcher::idle, &service.dispatcher,
                     [&service] { service.maybeFinish(); });

    QObject::connect(&service.sandbox, &SandboxHost::shutdownFinished, &service.dispatcher, [&service] {
        service.managerDone = true;
        service.maybeFinish();
    });
    QObject::connect(&quitSignals, &QuitSignals::quitRequested, &service.dispatcher, [&service](int signal) {
        qCInfo(lcApp) << "signal" << signal << "received";
        service.beginShutdown(kExitOk);
    });

    qCInfo(lcApp).noquote() << ZEUS_APP_NAME << ZEUS_VERSION << "headless: serving" << service.workspace << "for"
                            << url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery);
    service.detector.setPreference(*preference);
    QTimer::singleShot(0, &service.detector, [&service] { service.detector.detect(); });
    const int code = QCoreApplication::exec();
    service.connection.stop();
    return code;
}

}  // namespace zeus
