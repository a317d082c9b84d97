#pragma once

#include <QDateTime>
#include <QStringList>

namespace zeus {

// The errors the user has met lately, newest last, for the support report's "recent errors" section: a bounded
// ring of "<ISO time (UTC)>  <message>" lines.
//
// A value with no I/O; it must never hold a secret the caller did not already redact (tokens never reach it).
class RecentErrors {
public:
    static constexpr qsizetype kDefaultLimit = 50;

    explicit RecentErrors(qsizetype limit = kDefaultLimit) : m_limit(limit) {}

    // Adds one (an empty message is ignored); the oldest goes once the ring is full.
    void record(const QString& error, const QDateTime& when = QDateTime::currentDateTimeUtc());
    QStringList lines() const { return m_lines; }
    qsizetype limit() const { return m_limit; }

private:
    qsizetype m_limit;
    QStringList m_lines;
};

}  // namespace zeus
