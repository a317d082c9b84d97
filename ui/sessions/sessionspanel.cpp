#include "sessions/sessionspanel.h"

#include "sessions/sessionlogview.h"
#include "sessions/sessiontablemodel.h"

#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>
#include <utility>

namespace zeus {

SessionsPanel::SessionsPanel(QWidget* parent) : QWidget(parent), m_model(new SessionTableModel(this)) {
    setObjectName(QStringLiteral("SessionsPanel"));
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("sessionsTable"));
    m_table->setAccessibleName(tr("Sessions"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    // Few rows: sizing columns to their contents is cheap, and the path takes the rest.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(SessionTableModel::WorkspaceColumn, QHeaderView::Stretch);
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);

    m_stop = new QPushButton(tr("&Stop Container"), this);
    m_stop->setObjectName(QStringLiteral("stopSession"));
    m_stop->setAccessibleDescription(tr("Cancel the selected session's commands and remove its container"));
    m_stop->setEnabled(false);
    m_openPort = new QPushButton(tr("Open &Port…"), this);
    m_openPort->setObjectName(QStringLiteral("openPort"));
    m_openPort->setAccessibleDescription(
        tr("Publish a port of the selected session's container on this computer's 127.0.0.1"));
    m_openPort->setEnabled(false);
    m_openInBrowser = new QPushButton(tr("Open in &Browser"), this);
    m_openInBrowser->setObjectName(QStringLiteral("openInBrowser"));
    m_openInBrowser->setAccessibleDescription(tr("Open the selected session's first published port in the browser"));
    m_openInBrowser->setEnabled(false);
    m_portsLabel = new QLabel(this);
    m_portsLabel->setObjectName(QStringLiteral("sessionPorts"));
    m_portsLabel->setTextFormat(Qt::RichText);
    m_portsLabel->setOpenExternalLinks(true);  // each port is a link: QDesktopServices opens it
    m_logTitle = new QLabel(tr("Session log"), this);

    m_logs = new QStackedWidget(this);
    m_emptyLog = new QLabel(tr("Select a session to see its commands and output."), m_logs);
    static_cast<QLabel*>(m_emptyLog)->setAlignment(Qt::AlignCenter);
    m_logs->addWidget(m_emptyLog);

    auto* tableBox = new QWidget(this);
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table);
    auto* logBox = new QWidget(this);
    auto* logLayout = new QVBoxLayout(logBox);
    logLayout->setContentsMargins(0, 0, 0, 0);
    auto* logHeader = new QHBoxLayout;
    logHeader->addWidget(m_logTitle, 1);
    logHeader->addWidget(m_portsLabel);
    logHeader->addWidget(m_openInBrowser);
    logHeader->addWidget(m_openPort);
    logHeader->addWidget(m_stop);
    logLayout->addLayout(logHeader);
    logLayout->addWidget(m_logs, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(tableBox);
    splitter->addWidget(logBox);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    // The log is what people read; the table needs a few rows only.
    splitter->setSizes({130, 470});
    splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &SessionsPanel::onSelectionChanged);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &SessionsPanel::onSelectionChanged);
    connect(m_stop, &QPushButton::clicked, this, [this] {
        const QString session = selectedSession();
        if (!session.isEmpty()) {
            Q_EMIT stopRequested(session);
        }
    });
    connect(m_openPort, &QPushButton::clicked, this, &SessionsPanel::askForPort);
    connect(m_openInBrowser, &QPushButton::clicked, this, [this] {
        const QList<PublishedPorts::Port> ports = m_ports.value(selectedSession());
        if (!ports.isEmpty()) {
            QDesktopServices::openUrl(ports.constFirst().url());
        }
    });
}

void SessionsPanel::setPorts(const QString& sessionId, const QList<PublishedPorts::Port>& ports) {
    if (ports.isEmpty()) {
        m_ports.remove(sessionId);
    } else {
        m_ports.insert(sessionId, ports);
    }
    if (sessionId == selectedSession()) {
        showPorts();
    }
}

