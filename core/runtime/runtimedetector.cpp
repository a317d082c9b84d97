#include "runtime/runtimedetector.h"

#include "runtime/enginelocation.h"
#include "runtime/runtimeprobeparser.h"
#include "support/logging.h"
#include "support/processrunner.h"

#include <QDir>
#include <QJsonObject>
#include <QTimer>

#include <utility>

namespace zeus {

RuntimeDetector::RuntimeDetector(QObject* parent) : RuntimeDetector(Options(), parent) {}

RuntimeDetector::RuntimeDetector(Options options, QObject* parent) : QObject(parent), m_options(std::move(options)) {
    qRegisterMetaType<zeus::DetectionResult>();
}

RuntimeDetector::~RuntimeDetector() {
    // The runners are children: their destructors kill what still runs.
    for (const QPointer<ProcessRunner>& runner : std::as_const(m_runners)) {
        if (runner) {
            runner->disconnect(this);
        }
    }
}

void RuntimeDetector::setPreference(RuntimePreference preference) {
    m_preference = preference;
    if (m_result && !m_running) {
        const DetectionResult previous = *m_result;
        DetectionResult rechosen = DetectionResult::choose(previous.probes, preference);
        rechosen.finishedAt = previous.finishedAt;
        rechosen.durationMs = previous.durationMs;
        m_result = rechosen;
    }
}

void RuntimeDetector::detect() {
    if (m_running) {
        return;
    }
    if (m_result) {
        QTimer::singleShot(0, this, [this] {
            if (m_result && !m_running) {
                Q_EMIT detectionFinished(*m_result);
            }
        });
        return;
    }
    startProbes();
}

void RuntimeDetector::recheck() {
    if (m_running) {
        return;
    }
    startProbes();
}

QStringList RuntimeDetector::defaultExtraSearchPaths() {
#if defined(Q_OS_MACOS)
    return {QStringLiteral("/usr/local/bin"), QStringLiteral("/opt/homebrew/bin"),
            QStringLiteral("/Applications/Docker.app/Contents/Resources/bin"),
            QString(QDir::homePath() + QStringLiteral("/.docker/bin")), QStringLiteral("/opt/podman/bin")};
#elif defined(Q_OS_WIN)
    const QString programFiles = qEnvironmentVariable("ProgramFiles", QStringLiteral("C:\\Program Files"));
    return {QString(programFiles + QStringLiteral("\\Docker\\Docker\\resources\\bin")),
            QString(programFiles + QStringLiteral("\\RedHat\\Podman"))};
#else
    return {};
#endif
}

QProcessEnvironment RuntimeDetector::withSearchPaths(QProcessEnvironment environment, const QStringList& extras) {
    if (extras.isEmpty()) {
        return environment;
    }
    QStringList path = environment.value(QStringLiteral("PATH")).split(QDir::listSeparator(), Qt::SkipEmptyParts);
    for (const QString& extra : extras) {
        if (!path.contains(extra)) {
            path.append(extra);
        }
    }
    environment.insert(QStringLiteral("PATH"), path.join(QDir::listSeparator()));
    return environment;
}

ProcessRunner* RuntimeDetector::makeRunner(const QString& program, const QStringList& arguments, int timeoutMs) {
    auto* runner = new ProcessRunner(program, arguments, this);
    runner->setEnvironment(withSearchPaths(m_options.environment, m_options.extraSearchPaths));
    runner->setTimeoutMs(timeoutMs);
    runner->setKillGraceMs(m_options.killGraceMs);
    runner->setOutputLimit(256 * 1024);  // info output is a few KiB; anything far beyond is not an answer
    m_runners.append(runner);
    return runner;
}

void RuntimeDetector::startProbes() {
    m_running = true;
    m_probes.clear();
    m_appleVersion.reset();
    m_runners.clear();
    m_clock.start();
    m_appleClock.start();
    qCInfo(lcRuntime) << "detecting container runtimes, preference" << runtimePreferenceToString(m_preference);
    Q_EMIT detectionStarted();

    ProcessRunner* apple = makeRunner(m_options.appleProgram, {QStringLiteral("--version")}, m_options.appleTimeoutMs);
    connect(apple, &ProcessRunner::finished, this, [this, apple](const ProcessResult& result) {
        apple->deleteLater();
        onAppleVersion(result);
    });

    ProcessRunner* docker = makeRunner(
        m_options.dockerProgram, {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("{{json .}}")},
        m_options.dockerTimeoutMs);
    connect(docker, &ProcessRunner::finished, this, [this, docker](const ProcessResult& result) {
        docker->deleteLater();
        onDockerInfo(result);
    });

    ProcessRunner* podman = makeRunner(m_options.podmanProgram,
                                       {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("json")},
                                       m_options.podmanTimeoutMs);
    connect(podman, &ProcessRunner::finished, this, [this, podman](const ProcessResult& result) {
        podman->deleteLater();
        onPodmanInfo(result);
    });

    apple->start();
    docker->start();
    podman->start();
}

void RuntimeDetector::onAppleVersion(const ProcessResult& result) {
    m_appleVersion = result;
    if (!appleVersionStepPasses(result)) {
        probeDone(classifyApple(result, std::nullopt));
        return;
    }
    // Both Apple steps share one budget: the whole probe answers within appleTimeoutMs.
    const qint64 remaining = m_options.appleTimeoutMs - m_appleClock.elapsed();
    ProcessRunner* status =
        makeRunner(m_options.appleProgram, appleStatusArguments(parseAppleCliVersion(result.standardOutput)),
                   int(qMax<qint64>(1, remaining)));
    connect(status, &ProcessRunner::finished, this, [this, status](const ProcessResult& statusResult) {
        status->deleteLater();
        probeDone(classifyApple(*m_appleVersion, statusResult));
    });
    status->start();
}

void RuntimeDetector::runFollowUp(const QString& program, const QStringList& arguments, int budgetMs,
                                  std::function<void(const ProcessResult&)> done) {
    // The follow-up shares the probe's budget: the whole probe still answers within its timeout.
    const qint64 remaining = budgetMs - m_clock.elapsed();
    ProcessRunner* runner = makeRunner(program, arguments, int(qMax<qint64>(1, remaining)));
    connect(runner, &ProcessRunner::finished, this, [runner, done = std::move(done)](const ProcessResult& result) {
        runner->deleteLater();
        done(result);
    });
    runner->start();
}

void RuntimeDetector::onDockerInfo(const ProcessResult& result) {
    RuntimeProbe probe = classifyDockerInfo(result);
    const QString dockerHost = m_options.environment.value(QStringLiteral("DOCKER_HOST"));
    const std::optional<QJsonObject> json = parseJsonObjectTolerant(result.standardOutput);
    const QString context = json ? EngineLocation::dockerContextName(*json) : QString();
    if (!EngineLocation::needsDockerContextInspect(dockerHost, context)) {
        probe.location = EngineLocation::forDocker(dockerHost, context, QString());
        probeDone(probe);
        return;
    }
    // A named context (Docker Desktop's "desktop-linux", a remote one): only its endpoint says where it is.
    runFollowUp(
        m_options.dockerProgram, {QStringLiteral("context"), QStringLiteral("inspect"), QStringLiteral("--"), context},
        m_options.dockerTimeoutMs, [this, probe, context](const ProcessResult& inspect) mutable {
            const QString endpoint =
                inspect.succeeded() ? EngineLocation::parseDockerContextInspect(inspect.standardOutput) : QString();
            probe.location = EngineLocation::forDocker(QString(), context, endpoint);
            // The evidence keeps the endpoint only: the context's output names TLS files and may name users.
            ProbeStep step = ProbeStep::fromProcessResult(inspect);
            step.standardOutput = probe.location.host;
            probe.steps.append(step);
            probeDone(probe);
        });
}

void RuntimeDetector::onPodmanInfo(const ProcessResult& result) {
    RuntimeProbe probe = classifyPodmanInfo(result);
    const QString containerHost = m_options.environment.value(QStringLiteral("CONTAINER_HOST"));
    const std::optional<QJsonObject> json = parseJsonObjectTolerant(result.standardOutput);
    if (!json || !json->contains(QLatin1String("host"))) {
        // No answer to read: CONTAINER_HOST, when set, still says where the engine was looked for.
        if (!containerHost.trimmed().isEmpty()) {
            probe.location = EngineLocation::fromEndpoint(containerHost);
        }
        probeDone(probe);
        return;
    }
    const bool serviceIsRemote = EngineLocation::podmanServiceIsRemote(*json);
    const QString socket = EngineLocation::podmanRemoteSocket(*json);
    if (!serviceIsRemote || !containerHost.trimmed().isEmpty()) {
        probe.location = EngineLocation::forPodman(serviceIsRemote, socket, containerHost, std::nullopt);
        probeDone(probe);
        return;
    }
    // A remote client: the connection it used (CONTAINER_CONNECTION or the default) says where, and whether it
    // is a Podman machine of this computer.
    runFollowUp(m_options.podmanProgram,
                {QStringLiteral("system"), QStringLiteral("connection"), QStringLiteral("list"),
                 QStringLiteral("--format"), QStringLiteral("json")},
                m_options.podmanTimeoutMs, [this, probe, socket](const ProcessResult& list) mutable {
                    const auto connection =
                        list.succeeded() ? EngineLocation::parsePodmanConnections(
                            list.standardOutput, m_options.environment.value(QStringLiteral("CONTAINER_CONNECTION")))
                                         : std::nullopt;
                    probe.location = EngineLocation::forPodman(true, socket, QString(), connection);
                    // The evidence keeps the endpoint only: the list names identity files and users.
                    ProbeStep step = ProbeStep::fromProcessResult(list);
                    step.standardOutput = probe.location.host;
                    probe.steps.append(step);
                    probeDone(probe);
                });
}

void RuntimeDetector::probeDone(const RuntimeProbe& probe) {
    qCInfo(lcRuntime).noquote() << runtimeKindToString(probe.kind) << RuntimeProbe::stateToString(probe.state)
                                << probe.serverVersion << EngineLocation::kindToString(probe.location.kind)
                                << probe.location.host << probe.reason;
    m_probes.append(probe);
    if (m_probes.size() < runtimePriorityOrder().size()) {
        return;
    }
    DetectionResult result = DetectionResult::choose(m_probes, m_preference);
    result.finishedAt = QDateTime::currentDateTimeUtc();
    result.durationMs = m_clock.elapsed();
    m_result = result;
    m_running = false;
    m_runners.clear();
    qCInfo(lcRuntime).noquote() << "runtime:"
                                << (result.chosen ? runtimeKindToString(*result.chosen) : QStringLiteral("none"))
                                << "in" << result.durationMs << "ms" << result.reason;
    Q_EMIT detectionFinished(result);
}

}  // namespace zeus
