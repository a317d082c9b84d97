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

}  // namespace

SandboxSetup execSandboxSetup(const AppOptions& options, AppSettings& settings, const DetectionResult& detection) {
    SandboxOverrides overrides = sandboxOverridesOf(options);
    return SandboxSetup::from(detection, settings, overrides);
}

int runExecMode(const AppOptions& options) {
    // stdout and stderr belong to the command: only warnings of the app itself appear
    // (QT_LOGGING_RULES can still turn the rest on).
    QLoggingCategory::setFilterRules(QStringLiteral("zeus.*.debug=false\nzeus.*.info=false"));
    // The guard decides on the absolute path; a relative one is taken from the current directory.
    const QString workspace = QDir::isAbsolutePath(options.workspace) || options.workspace.contains(QLatin1Char('\n'))
                                  ? options.workspace
                                  : QFileInfo(options.workspace).absoluteFilePath();
    const WorkspaceGuard::Result guard = WorkspaceGuard::check(workspace);
    if (!guard.accepted()) {
        refuse(guard.message + QStringLiteral(" (rule: ") + WorkspaceGuard::ruleName(guard.rule) + QLatin1Char(')'));
        return kRefused;
    }

    AppSettings settings;
    SandboxConfig config;  // the manager's, once detection is done
    RuntimeDetector detector;
    detector.setPreference(options.runtimePreference.value_or(RuntimePreference::Auto));
    std::unique_ptr<SessionManager> manager;
    int exitCode = kRefused;
    const QString sessionId = QStringLiteral("exec-") + QUuid::createUuid().toString(QUuid::Id128).left(12);

    const auto run = [&](SandboxSetup setup) {
        config = setup.config;
        manager = std::make_unique<SessionManager>(std::move(setup.runtime), setup.config);
        QObject::connect(manager.get(), &SessionManager::output,
                         [](const QString&, OutputStream stream, const QString& text) {
                             writeTo(stream == OutputStream::Stdout ? stdout : stderr, text);
                         });
        QObject::connect(manager.get(), &SessionManager::callFinished, [&](const ExecResult& call) {
            switch (call.status) {
                case ExecStatus::Ok:
                    exitCode = call.exitCode.value_or(kRefused);
                    break;
                case ExecStatus::Timeout:
                    refuse(call.errorMessage);
                    exitCode = kTimedOut;
                    break;
                case ExecStatus::Cancelled:
                    exitCode = kCancelled;
                    break;
                case ExecStatus::Error:
                    refuse(call.errorMessage + QStringLiteral(" [") + execErrorName(call.errorCode) + QLatin1Char(']'));
                    exitCode = kRefused;
                    break;
            }
            if (call.truncated) {
                refuse(QStringLiteral("output truncated: %1 bytes in all, the first %2 shown")
                           .arg(call.stdoutBytes + call.stderrBytes)
                           .arg(config.outputCapBytes));
            }
            manager->shutdown();  // removes the container, then quits
        });
        QObject::connect(
            manager.get(), &SessionManager::reviewCopyKept,
            [&](const QString& session, const QString& folder, int changeCount) {
                refuse(QStringLiteral("review mode: %1 kept for review in session %2; see them with "
                                      "zeus-desktop --changes %2, apply with --apply %2, drop with "
                                      "--discard %2")
                           .arg(changeCount < 0 ? QStringLiteral("the changes to %1").arg(folder)
                                                : QStringLiteral("%1 changed files of %2").arg(changeCount).arg(folder),
                                session));
            });
        QObject::connect(manager.get(), &SessionManager::shutdownFinished, [&] { QCoreApplication::exit(exitCode); });
        // A fallback is said (SPEC §7): the agent was expected and did not start.
        QObject::connect(
            manager.get(), &SessionManager::sessionExecPathChanged, [&](const QString&, const QString& execPath) {
                if (!execPath.startsWith(QLatin1String("exec: "))) {
                    return;
                }
                refuse(
                    QStringLiteral("the sandbox agent is not available (%1): the command runs with a "
                                   "plain exec%2")
                        .arg(execPath.mid(6), config.effectiveNetworkMode() == NetworkMode::Allowlist
                                                  ? QStringLiteral("; no network: the allowlist reaches the container "
                                                                   "only through the agent")
                                                  : QString()));
            });
        ExecRequest request;
        request.callId = QStringLiteral("exec");
        request.sessionId = sessionId;
        request.workspace = guard.canonicalPath;
        request.command = options.command;
        request.timeoutSeconds = options.timeoutSeconds > 0 ? options.timeoutSeconds : config.defaultTimeoutSeconds;
        manager->execute(request);
    };
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
            refuse(problem);
            QCoreApplication::exit(kRefused);
            return;
        }
        run(std::move(setup));
    });
    QObject::connect(&detector, &RuntimeDetector::detectionFinished, &detector, [&](const DetectionResult& result) {
        if (!result.isUsable()) {
            refuse(result.unusableReason());
            QCoreApplication::exit(kRefused);
            return;
        }
        SandboxSetup setup = execSandboxSetup(options, settings, result);
        if (!setup.runtime) {
            refuse(setup.report.reason);
            QCoreApplication::exit(kRefused);
            return;
        }
        if (agentNeedsImageCheck(setup)) {
            pending = std::make_unique<SandboxSetup>(std::move(setup));
            inspector.inspect(*pending->runtime, pending->config.image);
            return;
        }
        run(std::move(setup));
    });
    // Ctrl-C, a TERM or a closed terminal must not leave the container behind: cancel the call, whose end
    // removes the container.
    QuitSignals quitSignals;
    quitSignals.install(QuitSignals::Hangup::Quit);
    QObject::connect(&quitSignals, &QuitSignals::quitRequested, &detector, [&] {
        if (manager && manager->cancel(QStringLiteral("exec"))) {
            return;  // callFinished follows: container removed, exit 130
        }
        QCoreApplication::exit(kCancelled);
    });
    QTimer::singleShot(0, &detector, &RuntimeDetector::detect);
    const int loopResult = QCoreApplication::exec();
    manager.reset();
    return loopResult;
}

}  // namespace zeus
