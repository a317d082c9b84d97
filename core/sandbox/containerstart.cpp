#include "sandbox/containerstart.h"

#include "engine/containerruntime.h"
#include "sandbox/agent/agentlane.h"
#include "sandbox/agent/enginecommand.h"
#include "sandbox/enginecalls.h"
#include "sandbox/review/reviewcontainers.h"
#include "sandbox/sandboxsession.h"
#include "support/logging.h"

#include <QTimer>
#include <QUuid>

#include <algorithm>

namespace zeus {

namespace {

using Phase = SandboxSession::Phase;

QString lastLine(const QByteArray& output) {
    const QList<QByteArray> lines = output.trimmed().split('\n');
    return lines.isEmpty() ? QString() : QString::fromUtf8(lines.last().trimmed());
}

// A container made for a session that ended (or an app that is quitting) while its `run` was under way: removed,
// and a shutdown finishes only once it is gone.
void removeOrphan(EngineCalls& engine, EngineCommand& process, const QString& name) {
    const QString id = lastLine(process.standardOutput());
    const bool created = process.succeeded() && !id.isEmpty();
    engine.runHeld(engine.runtime().removeArguments({created ? id : name}));
}

}  // namespace

const SandboxConfig& ContainerStart::config() const {
    return m_session.m_config;
}

const ContainerRuntime& ContainerStart::runtime() const {
    return m_session.runtime();
}

EngineCalls& ContainerStart::engine() const {
    return m_session.m_engine;
}

ReviewContainers& ContainerStart::reviews() const {
    return m_session.m_reviews;
}

bool ContainerStart::isCurrent(const QString& containerId) const {
    return m_session.m_phase == Phase::Creating && m_session.m_containerId == containerId;
}

void ContainerStart::failLater(ExecError code, const QString& message) {
    SandboxSession* session = &m_session;
    QTimer::singleShot(0, session, [session, code, message] { session->createFailed(code, message); });
}

QString ContainerStart::unsupportedReason(const ContainerSpec& spec) const {
    return ContainerRuntime::isSafeImageReference(spec.image)
               ? runtime().unsupportedReason(spec)
               : QStringLiteral("The sandbox image setting \"%1\" is not an image reference.").arg(spec.image);
}

void ContainerStart::begin() {
    SandboxSession& s = m_session;
    const QString modeRefusal = config().workspaceModeRefusal(s.m_workspace);
    if (!modeRefusal.isEmpty()) {
        // Before anything reaches the engine: no container is made for a folder this config may not mount.
        failLater(ExecError::WorkspaceInvalid, modeRefusal);
        return;
    }
    ContainerSpec spec = config().containerSpec(
        QStringLiteral("zeus-") + QUuid::createUuid().toString(QUuid::Id128).left(12), s.m_workspace, s.m_id);
    s.m_review = config().workspaceModeFor(s.m_workspace) == WorkspaceMode::Review;
    spec.reviewCopy = s.m_review;
    if (!s.m_review) {
        spec.overlays = gitProtectionOverlays(s.m_workspace, config().gitWritesFor(s.m_workspace));
    }
    const QString unsupported = unsupportedReason(spec);
    if (!unsupported.isEmpty()) {
        failLater(ExecError::ContainerFailed, unsupported);
        return;
    }
    removeStale();
    s.m_mountPins.clear();
    prepareLane(spec);
    if (s.m_review) {
        beginReview(spec);
        return;
    }
#if defined(Q_OS_LINUX)
    // Taken just before `run`: a source swapped between this and the engine's mount shows as another inode, and
    // a symbolic link anywhere on the way to a source refuses the container before it exists.
    QString pinError;
    s.m_mountPins = MountPins::pin(spec, &pinError);
    if (s.m_mountPins.isEmpty()) {
        failLater(
            ExecError::WorkspaceInvalid,
            QStringLiteral("A mount of the sandbox cannot be made safely: %1. Nothing was started.").arg(pinError));
        return;
    }
#endif
    run(spec);
}

void ContainerStart::prepareLane(ContainerSpec& spec) {
    SandboxSession& s = m_session;
    delete s.m_lane.data();  // an earlier container's: its agent is gone with it
#if defined(Q_OS_LINUX)
    // Only where the app's own agent is mounted: then the engine shares this kernel (a VM engine fails the agent's
    // connect, said by the agent channel). A review container may be resumed long after: it keeps the exec pipe.
    if (s.m_review || spec.agentSource.isEmpty()) {
        return;
    }
    auto* lane = new AgentLane(QString(), &s);
    QString problem = lane->errorString();
    if (lane->isValid() && !MountPins::pinPath(lane->folder(), true, &problem)) {
        problem = QStringLiteral("its folder cannot be pinned: %1").arg(problem);
    } else if (lane->isValid()) {
        s.m_lane = lane;
        spec.laneSource = lane->folder();
        return;
    }
    delete lane;
    s.logEvent(QStringLiteral("The agent's lane is not available (%1): its frames travel on the engine's exec pipe.")
                   .arg(problem));
#else
    Q_UNUSED(spec);
#endif
}

void ContainerStart::removeStale() {
    QString& stale = m_session.m_staleContainerId;
    if (stale.isEmpty()) {
        return;
    }
    if (!reviews().isReviewContainer(stale)) {
        engine().run(runtime().removeArguments({stale}));
    }
    stale.clear();
}

void ContainerStart::run(const ContainerSpec& spec) {
    const QString name = spec.name;
    EngineCalls* calls = &engine();
    calls->runHeld(runtime().runArguments(spec),
                   [session = QPointer<SandboxSession>(&m_session), calls, name](EngineCommand& process) {
                       if (!session || session->m_phase != Phase::Creating) {
                           removeOrphan(*calls, process, name);
                           return;
                       }
                       session->m_start.onCreated(name, process);
                   });
}

void ContainerStart::onCreated(const QString& name, EngineCommand& process) {
    SandboxSession& s = m_session;
    const QString id = lastLine(process.standardOutput());
    if (process.succeeded() && !id.isEmpty()) {
        s.m_containerId = id;
        if (s.m_review) {
            copyIn(id, name);  // still Creating until the copy is in
            return;
        }
        // Apple's containers always run in a VM, where a shared folder's device and inode say nothing about the
        // host's: the check would cost an exec per container and could never compare (docs/security.md).
        // A remote engine's device and inode numbers belong to another machine's file systems: nothing to compare.
        if (!s.m_mountPins.isEmpty() && runtime().kind() != RuntimeKind::Apple && !config().engineRemote) {
            verifyMount(id);  // still Creating until /workspace is known to be the approved folder
            return;
        }
        s.markReady();
        return;
    }
    if (process.failedToStart()) {
        s.createFailed(
            ExecError::NoRuntime,
            QStringLiteral("The %1 command could not be started: %2").arg(runtime().program(), process.errorString()));
        return;
    }
    // `run` may have created the container and then failed to start it (or timed out after creating it): remove
    // it at once, by the name it was given, whatever the error, so no failed call leaves a container behind. Only
    // then is the failure reported (a missing container is no error here).
    QString diagnostic = ContainerRuntime::errorLine(process.standardError());
    if (diagnostic.isEmpty()) {
        diagnostic = process.diagnostic();
    }
    engine().run(runtime().removeArguments({name}),
                 [session = QPointer<SandboxSession>(&s), diagnostic](EngineCommand&) {
                     if (session) {
                         session->m_start.reportCreateFailure(diagnostic);
                     }
                 });
}

void ContainerStart::reportCreateFailure(const QString& diagnostic) {
    // Tell a missing image apart from any other failure: it has its own, actionable message.
    engine().run(runtime().imageExistsArguments(config().image), [session = QPointer<SandboxSession>(&m_session),
                                                                  diagnostic](EngineCommand& check) {
        if (!session) {
            return;
        }
        const SandboxConfig& config = session->m_config;
        const ContainerRuntime& runtime = session->runtime();
        if (!check.succeeded() && !check.failedToStart()
            && runtime.imageCheckFailure(check.standardError() + check.standardOutput())
                   == EngineFailure::ImageMissing) {
            session->createFailed(ExecError::ImageMissing,
                                  QStringLiteral("The sandbox image %1 is not installed. Build it with: %2")
                                      .arg(config.image, runtime.buildImageCommand(config.image)));
        } else {
            session->createFailed(ExecError::ContainerFailed,
                                  QStringLiteral("The container could not be started: %1").arg(diagnostic));
        }
    });
}

void ContainerStart::verifyMount(const QString& containerId) {
    // One fixed script (no backend text); the targets are its arguments. The kernel's boot id tells an engine on
    // this kernel from one in a VM, where device and inode numbers of a shared folder mean nothing on the host.
    engine().run(runtime().execArguments(containerId, MountPins::checkCommand(m_session.m_mountPins)),
                 [session = QPointer<SandboxSession>(&m_session), containerId](EngineCommand& process) {
                     if (!session || !session->m_start.isCurrent(containerId)) {
                         return;  // ended meanwhile: its removal took the container
                     }
                     if (!process.succeeded()) {
                         session->m_start.onMountCheckFailed(containerId, process.diagnostic());
                         return;
                     }
                     session->m_start.onMountChecked(process);
                 });
}

void ContainerStart::onMountChecked(EngineCommand& process) {
    SandboxSession& s = m_session;
    const MountPins::Verdict verdict =
        MountPins::verify(s.m_mountPins, process.standardOutput(), MountPins::hostBootId());
    switch (verdict.outcome) {
        case MountPins::Verdict::Outcome::Match:
            s.markReady();
            return;
        case MountPins::Verdict::Outcome::OtherKernel:
            // A VM engine: nothing to compare with. Said once per container, the mounts stand.
            s.logEvent(
                QStringLiteral("The engine runs in a virtual machine: the device/inode check of the "
                               "container's mounts does not apply (docs/security.md)."));
            s.markReady();
            return;
        case MountPins::Verdict::Outcome::Mismatch:
        case MountPins::Verdict::Outcome::Unusable:
            removeUnverified(ExecError::WorkspaceInvalid, verdict.problem);
            return;
    }
}

void ContainerStart::onMountCheckFailed(const QString& containerId, const QString& why) {
    // The check could not run. A container that is not running (it died at start) can run nothing: its first
    // exec fails and says why, with the container's log, as without the check. Anything else fails closed.
    engine().run(runtime().inspectArguments(containerId), [session = QPointer<SandboxSession>(&m_session), containerId,
                                                           why](EngineCommand& inspect) {
        if (!session || !session->m_start.isCurrent(containerId)) {
            return;
        }
        const QList<ContainerInfo> seen =
            inspect.succeeded() ? session->runtime().parseInspectAll(inspect.standardOutput()) : QList<ContainerInfo>();
        if (seen.size() == 1 && !seen.first().running) {
            session->markReady();
            return;
        }
        session->m_start.removeUnverified(ExecError::ContainerFailed,
                                          QStringLiteral("the container's mounts could not be checked: %1").arg(why));
    });
}

void ContainerStart::removeUnverified(ExecError code, const QString& problem) {
    SandboxSession& s = m_session;
    qCWarning(lcSession).noquote() << "session" << s.m_id << problem;
    // Held like every removal: a shutdown right after the failed call (--exec) waits for it, so a container with a
    // foreign mount is never left running.
    engine().runHeld(runtime().removeArguments({s.m_containerId}));
    s.m_containerId.clear();
    s.createFailed(code, QStringLiteral("Container removed: %1.").arg(problem));
}

void ContainerStart::beginReview(const ContainerSpec& spec) {
    const SandboxSession& s = m_session;
    const std::optional<ReviewRecord> record = reviews().record(s.m_id);
    if (record && record->workspace != s.m_workspace) {
        failLater(ExecError::Busy, QStringLiteral("This session has changes to review in %1: apply or discard them "
                                                  "(Changes in the dashboard, or zeus-desktop --changes) before it "
                                                  "works in %2.")
                                       .arg(record->workspace, s.m_workspace));
        return;
    }
    if (!record) {
        run(spec);
        return;
    }
    // The session's copy from before (an idle timeout, a restart of the app): started again, the changes not
    // applied yet still in it. In the review worker, after any stop of it that is still under way.
    resume(record->containerId, spec);
}

void ContainerStart::resume(const QString& containerId, const ContainerSpec& spec) {
    const QString sessionId = m_session.m_id;
    const QString workspace = m_session.m_workspace;
    EngineCalls* calls = &engine();
    ReviewContainers* copies = &reviews();
    calls->hold();
    copies->resume(containerId, [session = QPointer<SandboxSession>(&m_session), calls, copies, sessionId, workspace,
                                 containerId, spec](const ReviewContainers::Resumed& resumed) {
        calls->release();
        if (!session || session->m_phase != Phase::Creating || session->m_shutDown) {
            if (resumed.started) {
                retireUnused(session, *copies, sessionId, workspace, containerId);
            }
            return;
        }
        SandboxSession& s = *session;
        if (resumed.started) {
            s.m_containerId = containerId;
            s.logEvent(QStringLiteral("Review copy in container %1 resumed: the changes not applied yet are still in "
                                      "it.")
                           .arg(SandboxSession::shortId(containerId)));
            s.markReady();
            return;
        }
        if (resumed.gone) {
            s.logEvent(QStringLiteral("The review copy's container %1 no longer exists (removed outside Zeus "
                                      "Desktop): its changes are lost; a new copy is taken.")
                           .arg(SandboxSession::shortId(containerId)));
            copies->forget(sessionId);
            s.m_start.run(spec);
            return;
        }
        s.createFailed(ExecError::ContainerFailed, QStringLiteral("The review copy's container %1 could not be "
                                                                  "started: %2")
                                                       .arg(SandboxSession::shortId(containerId), resumed.error));
    });
}

void ContainerStart::copyIn(const QString& containerId, const QString& name) {
    SandboxSession& s = m_session;
    s.logEvent(QStringLiteral("Copying %1 into container %2 for review: nothing is written to the folder until "
                              "changes are applied.")
                   .arg(s.m_workspace, SandboxSession::shortId(containerId)));
    ReviewRecord draft;
    draft.sessionId = s.m_id;
    draft.workspace = s.m_workspace;
    draft.containerId = containerId;
    draft.containerName = name;
    const int timeoutMs = std::max(config().engineCallTimeoutMs, 600000);
    ReviewContainers* copies = &reviews();
    copies->copyIn(draft, config().reviewSizeCap, timeoutMs,
                   [session = QPointer<SandboxSession>(&s), copies, draft](const ReviewCopy::CopyResult& result) {
                       const bool current = session && session->m_start.isCurrent(draft.containerId);
                       if (!result.ok) {
                           if (current) {
                               session->m_containerId.clear();
                               session->createFailed(
                                   result.folderProblem ? ExecError::WorkspaceInvalid : ExecError::ContainerFailed,
                                   result.error);
                           }
                           return;
                       }
                       if (!current || session->m_shutDown) {
                           retireUnused(session, *copies, draft.sessionId, draft.workspace, draft.containerId);
                           return;
                       }
                       session->logEvent(QStringLiteral("Copied %1 files (%2 bytes) of %3 into the container for "
                                                        "review.")
                                             .arg(result.baseline.entries.size())
                                             .arg(result.baseline.totalFileBytes())
                                             .arg(draft.workspace));
                       session->markReady();
                   });
}

void ContainerStart::retireUnused(const QPointer<SandboxSession>& session, ReviewContainers& reviews,
                                  const QString& sessionId, const QString& workspace, const QString& containerId) {
    if (session) {
        session->retireReview(workspace, containerId, {});
    } else {
        reviews.retire(sessionId, workspace, containerId, {});
    }
}

}  // namespace zeus
