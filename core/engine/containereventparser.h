#pragma once

#include "engine/containerevent.h"
#include "engine/containerruntime.h"
#include "engine/containerstats.h"
#include "runtime/runtimekind.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <QStringView>

#include <optional>

namespace zeus {

// The command lines and output formats of Docker's and Podman's `events`, `stats --no-stream`
// and `inspect`, as pure functions: the OCI adapters' helper (the ContainerMonitor reaches them
// only through ContainerRuntime). Docker and Podman print different shapes (Docker:
// status/Action, id/Actor.ID, Actor.Attributes with exitCode as a string; Podman: Status,
// ID, Attributes, ContainerExitCode as a number and omitted when 0), and field names have
// moved between versions, so every parser looks a field up under all its known names and
// ignores what it does not know. It must never start a process, and a garbage, truncated or
// unknown line is never an error: it yields nothing.
class ContainerEventParser {
public:
    // The events the monitor subscribes to. The engine filters them, so exec events (whose
    // attributes carry the command line the agent ran) never reach the app.
    static QStringList eventActions(RuntimeKind kind);
    // `events` for this owner's containers, from `since` on (so a restarted stream replays
    // what it missed); an invalid `since` means from now. Empty for Apple, which has no
    // events stream.
    static QStringList eventsArguments(RuntimeKind kind, const QString& ownerId, const QDateTime& since = {});
    // One line of the stream; nullopt for blank, garbage, truncated or non-container lines.
    static std::optional<ContainerEvent> parseEventLine(const QByteArray& line);

    // `stats --no-stream` for these containers (never empty: the caller does not poll with
    // no containers). Empty for Apple.
    static QStringList statsArguments(RuntimeKind kind, const QStringList& containerIds);
    // Docker prints one JSON object per line, Podman a JSON array; both are accepted.
    static QList<ContainerStats> parseStats(const QByteArray& output);

    // `inspect ID...` output (an array of objects): each container's name, state, exit code,
    // time and labels. Objects without an id or a State object are skipped; garbage yields an
    // empty list. The one inspect parser of both OCI adapters.
    static QList<ContainerInfo> parseInspect(const QByteArray& output);

    // The engines' event words ("start", "die", "died", "destroy", "remove"...).
    static ContainerEvent::State stateForAction(QStringView action);
    // The engines' state words from inspect and ps ("running", "exited", "stopped"...).
    static ContainerEvent::State stateForStatus(QStringView status);
    // "544KiB", "573.4kB", "1.2 MiB", "0B", "25.28GB" -> bytes; -1 when not a size ("--").
    static qint64 parseByteSize(QStringView text);
    // "0.05%", "2.54 %", "12" -> percent; -1 when not a number.
    static double parsePercent(QStringView text);
    // Docker's stats print 12-hex short ids, events and inspect the full 64: one is the
    // prefix of the other. Needs at least 12 characters on each side to match.
    static bool sameContainer(QStringView a, QStringView b);
};

}  // namespace zeus
