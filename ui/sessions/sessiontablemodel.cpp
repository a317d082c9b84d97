#include "sessions/sessiontablemodel.h"

#include <QDir>
#include <QLocale>

namespace zeus {

SessionTableModel::SessionTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int SessionTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SessionTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString SessionTableModel::shortContainerId(const QString& containerId) {
    return containerId.left(12);
}

QString SessionTableModel::stateText(SessionState state) {
    switch (state) {
        case SessionState::Starting:
            return tr("Starting");
        case SessionState::Running:
            return tr("Running");
        case SessionState::Stopped:
            return tr("Stopped");
        case SessionState::Failed:
            return tr("Failed");
    }
    return {};
}

QString SessionTableModel::formatBytes(qint64 bytes) {
    if (bytes < 0) {
        return QStringLiteral("—");
    }
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat);
}

QVariant SessionTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const Row& row = m_rows.at(index.row());
    if (role == Qt::TextAlignmentRole
        && (index.column() == CommandsColumn || index.column() == LastExitColumn || index.column() == CpuColumn
            || index.column() == MemoryColumn)) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
            case ContainerColumn:
                return row.containerId;
            case WorkspaceColumn:
                return QDir::toNativeSeparators(row.workspace);
            case SessionColumn:
                return row.sessionId;
            case ExecColumn:
                return row.execPath;
            default:
                return {};
        }
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (index.column()) {
        case SessionColumn:
            return row.sessionId;
        case ContainerColumn:
            return row.containerId.isEmpty() ? QStringLiteral("—") : shortContainerId(row.containerId);
        case StateColumn:
            if (row.review && row.state != SessionState::Running && row.state != SessionState::Starting) {
                return row.reviewCount < 0 ? tr("Changes to review")
                                           : tr("Changes to review (%n files)", nullptr, row.reviewCount);
            }
            return row.engineNote.isEmpty() ? stateText(row.state)
                                            : tr("%1 · container: %2").arg(stateText(row.state), row.engineNote);
        case WorkspaceColumn:
            return QDir::toNativeSeparators(row.workspace);
        case StartedColumn:
            return row.started.isValid() ? QLocale().toString(row.started.toLocalTime().time(), QLocale::ShortFormat)
                                         : QString();
        case CommandsColumn:
            if (row.queued > 0) {
                return tr("%1 (+%2 queued)").arg(row.commands).arg(row.queued);
            }
            return row.commands;
        case LastExitColumn:
            if (row.lastExit) {
                return *row.lastExit;
            }
            return row.lastStatus.isEmpty() ? QStringLiteral("—") : row.lastStatus;
        case CpuColumn:
            return row.cpuPercent < 0 ? QStringLiteral("—") : QStringLiteral("%1 %").arg(row.cpuPercent, 0, 'f', 1);
        case MemoryColumn:
            return formatBytes(row.memoryBytes);
        case ExecColumn:
            if (row.execPath.startsWith(QStringLiteral("exec: "))) {
                return tr("exec (agent unavailable)");  // the reason is the tooltip
            }
            return row.execPath.isEmpty() ? QStringLiteral("—") : row.execPath;
        default:
            return {};
    }
}

QVariant SessionTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
        case SessionColumn:
            return tr("Session");
        case ContainerColumn:
            return tr("Container");
        case StateColumn:
            return tr("State");
        case WorkspaceColumn:
            return tr("Working directory");
        case StartedColumn:
            return tr("Started");
        case CommandsColumn:
            return tr("Commands");
        case LastExitColumn:
            return tr("Last exit");
        case CpuColumn:
            return tr("CPU");
        case MemoryColumn:
            return tr("Memory");
        case ExecColumn:
            return tr("Runs via");
        default:
            return {};
    }
}

void SessionTableModel::setExecPath(const QString& sessionId, const QString& execPath) {
    const int row = rowOf(sessionId);
    if (row < 0 || m_rows.at(row).execPath == execPath) {
        return;
    }
    m_rows[row].execPath = execPath;
    changed(row);
}

void SessionTableModel::setQueuedCalls(const QString& sessionId, int queued) {
    const int row = rowOf(sessionId);
    if (row < 0 || m_rows.at(row).queued == queued) {
        return;
    }
    m_rows[row].queued = queued;
    changed(row);
}

int SessionTableModel::rowOf(const QString& sessionId) const {
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).sessionId == sessionId) {
            return i;
        }
    }
    return -1;
}

QString SessionTableModel::sessionAt(int row) const {
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).sessionId : QString();
}

int SessionTableModel::runningSessions() const {
    return static_cast<int>(std::count_if(m_rows.cbegin(), m_rows.cend(), [](const Row& row) {
        return row.state == SessionState::Running || row.state == SessionState::Starting;
    }));
}

