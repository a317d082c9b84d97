// --headless --backend URL --workspace DIR [--runtime R] [--image I] [--profile P]: serve the backend's tool calls
// with no display (docs/headless.md). The named workspace is the only approved folder of this run. Logs go to
// stderr by category; SIGINT/SIGTERM cancel running calls, send their results, remove the containers and exit 0.
#include "agenthostservice.h"
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "backend/backendurl.h"
#include "backend/tooldispatcher.h"
#include "diagnosticsections.h"
#include "modes.h"
#include "monitor/containermonitor.h"
#include "quitsignals.h"
#include "runtime/runtimekind.h"
#include "sandbox/sessionmanager.h"
#include "sandbox/workspaceguard.h"
#include "secrets/interceptca.h"
#include "support/logging.h"
#include "support/vocabulary.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QHash>
#include <QTextStream>
#include <QTimer>
#include <QUrl>

#include <cstdio>
#include <functional>
#include <utility>

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
    const QByteArray bytes = (line + QLatin1Char('\n')).toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

bool isExecPath(const QString& execPath) {
    return execPath.startsWith(QLatin1String("exec"));
}

// Connection timings of this run: the defaults, or the test hooks' short heartbeat and backoff.
BackendConnection::Settings headlessConnectionSettings() {
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
    return connectionSettings;
}

// Says how the sessions of the service's serving manager run their commands (sessionNoticeLines()), on stdout in
// headless mode and on stderr in MCP mode (its stdout carries MCP messages only).
class SessionAnnouncer {
public:
    SessionAnnouncer(const AgentHostService& service, std::function<void(const QString&)> notice)
        : m_service(service), m_notice(std::move(notice)) {}

    // A manager now serves: its sessions' paths are said on stdout.
    void watch(SessionManager* manager) {
        QObject::connect(manager, &SessionManager::sessionExecPathChanged, &m_context,
                         [this, manager](const QString& sessionId, const QString& execPath) {
                             announce(*manager, sessionId, execPath);
                         });
        QObject::connect(manager, &SessionManager::sessionStateChanged, &m_context,
                         [this](const QString& sessionId, SessionState state, const QString&) {
                             if (state == SessionState::Stopped) {
                                 m_announced.remove(sessionId);  // the next container is said again
                             }
                         });
    }

private:
    void announce(const SessionManager& manager, const QString& sessionId, const QString& execPath) {
        if (execPath.isEmpty() || execPath.endsWith(QLatin1String("(starting)"))) {
            return;  // no container, or the agent is still saying hello: the line follows
        }
        const auto last = m_announced.constFind(sessionId);
        if (last != m_announced.constEnd() && *last == execPath) {
            return;
        }
        const bool full = last == m_announced.constEnd();
        m_announced.insert(sessionId, execPath);
        SessionNoticeFacts facts;
        facts.sessionId = sessionId;
        facts.execPath = execPath;
        facts.cli = QFileInfo(manager.runtime().program().isEmpty() ? runtimeProgram(manager.runtime().kind())
                                                                    : manager.runtime().program())
                        .fileName();
        facts.policy = manager.egressPolicy(sessionId);
        facts.image = manager.config().image;
        const std::optional<ImageInspection>& image = m_service.imageInspection();
        if (image && image->image == facts.image) {
            facts.inspection = image;
        }
        for (const QString& line : sessionNoticeLines(facts, full)) {
            m_notice(terminalText(line));
        }
    }

    const AgentHostService& m_service;
    std::function<void(const QString&)> m_notice;
    QHash<QString, QString> m_announced;  // session -> the exec path its notices last said
    QObject m_context;  // ends the connections with this object: managers say their last states after it is gone
};

}  // namespace

