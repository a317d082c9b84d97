#include "engine/dockerruntime.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace zeus {

QStringList DockerRuntime::listArguments(const QString& ownerId) const {
    return {QStringLiteral("ps"),
            QStringLiteral("-a"),
            QStringLiteral("--no-trunc"),
            QStringLiteral("--filter"),
            QStringLiteral("label=") + labels::owner() + QLatin1Char('=') + ownerId,
            QStringLiteral("--format"),
            QStringLiteral("{{json .}}")};
}

QList<ContainerInfo> DockerRuntime::parseList(const QByteArray& output) const {
    QList<ContainerInfo> containers;
    const QList<QByteArray> lines = output.split('\n');
    for (const QByteArray& line : lines) {
        const QJsonObject object = QJsonDocument::fromJson(line.trimmed()).object();
        if (object.isEmpty()) {
            continue;  // tolerate warnings or blank lines between records
        }
        ContainerInfo info;
        info.id = object.value(QLatin1String("ID")).toString();
        if (info.id.isEmpty()) {
            continue;
        }
        info.name = object.value(QLatin1String("Names")).toString().section(QLatin1Char(','), 0, 0);
        info.state = object.value(QLatin1String("State")).toString();
        info.running = info.state == QLatin1String("running");
        // Labels: "k=v,k=v". A value holding a comma (a workspace path) is split wrongly
        // here, so values are re-joined until the next "zeus."-style key.
        const QStringList parts = object.value(QLatin1String("Labels")).toString().split(QLatin1Char(','));
        QString key;
        for (const QString& part : parts) {
            const qsizetype eq = part.indexOf(QLatin1Char('='));
            if (eq > 0 && !part.left(eq).contains(QLatin1Char('/')) && !part.left(eq).contains(QLatin1Char(' '))) {
                key = part.left(eq);
                info.labels.insert(key, part.mid(eq + 1));
            } else if (!key.isEmpty()) {
                info.labels[key] += QLatin1Char(',') + part;
            }
        }
        containers.append(info);
    }
    return containers;
}

}  // namespace zeus
