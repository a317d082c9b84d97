#pragma once

#include <QLatin1String>
#include <QMetaType>

namespace zeus {

// What the user sees of a session's container (SPEC §5 session_state): the one word the
// session manager, the UI and the protocol codec share for it.
//   Starting - its container is being created;
//   Running  - its container runs and takes commands;
//   Stopped  - no container (not yet created, idle timeout, or the session ended);
//   Failed   - the container could not be created or died; the next command retries.
enum class SessionState { Starting, Running, Stopped, Failed };

// The wire word: "starting", "running", "stopped", "failed" (also used in logs).
inline QLatin1String sessionStateName(SessionState state) {
    switch (state) {
        case SessionState::Starting:
            return QLatin1String("starting");
        case SessionState::Running:
            return QLatin1String("running");
        case SessionState::Stopped:
            return QLatin1String("stopped");
        case SessionState::Failed:
            return QLatin1String("failed");
    }
    return QLatin1String("failed");
}

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::SessionState)
