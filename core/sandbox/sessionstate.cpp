#include "sandbox/sessionstate.h"

namespace zeus {

QString sessionStateName(SessionState state) {
    switch (state) {
        case SessionState::Starting:
            return QStringLiteral("starting");
        case SessionState::Running:
            return QStringLiteral("running");
        case SessionState::Stopped:
            return QStringLiteral("stopped");
        case SessionState::Failed:
            return QStringLiteral("failed");
    }
    return QStringLiteral("failed");
}

}  // namespace zeus
