#pragma once

#include "engine/containerevent.h"
#include "sandbox/sessionlog.h"
#include "support/sessionstate.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QList>

#include <optional>

namespace zeus {

// The sessions table: one row per backend (or console) session with its container, state,
// working directory, start time, commands run, last exit code and resource use.
//
// Owns its rows only, fed by the composition root from SessionManager's signals; it never
// asks an engine anything itself.
class SessionTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SessionColumn,
        ContainerColumn,
        StateColumn,
        WorkspaceColumn,
        StartedColumn,
        CommandsColumn,
        LastExitColumn,
        CpuColumn,
        MemoryColumn,
        ExecColumn,  // how commands reach the container: the agent, or plain exec and why
        ColumnCount
    };

    explicit SessionTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // A call was accepted for this session (creates the row on first sight).
    void noteCall(const QString& sessionId, const QString& workspace,
                  const QDateTime& when = QDateTime::currentDateTime());
    void setSessionState(const QString& sessionId, SessionState state, const QString& containerId);
    // SessionManager::execPath(): "agent 0.1.0", "exec: <why>"...; ignored for a session without a row.
    void setExecPath(const QString& sessionId, const QString& execPath);
    // SessionManager::queuedCallsChanged(): calls of the session waiting past the running limits, shown next to the
    // commands run; ignored for a session without a row.
    void setQueuedCalls(const QString& sessionId, int queued);
    void addLogEntry(const QString& sessionId, const SessionLogEntry& entry);
    // From the engine's stats; negative values clear.
    void setUsage(const QString& sessionId, double cpuPercent, qint64 memoryBytes);
    // What the engine said about a row's container (events, inspect): shown in the State
    // column when it tells more than the session state ("Exited (137)", "Out of memory").
    // False when no row has that container.
    bool applyContainerEvent(const QString& containerId, ContainerEvent::State state, int exitCode);
    // Pure: the words for an engine state; empty when it adds nothing to the session state.
    static QString containerStateText(ContainerEvent::State state, int exitCode);
    // The same, keyed by container id (full or the 12-character short form); false when no
    // row has that container.
    bool setUsageForContainer(const QString& containerId, double cpuPercent, qint64 memoryBytes);
    // Pure: whether two container ids name the same container (one is a prefix of the
    // other, at least 12 characters each).
    static bool sameContainer(const QString& a, const QString& b);
    void removeSession(const QString& sessionId);
    // Review mode (SPEC §10): the session's copy is kept with changes to review (count < 0: not known), or not
    // (cleared). Shown in the State column while the session does not run; a session never seen gets a row.
    void setChangesToReview(const QString& sessionId, const QString& workspace, int count);
    void clearChangesToReview(const QString& sessionId);

    int rowOf(const QString& sessionId) const;
    QString sessionAt(int row) const;
    int runningSessions() const;

    // Pure helpers, shown in the table and tested.
    static QString shortContainerId(const QString& containerId);
    static QString stateText(SessionState state);
    static QString formatBytes(qint64 bytes);

private:
    struct Row {
        QString sessionId;
        QString containerId;
        SessionState state = SessionState::Stopped;
        QString workspace;
        QDateTime started;
        int commands = 0;
        int queued = 0;  // calls waiting in the session's queue (SPEC §3)
        std::optional<int> lastExit;
        QString lastStatus;  // when the last call had no exit code (timeout, cancelled, error)
        QString engineNote;  // from the engine's events, until the session state changes
        double cpuPercent = -1;
        qint64 memoryBytes = -1;
        QString execPath;
        bool review = false;  // a copy with changes to review is kept
        int reviewCount = -1;
    };
    Row& rowFor(const QString& sessionId);
    void changed(int row);

    QList<Row> m_rows;
};

}  // namespace zeus
