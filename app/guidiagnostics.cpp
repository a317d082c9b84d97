// The tray app's support report (the Diagnostics page and its copy/save): detection, sandbox settings, the
// backend connection and its history, the sessions table and recent errors. Kept in one function so the
// report's assembly can move into core section builders as a whole.
#include "backend/backendconnection.h"
#include "dashboard/dashboardwindow.h"
#include "dashboard/workspacepanel.h"
#include "guiservice.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"

#include <QJsonArray>
#include <QJsonObject>

namespace zeus {

DiagnosticsReport GuiService::buildReport() const {
    DiagnosticsReport report;
    if (m_detector.hasResult()) {
        report.setDetection(m_detector.result());
    }
    QJsonObject sandbox;
    sandbox.insert(QStringLiteral("image"), m_options.image.isEmpty() ? m_settings->image() : m_options.image);
    sandbox.insert(QStringLiteral("profile"),
                   m_options.profile.isEmpty() ? m_settings->hardeningProfile() : m_options.profile);
    sandbox.insert(QStringLiteral("pids_limit"), m_settings->pidsLimit());
    sandbox.insert(QStringLiteral("memory_mib"), m_settings->memoryMiB());
    sandbox.insert(QStringLiteral("cpus"), m_settings->cpus());
    sandbox.insert(QStringLiteral("idle_timeout_minutes"), m_settings->idleTimeoutMinutes());
    sandbox.insert(QStringLiteral("runtime_preference"), m_settings->runtimePreference());
    sandbox.insert(QStringLiteral("approved_workspaces"), QJsonArray::fromStringList(m_settings->approvedWorkspaces()));
    sandbox.insert(QStringLiteral("workspace_for_this_run"), m_dashboard->workspacePanel()->runApprovedWorkspace());
    sandbox.insert(QStringLiteral("settings_file"), m_settings->fileName());
    report.addSection(QStringLiteral("sandbox"), sandbox, tr("Sandbox"));

    QJsonObject connection;
    connection.insert(QStringLiteral("url"), backendUrl());
    connection.insert(QStringLiteral("url_from_command_line"), !m_backendOverride.isEmpty());
    connection.insert(QStringLiteral("state"), BackendConnection::stateName(m_connection.state()));
    connection.insert(QStringLiteral("last_error"), m_connection.lastError());
    connection.insert(QStringLiteral("attempts"), m_connection.attemptCount());
    connection.insert(QStringLiteral("signed_in"), !m_token.isEmpty());
    QJsonArray history;
    QStringList historyText;
    for (const BackendConnection::HistoryEntry& entry : m_connection.history()) {
        QJsonObject item;
        item.insert(QStringLiteral("time"), entry.when.toUTC().toString(Qt::ISODateWithMs));
        item.insert(QStringLiteral("state"), BackendConnection::stateName(entry.state));
        item.insert(QStringLiteral("event"), entry.event);
        if (entry.closeCode >= 0) {
            item.insert(QStringLiteral("close_code"), entry.closeCode);
        }
        history.append(item);
        historyText.append(
            QStringLiteral("%1  %2  %3%4")
                .arg(entry.when.toUTC().toString(Qt::ISODate), BackendConnection::stateName(entry.state), entry.event,
                     entry.closeCode >= 0 ? QStringLiteral(" (close %1)").arg(entry.closeCode) : QString()));
    }
    connection.insert(QStringLiteral("history"), history);
    report.addSection(QStringLiteral("connection"), connection, tr("Backend connection"),
                      tr("URL: %1\nState: %2\nLast error: %3\nHistory:\n%4")
                          .arg(backendUrl(), BackendConnection::stateName(m_connection.state()),
                               m_connection.lastError(), historyText.join(QLatin1Char('\n'))));

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
    report.addSection(QStringLiteral("recent_errors"), QJsonArray::fromStringList(m_recentErrors), tr("Recent errors"),
                      m_recentErrors.isEmpty() ? tr("none") : m_recentErrors.join(QLatin1Char('\n')));
    return report;
}

}  // namespace zeus
