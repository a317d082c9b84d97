#include "runtime/detectionresult.h"

#include <QCoreApplication>

namespace zeus {

const RuntimeProbe* DetectionResult::probe(RuntimeKind kind) const {
    for (const RuntimeProbe& candidate : probes) {
        if (candidate.kind == kind) {
            return &candidate;
        }
    }
    return nullptr;
}

const RuntimeProbe* DetectionResult::chosenProbe() const {
    return chosen ? probe(*chosen) : nullptr;
}

DetectionResult DetectionResult::choose(const QList<RuntimeProbe>& probes, RuntimePreference preference) {
    DetectionResult result;
    result.preference = preference;
    // Keep the priority order whatever order the probes finished in.
    for (const RuntimeKind kind : runtimePriorityOrder()) {
        for (const RuntimeProbe& probe : probes) {
            if (probe.kind == kind) {
                result.probes.append(probe);
                break;
            }
        }
    }

    const std::optional<RuntimeKind> preferred = preferredRuntime(preference);
    if (preferred) {
        const RuntimeProbe* wanted = result.probe(*preferred);
        if (wanted && wanted->isUsable()) {
            result.chosen = *preferred;
            return result;
        }
        const QString why =
            wanted ? wanted->reason : QCoreApplication::translate("zeus::DetectionResult", "it was not probed");
        result.reason =
            QCoreApplication::translate("zeus::DetectionResult", "The preferred runtime %1 is not usable: %2")
                .arg(runtimeDisplayName(*preferred), why);
        return result;
    }
    for (const RuntimeProbe& probe : std::as_const(result.probes)) {
        if (probe.isUsable()) {
            result.chosen = probe.kind;
            return result;
        }
    }
    result.reason = kNoRuntimeMessage;
    return result;
}

QString DetectionResult::unusableReason() const {
    if (isUsable()) {
        return {};
    }
    return reason.isEmpty() ? QString(kNoRuntimeMessage) : reason;
}

}  // namespace zeus
