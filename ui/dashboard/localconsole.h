#pragma once

#include "sandbox/commandexecution.h"
#include "support/outputcollector.h"

#include <QStringList>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;

namespace zeus {

class SessionLogView;

// A console to try the sandbox by hand, without a backend: a command line runs in the
// approved working directory's container, its output streams into a log below.
//
// Owns its widgets and its command history. It never runs anything itself: Run emits
// runRequested() and the composition root hands the command to the SessionManager, which
// applies the same guard, container and limits as for the backend.
class LocalConsole : public QWidget {
    Q_OBJECT
public:
    // The session id the console's commands run in (visible in the sessions table).
    static const QString kSessionId;

    explicit LocalConsole(QWidget* parent = nullptr);

    // Where commands run; empty disables the console with `reason`.
    void setReady(const QString& workspace, const QString& reason);
    QString workspace() const { return m_workspace; }
    SessionLogView* log() const { return m_log; }
    bool isRunning() const { return !m_callId.isEmpty(); }

    // Feeding from the SessionManager.
    void callStarted(const QString& callId, const QString& command);
    void appendOutput(const QString& callId, OutputStream stream, const QString& text);
    void callFinished(const ExecResult& result);
    // A line from the app about how the console's commands run (a fallback to plain exec, SPEC §7).
    void addNotice(const QString& notice);
    QString runningCallId() const { return m_callId; }

Q_SIGNALS:
    void runRequested(const QString& command);
    void stopRequested(const QString& callId);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void run();
    void updateControls();

    QString m_workspace;
    QString m_reason;
    QString m_callId;
    QStringList m_history;
    int m_historyIndex = -1;

    QLabel* m_where = nullptr;
    QLineEdit* m_command = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    SessionLogView* m_log = nullptr;
};

}  // namespace zeus
