#pragma once

#include <QLatin1String>

namespace zeus {

// How one command call ended: the one word the executor, the session log, the UI and the
// protocol codec (tool_result.status, SPEC §5) share for it.
//   Ok        - the command ran to its end (whatever its exit code);
//   Error     - it could not run or the container failed under it (an error code says why);
//   Timeout   - it ran longer than allowed and was stopped;
//   Cancelled - the backend or the user stopped it.
enum class ExecStatus { Ok, Error, Timeout, Cancelled };

// The wire word: "ok", "error", "timeout", "cancelled" (also used in logs and the session table).
inline QLatin1String execStatusName(ExecStatus status) {
    switch (status) {
        case ExecStatus::Ok:
            return QLatin1String("ok");
        case ExecStatus::Error:
            return QLatin1String("error");
        case ExecStatus::Timeout:
            return QLatin1String("timeout");
        case ExecStatus::Cancelled:
            return QLatin1String("cancelled");
    }
    return QLatin1String("error");
}

}  // namespace zeus
