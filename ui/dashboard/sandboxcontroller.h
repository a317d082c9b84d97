#pragma once

#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

namespace zeus {

class AppSettings;
class ContainerMonitor;
class DashboardWindow;
class ImageBuildDialog;
class RuntimeDetector;
class SandboxHost;
class SessionManager;
class TrayNotifier;
struct EgressEvent;

// The sandbox in the dashboard: what each session manager and monitor the SandboxHost builds says goes to the
// Sessions page, the local console and the Network page; what the user asks there (stop a session, run or stop a
// console command, allow a host, build the image) goes to the sandbox. Failures worth a notice go to the tray.
// Every connection to a widget uses that widget as its context, so nothing reaches a page that is gone.
class SandboxController : public QObject {
    Q_OBJECT
public:
    SandboxController(SandboxHost& sandbox, RuntimeDetector& detector, AppSettings* settings,
                      DashboardWindow* dashboard, TrayNotifier* notifier, QObject* parent = nullptr);

    // Runs a command of the local console in its own session (SPEC §6: try the isolation without a backend).
    void runConsoleCommand(const QString& command);
    // Diagnostics -> Build Image…: the image the sandbox uses, with the runtime it uses, as --build-image does; a
    // success asks the runtime again (a new image may carry the agent the sandbox was waiting for).
    void buildImage();

Q_SIGNALS:
    // A call started or ended, a session changed state: the tray and the banner are derived again.
    void activityChanged();

private:
    void onRebuilt(SessionManager* manager, ContainerMonitor* monitor);
    void onEgressDecided(const EgressEvent& event);
    // Says a fallback to plain exec that happened anyway (SPEC §7) where the user looks: tray, console.
    void onExecPathChanged(const QString& sessionId, const QString& execPath);
    void connectNetworkPanel();
    // Published ports (SPEC §8): the Sessions page shows each session's, and publishes what the user asks for.
    void watchPorts(SessionManager* manager, const QString& sessionId);
    void openPort(const QString& sessionId, quint16 containerPort);

    SandboxHost& m_sandbox;
    RuntimeDetector& m_detector;
    AppSettings* m_settings;
    DashboardWindow* m_dashboard;
    TrayNotifier* m_notifier;
    QPointer<ImageBuildDialog> m_imageBuild;
    QSet<const QObject*> m_watchedPorts;  // the PublishedPorts whose changes reach the Sessions page
};

}  // namespace zeus
