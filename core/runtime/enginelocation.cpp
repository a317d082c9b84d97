#include "runtime/enginelocation.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace zeus {

namespace {

QString defaultDockerEndpoint() {
#if defined(Q_OS_WIN)
    return QStringLiteral("npipe:////./pipe/docker_engine");
#else
    return QStringLiteral("unix:///var/run/docker.sock");
#endif
}

}  // namespace

QString EngineLocation::kindToString(Kind kind) {
    switch (kind) {
        case Kind::Local:
            return QStringLiteral("local");
        case Kind::Remote:
            return QStringLiteral("remote");
        case Kind::Unknown:
            break;
    }
    return QStringLiteral("unknown");
}

QString EngineLocation::label() const {
    switch (kind) {
        case Kind::Local:
            return QCoreApplication::translate("zeus::EngineLocation", "local");
        case Kind::Remote:
            return host.isEmpty() ? QCoreApplication::translate("zeus::EngineLocation", "remote")
                                  : QCoreApplication::translate("zeus::EngineLocation", "remote (%1)").arg(host);
        case Kind::Unknown:
            break;
    }
    return QCoreApplication::translate("zeus::EngineLocation", "unknown");
}

QString EngineLocation::withoutCredentials(const QString& endpoint) {
    QString text = endpoint.trimmed();
    // scheme://userinfo@authority...: everything between "//" and the last "@" before the path is userinfo.
    static const QRegularExpression userInfo(QStringLiteral("^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@"));
    text.replace(userInfo, QStringLiteral("\\1"));
    const qsizetype query = text.indexOf(QLatin1Char('?'));
    if (query >= 0) {
        text.truncate(query);
    }
    const qsizetype fragment = text.indexOf(QLatin1Char('#'));
    if (fragment >= 0) {
        text.truncate(fragment);
    }
    return text;
}

EngineLocation EngineLocation::fromEndpoint(const QString& endpoint) {
    EngineLocation location;
    location.host = withoutCredentials(endpoint);
    if (location.host.isEmpty()) {
        location.kind = Kind::Local;
        return location;
    }
    const qsizetype separator = location.host.indexOf(QStringLiteral("://"));
    const QString scheme = separator > 0 ? location.host.left(separator).toLower() : QString();
    // A bare socket path (Podman's remoteSocket.path) is local like unix://.
    const bool local = scheme == QLatin1String("unix") || scheme == QLatin1String("npipe")
                       || (separator < 0 && location.host.startsWith(QLatin1Char('/')));
    location.kind = local ? Kind::Local : Kind::Remote;
    return location;
}

EngineLocation EngineLocation::forDocker(const QString& dockerHost, const QString& contextName,
                                         const QString& contextHost) {
    if (!dockerHost.trimmed().isEmpty()) {
        return fromEndpoint(dockerHost);
    }
    if (contextName.isEmpty() || contextName == QLatin1String("default")) {
        EngineLocation location;
        location.kind = Kind::Local;
        location.host = defaultDockerEndpoint();
        return location;
    }
    if (contextHost.trimmed().isEmpty()) {
        return {};
    }
    return fromEndpoint(contextHost);
}

QString EngineLocation::dockerContextName(const QJsonObject& info) {
    return info.value(QLatin1String("ClientInfo")).toObject().value(QLatin1String("Context")).toString();
}

bool EngineLocation::needsDockerContextInspect(const QString& dockerHost, const QString& contextName) {
    return dockerHost.trimmed().isEmpty() && !contextName.isEmpty() && contextName != QLatin1String("default");
}

QString EngineLocation::parseDockerContextInspect(const QByteArray& output) {
    const QJsonDocument document = QJsonDocument::fromJson(output.trimmed());
    QJsonObject context;
    if (document.isArray() && !document.array().isEmpty()) {
        context = document.array().first().toObject();
    } else if (document.isObject()) {
        context = document.object();
    }
    return context.value(QLatin1String("Endpoints"))
        .toObject()
        .value(QLatin1String("docker"))
        .toObject()
        .value(QLatin1String("Host"))
        .toString();
}

EngineLocation EngineLocation::forPodman(bool serviceIsRemote, const QString& remoteSocketPath,
                                         const QString& containerHost,
                                         const std::optional<PodmanConnection>& defaultConnection) {
    if (!serviceIsRemote) {
        // Podman ran the engine in this process: it is here, whatever socket it would serve.
        EngineLocation location;
        location.kind = Kind::Local;
        location.host = withoutCredentials(remoteSocketPath);
        if (location.host.startsWith(QLatin1Char('/'))) {
            location.host.prepend(QStringLiteral("unix://"));
        }
        return location;
    }
    if (!containerHost.trimmed().isEmpty()) {
        return fromEndpoint(containerHost);
    }
    if (defaultConnection) {
        if (defaultConnection->isMachine) {
            // A Podman machine is a VM on this machine (reached over ssh to localhost) that shares the user's
            // folders: a bind mount works as with Docker Desktop.
            EngineLocation location;
            location.kind = Kind::Local;
            location.host = withoutCredentials(defaultConnection->uri);
            return location;
        }
        return fromEndpoint(defaultConnection->uri);
    }
    // A remote client without CONTAINER_HOST or a connection talks to the local default socket.
    if (!remoteSocketPath.isEmpty()) {
        return fromEndpoint(remoteSocketPath);
    }
    return {};
}

bool EngineLocation::podmanServiceIsRemote(const QJsonObject& info) {
    return info.value(QLatin1String("host")).toObject().value(QLatin1String("serviceIsRemote")).toBool();
}

QString EngineLocation::podmanRemoteSocket(const QJsonObject& info) {
    return info.value(QLatin1String("host"))
        .toObject()
        .value(QLatin1String("remoteSocket"))
        .toObject()
        .value(QLatin1String("path"))
        .toString();
}

std::optional<EngineLocation::PodmanConnection> EngineLocation::parsePodmanConnections(const QByteArray& output,
                                                                                       const QString& wanted) {
    const QJsonArray connections = QJsonDocument::fromJson(output.trimmed()).array();
    for (const QJsonValue value : connections) {
        const QJsonObject object = value.toObject();
        const QString name = object.value(QLatin1String("Name")).toString();
        const bool chosen = wanted.isEmpty() ? object.value(QLatin1String("Default")).toBool() : name == wanted;
        if (!chosen) {
            continue;
        }
        PodmanConnection connection;
        connection.name = name;
        connection.uri = object.value(QLatin1String("URI")).toString();
        connection.isMachine = object.value(QLatin1String("IsMachine")).toBool();
        return connection;
    }
    return std::nullopt;
}

}  // namespace zeus
