#include "engine/ocicliruntime.h"

#include "engine/containereventparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace zeus {

QString OciCliRuntime::bindMountValue(const QString& source, const QString& target) {
    QString sourceField = QStringLiteral("source=") + source;
    if (sourceField.contains(QLatin1Char(',')) || sourceField.contains(QLatin1Char('"'))) {
        sourceField.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        sourceField = QLatin1Char('"') + sourceField + QLatin1Char('"');
    }
    return QStringLiteral("type=bind,") + sourceField + QStringLiteral(",target=") + target;
}

QStringList OciCliRuntime::userArguments(const ContainerSpec& spec) const {
    if (spec.uid < 0) {
        return {};
    }
    return {QStringLiteral("--user"), QString::number(spec.uid) + QLatin1Char(':') + QString::number(spec.gid)};
}

QStringList OciCliRuntime::runArguments(const ContainerSpec& spec) const {
    QStringList args = {QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--init"),
                        // Never pull: a missing image is reported, with the build command.
                        QStringLiteral("--pull"), QStringLiteral("never")};
    if (!spec.name.isEmpty()) {
        args << QStringLiteral("--name") << spec.name;
    }
    for (const auto& label : labelsFor(spec)) {
        args << QStringLiteral("--label") << label.first + QLatin1Char('=') + label.second;
    }
    args << QStringLiteral("--cap-drop") << QStringLiteral("ALL")                    //
         << QStringLiteral("--security-opt") << QStringLiteral("no-new-privileges")  //
         << QStringLiteral("--pids-limit") << QString::number(spec.pidsLimit)        //
         << QStringLiteral("--memory") << spec.memory                                //
         << QStringLiteral("--cpus") << spec.cpus;
    args << userArguments(spec);
    if (spec.profile == HardeningProfile::Hardened) {
        args << QStringLiteral("--read-only") << QStringLiteral("--tmpfs") << QStringLiteral("/tmp:rw,exec,mode=1777");
    }
    // A writable HOME on tmpfs in both profiles: tools write caches there, and with
    // --user the image's own home would not be writable.
    args << QStringLiteral("--tmpfs") << containerHome() + QStringLiteral(":rw,exec,mode=1777")  //
         << QStringLiteral("-e") << QStringLiteral("HOME=") + containerHome();
    if (spec.runtimeDir) {
        // Writable by the --user the commands run as; the agent's read-only mount (below) sits inside it.
        args << QStringLiteral("--tmpfs") << containerRuntimeDir() + QStringLiteral(":rw,nosuid,nodev,mode=1777");
    }
    for (const QString& entry : spec.environment) {
        args << QStringLiteral("-e") << entry;
    }
    const QString network = spec.effectiveNetwork();
    if (!network.isEmpty()) {
        args << QStringLiteral("--network") << network;
    }
    if (!spec.agentSource.isEmpty()) {
        // The app's own agent, read-only: the command can run it but never replace it.
        args << QStringLiteral("--mount")
             << bindMountValue(spec.agentSource, containerAgentPath()) + QStringLiteral(",readonly");
    }
    if (!spec.laneSource.isEmpty()) {
        // The lane's folder, read-only: the agent can connect to the app's socket in it, nobody can put another there.
        args << QStringLiteral("--mount")
             << bindMountValue(spec.laneSource, containerLanePath()) + QStringLiteral(",readonly");
    }
    if (spec.reviewCopy) {
        // The container's own anonymous volume: writable also under --read-only, kept while the container is
        // stopped, removed with it (`rm -v`). Nothing of the host is mounted.
        args << QStringLiteral("--mount") << QStringLiteral("type=volume,target=") + containerWorkspace();
    } else {
        args << QStringLiteral("--mount") << bindMountValue(spec.workspace, containerWorkspace());
    }
    for (const WorkspaceOverlay& overlay : spec.reviewCopy ? QList<WorkspaceOverlay>() : spec.overlays) {
        const QString relative = QLatin1Char('/') + overlay.path;
        args << QStringLiteral("--mount")
             << bindMountValue(spec.workspace + relative, containerWorkspace() + relative)
                    + (overlay.readOnly ? QStringLiteral(",readonly") : QString());
    }
    args << QStringLiteral("-w") << containerWorkspace()  //
         << spec.image << QStringLiteral("sleep") << QStringLiteral("infinity");
    return args;
}

QStringList OciCliRuntime::execArguments(const QString& container, const QStringList& command) const {
    return QStringList{QStringLiteral("exec"), container} + command;
}

QStringList OciCliRuntime::execWithStdinArguments(const QString& container, const QStringList& command) const {
    return QStringList{QStringLiteral("exec"), QStringLiteral("-i"), container} + command;
}

QStringList OciCliRuntime::execWithStdinArguments(const QString& container, const QStringList& command,
                                                  const QStringList& inheritedNames) const {
    // docker and podman: `-e NAME` without a value takes the value from the CLI's environment.
    QStringList args{QStringLiteral("exec"), QStringLiteral("-i")};
    for (const QString& name : inheritedNames) {
        args << QStringLiteral("-e") << name;
    }
    return args << container << command;
}

QStringList OciCliRuntime::removeArguments(const QStringList& containers) const {
    return QStringList{QStringLiteral("rm"), QStringLiteral("-f"), QStringLiteral("-v")} + containers;
}

QStringList OciCliRuntime::execAsRootArguments(const QString& container, const QStringList& command) const {
    return QStringList{QStringLiteral("exec"), QStringLiteral("-u"), QStringLiteral("0"), container} + command;
}

QStringList OciCliRuntime::inspectArguments(const QString& container) const {
    return {QStringLiteral("inspect"), QStringLiteral("--type"), QStringLiteral("container"), container};
}

QList<ContainerInfo> OciCliRuntime::parseInspectAll(const QByteArray& output) const {
    return ContainerEventParser::parseInspect(output);
}

QStringList OciCliRuntime::eventsArguments(const QString& ownerId, const QDateTime& since) const {
    return ContainerEventParser::eventsArguments(kind(), ownerId, since);
}

std::optional<ContainerEvent> OciCliRuntime::parseEvent(const QByteArray& line) const {
    return ContainerEventParser::parseEventLine(line);
}

QStringList OciCliRuntime::statsArguments(const QStringList& containerIds) const {
    return ContainerEventParser::statsArguments(kind(), containerIds);
}

QList<ContainerStats> OciCliRuntime::parseStats(const QByteArray& output) const {
    return ContainerEventParser::parseStats(output);
}

QStringList OciCliRuntime::imageExistsArguments(const QString& image) const {
    return {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"), QStringLiteral("{{.Id}}"),
            image};
}

}  // namespace zeus
