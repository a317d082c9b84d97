#include "backend/reconnectpolicy.h"

#include <QRandomGenerator>

#include <algorithm>
#include <cmath>

namespace zeus {

ReconnectPolicy::ReconnectPolicy() : ReconnectPolicy(Settings{}) {}

ReconnectPolicy::ReconnectPolicy(Settings settings, RandomSource random)
    : m_settings(settings), m_random(std::move(random)) {
    if (!m_random) {
        m_random = [] { return QRandomGenerator::global()->generateDouble(); };
    }
}

qint64 ReconnectPolicy::nextDelayMs() {
    const qint64 base = baseDelayMs(m_settings, m_attempts);
    // Stop counting once the cap is reached: the value no longer matters and cannot overflow.
    if (m_attempts < 1000) {
        ++m_attempts;
    }
    return jittered(base, m_settings.jitter, m_random());
}

void ReconnectPolicy::connectionEnded(qint64 heldMs) {
    if (heldMs >= m_settings.stableAfterMs) {
        reset();
    }
}

qint64 ReconnectPolicy::baseDelayMs(const Settings& settings, int attempt) {
    const double initial = static_cast<double>(std::max<qint64>(0, settings.initialDelayMs));
    const double cap = static_cast<double>(std::max<qint64>(0, settings.maxDelayMs));
    const double delay = initial * std::pow(std::max(1.0, settings.factor), std::max(0, attempt));
    // pow() may give inf for large attempts; the comparison caps it.
    return static_cast<qint64>(std::llround(std::isfinite(delay) ? std::min(delay, cap) : cap));
}

qint64 ReconnectPolicy::jittered(qint64 baseMs, double jitter, double random01) {
    const double r = std::clamp(random01, 0.0, 1.0);
    const double j = std::clamp(jitter, 0.0, 1.0);
    const double factor = 1.0 + j * (2.0 * r - 1.0);
    return std::max<qint64>(0, std::llround(static_cast<double>(baseMs) * factor));
}

}  // namespace zeus
