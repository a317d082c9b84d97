#include "sandbox/enginewatch.h"

#include "sandbox/agent/enginecommand.h"
#include "sandbox/enginecalls.h"
#include "support/logging.h"

#include <QTimer>

#include <utility>

namespace zeus {

EngineWatch::EngineWatch(EngineCalls& engine, QStringList probeArguments, int pollMs, QObject* parent)
    : QObject(parent), m_engine(engine), m_probeArguments(std::move(probeArguments)), m_pollMs(pollMs) {}

void EngineWatch::suspect() {
    if (m_state != State::Up) {
        return;  // a probe runs or is due
    }
    setState(State::Checking);
    probe();
}

void EngineWatch::probe() {
    if (m_probing) {
        return;
    }
    m_probing = true;
    m_engine.run(m_probeArguments, [this](EngineCommand& answer) {
        m_probing = false;
        if (answer.succeeded()) {
            if (m_state == State::Down) {
                qCInfo(lcSession) << "the container engine answers again";
            }
            m_cause.clear();
            setState(State::Up);
            return;
        }
        m_cause = answer.diagnostic().trimmed();
        if (m_state != State::Down) {
            qCWarning(lcSession) << "the container engine does not answer:" << m_cause;
        }
        setState(State::Down);
        QTimer::singleShot(m_pollMs, this, &EngineWatch::probe);
    });
}

void EngineWatch::setState(State state) {
    if (state == m_state) {
        return;
    }
    const State before = std::exchange(m_state, state);
    Q_EMIT stateChanged(state, before);
}

}  // namespace zeus
