#pragma once

#include "runtime/enginelocation.h"
#include "runtime/runtimekind.h"
#include "support/processresult.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// One probe step's evidence, kept for diagnostics: what ran, how it ended, what it said.
struct ProbeStep {
    static constexpr int kExcerptLimit = 8192;  // per stream; docker/podman info fit well under it

    QStringList argv;
    QString resolvedPath;
    bool started = false;
    bool timedOut = false;
    bool crashed = false;
    int exitCode = -1;
    qint64 durationMs = 0;
    QString standardOutput;  // excerpt, decoded as UTF-8 (invalid bytes replaced)
    QString standardError;   // excerpt
    QString errorString;

    static ProbeStep fromProcessResult(const ProcessResult& result, int excerptLimit = kExcerptLimit);
    QJsonObject toJson() const;
};

// What probing one runtime found out: a documented state plus the facts and the evidence.
//
// A value type produced by the pure classifiers (runtimeprobeparser.h) and the detector.
// It never runs anything and never changes after the detector hands it out.
class RuntimeProbe {
    Q_GADGET

public:
    // What the user sees, in one word each.
    enum class State {
        Ready,             // the CLI answered and the engine is reachable: commands can run
        NotInstalled,      // no CLI on PATH (or it could not be started)
        NotRunning,        // installed, but the daemon / VM / service does not answer
        PermissionDenied,  // the engine exists but this user may not talk to it (socket, group)
        TimedOut,          // the probe did not answer within its timeout and was killed
        Unsupported,       // the engine reports a runc older than the minimum (or a CLI too old)
        Unparseable,       // the CLI answered with something we cannot read (or crashed)
    };
    Q_ENUM(State)

    RuntimeKind kind = RuntimeKind::Docker;
    State state = State::NotInstalled;
    QString binaryPath;            // the CLI that was found
    QString clientVersion;         // the CLI's own version, when it says
    QString serverVersion;         // the engine / apiserver version
    QString os;                    // the engine's OS as it reports it ("Debian GNU/Linux 12 (bookworm)", "linux")
    QString arch;                  // the engine's architecture ("x86_64", "amd64", "arm64")
    std::optional<bool> rootless;  // unknown when the engine does not say
    QString runcVersion;           // as reported (raw), when the engine reports it
    // Whether the engine says it will enforce --memory, --pids-limit and --cpus (cgroup support);
    // unknown when it does not say. Without it the flags are accepted and silently dropped.
    struct LimitSupport {
        std::optional<bool> memory;
        std::optional<bool> pids;
        std::optional<bool> cpus;
    };
    LimitSupport limits;
    // Where the engine runs (SPEC §10): local or remote, and its endpoint without credentials.
    EngineLocation location;
    QString reason;          // one sentence for people when not Ready (English; see docs)
    QList<ProbeStep> steps;  // every command run for this probe, in order

    bool isUsable() const { return state == State::Ready; }
    // The limit flags the engine says it would accept and drop (rootless Podman on cgroup v1, a kernel without
    // the memory controller): "--memory", "--pids-limit", "--cpus". Empty when all are enforced or unknown.
    QStringList unenforcedLimits() const;

    // Stable lowercase identifiers for JSON and logs: "ready", "not_installed", "not_running",
    // "permission_denied", "timed_out", "unsupported", "unparseable".
    static QString stateToString(State state);
    static std::optional<State> stateFromString(QStringView name);
    // A short translated label for people ("Ready", "Not installed", ...).
    static QString stateLabel(State state);
    static QList<State> allStates();
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::RuntimeProbe)
