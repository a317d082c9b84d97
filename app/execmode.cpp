// zeus-desktop --workspace DIR [--profile P] [--runtime R] [--image I] [--timeout S] --exec 'COMMAND'
// Runs one command through the whole path (workspace guard, runtime detection, a fresh
// hardened session container), streams its output, removes the container and exits with
// the command's exit code: 124 on timeout, 125 when refused (no runtime, bad workspace,
// missing image, container failure) with the reason on stderr.
#include "appsettings.h"
#include "engine/appleruntime.h"
#include "modes.h"
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"
#include "sandbox/sessionmanager.h"
#include "sandbox/workspaceguard.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QSocketNotifier>
#include <QTimer>
#include <QUuid>

#include <csignal>
#include <cstdio>

#if defined(Q_OS_UNIX)
#include <sys/socket.h>
#include <unistd.h>
#endif

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

#if defined(Q_OS_UNIX)
// Ctrl-C or a TERM must not leave the container behind: the handler only writes to a
// socket (async-signal-safe); the event loop then cancels the call and cleans up.
int g_signalPipe[2] = {-1, -1};
void onSignal(int) {
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(g_signalPipe[0], &byte, 1);
}
#endif

void refuse(const QString& message) {
    writeTo(stderr, QStringLiteral("zeus-desktop: ") + message + QLatin1Char('\n'));
}

}  // namespace

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
    const std::optional<RuntimePreference> preference = runtimePreferenceFromString(options.runtime);
    if (!preference) {
        refuse(QStringLiteral("unknown runtime '%1'").arg(options.runtime));
        return 2;
    }

    AppSettings settings;
    SandboxConfig config;
    config.ownerId = settings.installId();
    config.image = options.image.isEmpty() ? settings.image() : options.image;
    config.profile = parseHardeningProfile(options.profile.isEmpty() ? settings.hardeningProfile() : options.profile)
                         .value_or(HardeningProfile::Standard);
    config.pidsLimit = settings.pidsLimit();
    config.memory = QString::number(settings.memoryMiB()) + QLatin1Char('m');
    config.cpus = QString::number(settings.cpus());
    const int timeoutSeconds = options.timeoutSeconds > 0 ? options.timeoutSeconds : config.defaultTimeoutSeconds;

    RuntimeDetector detector;
    detector.setPreference(*preference);
    std::unique_ptr<SessionManager> manager;
    int exitCode = kRefused;
    const QString sessionId = QStringLiteral("exec-") + QUuid::createUuid().toString(QUuid::Id128).left(12);

    QObject::connect(&detector, &RuntimeDetector::detectionFinished, &detector, [&](const DetectionResult& result) {
        if (!result.isUsable()) {
            refuse(result.unusableReason());
            QCoreApplication::exit(kRefused);
            return;
        }
        const RuntimeProbe* probe = result.chosenProbe();
        std::unique_ptr<ContainerRuntime> runtime = ContainerRuntime::create(
            *result.chosen, probe && !probe->binaryPath.isEmpty() ? probe->binaryPath : QString());
        if (!runtime) {
            refuse(QString(kNoRuntimeMessage));
            QCoreApplication::exit(kRefused);
            return;
        }
        if (auto* apple = dynamic_cast<AppleRuntime*>(runtime.get()); apple && probe) {
            apple->setVersion(QVersionNumber::fromString(probe->clientVersion));
        }
        config.podmanRootless = probe && probe->rootless.value_or(false);
        manager = std::make_unique<SessionManager>(std::move(runtime), config);
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
        QObject::connect(manager.get(), &SessionManager::shutdownFinished, [&] { QCoreApplication::exit(exitCode); });
        ExecRequest request;
        request.callId = QStringLiteral("exec");
        request.sessionId = sessionId;
        request.workspace = guard.canonicalPath;
        request.command = options.command;
        request.timeoutSeconds = timeoutSeconds;
        manager->execute(request);
    });
#if defined(Q_OS_UNIX)
    std::unique_ptr<QSocketNotifier> signalNotifier;
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalPipe) == 0) {
        signalNotifier = std::make_unique<QSocketNotifier>(g_signalPipe[1], QSocketNotifier::Read);
        QObject::connect(signalNotifier.get(), &QSocketNotifier::activated, [&] {
            char byte = 0;
            [[maybe_unused]] const auto got = ::read(g_signalPipe[1], &byte, 1);
            if (manager && manager->cancel(QStringLiteral("exec"))) {
                return;  // callFinished follows: container removed, exit 130
            }
            QCoreApplication::exit(kCancelled);
        });
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);
        std::signal(SIGHUP, onSignal);
    }
#endif
    QTimer::singleShot(0, &detector, &RuntimeDetector::detect);
    const int loopResult = QCoreApplication::exec();
#if defined(Q_OS_UNIX)
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGHUP, SIG_DFL);
#endif
    manager.reset();
    return loopResult;
}

}  // namespace zeus
