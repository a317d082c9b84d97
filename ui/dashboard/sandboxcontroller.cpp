#include "dashboard/sandboxcontroller.h"

#include "appsettings.h"
#include "dashboard/dashboardwindow.h"
#include "dashboard/imagebuilddialog.h"
#include "dashboard/localconsole.h"
#include "dashboard/networkpanel.h"
#include "engine/imagebuilder.h"
#include "monitor/containermonitor.h"
#include "runtime/runtimedetector.h"
#include "sandbox/exposedports.h"
#include "sandbox/sandboxsession.h"
#include "sandbox/sessionmanager.h"
#include "sandboxhost.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "tray/traynotifier.h"

#include <zeus/buildinfo.h>

#include <QUuid>

namespace zeus {

SandboxController::SandboxController(SandboxHost& sandbox, RuntimeDetector& detector, AppSettings* settings,
                                     DashboardWindow* dashboard, TrayNotifier* notifier, QObject* parent)
    : QObject(parent),
      m_sandbox(sandbox),
      m_detector(detector),
      m_settings(settings),
      m_dashboard(dashboard),
      m_notifier(notifier) {
    connect(&m_sandbox, &SandboxHost::rebuilt, this, &SandboxController::onRebuilt);
    connect(m_dashboard, &DashboardWindow::sessionsPageVisibleChanged, &m_sandbox,
            &SandboxHost::setStatsPollingEnabled);
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    connect(sessions, &SessionsPanel::stopRequested, this, [this](const QString& sessionId) {
        if (SessionManager* manager = m_sandbox.manager()) {
            manager->endSession(sessionId);
        }
    });
    connect(sessions, &SessionsPanel::openPortRequested, this, &SandboxController::openPort);
    LocalConsole* console = m_dashboard->console();
    connect(console, &LocalConsole::runRequested, this, &SandboxController::runConsoleCommand);
    connect(console, &LocalConsole::stopRequested, this, [this](const QString& callId) {
        if (SessionManager* manager = m_sandbox.manager()) {
            manager->cancel(callId);
        }
    });
    connect(m_dashboard->diagnosticsPanel(), &DiagnosticsPanel::buildImageRequested, this,
            &SandboxController::buildImage);
    connectNetworkPanel();
}

// A new manager and monitor (first runtime, other runtime or new settings): show what they do.
void SandboxController::onRebuilt(SessionManager* manager, ContainerMonitor* monitor) {
    SessionsPanel* sessions = m_dashboard->sessionsPanel();
    LocalConsole* console = m_dashboard->console();
    connect(manager, &SessionManager::output, sessions,
            [sessions, console](const QString& callId, OutputStream stream, const QString& text) {
                sessions->appendOutput(callId, stream, text);
                console->appendOutput(callId, stream, text);
            });
    connect(manager, &SessionManager::callFinished, sessions, [this, sessions, console](const ExecResult& result) {
        sessions->callFinished(result);
        console->callFinished(result);
        if (result.status == ExecStatus::Error
            && (result.errorCode == ExecError::ImageMissing || result.errorCode == ExecError::ContainerFailed)) {
            m_notifier->notifyLimited(QStringLiteral("failed ") + result.errorMessage, tr("Command failed"),
                                      result.errorMessage, true);
        }
        Q_EMIT activityChanged();
    });
    connect(manager, &SessionManager::sessionStateChanged, sessions,
            [this, sessions, manager](const QString& sessionId, SessionState state, const QString& containerId) {
                sessions->setSessionState(sessionId, state, containerId);
                watchPorts(manager, sessionId);
                Q_EMIT activityChanged();
            });
    connect(manager, &SessionManager::sessionLogEntryAdded, sessions, &SessionsPanel::addLogEntry);
    connect(manager, &SessionManager::egressDecided, m_dashboard->networkPanel(),
            [this](const EgressEvent& event) { onEgressDecided(event); });
    connect(manager, &SessionManager::sessionExecPathChanged, sessions->model(), &SessionTableModel::setExecPath);
    connect(manager, &SessionManager::queuedCallsChanged, sessions->model(), &SessionTableModel::setQueuedCalls);
    connect(manager, &SessionManager::sessionExecPathChanged, console,
            [this](const QString& sessionId, const QString& execPath) { onExecPathChanged(sessionId, execPath); });
    if (monitor) {
        SessionTableModel* table = sessions->model();
        connect(monitor, &ContainerMonitor::containerEvent, table,
                [table](const QString& containerId, const QString&, ContainerEvent::State state, int exitCode) {
                    table->applyContainerEvent(containerId, state, exitCode);
                });
        connect(monitor, &ContainerMonitor::statsUpdated, table,
                [table](const QString& containerId, double cpuPercent, qint64 memoryBytes) {
                    table->setUsageForContainer(containerId, cpuPercent, memoryBytes);
                });
    }
}

namespace {

// The manager keeps its sessions as children: the Sessions page needs nothing more of it to reach one.
SandboxSession* sessionOf(SessionManager* manager, const QString& sessionId) {
    const QList<SandboxSession*> sessions =
        manager ? manager->findChildren<SandboxSession*>(Qt::FindDirectChildrenOnly) : QList<SandboxSession*>();
    for (SandboxSession* session : sessions) {
        if (session->id() == sessionId) {
            return session;
        }
    }
    return nullptr;
}

}  // namespace

void SandboxController::watchPorts(SessionManager* manager, const QString& sessionId) {
    SandboxSession* session = sessionOf(manager, sessionId);
    if (session == nullptr || m_watchedPorts.contains(&session->publishedPorts())) {
        return;
    }
    const PublishedPorts* ports = &session->publishedPorts();
    m_watchedPorts.insert(ports);
    SessionsPanel* panel = m_dashboard->sessionsPanel();
    connect(ports, &PublishedPorts::portsChanged, panel,
            [panel, ports, sessionId] { panel->setPorts(sessionId, ports->ports()); });
    connect(ports, &QObject::destroyed, this, [this, ports, panel, sessionId] {
        m_watchedPorts.remove(ports);
        panel->setPorts(sessionId, {});
    });
    panel->setPorts(sessionId, ports->ports());
}

void SandboxController::openPort(const QString& sessionId, quint16 containerPort) {
    SessionManager* manager = m_sandbox.manager();
    SandboxSession* session = sessionOf(manager, sessionId);
    if (session == nullptr) {
        return;  // ended meanwhile: the button goes with it
    }
    watchPorts(manager, sessionId);
    QString error;
    if (!session->publishPort({0, containerPort}, &error)) {
        session->logEvent(QStringLiteral("Port %1 not published: %2.").arg(containerPort).arg(error));
    }
}

void SandboxController::onEgressDecided(const EgressEvent& event) {
    m_dashboard->networkPanel()->addEvent(event);
    if (!event.allowed && event.rule.startsWith(ExposedPorts::ruleName())) {
        // Only a forged frame gets here. No allowlist rule fixes it, so none is offered: "Allow once" would open
        // this computer's loopback to the proxy instead.
        m_notifier->notifyLimited(QStringLiteral("expose ") + event.sessionId,
                                  tr("Refused: port %1 of this computer").arg(event.port),
                                  tr("The sandbox of session %1 asked for port %2 of this computer, which was not "
                                     "exposed (--expose-host). It was refused.")
                                      .arg(event.sessionId)
                                      .arg(event.port),
                                  true);
        return;
    }
    if (event.secretNotBound) {
        // No rule fixes this one either: the secret is not meant for that host (SPEC §9), so none is offered.
        m_notifier->notifyLimited(QStringLiteral("not bound ") + event.sessionId + QLatin1Char(' ') + event.host,
                                  tr("Secret kept from %1").arg(event.host),
                                  tr("A command of session %1 sent a secret's placeholder to %2, a host it is not "
                                     "bound to (%3). The request was refused; nothing of it was sent.")
                                      .arg(event.sessionId, event.host, event.rule),
                                  true);
        return;
    }
    if (!event.tlsUntrusted) {
        m_notifier->notifyDenied(event);
        return;
    }
    // No rule fixes this one: the sandbox lacks the root that signed what the server (or the network) presented.
    const QString text =
        tr("The certificate of %1 is not trusted by the sandbox. If this network inspects TLS, add its CA to this "
           "computer's trust store; and if the sandbox does not get this computer's certificates, turn on "
           "Settings > Network > \"Trust this computer's root certificates in the sandbox\" (or run without "
           "--no-host-ca).")
            .arg(event.host);
    if (event.sessionId == LocalConsole::kSessionId) {
        m_dashboard->console()->addNotice(text);
    }
    m_notifier->notifyLimited(QStringLiteral("untrusted ") + event.sessionId + QLatin1Char(' ') + event.host,
                              tr("Certificate not trusted: %1").arg(event.host), text, true);
}

void SandboxController::onExecPathChanged(const QString& sessionId, const QString& execPath) {
    // "exec: <why>" is a fallback that happened although an agent was expected; "exec (forced)" was asked for.
    if (!execPath.startsWith(QLatin1String("exec: "))) {
        return;
    }
    const QString why = execPath.mid(6);
    const QString text =
        tr("The sandbox agent is not available (%1): commands run with plain exec, slower, and an allowlist session "
           "has no network.")
            .arg(why);
    if (sessionId == LocalConsole::kSessionId) {
        m_dashboard->console()->addNotice(text);
    }
    m_notifier->notifyLimited(QStringLiteral("exec path ") + sessionId, tr("Sandbox agent not available"), text, true);
}

void SandboxController::connectNetworkPanel() {
    NetworkPanel* panel = m_dashboard->networkPanel();
    connect(panel, &NetworkPanel::allowOnceRequested, this,
            [this](const QString& session, const QString& host, int port) {
                if (SessionManager* manager = m_sandbox.manager()) {
                    manager->allowHostOnce(session, host, port);
                }
            });
    connect(panel, &NetworkPanel::allowForSessionRequested, this, [this](const QString& session, const QString& rule) {
        if (SessionManager* manager = m_sandbox.manager()) {
            manager->allowHostForSession(session, rule);
        }
    });
    connect(panel, &NetworkPanel::allowForFolderRequested, this, [this](const QString& session, const QString& rule) {
        const SessionManager* manager = m_sandbox.manager();
        const QString folder = manager != nullptr ? manager->sessionWorkspace(session) : QString();
        if (!folder.isEmpty()) {
            m_settings->addFolderAllowedHost(folder, rule);  // the live sessions get it through the settings
        }
    });
    // A click on the last "Blocked" notification opens the policy log at that host.
    connect(m_notifier, &TrayNotifier::deniedNoticeClicked, panel, [this, panel](const EgressEvent& event) {
        m_dashboard->present(DashboardWindow::Page::Network);
        panel->selectHost(event.sessionId, event.host, event.port);
    });
}

void SandboxController::runConsoleCommand(const QString& command) {
    LocalConsole* console = m_dashboard->console();
    SessionManager* manager = m_sandbox.manager();
    if (!manager || console->workspace().isEmpty()) {
        return;
    }
    ExecRequest request;
    request.callId = QStringLiteral("console-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    request.sessionId = LocalConsole::kSessionId;
    request.workspace = console->workspace();
    request.command = command;
    console->callStarted(request.callId, command);
    m_dashboard->sessionsPanel()->noteCall(request.callId, request.sessionId, command, request.workspace);
    manager->execute(request);
    Q_EMIT activityChanged();
}

void SandboxController::buildImage() {
    if (m_imageBuild) {
        m_imageBuild->raise();
        m_imageBuild->activateWindow();
        return;
    }
    const QString dockerDir = ImageBuilder::locateDockerDirectory();
    const std::optional<DetectionResult> detection =
        m_detector.hasResult() ? std::optional<DetectionResult>(m_detector.result()) : std::nullopt;
    QString problem;
    if (!detection || !detection->chosen) {
        problem = detection ? detection->unusableReason() : tr("The container runtime is still being checked.");
    } else if (dockerDir.isEmpty()) {
        problem = tr("The sandbox Dockerfile was not found. Reinstall %1, or set ZEUS_DOCKER_DIR to the folder "
                     "that holds it.")
                      .arg(QStringLiteral(ZEUS_APP_NAME));
    }
    if (!problem.isEmpty()) {
        m_notifier->notify(tr("Cannot build the image"), problem, true);
        return;
    }
    const ImageBuilder::Request request = ImageBuilder::sandboxRequest(
        SandboxSetup::cliProgram(*detection), m_sandbox.setupFor(*detection).config.image, dockerDir);
    m_imageBuild = new ImageBuildDialog(request, runtimeDisplayName(*detection->chosen), m_dashboard);
    m_imageBuild->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_imageBuild, &ImageBuildDialog::buildFinished, &m_detector, [this](bool success) {
        if (success) {
            m_detector.recheck();
        }
    });
    m_imageBuild->show();
    m_imageBuild->start();
}

}  // namespace zeus