SandboxOverrides headlessSandboxOverrides(const AppOptions& options) {
    SandboxOverrides overrides = sandboxOverridesOf(options);
    overrides.outputCapBytes = testHook("ZEUS_TEST_OUTPUT_CAP_BYTES", 0);
    return overrides;
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
        allowed << QStringLiteral("the %1 preset (package registries and GitHub)").arg(wordOf(facts.policy.preset));
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
    dispatcher.setApprovalOverrides(rules, options.approval);
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

void installHeadlessLogFormat() {
    installLogFormat();
}

namespace {

// Starts the service; with host-bound secrets (SPEC §9) only once the interception CA is read or made, since the
// first session needs it. A keychain that cannot give it ends the run: bound secrets are never sent as they are.
void startService(AgentHostService& service, InterceptCa* interceptCa) {
    if (interceptCa == nullptr) {
        service.start();
        return;
    }
    QObject::connect(
        interceptCa, &InterceptCa::ready, &service, [&service, interceptCa](const InterceptCa::Result& result) {
            if (result.status != InterceptCa::Status::Ok) {
                QTextStream(stderr) << "zeus-desktop: the secrets bound to hosts need the interception CA: "
                                    << result.message << "\n";
                QCoreApplication::exit(kExitUsage);
                return;
            }
            qCInfo(lcApp).noquote() << "interception CA of host-bound secrets:" << interceptCa->fingerprint()
                                    << (result.created ? "(made now)" : "");
            service.start();
        });
    QTimer::singleShot(0, interceptCa, [interceptCa] { interceptCa->load(); });
}

}  // namespace

int runHeadlessCore(const AppOptions& options, AppSettings& settings, const HeadlessCore& core) {
    QuitSignals quitSignals;
    if (!quitSignals.install()) {
        QTextStream(stderr) << "zeus-desktop: cannot install the signal handlers\n";
        return 1;
    }
    const std::optional<RuntimePreference> preference = options.runtimePreference
                                                            ? options.runtimePreference
                                                            : runtimePreferenceFromString(settings.runtimePreference());
    if (!preference) {
        QTextStream(stderr) << "zeus-desktop: unknown runtime '" << settings.runtimePreference() << "'\n";
        return kExitUsage;
    }
    AgentHostService::Options serviceOptions;
    serviceOptions.backend = core.backend;
    serviceOptions.runtime = *preference;
    serviceOptions.sandbox = headlessSandboxOverrides(options);
    // Host-bound secrets (SPEC §9: this run's --bind-secret and Settings → Secrets "Use only with…") need the
    // interception CA before the first session: it is read (or made) now.
    std::shared_ptr<InterceptCa> interceptCa;
    if (!options.bindSecrets.isEmpty() || !settings.secrets().bindings().isEmpty()) {
        interceptCa = std::make_shared<InterceptCa>();
        serviceOptions.sandbox.interceptCa = interceptCa;
    }
    serviceOptions.connection = headlessConnectionSettings();
    serviceOptions.monitorEnabled = false;  // nothing shows container states here
    serviceOptions.shutdownDeadlineMs = kShutdownDeadlineMs;
    serviceOptions.ackWaitMs = kAckWaitMs;
    serviceOptions.token = core.token;
    serviceOptions.journal = core.journal;
    AgentHostService service(&settings, serviceOptions);
    service.dispatcher().setApprovedWorkspaces(core.workspaces);
    // Command approval (SPEC §11): the folder's settings plus this run's --approval and rules. No queue is set:
    // headless there is nobody to ask, so what would be asked is denied.
    applyApprovalOptions(options, settings, service.dispatcher());
    // No one to ask: only the names given with --allow-secret are approved (SPEC §9).
    service.secrets().setPreApproved(options.allowedSecrets);
    service.secrets().setInteractive(false);
    // Published ports (SPEC §8): nobody can approve the backend's open_port here but the command line.
    service.portRequests().setApproved(options.allowPublish);

    int exitCode = kExitOk;
    const std::function<void(int)> endWith = [&service, &exitCode](int code) {
        const AgentHostService::State state = service.state();
        if (state != AgentHostService::State::ShuttingDown && state != AgentHostService::State::Stopped) {
            exitCode = code;
        }
        service.shutdown();
    };
    QObject::connect(&service, &AgentHostService::stateChanged, &service,
                     [&service, &exitCode, &endWith](AgentHostService::State state) {
                         if (state == AgentHostService::State::NotReady) {
                             QTextStream(stderr) << "zeus-desktop: " << service.readinessProblem() << "\n";
                             endWith(kExitNoAgent);
                         } else if (state == AgentHostService::State::Stopped) {
                             QCoreApplication::exit(exitCode);
                         }
                     });
    const QUrl& url = core.backend;
    QObject::connect(&service, &AgentHostService::signInMissing, &service, [&url, &endWith](const QString& message) {
        QTextStream(stderr) << "zeus-desktop: no sign-in token for " << url.toString() << ": " << message
                            << "\nSet ZEUS_DESKTOP_TOKEN or sign in from the tray app.\n";
        endWith(kExitNoToken);
    });
    QObject::connect(&service.connection(), &BackendConnection::stateChanged, &service,
                     [&service, &endWith](BackendConnection::State state) {
                         if (state == BackendConnection::State::AuthFailed) {
                             qCCritical(lcBackend).noquote() << service.connection().lastError();
                             endWith(kExitAuthFailed);
                         } else if (state == BackendConnection::State::Error) {
                             qCCritical(lcBackend).noquote() << service.connection().lastError();
                         }
                     });
    SessionAnnouncer announcer(service, core.notice ? core.notice : printNotice);
    QObject::connect(&service.sandbox(), &SandboxHost::rebuilt, &service,
                     [&announcer](SessionManager* manager, ContainerMonitor*) { announcer.watch(manager); });
    QObject::connect(&quitSignals, &QuitSignals::quitRequested, &service, [&endWith](int signal) {
        qCInfo(lcApp) << "signal" << signal << "received";
        endWith(kExitOk);
    });
    if (core.wire) {
        core.wire(service, endWith);
    }

    qCInfo(lcApp).noquote() << ZEUS_APP_NAME << ZEUS_VERSION << core.description;
    startService(service, interceptCa.get());
    const int code = QCoreApplication::exec();
    service.connection().stop();
    return code;
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
    HeadlessCore core;
    core.backend = QUrl(options.backend.trimmed());
    core.workspaces = {guard.canonicalPath};
    core.description = QStringLiteral("headless: serving %1 for %2")
                           .arg(guard.canonicalPath, core.backend.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery));
    AppSettings settings;
    return runHeadlessCore(options, settings, core);
}

}  // namespace zeus
