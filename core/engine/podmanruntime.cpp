#include "engine/podmanruntime.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace zeus {

QStringList PodmanRuntime::runArguments(const ContainerSpec& spec) const {
    QStringList args = OciCliRuntime::runArguments(spec);
    const qsizetype pull = args.indexOf(QStringLiteral("--pull"));
    args.insert(pull >= 0 ? pull + 2 : 1, QStringLiteral("--http-proxy=false"));
    // Podman takes nosuid on a bind mount (Docker's --mount does not, docs/security.md): a set-user-id file in the
    // folder never runs with its owner's rights in the container.
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args.at(i - 1) == QLatin1String("--mount") && args.at(i).startsWith(QLatin1String("type=bind,"))) {
            args[i] += QStringLiteral(",nosuid");
        }
    }
    return args;
}

QStringList PodmanRuntime::userArguments(const ContainerSpec& spec) const {
    if (spec.podmanRootless) {
        return {QStringLiteral("--userns=keep-id")};
    }
    return OciCliRuntime::userArguments(spec);
}

QStringList PodmanRuntime::listArguments(const QString& ownerId) const {
    return {QStringLiteral("ps"),       QStringLiteral("-a"),
            QStringLiteral("--filter"), QStringLiteral("label=") + labels::owner() + QLatin1Char('=') + ownerId,
            QStringLiteral("--format"), QStringLiteral("json")};
}

QList<ContainerInfo> PodmanRuntime::parseList(const QByteArray& output) const {
    QList<ContainerInfo> containers;
    const QJsonArray array = QJsonDocument::fromJson(output).array();
    for (const QJsonValue value : array) {
        const QJsonObject object = value.toObject();
        ContainerInfo info;
        info.id = object.value(QLatin1String("Id")).toString();
        if (info.id.isEmpty()) {
            info.id = object.value(QLatin1String("ID")).toString();
        }
        if (info.id.isEmpty()) {
            continue;
        }
        const QJsonValue names = object.value(QLatin1String("Names"));
        info.name = names.isArray() ? names.toArray().first().toString() : names.toString();
        info.state = object.value(QLatin1String("State")).toString();
        info.running = info.state == QLatin1String("running");
        const QJsonObject labelObject = object.value(QLatin1String("Labels")).toObject();
        for (auto it = labelObject.begin(); it != labelObject.end(); ++it) {
            info.labels.insert(it.key(), it.value().toString());
        }
        containers.append(info);
    }
    return containers;
}

}  // namespace zeus
