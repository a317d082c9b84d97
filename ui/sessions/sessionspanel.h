#pragma once

#include "approval/approvalquestion.h"
#include "sandbox/commandexecution.h"
#include "sandbox/publishedports.h"
#include "sandbox/sessionlog.h"
#include "support/outputcollector.h"
#include "support/sessionstate.h"

#include <QHash>
#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace zeus {

class SessionLogView;
class SessionTableModel;

// The sessions table with a live log per session below it, a button to stop the selected session's container, and
// its published ports (SPEC §8 "Ports") with "Open in Browser" and "Open Port…".
//
// Owns the table model, one SessionLogView per session, and the call -> session map
// that routes streamed output to the right log. It never stops anything itself: Stop
// emits stopRequested() for the composition root to hand to the SessionManager.
class SessionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SessionsPanel(QWidget* parent = nullptr);

    SessionTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    // The log of a session (created on first use).
    SessionLogView* logFor(const QString& sessionId);
    QString selectedSession() const;
    void selectSession(const QString& sessionId);

    // Feeding, from SessionManager and the backend's tool calls.
    void noteCall(const QString& callId, const QString& sessionId, const QString& command, const QString& workspace);
    void appendOutput(const QString& callId, OutputStream stream, const QString& text);
    void callFinished(const ExecResult& result);
    void setSessionState(const QString& sessionId, SessionState state, const QString& containerId);
    void addLogEntry(const QString& sessionId, const SessionLogEntry& entry);
    // A command approval decision (SPEC §11 "Every decision goes into the session log") as an event of its session.
    void addApprovalRecord(const ApprovalRecord& record);
    // The session's published ports now (empty: none, or they closed with its container).
    void setPorts(const QString& sessionId, const QList<PublishedPorts::Port>& ports);
    QList<PublishedPorts::Port> portsOf(const QString& sessionId) const { return m_ports.value(sessionId); }
    // The backend asks to publish a port of a session (open_port, SPEC §8: the user approves): a question that does
    // not block; `answer` is called once, true for Publish, false for Deny, a closed question or no answer in 120 s.
    void askToPublish(const QString& sessionId, quint16 containerPort, std::function<void(bool)> answer);
    // Publish questions open at once; one more is denied without asking.
    static constexpr int kMaxPublishQuestions = 3;

    // Pure: one line for a finished call ("exit 0 · 1.2 s", "timed out after 600 s", ...).
    static QString resultSummary(const ExecResult& result);
    static QString formatDuration(qint64 ms);

Q_SIGNALS:
    void stopRequested(const QString& sessionId);
    // The user asked to publish this port of the session's container ("Open Port…": the user's own request is the
    // approval); the composition root hands it to the session.
    void openPortRequested(const QString& sessionId, quint16 containerPort);

private:
    void onSelectionChanged();
    void showPorts();
    void askForPort();

    SessionTableModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_openPort = nullptr;
    QPushButton* m_openInBrowser = nullptr;
    QLabel* m_portsLabel = nullptr;
    QLabel* m_logTitle = nullptr;
    QStackedWidget* m_logs = nullptr;
    QWidget* m_emptyLog = nullptr;
    QHash<QString, SessionLogView*> m_logViews;
    QHash<QString, QString> m_callSessions;               // call id -> session id, while the call runs
    QHash<QString, QList<PublishedPorts::Port>> m_ports;  // session id -> its published ports
};

}  // namespace zeus
