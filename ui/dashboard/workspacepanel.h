#pragma once

#include "sandbox/workspaceguard.h"

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
    // The command line's --workspace: chooses `path` and, if the guard accepts it, approves
    // it for this run only (not written to the settings). False when refused; the refusal is
    // shown like any other.
    bool approveForThisRun(const QString& path);
    // The folder approved by approveForThisRun() (canonical), else empty.
    QString runApprovedWorkspace() const { return m_runApproved; }

    // The chosen folder's canonical path when accepted and approved, else empty.
    QString currentWorkspace() const;
    // The chosen folder when it is an approved one that no longer exists (deleted, moved, replaced by a file):
    // commands for it are refused with workspace_invalid. Else empty.
    QString missingApprovedWorkspace() const;
    // The stored approval the chosen folder names when it changed since approval (resolves elsewhere now);
    // empty otherwise.
    QString changedApprovedWorkspace() const;
    // Looks at the chosen folder again (it may have been deleted or restored since) and shows the verdict.
    void recheck();
    const WorkspaceGuard::Result& verdict() const { return m_verdict; }

Q_SIGNALS:
    // An accepted and approved folder is now the working directory (empty: recheck() found none any more).
    void currentWorkspaceChanged(const QString& canonicalPath);

private:
    void showVerdict();
    void reloadRecent();
    bool isApproved(const QString& canonicalPath) const;
    void onRecentActivated(QListWidgetItem* item);

    AppSettings* m_settings;
    WorkspaceGuard::Environment m_environment;
    QString m_chosen;  // as the user gave it
    WorkspaceGuard::Result m_verdict;
    QString m_runApproved;  // approved by the command line for this run (canonical)

    QLabel* m_path = nullptr;
    QLabel* m_verdictIcon = nullptr;
    QLabel* m_verdictText = nullptr;
    QLabel* m_caveat = nullptr;
    QPushButton* m_choose = nullptr;
    QPushButton* m_approve = nullptr;
    QListWidget* m_recent = nullptr;
};

}  // namespace zeus
