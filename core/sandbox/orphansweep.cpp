#include "sandbox/orphansweep.h"

#include "sandbox/agent/enginecommand.h"
#include "sandbox/enginecalls.h"
#include "sandbox/review/reviewcontainers.h"
#include "support/logging.h"

#include <algorithm>
#include <utility>

namespace zeus {

OrphanSweep::Plan OrphanSweep::plan(const QList<ContainerInfo>& containers, const QString& ownerId,
                                    const QStringList& liveIds,
                                    const std::function<bool(const QString& containerId)>& isReviewContainer,
                                    const QStringList& creatingSessions) {
    Plan plan;
    for (const ContainerInfo& info : containers) {
        if (info.labels.value(labels::owner()) != ownerId) {
            continue;  // Apple's list cannot filter by label
        }
        if (creatingSessions.contains(info.labels.value(labels::session()))) {
            continue;  // maybe the container under way, which its session does not know yet
        }
        const bool owned = std::any_of(liveIds.cbegin(), liveIds.cend(), [&info](const QString& id) {
            return !id.isEmpty() && (id.startsWith(info.id) || info.id.startsWith(id));
        });
        if (owned) {
            continue;
        }
        if (!isReviewContainer(info.id)) {
            plan.remove << info.id;
        } else if (info.running) {
            plan.stop << info.id;
        }
    }
    return plan;
}

void OrphanSweep::run(EngineCalls& engine, const ContainerRuntime& runtime, const QString& ownerId,
                      const ReviewContainers& reviews, std::function<Owners()> owners,
                      std::function<void(int removed)> done) {
    engine.run(runtime.listArguments(ownerId), [&engine, &runtime, &reviews, ownerId, owners = std::move(owners),
                                                done = std::move(done)](EngineCommand& list) {
        if (!list.succeeded()) {
            qCWarning(lcSession) << "listing containers failed:" << list.diagnostic();
            done(0);
            return;
        }
        const Owners live = owners();
        const Plan todo = plan(
            runtime.parseList(list.standardOutput()), ownerId, live.containerIds,
            [&reviews](const QString& id) { return reviews.isReviewContainer(id); }, live.creatingSessions);
        if (!todo.stop.isEmpty()) {
            qCInfo(lcSession) << "stopping" << todo.stop.size() << "review containers no session runs";
            engine.run(runtime.stopArguments(todo.stop), [](EngineCommand& stop) {
                if (!stop.succeeded()) {
                    qCWarning(lcSession) << "stopping review containers failed:" << stop.diagnostic();
                }
            });
        }
        if (todo.remove.isEmpty()) {
            done(0);
            return;
        }
        qCInfo(lcSession) << "removing" << todo.remove.size() << "orphaned containers";
        const int count = int(todo.remove.size());
        engine.run(runtime.removeArguments(todo.remove), [count, done](EngineCommand& removal) {
            if (!removal.succeeded()) {
                qCWarning(lcSession) << "removing orphans failed:" << removal.diagnostic();
            }
            done(removal.succeeded() ? count : 0);
        });
    });
}

}  // namespace zeus
