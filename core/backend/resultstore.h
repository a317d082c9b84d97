#pragma once

#include "backend/protocolmessages.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// The tool results the backend has not acknowledged yet (SPEC §5: "results are kept until acked, bounded").
//
// Owns copies of finished results in the order they finished, bounded by a count and by the bytes of their
// output; when a new result would exceed either bound the oldest ones are dropped (and reported to the caller,
// which logs them). It also remembers a bounded number of acknowledged call ids, so a repeated tool_call for a
// call the backend already has is recognised instead of run again.
// It must never grow past its bounds, never drop the result it is adding, and never do I/O.
class ResultStore {
public:
    struct Limits {
        // More than a burst can finish before its acks come back (8 running and 256 queued calls, SPEC §3): the
        // bytes bound is what holds memory.
        int maxResults = 1024;
        qint64 maxBytes = 32 * 1024 * 1024;  // of output text (UTF-16 bytes): 16 results at the 1 MiB cap
        int maxAcknowledged = 1024;
    };

    ResultStore() = default;
    explicit ResultStore(const Limits& limits) : m_limits(limits) {}

    const Limits& limits() const { return m_limits; }

    // Keeps a result (replacing one with the same call id). Returns the call ids dropped to make room, oldest
    // first. The new result itself is always kept, even when it alone exceeds maxBytes.
    QStringList add(const ToolResultMessage& result);
    // The backend has the result: forget it and remember the id as acknowledged. False (and nothing remembered)
    // when it was not kept.
    bool acknowledge(const QString& callId);

    bool contains(const QString& callId) const;
    bool wasAcknowledged(const QString& callId) const { return m_acknowledged.contains(callId); }
    std::optional<ToolResultMessage> result(const QString& callId) const;
    // Call ids of the kept results, oldest first (hello.pending).
    QStringList pendingIds() const;
    QList<ToolResultMessage> pending() const { return m_results; }
    int size() const { return int(m_results.size()); }
    qint64 bytes() const { return m_bytes; }

    // What a result weighs against maxBytes.
    static qint64 weight(const ToolResultMessage& result);

private:
    int indexOf(const QString& callId) const;

    Limits m_limits;
    QList<ToolResultMessage> m_results;
    qint64 m_bytes = 0;
    QSet<QString> m_acknowledged;
    QStringList m_acknowledgedOrder;
};

}  // namespace zeus
