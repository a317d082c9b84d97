#pragma once

#include "engine/containerevent.h"
#include "engine/containerspec.h"
#include "engine/containerstats.h"
#include "engine/imageinspection.h"
#include "runtime/runtimekind.h"
#include "support/processresult.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace zeus {

// What the app knows about one container from `ps`/`list` or `inspect`.
struct ContainerInfo {
    QString id;
    QString name;
    QString state;  // engine's word: running, exited, created, stopped...
    bool running = false;
    QMap<QString, QString> labels;
    int exitCode = -1;    // inspect of an exited container only; -1 when unknown
    QDateTime time;       // inspect only: when it entered its state (finished, else started)
    QDateTime startedAt;  // inspect only: when its main process last started; invalid when unknown
};

// What a failed engine CLI call said, in the app's words (the engine's own wording is read
// only here, in the adapters):
//   Other           - anything else (the engine is down, a flag refused, ...);
//   ImageMissing    - the image named in the call is not present;
//   NoSuchContainer - a container named in the call does not exist.
enum class EngineFailure { Other, ImageMissing, NoSuchContainer };

// One container engine's command line, as pure functions: argument lists in, parsed
// output out. It owns the knowledge of flags and output formats of one CLI; it must
// never start a process (the SessionManager does, through QProcess with these lists),
// and never build a shell string for the host.
// How a layer above the composition obtains an adapter for an engine and CLI it names (a review copy's record):
// the composition hands one in, so the adapter is made the way SandboxSetup makes every adapter.
class ContainerRuntime;
using RuntimeFactory = std::function<std::unique_ptr<ContainerRuntime>(RuntimeKind kind, const QString& program)>;

class ContainerRuntime {
public:
    virtual ~ContainerRuntime() = default;

    virtual RuntimeKind kind() const = 0;
    // The CLI to start ("docker", "podman", "container", or a full path).
    QString program() const { return m_program; }
    void setProgram(const QString& program) { m_program = program; }

    // Empty when the spec can be created; otherwise why this engine cannot (shown to the user).
    virtual QString unsupportedReason(const ContainerSpec& spec) const;
    // `run -d ... IMAGE sleep infinity`; prints the container id.
    virtual QStringList runArguments(const ContainerSpec& spec) const = 0;
    // `exec CONTAINER COMMAND...` with stdin closed, no tty.
    virtual QStringList execArguments(const QString& container, const QStringList& command) const = 0;
    // `exec -i CONTAINER COMMAND...`: the command's stdin is what the app writes to the CLI's stdin (the command
    // text travels there, never in an argument list: SPEC §3), no tty.
    virtual QStringList execWithStdinArguments(const QString& container, const QStringList& command) const = 0;
    // The same, with each of `names` set in the command's environment to its value in the CLI's own environment
    // (`-e NAME`): a secret's value never appears in an argument list (SPEC §9).
    virtual QStringList execWithStdinArguments(const QString& container, const QStringList& command,
                                               const QStringList& inheritedNames) const = 0;
    // The last `lines` lines of a container's log (its main process's output), also of an exited one; `lines` 0:
    // the whole log (Podman 4.3 (Debian 12) may drop a line that came in two pieces from `--tail`).
    virtual QStringList logsArguments(const QString& container, int lines) const;
    // `rm -f IDS...` (with the containers' own volumes: a review copy goes with its container)
    virtual QStringList removeArguments(const QStringList& containers) const = 0;
    // `stop IDS...` with a short grace: a review copy with unapplied changes is stopped, never removed (SPEC §10).
    virtual QStringList stopArguments(const QStringList& containers) const;
    // `start ID`: a stopped review container comes back, its copy as it was.
    virtual QStringList startArguments(const QString& container) const;
    // `exec` as the container's root user with stdin closed (review mode prepares /workspace with it); empty when
    // the engine cannot (then review mode is not supported there).
    virtual QStringList execAsRootArguments(const QString& container, const QStringList& command) const;
    // All containers (running or not) carrying this owner label.
    virtual QStringList listArguments(const QString& ownerId) const = 0;
    virtual QList<ContainerInfo> parseList(const QByteArray& output) const = 0;
    // `inspect CONTAINER` (more ids may be appended: both OCI CLIs inspect several at once).
    virtual QStringList inspectArguments(const QString& container) const = 0;
    // The adapter's one inspect parser: every container the output names; garbage yields none.
    virtual QList<ContainerInfo> parseInspectAll(const QByteArray& output) const = 0;
    // The first container of parseInspectAll(); nullopt when the output names none.
    std::optional<ContainerInfo> parseInspect(const QByteArray& output) const;
    // parseInspectAll() as the monitor's states (state, exit code, time, the app's labels).
    QList<ContainerEvent> parseInspectStates(const QByteArray& output) const;

