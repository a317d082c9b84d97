#pragma once

#include "engine/containerspec.h"
#include "engine/imageinspection.h"
#include "runtime/runtimekind.h"
#include "support/processresult.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

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
    // `rm -f IDS...`
    virtual QStringList removeArguments(const QStringList& containers) const = 0;
    // All containers (running or not) carrying this owner label.
    virtual QStringList listArguments(const QString& ownerId) const = 0;
    virtual QList<ContainerInfo> parseList(const QByteArray& output) const = 0;
    // `inspect CONTAINER`; parseInspect returns nullopt when the output names no container.
    virtual QStringList inspectArguments(const QString& container) const = 0;
    virtual std::optional<ContainerInfo> parseInspect(const QByteArray& output) const = 0;
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
    // Tolerant of Docker's and Podman's arrays and Apple's `{configuration, variants}` objects; "no such
    // image" is told from an engine that did not answer by the exit code, the output and the CLI's words.
    virtual ImageInspection parseImageInspect(const QString& image, const ProcessResult& result) const;
    // The command a user runs to build the sandbox image (for the image_missing message).
    virtual QString buildImageCommand(const QString& image) const;

    // The labels of a spec, in a stable order.
    static QList<QPair<QString, QString>> labelsFor(const ContainerSpec& spec);
    // Where the project's Dockerfile is installed.
    static QString dockerContextDirectory();

    // The adapter of one engine; program empty: the engine's usual CLI name.
    static std::unique_ptr<ContainerRuntime> create(RuntimeKind kind, const QString& program = QString());

protected:
    QString m_program;
};

}  // namespace zeus
