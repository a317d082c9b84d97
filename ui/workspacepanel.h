#pragma once

#include "workspaceguard.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace zeus {

class AppSettings;

// The working-directory picker: choose a folder (dialog or recent list), see the
// workspace guard's verdict inline (the rule that refused, or the canonical path that will
// be mounted), and approve it explicitly.
//
// Owns its widgets only. It must never approve a folder by itself (only the Approve button
// does), never approve what the guard refused, and never create or touch the folder.
class WorkspacePanel : public QWidget {
    Q_OBJECT
public:
    explicit WorkspacePanel(AppSettings* settings, QWidget* parent = nullptr);

    // Tests point the guard at a fake home folder.
    void setGuardEnvironment(const WorkspaceGuard::Environment& environment);

    // Checks `path` and shows the verdict; an accepted folder becomes the most recent one.
    void chooseFolder(const QString& path);
    // Opens a folder dialog (asynchronously; the choice arrives through chooseFolder()).
    void openFolderDialog();
    // Approves the chosen folder, if the guard accepted it.
    bool approveChosen();

    // The chosen folder's canonical path when accepted and approved, else empty.
    QString currentWorkspace() const;
    const WorkspaceGuard::Result& verdict() const { return m_verdict; }

Q_SIGNALS:
    // An accepted and approved folder is now the working directory.
    void currentWorkspaceChanged(const QString& canonicalPath);

private:
    void showVerdict();
    void reloadRecent();
    void onRecentActivated(QListWidgetItem* item);

    AppSettings* m_settings;
    WorkspaceGuard::Environment m_environment;
    QString m_chosen;  // as the user gave it
    WorkspaceGuard::Result m_verdict;

    QLabel* m_path = nullptr;
    QLabel* m_verdictIcon = nullptr;
    QLabel* m_verdictText = nullptr;
    QPushButton* m_choose = nullptr;
    QPushButton* m_approve = nullptr;
    QListWidget* m_recent = nullptr;
};

}  // namespace zeus
