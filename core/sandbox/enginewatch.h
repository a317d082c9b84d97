#pragma once

#include <QObject>
#include <QString>

namespace zeus {

class EngineCalls;

// Whether the container engine answers (SPEC §3; issue "rides out an engine restart"): a call that failed the way a
// dead engine fails calls (container_failed) makes it ask the engine once; when that fails too it asks again every
// pollMs until the engine answers. The session manager holds its waiting calls meanwhile instead of failing each of
// them against an engine that is not there.
//
// Owns: the state (up, checking, down), the cause of the last failure (the engine CLI's own words) and the probe
// timer. The probe is `probeArguments` (a listing of this install's containers: cheap, and it needs the daemon). It
// must never start or remove a container, or decide what becomes of a call.
class EngineWatch : public QObject {
    Q_OBJECT

public:
    enum class State { Up, Checking, Down };
    Q_ENUM(State)

    EngineWatch(EngineCalls& engine, QStringList probeArguments, int pollMs, QObject* parent = nullptr);

    State state() const { return m_state; }
    bool isUp() const { return m_state == State::Up; }
    // Why the engine is taken for down: what its CLI said (empty while up).
    const QString& cause() const { return m_cause; }
    // A call failed as one does when the engine goes away: asks the engine now, unless a probe runs already.
    void suspect();

Q_SIGNALS:
    // Up -> Checking -> Up (a false alarm), Checking -> Down, Down -> Up (it came back).
    void stateChanged(zeus::EngineWatch::State state, zeus::EngineWatch::State before);

private:
    void probe();
    void setState(State state);

    EngineCalls& m_engine;
    QStringList m_probeArguments;
    int m_pollMs;
    State m_state = State::Up;
    QString m_cause;
    bool m_probing = false;
};

}  // namespace zeus
