// zeus-desktop --workspace DIR [--profile P] [--runtime R] [--image I] [--timeout S] --exec 'COMMAND'
// Runs one command through the whole path (workspace guard, runtime detection, a fresh
// hardened session container), streams its output, removes the container and exits with
// the command's exit code: 124 on timeout, 125 when refused (no runtime, bad workspace,
// missing image, container failure, no sandbox agent it can use) with the reason on stderr.
#include "appsettings.h"
#include "engine/imageinspector.h"
#include "modes.h"
#include "quitsignals.h"
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"
#include "sandbox/sessionmanager.h"
#include "sandbox/workspaceguard.h"
#include "sandboxsetup.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QTimer>
#include <QUuid>

#include <cstdio>

namespace zeus {

namespace {

constexpr int kRefused = 125;
constexpr int kTimedOut = 124;
constexpr int kCancelled = 130;

void writeTo(FILE* stream, const QString& text) {
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stream);
    std::fflush(stream);
}

void refuse(const QString& message) {
    writeTo(stderr, QStringLiteral("zeus-desktop: ") + message + QLatin1Char('\n'));
}

// The guard decides on the absolute path; a relative one is taken from the current directory.
QString absoluteWorkspace(const QString& workspace) {
    return QDir::isAbsolutePath(workspace) || workspace.contains(QLatin1Char('\n'))
               ? workspace
               : QFileInfo(workspace).absoluteFilePath();
}

void refuseAndExit(const QString& message) {
    refuse(message);
    QCoreApplication::exit(kRefused);
}

// What one --exec run holds while the event loop runs.
struct ExecRun {
    const AppOptions& options;
    QString workspace;  // the guard's canonical path
    QString sessionId;
    SandboxConfig config;  // the manager's, once detection is done
    std::unique_ptr<SessionManager> manager;
    int exitCode = kRefused;
};

// The process's exit code for the call's end; the reason of a timeout or an error goes to stderr.
int exitCodeOf(const ExecResult& call) {
    switch (call.status) {
        case ExecStatus::Ok:
            return call.exitCode.value_or(kRefused);
        case ExecStatus::Timeout:
            refuse(call.errorMessage);
            return kTimedOut;
        case ExecStatus::Cancelled:
            return kCancelled;
        case ExecStatus::Error:
            refuse(call.errorMessage + QStringLiteral(" [") + execErrorName(call.errorCode) + QLatin1Char(']'));
            return kRefused;
    }
    return kRefused;
}

QString reviewCopyMessage(const QString& session, const QString& folder, int changeCount) {
    return QStringLiteral(
               "review mode: %1 kept for review in session %2; see them with "
               "zeus-desktop --changes %2, apply with --apply %2, drop with "
               "--discard %2")
        .arg(changeCount < 0 ? QStringLiteral("the changes to %1").arg(folder)
                             : QStringLiteral("%1 changed files of %2").arg(changeCount).arg(folder),
             session);
}

// A fallback is said (SPEC §7): the agent was expected and did not start.
QString fallbackMessage(const QString& execPath, const SandboxConfig& config) {
    return QStringLiteral(
               "the sandbox agent is not available (%1): the command runs with a "
               "plain exec%2")
        .arg(execPath.mid(6), config.effectiveNetworkMode() == NetworkMode::Allowlist
                                  ? QStringLiteral("; no network: the allowlist reaches the container "
                                                   "only through the agent")
                                  : QString());
}

// The command's output goes to stdout/stderr as it comes; its end decides the exit code and removes the container.
void connectManager(ExecRun& run) {
    SessionManager* manager = run.manager.get();
    QObject::connect(manager, &SessionManager::output, [](const QString&, OutputStream stream, const QString& text) {
        writeTo(stream == OutputStream::Stdout ? stdout : stderr, text);
    });
    QObject::connect(manager, &SessionManager::callFinished, [&run](const ExecResult& call) {
        run.exitCode = exitCodeOf(call);
        if (call.truncated) {
            refuse(QStringLiteral("output truncated: %1 bytes in all, the first %2 shown")
                       .arg(call.stdoutBytes + call.stderrBytes)
                       .arg(run.config.outputCapBytes));
        }
        run.manager->shutdown();  // removes the container, then quits
    });
    QObject::connect(manager, &SessionManager::reviewCopyKept,
                     [](const QString& session, const QString& folder, int changeCount) {
                         refuse(reviewCopyMessage(session, folder, changeCount));
                     });
    QObject::connect(manager, &SessionManager::shutdownFinished, [&run] { QCoreApplication::exit(run.exitCode); });
    QObject::connect(manager, &SessionManager::sessionExecPathChanged, [&run](const QString&, const QString& execPath) {
        if (execPath.startsWith(QLatin1String("exec: "))) {
            refuse(fallbackMessage(execPath, run.config));
        }
    });
}

void startRun(ExecRun& run, SandboxSetup setup) {
    run.config = setup.config;
    run.manager = std::make_unique<SessionManager>(std::move(setup.runtime), setup.config);
    connectManager(run);
    ExecRequest request;
    request.callId = QStringLiteral("exec");
    request.sessionId = run.sessionId;
    request.workspace = run.workspace;
    request.command = run.options.command;
    request.timeoutSeconds =
        run.options.timeoutSeconds > 0 ? run.options.timeoutSeconds : run.config.defaultTimeoutSeconds;
    run.manager->execute(request);
}

}  // namespace

