#include "settings/mcppage.h"

#include "appsettings.h"
#include "mcp/mcphttptoken.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCoreApplication>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <utility>

namespace zeus {

namespace {

QLabel* hintLabel(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, palette.color(QPalette::PlaceholderText));
    label->setPalette(palette);
    return label;
}

// A read-only, selectable line in a fixed-width font, with a Copy button beside it.
QLineEdit* copyableLine(QWidget* parent, QBoxLayout* into, const QString& copyName) {
    auto* row = new QHBoxLayout;
    auto* line = new QLineEdit(parent);
    line->setReadOnly(true);
    line->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* copy = new QPushButton(copyName, parent);
    QObject::connect(copy, &QPushButton::clicked, line, [line] { QApplication::clipboard()->setText(line->text()); });
    row->addWidget(line, 1);
    row->addWidget(copy);
    into->addLayout(row);
    return line;
}

QString quoted(const QString& path) {
    return path.contains(QLatin1Char(' ')) ? QLatin1Char('"') + path + QLatin1Char('"') : path;
}

}  // namespace

McpPage::McpPage(AppSettings* settings, QWidget* parent, QString tokenService)
    : QWidget(parent), m_settings(settings), m_tokenService(std::move(tokenService)) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(hintLabel(tr("Agents that run on this computer (Claude Code, Codex CLI, Cursor, VS Code, …) can "
                                   "run their commands in this sandbox through the Model Context Protocol, with the "
                                   "same folders, network rules, secrets and approvals as the backend."),
                                this));

    auto* stdio = new QGroupBox(tr("In a client's configuration (stdio)"), this);
    auto* stdioLayout = new QVBoxLayout(stdio);
    stdioLayout->addWidget(hintLabel(tr("The client starts this app for each conversation. While the tray app runs, "
                                        "its sessions show here and its questions are asked here; the folder must "
                                        "be approved on the Folders page."),
                                     stdio));
    m_stdio = copyableLine(stdio, stdioLayout, tr("Copy"));
    m_stdio->setObjectName(QStringLiteral("mcpStdioCommand"));
    m_stdio->setText(stdioCommand(QCoreApplication::applicationFilePath()));
    m_stdio->setCursorPosition(0);
    layout->addWidget(stdio);

    auto* http = new QGroupBox(tr("Over HTTP"), this);
    auto* httpLayout = new QVBoxLayout(http);
    auto* onRow = new QHBoxLayout;
    m_httpOn = new QCheckBox(tr("Serve MCP over HTTP on 127.0.0.1, port"), http);
    m_httpOn->setObjectName(QStringLiteral("mcpHttpOn"));
    m_port = new QSpinBox(http);
    m_port->setObjectName(QStringLiteral("mcpHttpPort"));
    m_port->setRange(AppSettings::kMinMcpHttpPort, 65535);
    m_port->setValue(AppSettings::kDefaultMcpHttpPort);
    onRow->addWidget(m_httpOn);
    onRow->addWidget(m_port);
    onRow->addStretch();
    httpLayout->addLayout(onRow);
    httpLayout->addWidget(hintLabel(tr("Only programs on this computer can connect, and every request needs the "
                                       "token below. Other users of this computer can reach the port, but not "
                                       "without the token."),
                                    http));
    auto* tokenRow = new QHBoxLayout;
    m_newToken = new QPushButton(tr("Make a &new token…"), http);
    m_newToken->setObjectName(QStringLiteral("mcpNewToken"));
    m_tokenStatus = new QLabel(tr("The token is kept in the system keychain and shown only when it is made."), http);
    m_tokenStatus->setWordWrap(true);
    tokenRow->addWidget(m_newToken);
    tokenRow->addWidget(m_tokenStatus, 1);
    httpLayout->addLayout(tokenRow);
    m_token = copyableLine(http, httpLayout, tr("Copy token"));
    m_token->setObjectName(QStringLiteral("mcpToken"));
    m_command = copyableLine(http, httpLayout, tr("Copy"));
    m_command->setObjectName(QStringLiteral("mcpHttpCommand"));
    layout->addWidget(http);
    layout->addStretch();

    connect(m_httpOn, &QCheckBox::toggled, this, &McpPage::updateEnabled);
    connect(m_port, &QSpinBox::valueChanged, this, [this] {
        if (!m_token->text().isEmpty()) {
            m_command->setText(httpCommand(m_port->value(), m_token->text()));
            m_command->setCursorPosition(0);
        }
    });
    connect(m_newToken, &QPushButton::clicked, this, &McpPage::makeToken);
    load();
}

QString McpPage::stdioCommand(const QString& appPath) {
    return QStringLiteral("claude mcp add zeus -- %1 --mcp").arg(quoted(appPath));
}

QString McpPage::httpCommand(int port, const QString& token) {
    return QStringLiteral(
               "claude mcp add --transport http zeus http://127.0.0.1:%1/mcp --header \"Authorization: "
               "Bearer %2\"")
        .arg(port)
        .arg(token);
}

void McpPage::load() {
    const int port = m_settings->mcpHttpPort();
    m_httpOn->setChecked(port != 0);
    m_port->setValue(port != 0 ? port : AppSettings::kDefaultMcpHttpPort);
    updateEnabled();
}

void McpPage::apply() {
    m_settings->setMcpHttpPort(m_httpOn->isChecked() ? m_port->value() : 0);
}

void McpPage::updateEnabled() {
    const bool on = m_httpOn->isChecked();
    m_port->setEnabled(on);
    m_newToken->setEnabled(on);
    m_token->setVisible(on && !m_token->text().isEmpty());
    m_command->setVisible(on && !m_command->text().isEmpty());
}

void McpPage::makeToken() {
    m_newToken->setEnabled(false);
    m_tokenStatus->setText(tr("Making a new token…"));
    auto* store = m_tokenService.isEmpty() ? new McpHttpToken(this) : new McpHttpToken(m_tokenService, this);
    connect(store, &McpHttpToken::ready, this,
            [this, store](McpHttpToken::Status status, const QString& token, const QString& problem) {
                store->deleteLater();
                m_newToken->setEnabled(m_httpOn->isChecked());
                if (status != McpHttpToken::Status::Created) {
                    m_tokenStatus->setText(tr("No new token: %1. The old one, if any, still works.").arg(problem));
                    return;
                }
                m_token->setText(token);
                m_command->setText(httpCommand(m_port->value(), token));
                m_command->setCursorPosition(0);
                m_tokenStatus->setText(
                    tr("A new token, kept in the keychain and shown only now: copy it into your "
                       "client. The old token no longer works."));
                updateEnabled();
                Q_EMIT tokenRenewed();
            });
    store->obtain(true);
}

}  // namespace zeus
