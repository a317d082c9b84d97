#pragma once

#include <QObject>
#include <QStringList>

#include <functional>

namespace zeus {

class ContainerRuntime;
class EngineCommand;

// The short engine CLI calls (run, rm, inspect, the mount check's exec, list) of one SessionManager's sessions.
//
// They belong to the manager, not to a session: a session may be forgotten while its `run` is under way, and the
// container that `run` makes must still be removed. Shutdown waits for the held ones (a container being made or
// removed, or such work elsewhere, held with hold()); released() says each time one ends. Never blocks.
class EngineCalls : public QObject {
    Q_OBJECT

public:
    EngineCalls(const ContainerRuntime& runtime, int timeoutMs, QObject* parent = nullptr);

    const ContainerRuntime& runtime() const { return m_runtime; }
    // Runs the engine's CLI with `arguments`; `done` (if any) gets the finished command, exactly once.
    void run(const QStringList& arguments, std::function<void(EngineCommand&)> done = {});
    // The same with `input` written to the CLI's stdin (then closed): text that must not be an argument.
    void runWithInput(const QStringList& arguments, const QByteArray& input, std::function<void(EngineCommand&)> done);
    // The same, held until `done` has returned.
    void runHeld(const QStringList& arguments, std::function<void(EngineCommand&)> done = {});
    // Work shutdown must wait for that is not a CLI call of this object (a review container's resume or retire).
    void hold() { ++m_held; }
    void release();
    int held() const { return m_held; }

Q_SIGNALS:
    void released();

private:
    const ContainerRuntime& m_runtime;
    int m_timeoutMs;
    int m_held = 0;
};

}  // namespace zeus
