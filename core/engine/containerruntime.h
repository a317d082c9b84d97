#pragma once

#include "engine/containerspec.h"
#include "engine/imageinspection.h"
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

// One container engine's command line, as pure functions: argument lists in, parsed
// output out. It owns the knowledge of flags and output formats of one CLI; it must
// never start a process (the SessionManager does, through QProcess with these lists),
// and never build a shell string for the host.
class ContainerRuntime {
public:
    virtual ~ContainerRuntime() = default;

    // "docker", "podman" or "apple".
    virtual QString kind() const = 0;
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
    // `image inspect IMAGE` with the engine's full JSON, for diagnostics (labels, import comment).
    virtual QStringList imageInspectArguments(const QString& image) const;
    // Tolerant of Docker's and Podman's arrays and Apple's `{configuration, variants}` objects; "no such
    // image" is told from an engine that did not answer by the exit code, the output and the CLI's words.
    virtual ImageInspection parseImageInspect(const QString& image, const ProcessResult& result) const;
    // A stream of container-died events for this owner; empty when the engine has none.
    virtual QStringList eventsArguments(const QString& ownerId) const = 0;
    // The command a user runs to build the sandbox image (for the image_missing message).
    virtual QString buildImageCommand(const QString& image) const;

    // The labels of a spec, in a stable order.
    static QList<QPair<QString, QString>> labelsFor(const ContainerSpec& spec);
    // Where the project's Dockerfile is installed.
    static QString dockerContextDirectory();

    // A runtime for "docker", "podman" or "apple"; null for anything else.
    static std::unique_ptr<ContainerRuntime> create(const QString& kind, const QString& program = QString());

protected:
    QString m_program;
};

}  // namespace zeus