void SessionsPanel::showPorts() {
    const QList<PublishedPorts::Port> ports = m_ports.value(selectedSession());
    QStringList links;
    for (const PublishedPorts::Port& port : ports) {
        const QString url = port.url().toString();
        links << QStringLiteral("<a href=\"%1\">127.0.0.1:%2</a> → %3")
                     .arg(url)
                     .arg(port.hostPort)
                     .arg(port.containerPort);
    }
    m_portsLabel->setText(links.isEmpty() ? QString() : tr("Ports: %1").arg(links.join(QStringLiteral(", "))));
    m_openInBrowser->setEnabled(!ports.isEmpty());
}

void SessionsPanel::askToPublish(const QString& sessionId, quint16 containerPort, std::function<void(bool)> answer) {
    // A backend that sends open_port after open_port must not bury the user in questions: past a few waiting
    // ones, the next is denied at once (the backend may ask again once the user has answered).
    const QList<QMessageBox*> asked = findChildren<QMessageBox*>(QStringLiteral("publishQuestion"));
    if (std::count_if(asked.cbegin(), asked.cend(), [](const QMessageBox* box) { return box->isVisible(); })
        >= kMaxPublishQuestions) {
        answer(false);
        return;
    }
    auto* box = new QMessageBox(QMessageBox::Question, tr("Publish a Port?"),
                                tr("The backend asks to publish port %1 of the sandbox of session %2 on this "
                                   "computer, so that a browser here can reach the server in it. It listens on "
                                   "127.0.0.1 only; every user of this computer can connect to it.")
                                    .arg(containerPort)
                                    .arg(sessionId.left(64)),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("publishQuestion"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* publish = box->addButton(tr("&Publish"), QMessageBox::AcceptRole);
    box->setDefaultButton(box->addButton(tr("&Deny"), QMessageBox::RejectRole));
    auto once = std::make_shared<std::function<void(bool)>>(std::move(answer));
    connect(box, &QMessageBox::finished, box, [box, publish, once] {
        if (*once) {
            std::exchange(*once, {})(box->clickedButton() == publish);
        }
    });
    // No answer in 120 s is a denial, as for a command (SPEC §11).
    QTimer::singleShot(120 * 1000, box, &QMessageBox::reject);
    box->open();
}

void SessionsPanel::askForPort() {
    const QString session = selectedSession();
    if (session.isEmpty()) {
        return;
    }
    // Not modal: no nested event loop; the answer comes back as a signal.
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName(QStringLiteral("openPortDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Open Port"));
    dialog->setLabelText(tr("Port a server listens on inside the sandbox of %1 (on its 127.0.0.1). It is "
                            "published on this computer's 127.0.0.1 only.")
                             .arg(session));
    dialog->setInputMode(QInputDialog::IntInput);
    dialog->setIntRange(1, 65535);
    dialog->setIntValue(8000);
    connect(dialog, &QInputDialog::intValueSelected, this,
            [this, session](int port) { Q_EMIT openPortRequested(session, quint16(port)); });
    dialog->open();
}

SessionLogView* SessionsPanel::logFor(const QString& sessionId) {
    if (SessionLogView* view = m_logViews.value(sessionId)) {
        return view;
    }
    auto* view = new SessionLogView(m_logs);
    view->setObjectName(QStringLiteral("log:") + sessionId);
    m_logs->addWidget(view);
    m_logViews.insert(sessionId, view);
    return view;
}

QString SessionsPanel::selectedSession() const {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : m_model->sessionAt(rows.first().row());
}

void SessionsPanel::selectSession(const QString& sessionId) {
    const int row = m_model->rowOf(sessionId);
    if (row >= 0) {
        m_table->selectRow(row);
    }
}

void SessionsPanel::onSelectionChanged() {
    const QString session = selectedSession();
    if (session.isEmpty()) {
        m_logs->setCurrentWidget(m_emptyLog);
        m_logTitle->setText(tr("Session log"));
        m_stop->setEnabled(false);
        m_openPort->setEnabled(false);
        showPorts();
        return;
    }
    m_logs->setCurrentWidget(logFor(session));
    m_logTitle->setText(tr("Session log: %1").arg(session));
    const int row = m_model->rowOf(session);
    const QString container = m_model->data(m_model->index(row, SessionTableModel::ContainerColumn)).toString();
    m_stop->setEnabled(container != QStringLiteral("—"));
    m_openPort->setEnabled(container != QStringLiteral("—"));
    showPorts();
}

void SessionsPanel::noteCall(const QString& callId, const QString& sessionId, const QString& command,
                             const QString& workspace) {
    const bool first = m_model->rowOf(sessionId) < 0;
    m_model->noteCall(sessionId, workspace);
    m_callSessions.insert(callId, sessionId);
    logFor(sessionId)->appendCommand(command);
    if (first && selectedSession().isEmpty()) {
        selectSession(sessionId);
    }
}

void SessionsPanel::appendOutput(const QString& callId, OutputStream stream, const QString& text) {
    const QString session = m_callSessions.value(callId);
    if (session.isEmpty()) {
        return;
    }
    SessionLogView* view = logFor(session);
    if (stream == OutputStream::Stderr) {
        view->appendStderr(text);
    } else {
        view->appendStdout(text);
    }
}

void SessionsPanel::callFinished(const ExecResult& result) {
    const QString session = m_callSessions.take(result.callId);
    const QString target = session.isEmpty() ? result.sessionId : session;
    if (target.isEmpty()) {
        return;
    }
    logFor(target)->appendResult(resultSummary(result));
}

void SessionsPanel::setSessionState(const QString& sessionId, SessionState state, const QString& containerId) {
    m_model->setSessionState(sessionId, state, containerId);
}

void SessionsPanel::addApprovalRecord(const ApprovalRecord& record) {
    SessionLogEntry entry;
    entry.kind = SessionLogEntry::Kind::Event;
    entry.time = record.time;
    entry.callId = record.callId;
    entry.message = record.summary() + QStringLiteral(": ") + record.command.simplified().left(300);
    addLogEntry(record.sessionId, entry);
}

void SessionsPanel::addLogEntry(const QString& sessionId, const SessionLogEntry& entry) {
    m_model->addLogEntry(sessionId, entry);
    if (entry.kind == SessionLogEntry::Kind::Event && !entry.message.isEmpty()) {
        logFor(sessionId)->appendNotice(entry.message);
    }
}

QString SessionsPanel::formatDuration(qint64 ms) {
    if (ms < 1000) {
        return tr("%1 ms").arg(ms);
    }
    if (ms < 60000) {
        return tr("%1 s").arg(static_cast<double>(ms) / 1000.0, 0, 'f', 1);
    }
    return tr("%1 min %2 s").arg(ms / 60000).arg((ms % 60000) / 1000);
}

QString SessionsPanel::resultSummary(const ExecResult& result) {
    QString line;
    switch (result.status) {
        case ExecStatus::Ok:
            line = tr("exit %1 · %2").arg(result.exitCode.value_or(-1)).arg(formatDuration(result.durationMs));
            break;
        case ExecStatus::Timeout:
            line = tr("timed out after %1").arg(formatDuration(result.durationMs));
            break;
        case ExecStatus::Cancelled:
            line = tr("cancelled after %1").arg(formatDuration(result.durationMs));
            break;
        case ExecStatus::Error:
            line = result.errorCode == ExecError::None
                       ? tr("failed: %1").arg(result.errorMessage)
                       : tr("failed (%1): %2").arg(execErrorName(result.errorCode), result.errorMessage);
            break;
    }
    if (result.truncated) {
        line += QStringLiteral(" · ") + tr("output truncated");
    }
    return line;
}

}  // namespace zeus
