#pragma once

#include <QString>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace zeus {

class AppSettings;

// Settings > Agents (MCP) (SPEC §12, docs/mcp.md): how agents on this computer reach the sandbox. The stdio line
// to put in a client's config (with this app's own path), and the MCP server over Streamable HTTP on 127.0.0.1:
// on or off, its port, and its bearer token, which lives in the keychain and is shown only on the page that made
// it ("Make a new token…"), next to the line a client is configured with.
//
// It owns no token beyond the one it just made and shows; it never logs it and never stores it anywhere but the
// keychain (McpHttpToken). The port is written by apply(), with the rest of the dialog; a new token takes effect at
// once (tokenRenewed()), since the old one is gone from the keychain.
class McpPage : public QWidget {
    Q_OBJECT

public:
    // `tokenService`: the keychain service of the token (empty: the app's own; tests use their own).
    explicit McpPage(AppSettings* settings, QWidget* parent = nullptr, QString tokenService = {});

    void load();
    void apply();

    // The command line a client is configured with: `claude mcp add zeus -- APP --mcp`.
    static QString stdioCommand(const QString& appPath);
    // The same over HTTP, with the token: `claude mcp add --transport http zeus URL --header "Authorization: …"`.
    static QString httpCommand(int port, const QString& token);

Q_SIGNALS:
    // A new token was made and stored: a running HTTP server must take it (the old one no longer opens anything).
    void tokenRenewed();

private:
    void makeToken();
    void updateEnabled();

    AppSettings* m_settings;
    QString m_tokenService;
    QLineEdit* m_stdio = nullptr;
    QCheckBox* m_httpOn = nullptr;
    QSpinBox* m_port = nullptr;
    QPushButton* m_newToken = nullptr;
    QLineEdit* m_token = nullptr;    // shown only after "Make a new token…"
    QLineEdit* m_command = nullptr;  // the client's line with that token
    QLabel* m_tokenStatus = nullptr;
};

}  // namespace zeus
