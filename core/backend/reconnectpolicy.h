#pragma once

#include <QtGlobal>

#include <functional>

namespace zeus {

// When to try the backend again after a connection attempt failed or a connection dropped: exponential backoff
// (1 s, x2, capped at 60 s) with +/-20 % jitter so many clients do not reconnect in lock-step, reset once a
// connection has held for a minute. Pure arithmetic: it owns the attempt counter and never starts a timer or
// reads the clock; the caller reports how long a connection held. The random source is injectable so tests are
// exact.
class ReconnectPolicy {
public:
    struct Settings {
        qint64 initialDelayMs = 1000;
        double factor = 2.0;
        qint64 maxDelayMs = 60000;  // cap of the base delay; jitter spreads around it
        double jitter = 0.2;        // +/- fraction of the base delay
        qint64 stableAfterMs = 60000;
    };
    // Returns a number uniformly distributed in [0, 1).
    using RandomSource = std::function<double()>;

    ReconnectPolicy();
    explicit ReconnectPolicy(Settings settings, RandomSource random = {});

    // The delay before the next attempt; counts the attempt.
    qint64 nextDelayMs();
    // Attempts counted since the last reset.
    int attempts() const { return m_attempts; }
    void reset() { m_attempts = 0; }
    // A connection that was established has ended after `heldMs`: a long-lived one resets the backoff.
    void connectionEnded(qint64 heldMs);

    const Settings& settings() const { return m_settings; }

    // The delay before attempt number `attempt` (0-based), before jitter.
    static qint64 baseDelayMs(const Settings& settings, int attempt);
    // `baseMs` spread by +/- jitter, with `random01` in [0, 1) (0.5 = no change).
    static qint64 jittered(qint64 baseMs, double jitter, double random01);

private:
    Settings m_settings;
    RandomSource m_random;
    int m_attempts = 0;
};

}  // namespace zeus
