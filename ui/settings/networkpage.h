#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPalette;
class QPlainTextEdit;

namespace zeus {

class AppSettings;

// Settings > Network (SPEC §8): the network mode, the allowlist's preset and the hosts it holds, the user's
// allow and deny rules and --resolve overrides, one per line, and a "check a host" box that says which rule
// decides a host under what is being edited, and the upstream proxy allowed connections leave through with its
// user name (the password goes to the keychain and is never shown back). Edits are
// written by apply(), with the rest of the dialog.
class NetworkPage : public QWidget {
    Q_OBJECT

public:
    explicit NetworkPage(AppSettings* settings, QWidget* parent = nullptr);

    void load();
    // Writes the fields; false (and the problem shown on the page) when a rule does not parse.
    bool apply();

private:
    // The upstream proxy's URL, user name, password (never shown back) and the keychain's answer.
    void addUpstreamRows(QFormLayout* form, const QPalette& hint);
    void updatePreset();
    void updateCheck();
    // The rules in the editors, a problem for each line that is not a rule.
    static QStringList lines(const QPlainTextEdit* edit);
    QStringList problems() const;
    // The user name into the settings, a typed password into the keychain (asynchronously; the page says how it
    // went), and no password kept once the user name is gone.
    void applyUpstreamCredentials();

    AppSettings* m_settings;
    QComboBox* m_mode = nullptr;
    QComboBox* m_preset = nullptr;
    QLabel* m_presetHosts = nullptr;
    QPlainTextEdit* m_allow = nullptr;
    QPlainTextEdit* m_deny = nullptr;
    QPlainTextEdit* m_resolve = nullptr;
    QCheckBox* m_hostCertificates = nullptr;
    QLabel* m_problem = nullptr;
    QLineEdit* m_checkHost = nullptr;
    QLabel* m_checkResult = nullptr;
    QLineEdit* m_upstream = nullptr;
    QLineEdit* m_upstreamUser = nullptr;
    QLineEdit* m_upstreamPassword = nullptr;
    QLabel* m_upstreamStatus = nullptr;
};

}  // namespace zeus
