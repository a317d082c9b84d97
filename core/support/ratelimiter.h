#pragma once

#include <QDateTime>
#include <QHash>
#include <QString>

namespace zeus {

// At most one event per key within a window: the tray says "Folder not approved" once a minute per folder, not
// once per call of a backend that retries in a loop. Bounded: past `capacity` keys the oldest entries are
// dropped, so memory does not grow with the number of distinct keys a hostile backend can invent.
class RateLimiter {
public:
    explicit RateLimiter(qint64 windowMs = 60000, qsizetype capacity = 256);

    // True when `key` has not passed within the window before `now`, and records it; false otherwise.
    bool allow(const QString& key, const QDateTime& now = QDateTime::currentDateTimeUtc());
    qsizetype size() const { return m_last.size(); }

private:
    qint64 m_windowMs;
    qsizetype m_capacity;
    QHash<QString, QDateTime> m_last;
};

}  // namespace zeus
