#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <optional>

namespace zeus {

// Where an engine runs: on this machine or on another one (SPEC §10). It decides whether a bind mount of a host
// folder can work at all: a remote engine would mount a folder of its own machine, never this one's.
//
// A value made by the pure functions below from what the environment and the CLI said; it never runs anything.
// `host` is the engine's endpoint as shown to people and written to logs: never with credentials (user and
// password are taken out of a URL before it is stored here).
class EngineLocation {
    Q_GADGET

public:
    enum class Kind {
        Unknown,  // the engine did not say (not probed, or its answer named no endpoint)
        Local,    // a Unix socket, a named pipe, or a VM of this machine (Docker Desktop, a Podman machine, Apple)
        Remote,   // tcp://, ssh://, http(s):// or a remote Podman connection: containers run on another machine
    };
    Q_ENUM(Kind)

    Kind kind = Kind::Unknown;
    QString host;  // the endpoint (credentials removed); may be empty for a local engine that names none

    bool isRemote() const { return kind == Kind::Remote; }
    // "local", "remote", "unknown": JSON and logs.
    static QString kindToString(Kind kind);
    // For people: "local", "remote (tcp://build:2376)", "unknown" (translated).
    QString label() const;

    // By the endpoint's scheme: unix:// and npipe:// (and an empty endpoint: the engine's default socket) are
    // local; tcp://, ssh://, http:// and https:// are remote, and so is any other scheme, because a bind mount
    // on a machine we cannot name is the unsafe guess.
    static EngineLocation fromEndpoint(const QString& endpoint);
    // The endpoint without user:password@ (or user@) and without a query (Podman URIs carry key paths there).
    static QString withoutCredentials(const QString& endpoint);

    // Docker: DOCKER_HOST when set decides; otherwise the client's context (ClientInfo.Context of
    // `docker info --format '{{json .}}'`): "default" (or none) is the local default socket, another context is
    // what its endpoint says (`contextHost`, from `docker context inspect`); unknown when that is not known.
    static EngineLocation forDocker(const QString& dockerHost, const QString& contextName, const QString& contextHost);
    // The context a `docker info` JSON answer names (ClientInfo.Context); empty when it names none.
    static QString dockerContextName(const QJsonObject& info);
    // Whether the context's endpoint must be asked for (`docker context inspect NAME`): only for a named context
    // other than "default" when DOCKER_HOST is not set.
    static bool needsDockerContextInspect(const QString& dockerHost, const QString& contextName);
    // The docker endpoint of `docker context inspect NAME` output (a JSON array of one context); empty when none.
    static QString parseDockerContextInspect(const QByteArray& output);

    // Podman: a local service (`host.serviceIsRemote` false in `podman info`) is local. A remote client goes to
    // CONTAINER_HOST when set, else to the default connection (`podman system connection list --format json`),
    // where a connection to a Podman machine (IsMachine) is a VM of this machine: local.
    struct PodmanConnection {
        QString name;
        QString uri;
        bool isMachine = false;
    };
    static EngineLocation forPodman(bool serviceIsRemote, const QString& remoteSocketPath, const QString& containerHost,
                                    const std::optional<PodmanConnection>& defaultConnection);
    // The connection `podman system connection list --format json` marks Default (or, when `wanted` is given,
    // the one of that name: CONTAINER_CONNECTION); nullopt when there is none.
    // From `podman info --format json`: whether the client talked to a service (host.serviceIsRemote), and the
    // socket that service is at (host.remoteSocket.path).
    static bool podmanServiceIsRemote(const QJsonObject& info);
    static QString podmanRemoteSocket(const QJsonObject& info);
    static std::optional<PodmanConnection> parsePodmanConnections(const QByteArray& output,
                                                                  const QString& wanted = QString());
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::EngineLocation)
