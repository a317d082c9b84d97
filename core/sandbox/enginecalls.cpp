#include "sandbox/enginecalls.h"

#include "engine/containerruntime.h"
#include "sandbox/agent/enginecommand.h"

#include <utility>

namespace zeus {

EngineCalls::EngineCalls(const ContainerRuntime& runtime, int timeoutMs, QObject* parent)
    : QObject(parent), m_runtime(runtime), m_timeoutMs(timeoutMs) {}

void EngineCalls::run(const QStringList& arguments, std::function<void(EngineCommand&)> done) {
    runWithInput(arguments, QByteArray(), std::move(done));
}

void EngineCalls::runWithInput(const QStringList& arguments, const QByteArray& input,
                               std::function<void(EngineCommand&)> done) {
    auto* process = new EngineCommand(m_runtime.program(), arguments, m_timeoutMs, this);
    if (!input.isEmpty()) {
        process->setStandardInputData(input);
    }
    connect(process, &EngineCommand::finished, this, [process, done = std::move(done)] {
        if (done) {
            done(*process);
        }
        process->deleteLater();
    });
    process->start();
}

void EngineCalls::runHeld(const QStringList& arguments, std::function<void(EngineCommand&)> done) {
    hold();
    run(arguments, [this, done = std::move(done)](EngineCommand& process) {
        if (done) {
            done(process);
        }
        release();
    });
}

void EngineCalls::release() {
    Q_ASSERT(m_held > 0);
    --m_held;
    Q_EMIT released();
}

}  // namespace zeus
