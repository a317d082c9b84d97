#pragma once

#include "approval/approvalpolicy.h"
#include "sandbox/sandboxconfig.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace zeus {

class AppSettings;

// The Approval page of Settings (SPEC §11): per approved folder, the approval mode and the allow / ask / deny rules
// with the time each last matched, the folder's workspace mode (SPEC §10), whether its sandbox may write `.git` and
// the host services exposed to it (SPEC §8 "Ports": what the user types here is the approval). Changes are written to
// AppSettings at once (as revoking a folder is), so the dispatcher follows them without OK. It owns only its widgets
// and never decides about a command.
class ApprovalSettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ApprovalSettingsPanel(AppSettings* settings, QWidget* parent = nullptr);

    // Shows this folder (it is added to the list when it is not approved but has rules).
    void selectFolder(const QString& folder);
    QString currentFolder() const;

private:
    static QString modeLabel(ApprovalMode mode);
    static QString workspaceModeLabel(WorkspaceMode mode);
    void reloadFolders();
    void reloadPolicy();
    void addRule();
    void removeSelectedRules();
    void updateModeDescription();
    void updateWorkspaceModeDescription();
    // What the folder's sandbox may reach beyond the folder: its .git, host services.
    void createFolderAccess();
    void applyExposedPorts();

    AppSettings* m_settings;
    QComboBox* m_folder = nullptr;
    QComboBox* m_mode = nullptr;
    QLabel* m_modeDescription = nullptr;
    QComboBox* m_workspaceMode = nullptr;
    QLabel* m_workspaceModeDescription = nullptr;
    QCheckBox* m_gitWrites = nullptr;  // the folder's "let the sandbox write .git" (SPEC §3), off by default
    QLineEdit* m_exposedPorts =
        nullptr;  // the folder's host services in the sandbox (SPEC §8 "Ports"), none by default
    QLabel* m_exposedProblem = nullptr;
    QTableWidget* m_rules = nullptr;
    QComboBox* m_newKind = nullptr;
    QLineEdit* m_newPrefix = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    QLabel* m_problem = nullptr;
    bool m_loading = false;
};

}  // namespace zeus
