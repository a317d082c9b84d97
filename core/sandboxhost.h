#pragma once

#include "runtime/detectionresult.h"
#include "sandboxsetup.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <utility>

namespace zeus {

class AppSettings;
class ContainerMonitor;
class ReviewWorker;
class SessionManager;
class ToolDispatcher;

// The sandbox of a long-running mode (tray app and headless): owns the SessionManager and the ContainerMonitor of
// the current runtime and settings, and hands the manager to the ToolDispatcher.
//
// It rebuilds both when the runtime or a sandbox setting changes. Rebuilds are coalesced: every change within one
// event-loop turn (one Settings -> OK writes up to six fields) leads to one rebuild, and the swap waits until the
// old manager is idle (no running call, no open session), since replacing it would kill the user's work. Until
// then the old manager keeps serving. Everything is built through SandboxSetup.
//
// It must never run a command itself, swap a manager that has work running, or build a sandbox the detection did
// not choose.
class SandboxHost : public QObject {
    Q_OBJECT
public:
    // What the sandbox can do now, in one word.
    enum class State {
        NoRuntime,     // no usable runtime detected (yet): calls are refused with no_runtime
        NotReady,      // a runtime is usable but a readiness problem stands (no sandbox agent): calls refused with it
        Ready,         // the manager serves calls with the current settings
        SwapPending,   // settings or runtime changed: the old manager serves until it is idle, then is replaced
        ShuttingDown,  // shutdown(): calls cancelled, containers being removed
        Stopped,       // shutdown finished
    };
    Q_ENUM(State)

    SandboxHost(AppSettings* settings, SandboxOverrides overrides, QObject* parent = nullptr);
    ~SandboxHost() override;

    // The dispatcher that gets the serving manager (null while no runtime is usable) and hello's runtime report.
    void setDispatcher(ToolDispatcher* dispatcher);
    // Another dispatcher that gets the same (the tray app's MCP door, GuiMcpHost): every rebuild, readiness change
    // and detection reaches it as it reaches the first. The dispatchers share the manager and tell their calls and
    // sessions apart by id (ToolDispatcher::setIdNamespace()). Removed with removeDispatcher() or its destruction.
    void addDispatcher(ToolDispatcher* dispatcher);
    void removeDispatcher(ToolDispatcher* dispatcher);
    // The review worker every manager it builds shares with the core service's ReviewService (set before the first
    // detection; without one each manager makes its own).
    void setReviewWorker(std::shared_ptr<ReviewWorker> worker) { m_reviewWorker = std::move(worker); }
    // Whether a ContainerMonitor is kept next to the manager (on by default; headless has no one to show it to).
    void setMonitorEnabled(bool enabled) { m_monitorEnabled = enabled; }
    // Kept across rebuilds.
    void setStatsPollingEnabled(bool enabled);

    // The detector's answer: builds the first manager, swaps to another runtime, or stops serving.
    void setDetection(const DetectionResult& detection);
    // What a rebuild would build now for this detection (the settings as they are, this run's overrides).
    SandboxSetup setupFor(const DetectionResult& detection) const;
    // Why the sandbox may not call itself ready although the runtime is usable (no sandbox agent it can use,
    // SPEC §7), or empty. While set, hello says "unavailable" with this reason and calls are refused with it;
    // the manager is kept, so clearing it (the image was rebuilt) serves at once.
    void setReadinessProblem(const QString& problem);
    QString readinessProblem() const { return m_readinessProblem; }

    // Cancels every call and removes every container; shutdownFinished() follows (also without a manager).
    void shutdown();

    State state() const { return m_state; }
    // The current manager (it may no longer serve calls while no runtime is usable), or null.
    SessionManager* manager() const { return m_manager.get(); }
    ContainerMonitor* monitor() const { return m_monitor.get(); }
    RuntimeReport runtimeReport() const { return effectiveReport(); }
    // How many managers were built (for tests and diagnostics).
    int rebuilds() const { return m_rebuilds; }

Q_SIGNALS:
    void stateChanged(zeus::SandboxHost::State state);
    // A new manager (and monitor, null when disabled) now serves; the previous ones are shutting down.
    void rebuilt(zeus::SessionManager* manager, zeus::ContainerMonitor* monitor);
    void shutdownFinished();

private:
    void requestRebuild();
    void rebuildIfIdle();
    void rebuild();
    bool isIdle() const;
    bool runtimeChanged() const;
    void serve(SessionManager* manager);
    void updateState();
    // The detection's report, unless a readiness problem keeps the sandbox from serving.
    RuntimeReport effectiveReport() const;
    // The first dispatcher and the added ones that still exist.
    QList<ToolDispatcher*> dispatchers() const;
    // The manager a dispatcher serves with now: none while no runtime is usable or a readiness problem stands.
    SessionManager* servingManager() const;

    AppSettings* m_settings;
    SandboxOverrides m_overrides;
    QPointer<ToolDispatcher> m_dispatcher;
    QList<QPointer<ToolDispatcher>> m_addedDispatchers;
    std::optional<DetectionResult> m_detection;
    RuntimeReport m_report;
    QString m_readinessProblem;
    std::shared_ptr<ReviewWorker> m_reviewWorker;
    std::unique_ptr<SessionManager> m_manager;
    std::unique_ptr<ContainerMonitor> m_monitor;
    QTimer m_rebuildTimer;  // zero interval: the end of this event-loop turn
    State m_state = State::NoRuntime;
    bool m_swapPending = false;  // the manager was built for other settings or another runtime
    bool m_monitorEnabled = true;
    bool m_statsPolling = false;
    int m_rebuilds = 0;
};

}  // namespace zeus