    // The ContainerMonitor's calls. `events` for this owner's containers from `since` on (a
    // restarted stream replays what it missed; invalid: from now); empty: this engine has no
    // events stream (Apple). Exec events (they carry the agent's command line) are filtered
    // out by the engine.
    virtual QStringList eventsArguments(const QString& ownerId, const QDateTime& since = {}) const;
    // One line of that stream; nullopt for blank, garbage or non-container lines.
    virtual std::optional<ContainerEvent> parseEvent(const QByteArray& line) const;
    // `stats --no-stream` for these containers; empty: the engine has no stats (Apple).
    virtual QStringList statsArguments(const QStringList& containerIds) const;
    virtual QList<ContainerStats> parseStats(const QByteArray& output) const;
    // Whether two printed ids name one container (stats print 12-hex short ids, events and
    // inspect the full 64).
    static bool sameContainer(QStringView a, QStringView b);
    // Exit code 0 means the image is present locally.
    virtual QStringList imageExistsArguments(const QString& image) const = 0;
    // What the output of a failed imageExistsArguments() call means: ImageMissing or Other (an
    // engine that is down fails that call too, and that is not a missing image).
    virtual EngineFailure imageCheckFailure(const QByteArray& output) const;
    // What the output of a failed call naming containers (inspect, stats) means:
    // NoSuchContainer or Other.
    virtual EngineFailure containerCallFailure(const QByteArray& output) const;
    // `image inspect IMAGE` with the engine's full JSON, for diagnostics (labels, import comment).
    virtual QStringList imageInspectArguments(const QString& image) const;
    // `run --rm --network none IMAGE COMMAND...`: one throwaway container of an image already present, no network,
    // for diagnostics that read a file of the image (its own certificate bundle).
    virtual QStringList runOnceArguments(const QString& image, const QStringList& command) const;
    // Tolerant of Docker's and Podman's arrays and Apple's `{configuration, variants}` objects; "no such
    // image" is told from an engine that did not answer by the exit code, the output and the CLI's words.
    virtual ImageInspection parseImageInspect(const QString& image, const ProcessResult& result) const;
    // The line of a failed call's stderr that says what went wrong: the last non-empty one before the CLI's
    // "Run 'docker run --help' for more information." hint; at most 500 characters, empty when there is none.
    static QString errorLine(const QByteArray& standardError);
    // An image reference the CLIs can only read as an image: one word, no control character, not starting with
    // '-' (a setting "--privileged" would otherwise become a flag of `run`). Checked when the setting is read and
    // again before every `run`.
    static bool isSafeImageReference(const QString& reference);
    // The command a user runs to build the sandbox image (for the image_missing message): this engine's build of
    // the Dockerfile folder that `zeus-desktop --build-image` uses (ImageBuilder::locateDockerDirectory()), or that
    // command itself when this installation has no such folder. Looks at the file system.
    QString buildImageCommand(const QString& image) const;
    // The same for a given folder (empty: none was found). Pure.
    QString buildImageCommand(const QString& image, const QString& dockerDirectory) const;

    // The labels of a spec, in a stable order.
    static QList<QPair<QString, QString>> labelsFor(const ContainerSpec& spec);

    // The adapter of one engine; program empty: the engine's usual CLI name. Only the composition
    // (SandboxSetup) calls it, so every adapter is told what the detection knows (Apple's CLI version).
    static std::unique_ptr<ContainerRuntime> create(RuntimeKind kind, const QString& program = QString());
    // The same adapter again (program, and for Apple the CLI's version), for an object that outlives this one.
    std::unique_ptr<ContainerRuntime> clone() const;

protected:
    QString m_program;
};

}  // namespace zeus
