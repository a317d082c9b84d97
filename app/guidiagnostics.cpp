// The tray app's support report (the Diagnostics page and its copy/save), assembled from the live objects through
// the core section builders, so the panel's checklist has the same rows as --diagnose plus the keychain and the
// backend connection. The image row comes from the last asynchronous `image inspect`
// (AgentHostService::inspectImage()).
#include "dashboard/dashboardwindow.h"
#include "dashboard/workspacepanel.h"
#include "diagnosticsections.h"
#include "guiservice.h"
#include "sandbox/sessionmanager.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "signin.h"
#include "support/vocabulary.h"

#include <QJsonArray>
#include <QJsonObject>

namespace zeus {

DiagnosticsReport GuiService::buildReport() const {
    DiagnosticsReport report;
    std::optional<DetectionResult> detection;
    if (m_detector.hasResult()) {
        detection = m_detector.result();
        report.setDetection(*detection);
    }
    // The image and profile the sessions run with (this run's --image/--profile over the settings).
    const SandboxConfig config = SandboxSetup::configFrom(*m_settings, sandboxOverrides());
    const QString runFolder = m_dashboard->workspacePanel()->runApprovedWorkspace();
    const QStringList approved = m_settings->approvedWorkspaces();

    DiagnosticSections::SandboxFacts sandbox;
    sandbox.image = config.image;
    sandbox.profile = wordOf(config.profile);
    sandbox.pidsLimit = m_settings->pidsLimit();
    sandbox.memoryMiB = m_settings->memoryMiB();
    sandbox.cpus = m_settings->cpus();
    sandbox.idleTimeoutMinutes = m_settings->idleTimeoutMinutes();
    sandbox.runtimePreference = m_settings->runtimePreference();
    sandbox.approvedWorkspaces = approved;
    sandbox.workspaceForThisRun = runFolder;
    sandbox.settingsFile = m_settings->fileName();
    DiagnosticSections::setBounds(sandbox, config);
    if (const SessionManager* manager = m_sandbox.manager()) {
        const SessionManager::Peaks& peaks = manager->peaks();
        sandbox.load = DiagnosticSections::SandboxFacts::Load{
            manager->runningCalls(), manager->queuedCalls(), manager->liveContainers(),
            peaks.running,           peaks.queued,           peaks.containers};
    }
    report.addSection(DiagnosticSections::sandbox(sandbox));

    DiagnosticSections::ImageFacts image;
    image.image = config.image;
    DiagnosticSections::AgentFacts agent;
    agent.forcedExec = config.execMode == ExecMode::Exec;
    if (detection) {
        // The sandbox SandboxHost runs: the build command names the CLI it uses, the agent is the one it mounts.
        const SandboxSetup setup = m_sandbox.setupFor(*detection);
        if (setup.runtime) {
            image.runtimeName = runtimeDisplayName(setup.runtime->kind());
            image.buildCommand = setup.runtime->buildImageCommand(config.image);
        }
        agent.runtime = detection->chosen;
        agent.hostPath = setup.config.agentHostPath;
    }
    // An answer about another image (the setting changed, its inspect still runs) says nothing about this one.
    if (m_lastImageInspection && m_lastImageInspection->image == config.image) {
        image.inspection = m_lastImageInspection;
    }
    report.addSection(DiagnosticSections::image(image));

    if (const SessionManager* manager = m_sandbox.manager()) {
        for (const QString& sessionId : manager->sessionIds()) {
            const QString path = manager->execPath(sessionId);
            if (!path.isEmpty()) {
                agent.sessions << sessionId + QStringLiteral(": ") + path;
            }
        }
    }
    report.addSection(DiagnosticSections::agent(agent));
    report.addSection(DiagnosticSections::network(config));
    report.addSection(DiagnosticSections::resourceLimits(detection, m_settings->pidsLimit(), m_settings->memoryMiB(),
                                                         m_settings->cpus()));
    report.addSection(DiagnosticSections::workspaces(DiagnosticSections::checkFolders(approved, runFolder)));
    report.addSection(DiagnosticSections::workspaceModes(config, approved, detection));

    DiagnosticSections::KeychainFacts keychain;
    keychain.backendUrl = backendUrl();
    if (m_signIn->lastTokenRead()) {
        keychain = DiagnosticSections::KeychainFacts::from(*m_signIn->lastTokenRead(), backendUrl());
    }
    report.addSection(DiagnosticSections::keychain(keychain));

    report.addSection(DiagnosticSections::secrets(secretsFacts(config)));

    DiagnosticSections::ConnectionFacts connection;
    connection.url = backendUrl();
    connection.urlFromCommandLine = m_signIn->backendFromCommandLine();
    connection.state = m_connection.state();
    connection.lastError = m_connection.lastError();
    connection.attempts = m_connection.attemptCount();
    connection.signedIn = !m_signIn->token().isEmpty();
    connection.history = m_connection.history();
    report.addSection(DiagnosticSections::connection(connection));

    QJsonArray sessions;
    const SessionTableModel* model = m_dashboard->sessionsPanel()->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        QJsonObject session;
        for (int column = 0; column < SessionTableModel::ColumnCount; ++column) {
            session.insert(model->headerData(column, Qt::Horizontal).toString(),
                           model->data(model->index(row, column)).toString());
        }
        sessions.append(session);
    }
    report.addSection(QStringLiteral("sessions"), sessions, tr("Sessions"));
    // Command approval (SPEC §11): each folder's mode and rules, and the latest decisions with who made them.
    QJsonObject approval;
    QJsonObject folders;
    const QHash<QString, ApprovalPolicy> policies = m_settings->approvalPolicies();
    for (auto it = policies.cbegin(); it != policies.cend(); ++it) {
        const ApprovalPolicy policy = m_dispatcher.approvalPolicyFor(it.key());
        folders.insert(it.key(), QJsonObject{{QStringLiteral("mode"), QString(approvalModeName(policy.mode))},
                                             {QStringLiteral("allow"), QJsonArray::fromStringList(policy.allow)},
                                             {QStringLiteral("ask"), QJsonArray::fromStringList(policy.ask)},
                                             {QStringLiteral("deny"), QJsonArray::fromStringList(policy.deny)}});
    }
    approval.insert(QStringLiteral("folders"), folders);
    QJsonArray decisions;
    for (const ApprovalRecord& record : m_dispatcher.approvalHistory()) {
        decisions.append(QString(record.time.toString(Qt::ISODate) + QLatin1Char(' ') + record.callId + QLatin1Char(' ')
                                 + record.summary()));
    }
    approval.insert(QStringLiteral("decisions"), decisions);
    approval.insert(QStringLiteral("waiting"), QJsonArray::fromStringList(m_dispatcher.waitingCallIds()));
    report.addSection(QStringLiteral("command_approval"), approval, tr("Command approval"));
    report.addSection(DiagnosticSections::recentErrors(m_recentErrors.lines()));
    return report;
}

DiagnosticSections::SecretsFacts GuiService::secretsFacts(const SandboxConfig& config) const {
    DiagnosticSections::SecretsFacts secrets =
        DiagnosticSections::SecretsFacts::from(m_settings->secretNames(), config);
    if (secrets.ca != DiagnosticSections::SecretsFacts::Ca::Loaded) {
        if (m_interceptCaLoading) {
            secrets.ca = DiagnosticSections::SecretsFacts::Ca::Loading;
        } else if (!m_interceptCaError.isEmpty()) {
            secrets.ca = DiagnosticSections::SecretsFacts::Ca::Failed;
            secrets.caError = m_interceptCaError;
        }
    }
    return secrets;
}

}  // namespace zeus
