#pragma once

#include "sandbox/commandexecution.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace zeus {

// One line of a session's log: a command that ran, or something that happened to the
// session's container (created, recreated, removed, failed).
struct SessionLogEntry {
    enum class Kind { Command, Event };
    Kind kind = Kind::Event;
    QDateTime time;  // UTC; for a command, when it started
    QString callId;
    QString command;
    qint64 durationMs = 0;
    std::optional<int> exitCode;
    ExecStatus status = ExecStatus::Ok;
    qint64 bytes = 0;  // stdout + stderr, before the cap
    bool truncated = false;
    QString message;  // events, and the error message of a failed call
};

// The bounded in-memory log of one session. It owns its entries and drops the oldest
// beyond the limit; it never writes to disk and never holds command output.
class SessionLog {
public:
    explicit SessionLog(int limit = 1000) : m_limit(limit) {}
    void append(const SessionLogEntry& entry);
    const QList<SessionLogEntry>& entries() const { return m_entries; }
    int limit() const { return m_limit; }

private:
    int m_limit;
    QList<SessionLogEntry> m_entries;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::SessionLogEntry)
