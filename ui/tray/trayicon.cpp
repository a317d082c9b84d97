#include "tray/trayicon.h"

#include "appsettings.h"

#include <zeus/buildinfo.h>

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSystemTrayIcon>

namespace zeus {

namespace {

QString stateFileName(TrayStatus::State state) {
    return QFileInfo(TrayStatus::iconFor(state)).completeBaseName();
}

}  // namespace

TrayIcon::TrayIcon(AppSettings* settings, QObject* parent)
    : QObject(parent), m_settings(settings), m_menu(new QMenu()), m_tray(new QSystemTrayIcon(this)) {
    m_menu->setObjectName(QStringLiteral("trayMenu"));
    m_statusAction = m_menu->addAction(QString());
    m_statusAction->setEnabled(false);
    m_menu->addSeparator();
    QAction* open = m_menu->addAction(tr("Open &Dashboard"), this, &TrayIcon::openDashboardRequested);
    open->setObjectName(QStringLiteral("openDashboard"));
    m_menu->setDefaultAction(open);
    m_menu->addAction(tr("Choose &Working Directory…"), this, &TrayIcon::chooseFolderRequested)
        ->setObjectName(QStringLiteral("chooseFolder"));
    m_recent = m_menu->addMenu(tr("&Recent Folders"));
    m_recent->setObjectName(QStringLiteral("recentMenu"));
    m_menu->addSeparator();
    m_connect = m_menu->addAction(tr("&Connect"));
    m_connect->setObjectName(QStringLiteral("connectToggle"));
    connect(m_connect, &QAction::triggered, this, [this] {
        if (m_connectionActive) {
            Q_EMIT disconnectRequested();
        } else {
            Q_EMIT connectRequested();
        }
    });
    m_menu->addAction(tr("D&iagnostics"), this, &TrayIcon::diagnosticsRequested)
        ->setObjectName(QStringLiteral("diagnostics"));
    m_menu->addAction(tr("&Settings…"), this, &TrayIcon::settingsRequested)->setObjectName(QStringLiteral("settings"));
    m_menu->addSeparator();
    m_menu->addAction(tr("&Quit %1").arg(QStringLiteral(ZEUS_APP_NAME)), this, &TrayIcon::quitRequested)
        ->setObjectName(QStringLiteral("quit"));

    m_tray->setContextMenu(m_menu);
    connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        // A left click opens the dashboard; the context menu has everything else.
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick) {
            Q_EMIT openDashboardRequested();
        }
    });
    connect(m_settings, &AppSettings::recentFoldersChanged, this, &TrayIcon::rebuildRecent);
    connect(m_settings, &AppSettings::approvedWorkspacesChanged, this, &TrayIcon::rebuildRecent);
    rebuildRecent();
    setConnectionActive(false);
    setStatus(TrayStatus::from(TrayStatus::Input()));
}

TrayIcon::~TrayIcon() {
    delete m_menu;
}

bool TrayIcon::isAvailable() {
    return QSystemTrayIcon::isSystemTrayAvailable();
}

QIcon TrayIcon::iconFor(TrayStatus::State state) {
    QIcon icon(TrayStatus::iconFor(state));
    const QString base = stateFileName(state);
    for (int size : {16, 22, 32, 64}) {
        icon.addFile(QStringLiteral(":/icons/tray/png/%1-%2.png").arg(base).arg(size), QSize(size, size));
    }
    return icon;
}

void TrayIcon::show() {
    m_tray->show();
}

void TrayIcon::setStatus(const TrayStatus& status) {
    const bool iconChanged = status.state != m_status.state || m_tray->icon().isNull();
    m_status = status;
    if (iconChanged) {
        m_tray->setIcon(iconFor(status.state));
    }
    m_tray->setToolTip(status.tooltip);
    m_statusAction->setText(status.title);
}

void TrayIcon::setConnectionState(BackendConnection::State state) {
    using State = BackendConnection::State;
    setConnectionActive(state != State::Disconnected && state != State::SignedOut && state != State::AuthFailed
                        && state != State::Error);
}

void TrayIcon::setConnectionActive(bool active) {
    m_connectionActive = active;
    m_connect->setText(active ? tr("&Disconnect") : tr("&Connect"));
}

void TrayIcon::notify(const QString& title, const QString& message, bool warning) {
    if (m_tray->isVisible() && QSystemTrayIcon::supportsMessages()) {
        m_tray->showMessage(title, message, warning ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information, 8000);
    }
}

void TrayIcon::setRunApprovedFolder(const QString& folder) {
    m_runApprovedFolder = folder;
    rebuildRecent();
}

void TrayIcon::rebuildRecent() {
    m_recent->clear();
    const QStringList folders = m_settings->recentFolders();
    for (const QString& folder : folders) {
        QString label = QDir::toNativeSeparators(folder);
        label.replace(QLatin1Char('&'), QStringLiteral("&&"));
        const bool stored = m_settings->approvedWorkspaces().contains(folder);
        const bool changed = stored && m_settings->approvalState(folder) == WorkspaceApproval::State::Changed;
        if (changed) {
            label = tr("%1 (changed since approval)").arg(label);
        }
        QAction* action = m_recent->addAction(label);
        action->setData(folder);
        action->setCheckable(true);
        action->setChecked(!changed && (m_settings->isWorkspaceApproved(folder) || folder == m_runApprovedFolder));
        connect(action, &QAction::triggered, this, [this, folder] { Q_EMIT recentFolderChosen(folder); });
    }
    if (folders.isEmpty()) {
        m_recent->addAction(tr("No recent folders"))->setEnabled(false);
    }
}

}  // namespace zeus
