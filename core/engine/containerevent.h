#pragma once

#include <QDateTime>
#include <QMetaType>
#include <QObject>
#include <QString>

namespace zeus {

// One thing the engine said about one of the app's containers: a line of `events`, or the
// state read back by `inspect` / `ps`. A plain value built by the ContainerEventParser; it
// never holds a process. Only the app's own labels and the exit code are kept from the
// engine's attributes: an event line can carry more (image, name, signal), and none of it
// is needed to show a session's state.
struct ContainerEvent {
    Q_GADGET

public:
    // What the sessions table shows. The engines' words map onto these (docker "die" and
    // podman "died" are both Exited; "destroy" and "remove" are both Removed).
    enum class State {
        Unknown,      // an event that does not change the state (kill, exec, cleanup...)
        Created,      // created, not started yet
        Running,      // started, restarted or unpaused
        Paused,       //
        OutOfMemory,  // the kernel's OOM killer hit it; an Exited event follows
        Exited,       // the main process ended; exitCode says how (137 = killed)
        Removed,      // the container no longer exists
    };
    Q_ENUM(State)

    QString containerId;  // as the engine gives it (full 64-hex for events and inspect)
    QString sessionId;    // zeus.desktop.session label; empty when the line had none
    QString ownerId;      // zeus.desktop.owner label
    QString action;       // the engine's own word ("die", "died", "start"...), lowercase
    State state = State::Unknown;
    int exitCode = -1;  // Exited only; -1 when unknown
    QDateTime time;     // when the engine saw it (UTC); invalid when the line had no time

    // "created", "running", "paused", "oom", "exited", "removed", "unknown": stable words
    // for logs, diagnostics and the UI's own translation table.
    static QString stateName(State state);
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ContainerEvent)
