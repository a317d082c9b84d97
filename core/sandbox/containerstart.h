#pragma once

#include "sandbox/commandexecution.h"

#include <QPointer>
#include <QString>

namespace zeus {

class ContainerRuntime;
class EngineCalls;
class EngineCommand;
class ReviewContainers;
class SandboxSession;
struct ContainerSpec;
struct SandboxConfig;

// The start sequence of one session's container (SPEC §3): the refusals before anything reaches the engine, the
// pinned mounts, `run`, the check that each mount is its pinned source, and for review mode the copy (a new one, or
// the session's stopped container resumed). Each attempt ends in SandboxSession::markReady or createFailed, and no
// failure leaves a container behind: one whose `run` failed is removed by its name, one made for a session that
// ended meanwhile is removed when its `run` returns, one whose mounts are not known to be the approved folder at
// once. Part of its SandboxSession (a friend, never outliving it); what must go on without the session runs in
// EngineCalls and ReviewContainers.
class ContainerStart {
public:
    explicit ContainerStart(SandboxSession& session) : m_session(session) {}

    // Starts an attempt; the session is Creating.
    void begin();

private:
    const SandboxConfig& config() const;
    const ContainerRuntime& runtime() const;
    EngineCalls& engine() const;
    ReviewContainers& reviews() const;
    // The attempt that made `containerId` is still the session's.
    bool isCurrent(const QString& containerId) const;
    void failLater(ExecError code, const QString& message);
    // Why the spec cannot run on this engine, or empty.
    QString unsupportedReason(const ContainerSpec& spec) const;
    void removeStale();
    // The session's lane for this container (docs/agent-protocol.md "The lane"): made, pinned and put in `spec` where
    // the app's agent is mounted; said in the session log where it cannot be.
    void prepareLane(ContainerSpec& spec);
    void run(const ContainerSpec& spec);
    void onCreated(const QString& name, EngineCommand& process);
    void reportCreateFailure(const QString& diagnostic);
    // Checks that each mount of the new container is its pinned source; removes the container if not, or if the
    // check itself fails.
    void verifyMount(const QString& containerId);
    void onMountChecked(EngineCommand& process);
    void onMountCheckFailed(const QString& containerId, const QString& why);
    // Removes a container whose mounts are not known to be its pinned sources and fails the session's calls.
    void removeUnverified(ExecError code, const QString& problem);
    // Review mode: resume the session's stopped copy, or make a container and copy the folder in.
    void beginReview(const ContainerSpec& spec);
    void resume(const QString& containerId, const ContainerSpec& spec);
    void copyIn(const QString& containerId, const QString& name);
    // A review container the session no longer waits for: retired (logged in the session while it exists).
    static void retireUnused(const QPointer<SandboxSession>& session, ReviewContainers& reviews,
                             const QString& sessionId, const QString& workspace, const QString& containerId);

    SandboxSession& m_session;
};

}  // namespace zeus
