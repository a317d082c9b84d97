#pragma once

#include <QMetaType>
#include <QString>

namespace zeus {

// What the user sees of a session's container (SPEC §5 session_state):
//   Starting - its container is being created;
//   Running  - its container runs and takes commands;
//   Stopped  - no container (not yet created, idle timeout, or the session ended);
//   Failed   - the container could not be created or died; the next command retries.
enum class SessionState { Starting, Running, Stopped, Failed };

QString sessionStateName(SessionState state);  // "starting", "running", "stopped", "failed"

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::SessionState)
