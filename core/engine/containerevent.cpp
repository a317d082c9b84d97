#include "engine/containerevent.h"

namespace zeus {

QString ContainerEvent::stateName(State state) {
    switch (state) {
        case State::Created:
            return QStringLiteral("created");
        case State::Running:
            return QStringLiteral("running");
        case State::Paused:
            return QStringLiteral("paused");
        case State::OutOfMemory:
            return QStringLiteral("oom");
        case State::Exited:
            return QStringLiteral("exited");
        case State::Removed:
            return QStringLiteral("removed");
        case State::Unknown:
            break;
    }
    return QStringLiteral("unknown");
}

}  // namespace zeus
