#include "backend/resultstore.h"

namespace zeus {

qint64 ResultStore::weight(const ToolResultMessage& result) {
    return qint64(result.output.size()) * qint64(sizeof(QChar)) + qint64(result.errorMessage.size()) * 2 + 256;
}

int ResultStore::indexOf(const QString& callId) const {
    for (int i = 0; i < m_results.size(); ++i) {
        if (m_results.at(i).callId == callId) {
            return i;
        }
    }
    return -1;
}

QStringList ResultStore::add(const ToolResultMessage& result) {
    if (const int existing = indexOf(result.callId); existing >= 0) {
        m_bytes -= weight(m_results.at(existing));
        m_results.removeAt(existing);
    }
    m_results.append(result);
    m_bytes += weight(result);

    QStringList dropped;
    const int maxResults = qMax(1, m_limits.maxResults);
    // The newest result is never dropped: it is the one the backend is waiting for.
    while (m_results.size() > 1 && (m_results.size() > maxResults || m_bytes > m_limits.maxBytes)) {
        const ToolResultMessage oldest = m_results.takeFirst();
        m_bytes -= weight(oldest);
        dropped.append(oldest.callId);
    }
    return dropped;
}

bool ResultStore::acknowledge(const QString& callId) {
    const int index = indexOf(callId);
    if (index < 0) {
        return false;  // unknown or already forgotten: nothing to remember either
    }
    m_bytes -= weight(m_results.at(index));
    m_results.removeAt(index);
    if (!m_acknowledged.contains(callId)) {
        m_acknowledged.insert(callId);
        m_acknowledgedOrder.append(callId);
        while (m_acknowledgedOrder.size() > qMax(0, m_limits.maxAcknowledged)) {
            m_acknowledged.remove(m_acknowledgedOrder.takeFirst());
        }
    }
    return true;
}

bool ResultStore::contains(const QString& callId) const {
    return indexOf(callId) >= 0;
}

std::optional<ToolResultMessage> ResultStore::result(const QString& callId) const {
    const int index = indexOf(callId);
    if (index < 0) {
        return std::nullopt;
    }
    return m_results.at(index);
}

QStringList ResultStore::pendingIds() const {
    QStringList ids;
    ids.reserve(m_results.size());
    for (const ToolResultMessage& result : m_results) {
        ids.append(result.callId);
    }
    return ids;
}

}  // namespace zeus
