#include "dashboard/localconsole.h"

#include "sessions/sessionlogview.h"
#include "sessions/sessionspanel.h"

#include <QDir>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace zeus {

const QString LocalConsole::kSessionId = QStringLiteral("local-console");

LocalConsole::LocalConsole(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("LocalConsole"));
    m_where = new QLabel(this);
    m_where->setObjectName(QStringLiteral("consoleWhere"));
    m_where->setWordWrap(true);
    m_log = new SessionLogView(this);
    m_log->setObjectName(QStringLiteral("consoleLog"));
    auto* prompt = new QLabel(QStringLiteral("$"), this);
    m_command = new QLineEdit(this);
    m_command->setObjectName(QStringLiteral("consoleCommand"));
    m_command->setAccessibleName(tr("Command to run in the sandbox"));
    m_command->setPlaceholderText(tr("A command, for example: ls -la && id"));
    m_command->setFont(QFont(m_log->font()));
    m_command->installEventFilter(this);
    prompt->setBuddy(m_command);
    m_run = new QPushButton(tr("&Run"), this);
    m_run->setObjectName(QStringLiteral("consoleRun"));
    m_stop = new QPushButton(tr("S&top"), this);
    m_stop->setObjectName(QStringLiteral("consoleStop"));

    auto* row = new QHBoxLayout;
    row->addWidget(prompt);
    row->addWidget(m_command, 1);
    row->addWidget(m_run);
    row->addWidget(m_stop);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_where);
    layout->addWidget(m_log, 1);
    layout->addLayout(row);

    connect(m_command, &QLineEdit::returnPressed, this, &LocalConsole::run);
    connect(m_command, &QLineEdit::textChanged, this, &LocalConsole::updateControls);
    connect(m_run, &QPushButton::clicked, this, &LocalConsole::run);
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (!m_callId.isEmpty()) {
            Q_EMIT stopRequested(m_callId);
        }
    });
    setReady(QString(), tr("Checking for a container runtime…"));
}

void LocalConsole::setReady(const QString& workspace, const QString& reason) {
    m_workspace = workspace;
    m_reason = reason;
    if (workspace.isEmpty()) {
        m_where->setText(reason);
    } else {
        m_where->setText(tr("Commands run in a container that sees only %1 (mounted at /workspace). No backend "
                            "is involved.")
                             .arg(QDir::toNativeSeparators(workspace)));
    }
    updateControls();
}

void LocalConsole::updateControls() {
    const bool ready = !m_workspace.isEmpty();
    m_command->setEnabled(ready);
    m_run->setEnabled(ready && m_callId.isEmpty() && !m_command->text().trimmed().isEmpty());
    m_stop->setEnabled(!m_callId.isEmpty());
}

void LocalConsole::run() {
    const QString command = m_command->text().trimmed();
    if (command.isEmpty() || m_workspace.isEmpty() || !m_callId.isEmpty()) {
        return;
    }
    if (m_history.isEmpty() || m_history.last() != command) {
        m_history.append(command);
    }
    m_historyIndex = -1;
    m_command->clear();
    Q_EMIT runRequested(command);
}

void LocalConsole::callStarted(const QString& callId, const QString& command) {
    m_callId = callId;
    m_log->appendCommand(command);
    updateControls();
}

void LocalConsole::appendOutput(const QString& callId, OutputStream stream, const QString& text) {
    if (callId != m_callId) {
        return;
    }
    if (stream == OutputStream::Stderr) {
        m_log->appendStderr(text);
    } else {
        m_log->appendStdout(text);
    }
}

void LocalConsole::callFinished(const ExecResult& result) {
    if (result.callId != m_callId) {
        return;
    }
    m_log->appendResult(SessionsPanel::resultSummary(result));
    m_callId.clear();
    updateControls();
    m_command->setFocus();
}

void LocalConsole::addNotice(const QString& notice) {
    m_log->appendNotice(notice);
}

bool LocalConsole::eventFilter(QObject* watched, QEvent* event) {
    // Up / Down walk the command history, like a shell.
    if (watched == m_command && event->type() == QEvent::KeyPress && !m_history.isEmpty()) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Up || key->key() == Qt::Key_Down) {
            const int last = static_cast<int>(m_history.size()) - 1;
            if (key->key() == Qt::Key_Up) {
                m_historyIndex = m_historyIndex < 0 ? last : std::max(0, m_historyIndex - 1);
            } else {
                m_historyIndex = m_historyIndex < 0 || m_historyIndex >= last ? -1 : m_historyIndex + 1;
            }
            m_command->setText(m_historyIndex < 0 ? QString() : m_history.at(m_historyIndex));
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace zeus
