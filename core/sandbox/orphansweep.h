#pragma once

#include "engine/containerruntime.h"

#include <QStringList>

#include <functional>

namespace zeus {

class EngineCalls;
class ReviewContainers;

// The sweep of this install's containers that no live session owns (SPEC §3): after a crash or a kill, the
// containers of the sessions that died with the app are removed, and the review containers among them (their
// changes wait for the user) are stopped and kept.
//
// Owns: the one decision of what to remove and what to stop (plan(), pure, so it is tested without an engine) and
// the engine calls that carry it out. It must never touch a container of another install (the owner label decides)
// or one a live session owns.
class OrphanSweep {
public:
    struct Plan {
        QStringList remove;  // containers of this install no live session owns
        QStringList stop;    // running review containers no session runs: stopped, kept for review
    };

    // What the live sessions own when the listing returns.
    struct Owners {
        QStringList containerIds;  // full or short ids: engines print either
        // Sessions making a container now: one labelled with such a session may be the one under way, whose id the
        // session learns only when `run` returns (a sweep listing in between saw it). Such a session removes its own
        // stale container before it makes one, so the sweep leaves every container of it alone.
        QStringList creatingSessions;
    };

    // `liveIds`: the containers the live sessions own; `creatingSessions`: see Owners.
    static Plan plan(const QList<ContainerInfo>& containers, const QString& ownerId, const QStringList& liveIds,
                     const std::function<bool(const QString& containerId)>& isReviewContainer,
                     const QStringList& creatingSessions = {});

    // Lists this install's containers, then stops and removes as plan() says; `done` gets how many were removed
    // (0 when the listing or the removal failed, which is logged). `owners` is asked when the listing returns.
    static void run(EngineCalls& engine, const ContainerRuntime& runtime, const QString& ownerId,
                    const ReviewContainers& reviews, std::function<Owners()> owners,
                    std::function<void(int removed)> done);
};

}  // namespace zeus
