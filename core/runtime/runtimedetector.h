#pragma once

#include "runtime/detectionresult.h"
#include "runtime/runtimekind.h"
#include "support/processresult.h"
#include "support/processrunner.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>

#include <functional>
#include <optional>

namespace zeus {

class ProcessRunner;

// Finds out which container runtime can be used: probes Apple Containerization, Docker and
// Podman concurrently (each with its own timeout and terminate-then-kill), classifies each
// answer (runtimeprobeparser.h) and chooses by priority or preference.
//
// Owns the probe processes while they run and the cached DetectionResult afterwards. It
// never blocks, never runs a shell, and never picks a runtime other than the preferred one
// when a preference is set. It does not install or start anything: it only looks.
class RuntimeDetector : public QObject {
    Q_OBJECT

public:
    // Injection points for tests and for packaging (a CLI outside PATH).
    struct Options {
        QProcessEnvironment environment = ProcessRunner::childEnvironment();
        int appleTimeoutMs = 3000;  // for both Apple steps together
        int dockerTimeoutMs = 5000;
        int podmanTimeoutMs = 5000;
        int killGraceMs = 1000;
        QString appleProgram = QStringLiteral("container");
        QString dockerProgram = QStringLiteral("docker");
        QString podmanProgram = QStringLiteral("podman");
        // Appended to the environment's PATH (the user's own PATH wins): where the CLIs are
        // installed when the app was started from Finder or the Start menu with a minimal
        // PATH. Empty on Linux, where desktop sessions inherit the login PATH.
        QStringList extraSearchPaths = defaultExtraSearchPaths();
    };

    // Homebrew, Docker Desktop, Podman and Apple container install locations per platform.
    static QStringList defaultExtraSearchPaths();
    // environment with extras appended to its PATH (skipping ones already there).
    static QProcessEnvironment withSearchPaths(QProcessEnvironment environment, const QStringList& extras);

    explicit RuntimeDetector(QObject* parent = nullptr);
    explicit RuntimeDetector(Options options, QObject* parent = nullptr);
    ~RuntimeDetector() override;

    const Options& options() const { return m_options; }
    RuntimePreference preference() const { return m_preference; }
    // Takes effect on the next detection; a cached result is re-chosen at once (no probe).
    void setPreference(RuntimePreference preference);

    // Detects unless a result is cached or a run is in progress. With a cached result,
    // detectionFinished() is emitted again (from the event loop) so callers need one path.
    void detect();
    // Probes again now, ignoring the cache ("Re-check", --diagnose). While a run is in
    // progress this does nothing: that run's result is already fresh.
    void recheck();

    bool isRunning() const { return m_running; }
    bool hasResult() const { return m_result.has_value(); }
    // The cached result (a default one, with nothing chosen, before the first run ends).
    DetectionResult result() const { return m_result.value_or(DetectionResult()); }

Q_SIGNALS:
    void detectionStarted();
    void detectionFinished(const zeus::DetectionResult& result);

private:
    void startProbes();
    ProcessRunner* makeRunner(const QString& program, const QStringList& arguments, int timeoutMs);
    void onAppleVersion(const ProcessResult& result);
    void onDockerInfo(const ProcessResult& result);
    void onPodmanInfo(const ProcessResult& result);
    // Runs one more step of a probe within what is left of its budget, then hands the result to `done`.
    void runFollowUp(const QString& program, const QStringList& arguments, int budgetMs,
                     std::function<void(const ProcessResult&)> done);
    void probeDone(const RuntimeProbe& probe);

    Options m_options;
    RuntimePreference m_preference = RuntimePreference::Auto;
    std::optional<DetectionResult> m_result;
    bool m_running = false;
    QElapsedTimer m_clock;
    QElapsedTimer m_appleClock;
    std::optional<ProcessResult> m_appleVersion;
    QList<RuntimeProbe> m_probes;
    QList<QPointer<ProcessRunner>> m_runners;
};

}  // namespace zeus
