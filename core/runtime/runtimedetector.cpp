#include "runtime/runtimedetector.h"

#include "runtime/runtimeprobeparser.h"
#include "support/logging.h"
#include "support/processrunner.h"

#include <QDir>
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
        probeDone(classifyDockerInfo(result));
    });

    ProcessRunner* podman = makeRunner(m_options.podmanProgram,
                                       {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("json")},
                                       m_options.podmanTimeoutMs);
    connect(podman, &ProcessRunner::finished, this, [this, podman](const ProcessResult& result) {
        podman->deleteLater();
        probeDone(classifyPodmanInfo(result));
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

void RuntimeDetector::probeDone(const RuntimeProbe& probe) {
    qCInfo(lcRuntime).noquote() << runtimeKindToString(probe.kind) << RuntimeProbe::stateToString(probe.state)
                                << probe.serverVersion << probe.reason;
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