SessionTableModel::Row& SessionTableModel::rowFor(const QString& sessionId) {
    const int existing = rowOf(sessionId);
    if (existing >= 0) {
        return m_rows[existing];
    }
    const int row = rowCount();
    beginInsertRows(QModelIndex(), row, row);
    Row fresh;
    fresh.sessionId = sessionId;
    fresh.started = QDateTime::currentDateTime();
    m_rows.append(fresh);
    endInsertRows();
    return m_rows[row];
}

void SessionTableModel::changed(int row) {
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void SessionTableModel::noteCall(const QString& sessionId, const QString& workspace, const QDateTime& when) {
    const bool isNew = rowOf(sessionId) < 0;
    Row& row = rowFor(sessionId);
    if (isNew) {
        row.started = when;
    }
    row.workspace = workspace;
    changed(rowOf(sessionId));
}

void SessionTableModel::setChangesToReview(const QString& sessionId, const QString& workspace, int count) {
    Row& row = rowFor(sessionId);
    if (row.workspace.isEmpty()) {
        row.workspace = workspace;
    }
    row.review = true;
    row.reviewCount = count;
    changed(rowOf(sessionId));
}

void SessionTableModel::clearChangesToReview(const QString& sessionId) {
    const int index = rowOf(sessionId);
    if (index < 0 || !m_rows[index].review) {
        return;
    }
    m_rows[index].review = false;
    m_rows[index].reviewCount = -1;
    changed(index);
}

void SessionTableModel::setSessionState(const QString& sessionId, SessionState state, const QString& containerId) {
    Row& row = rowFor(sessionId);
    row.state = state;
    row.engineNote.clear();
    if (!containerId.isEmpty() || state == SessionState::Stopped) {
        row.containerId = containerId;
    }
    if (state != SessionState::Running) {
        row.cpuPercent = -1;
        row.memoryBytes = -1;
    }
    changed(rowOf(sessionId));
}

void SessionTableModel::addLogEntry(const QString& sessionId, const SessionLogEntry& entry) {
    if (entry.kind != SessionLogEntry::Kind::Command) {
        return;
    }
    Row& row = rowFor(sessionId);
    ++row.commands;
    row.lastExit = entry.exitCode;
    row.lastStatus = entry.exitCode ? QString() : QString(execStatusName(entry.status));
    changed(rowOf(sessionId));
}

void SessionTableModel::setUsage(const QString& sessionId, double cpuPercent, qint64 memoryBytes) {
    const int index = rowOf(sessionId);
    if (index < 0) {
        return;
    }
    m_rows[index].cpuPercent = cpuPercent;
    m_rows[index].memoryBytes = memoryBytes;
    changed(index);
}

bool SessionTableModel::sameContainer(const QString& a, const QString& b) {
    if (a.size() < 12 || b.size() < 12) {
        return false;
    }
    return a.size() <= b.size() ? b.startsWith(a, Qt::CaseInsensitive) : a.startsWith(b, Qt::CaseInsensitive);
}

QString SessionTableModel::containerStateText(ContainerEvent::State state, int exitCode) {
    switch (state) {
        case ContainerEvent::State::Paused:
            return tr("paused");
        case ContainerEvent::State::OutOfMemory:
            return tr("out of memory");
        case ContainerEvent::State::Exited:
            return exitCode >= 0 ? tr("exited (%1)").arg(exitCode) : tr("exited");
        case ContainerEvent::State::Removed:
            return tr("removed");
        case ContainerEvent::State::Unknown:
        case ContainerEvent::State::Created:
        case ContainerEvent::State::Running:
            break;
    }
    return {};
}

bool SessionTableModel::applyContainerEvent(const QString& containerId, ContainerEvent::State state, int exitCode) {
    if (state == ContainerEvent::State::Unknown) {
        return false;
    }
    for (int i = 0; i < m_rows.size(); ++i) {
        if (sameContainer(m_rows.at(i).containerId, containerId)) {
            m_rows[i].engineNote = containerStateText(state, exitCode);
            if (state != ContainerEvent::State::Running) {
                m_rows[i].cpuPercent = -1;
                m_rows[i].memoryBytes = -1;
            }
            changed(i);
            return true;
        }
    }
    return false;
}

bool SessionTableModel::setUsageForContainer(const QString& containerId, double cpuPercent, qint64 memoryBytes) {
    for (int i = 0; i < m_rows.size(); ++i) {
        if (sameContainer(m_rows.at(i).containerId, containerId)) {
            m_rows[i].cpuPercent = cpuPercent;
            m_rows[i].memoryBytes = memoryBytes;
            changed(i);
            return true;
        }
    }
    return false;
}

void SessionTableModel::removeSession(const QString& sessionId) {
    const int index = rowOf(sessionId);
    if (index < 0) {
        return;
    }
    beginRemoveRows(QModelIndex(), index, index);
    m_rows.removeAt(index);
    endRemoveRows();
}

}  // namespace zeus
