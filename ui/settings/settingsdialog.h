#pragma once

#include <QDialog>
#include <QPointer>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace zeus {

class AppSettings;
class TokenStore;
class StartAtLogin;
class SecretStore;

// The settings window (SPEC §6): backend URL and sign-in token, runtime preference, image,
// hardening profile and limits, idle timeout, start at login, approved folders.
//
// It edits AppSettings on Apply/OK (validated first; a bad URL keeps the dialog open) and
// hands the token straight to the TokenStore (the keychain). It owns only its widgets. It
// must never keep the token after handing it over, write it anywhere else, or fall back to
// plain text when the keychain is missing or locked.
class McpPage;
class NetworkPage;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // tokenStore may be null (no keychain support built in): the token field is disabled
    // with an explanation.
    SettingsDialog(AppSettings* settings, TokenStore* tokenStore, QWidget* parent = nullptr);

    // The start-at-login switch (the app layer's; null: not available).
    void setStartAtLogin(StartAtLogin* startAtLogin);
    // Adds the Secrets tab, whose values go to this keychain store (SPEC §9).
    void setSecretStore(SecretStore* store);

    // Re-reads every field from the settings.
    void load();
    // Writes every field; false (and a message at the field) when one is invalid.
    bool apply();

    void accept() override;

    // Settings > Agents (MCP).
    McpPage* mcpPage() const { return m_mcp; }

private:
    // One function per tab; each returns the page for the constructor to add, in the tab order.
    QWidget* buildConnectionPage(QTabWidget* tabs);
    QWidget* buildSandboxPage(QTabWidget* tabs);
    QWidget* buildFoldersPage(QTabWidget* tabs);
    QWidget* buildGeneralPage(QTabWidget* tabs);
    void connectTokenStore();
    void updateUrlProblem();
    void updateStartAtLoginAvailability();
    void updateTokenStatus();
    void updateProfileDescription();
    void saveToken();
    void removeToken();
    void revokeSelected();
    void reloadApproved();

    AppSettings* m_settings;
    QPointer<TokenStore> m_tokens;
    StartAtLogin* m_loginItem = nullptr;
    bool m_closeAfterTokenSaved = false;

    QLineEdit* m_url = nullptr;
    QLabel* m_urlProblem = nullptr;
    QLineEdit* m_token = nullptr;
    QPushButton* m_saveToken = nullptr;
    QPushButton* m_removeToken = nullptr;
    QLabel* m_tokenStatus = nullptr;
    QComboBox* m_runtime = nullptr;
    QLineEdit* m_image = nullptr;
    QComboBox* m_profile = nullptr;
    QLabel* m_profileDescription = nullptr;
    QComboBox* m_execMode = nullptr;
    QSpinBox* m_pids = nullptr;
    QSpinBox* m_memory = nullptr;
    QDoubleSpinBox* m_cpus = nullptr;
    QSpinBox* m_idle = nullptr;
    QCheckBox* m_startAtLogin = nullptr;
    QLabel* m_startAtLoginProblem = nullptr;
    QListWidget* m_approved = nullptr;
    QPushButton* m_revoke = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    NetworkPage* m_network = nullptr;
    McpPage* m_mcp = nullptr;
};

}  // namespace zeus
