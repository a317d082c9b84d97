#include "support/ratelimiter.h"

#include <algorithm>

namespace zeus {

RateLimiter::RateLimiter(qint64 windowMs, qsizetype capacity)
    : m_windowMs(windowMs), m_capacity(std::max<qsizetype>(1, capacity)) {}

bool RateLimiter::allow(const QString& key, const QDateTime& now) {
    const auto found = m_last.constFind(key);
    if (found != m_last.cend()) {
        const qint64 since = found.value().msecsTo(now);
        // A clock that went back counts as "within the window" only while it stays behind.
        if (since >= 0 && since < m_windowMs) {
            return false;
        }
    }
    if (found == m_last.cend() && m_last.size() >= m_capacity) {
        // Forget what is outside the window first; if every key is recent, the oldest one.
        for (auto it = m_last.begin(); it != m_last.end();) {
            const qint64 since = it.value().msecsTo(now);
            it = (since < 0 || since >= m_windowMs) ? m_last.erase(it) : std::next(it);
        }
        if (m_last.size() >= m_capacity) {
            const auto oldest = std::min_element(m_last.begin(), m_last.end());
            m_last.erase(oldest);
        }
    }
    m_last.insert(key, now);
    return true;
}

}  // namespace zeus
