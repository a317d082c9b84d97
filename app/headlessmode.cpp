// --headless --backend URL --workspace DIR [--runtime R] [--image I] [--profile P]: serve the backend's tool calls
// with no display (docs/headless.md). The named workspace is the only approved folder of this run. Logs go to
// stderr by category; SIGINT/SIGTERM cancel running calls, send their results, remove the containers and exit 0.
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "backend/backendurl.h"
#include "backend/credentialstore.h"
#include "backend/resultjournal.h"
#include "backend/tooldispatcher.h"
#include "modes.h"
#include "quitsignals.h"
#include "runtime/runtimedetector.h"
#include "sandbox/workspaceguard.h"
#include "sandboxhost.h"
#include "secrets/secretbroker.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTextStream>
#include <QTimer>
#include <QUrl>

namespace zeus {

namespace {

// Exit codes of headless mode (docs/headless.md).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitNoToken = 3;
constexpr int kExitAuthFailed = 4;
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
    bool shuttingDown = false;
    bool managerDone = false;
    bool finishing = false;
    int exitCode = kExitOk;
    QTimer shutdownDeadline;

    void onDetection(const DetectionResult& detection) {
        sandbox.setDetection(detection);
        if (!sandbox.manager()) {
            qCWarning(lcApp).noquote() << "no usable container runtime; every command is refused:" << detection.reason;
        }
        credentials.readToken(url.toString());
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