SandboxSetup execSandboxSetup(const AppOptions& options, AppSettings& settings, const DetectionResult& detection) {
    SandboxOverrides overrides = sandboxOverridesOf(options);
    return SandboxSetup::from(detection, settings, overrides);
}

int runExecMode(const AppOptions& options) {
    // stdout and stderr belong to the command: only warnings of the app itself appear
    // (QT_LOGGING_RULES can still turn the rest on).
    QLoggingCategory::setFilterRules(QStringLiteral("zeus.*.debug=false\nzeus.*.info=false"));
    const WorkspaceGuard::Result guard = WorkspaceGuard::check(absoluteWorkspace(options.workspace));
    if (!guard.accepted()) {
        refuse(guard.message + QStringLiteral(" (rule: ") + WorkspaceGuard::ruleName(guard.rule) + QLatin1Char(')'));
        return kRefused;
    }

    AppSettings settings;
    RuntimeDetector detector;
    detector.setPreference(options.runtimePreference.value_or(RuntimePreference::Auto));
    ExecRun run{options,
                guard.canonicalPath,
                QStringLiteral("exec-") + QUuid::createUuid().toString(QUuid::Id128).left(12),
                {},
                nullptr,
                kRefused};

    // Without an agent it can use, the run refuses unless plain exec was asked for (SPEC §7): on an engine of
    // this host with no agent beside the app, the image must carry its own.
    ImageInspector inspector;
    std::unique_ptr<SandboxSetup> pending;
    QObject::connect(&inspector, &ImageInspector::finished, &detector, [&](const ImageInspection& inspection) {
        if (!pending) {
            return;
        }
        SandboxSetup setup = std::move(*pending);
        pending.reset();
        if (const QString problem = missingAgentProblem(setup, inspection); !problem.isEmpty()) {
            refuseAndExit(problem);
            return;
        }
        startRun(run, std::move(setup));
    });
    QObject::connect(&detector, &RuntimeDetector::detectionFinished, &detector, [&](const DetectionResult& result) {
        if (!result.isUsable()) {
            refuseAndExit(result.unusableReason());
            return;
        }
        SandboxSetup setup = execSandboxSetup(options, settings, result);
        if (!setup.runtime) {
            refuseAndExit(setup.report.reason);
            return;
        }
        if (agentNeedsImageCheck(setup)) {
            pending = std::make_unique<SandboxSetup>(std::move(setup));
            inspector.inspect(*pending->runtime, pending->config.image);
            return;
        }
        startRun(run, std::move(setup));
    });
    // Ctrl-C, a TERM or a closed terminal must not leave the container behind: cancel the call, whose end
    // removes the container.
    QuitSignals quitSignals;
    quitSignals.install(QuitSignals::Hangup::Quit);
    QObject::connect(&quitSignals, &QuitSignals::quitRequested, &detector, [&] {
        if (run.manager && run.manager->cancel(QStringLiteral("exec"))) {
            return;  // callFinished follows: container removed, exit 130
        }
        QCoreApplication::exit(kCancelled);
    });
    QTimer::singleShot(0, &detector, &RuntimeDetector::detect);
    const int loopResult = QCoreApplication::exec();
    run.manager.reset();
    return loopResult;
}

}  // namespace zeus
