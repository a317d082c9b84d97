#pragma once

#include "runtime/runtimekind.h"
#include "runtime/runtimeprobe.h"

#include <QDateTime>
#include <QLatin1String>
#include <QList>
#include <QMetaType>

#include <optional>

namespace zeus {

// The refusal every command gets when no runtime is usable (SPEC §2). Exact text: the
// backend and support staff match on it. Never reword it here without the spec.
inline constexpr QLatin1String kNoRuntimeMessage{
    "No container runtime detected. Please install Docker Desktop or upgrade to macOS 26 for Apple "
    "Containerization."};

// The outcome of one detection run: every runtime's probe and the runtime chosen from them.
// A value: the detector caches one and hands out copies; sessions read `chosen`.
struct DetectionResult {
    RuntimePreference preference = RuntimePreference::Auto;
    QList<RuntimeProbe> probes;         // Apple, Docker, Podman (priority order)
    std::optional<RuntimeKind> chosen;  // nullopt: nothing usable, every command is refused
    QString reason;                     // when nothing is chosen: why (refusal text or the preferred runtime's reason)
    QDateTime finishedAt;
    qint64 durationMs = 0;

    bool isUsable() const { return chosen.has_value(); }
    // Why nothing can run, for every place that refuses or explains: the reason, or
    // kNoRuntimeMessage when none was given. Empty when a runtime is usable.
    QString unusableReason() const;
    // The probe of one runtime, or nullptr when it was not probed.
    const RuntimeProbe* probe(RuntimeKind kind) const;
    // The chosen runtime's probe, or nullptr.
    const RuntimeProbe* chosenProbe() const;

    // Pure choice: with Auto, the first Ready runtime in priority order (Apple > Docker >
    // Podman); with a preference, that runtime if Ready, else none (and its reason: a user who
    // asked for Podman must not silently get Docker).
    static DetectionResult choose(const QList<RuntimeProbe>& probes, RuntimePreference preference);
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::DetectionResult)
