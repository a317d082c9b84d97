#include "engine/dockerruntime.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace zeus {

namespace {

// The labels the app reads, each on its own: `docker ps` joins all labels into one "k=v,k=v" string that a value
// with a comma and an '=' (a session id like "s,zeus.desktop.owner=x", a workspace path) makes ambiguous, and
// the orphan sweep would then misread whose container it is.
QStringList listedLabels() {
    return {labels::app(), labels::owner(), labels::session(), labels::workspace()};
}

QString listFormat() {
    // One JSON object per line; every value goes through the template's own json function, so any byte a label
    // holds comes out escaped. `.Label "k"` is empty for a missing label, so presence is recorded separately.
    QString format = QStringLiteral("{\"ID\":{{json .ID}},\"Names\":{{json .Names}},\"State\":{{json .State}}");
    const QStringList keys = listedLabels();
    for (qsizetype i = 0; i < keys.size(); ++i) {
        format += QStringLiteral(",\"label%1\":{{json (.Label \"%2\")}}").arg(i).arg(keys.at(i));
    }
    return format + QLatin1Char('}');
}

}  // namespace

QStringList DockerRuntime::listArguments(const QString& ownerId) const {
    return {QStringLiteral("ps"),
            QStringLiteral("-a"),
            QStringLiteral("--no-trunc"),
            QStringLiteral("--filter"),
            QStringLiteral("label=") + labels::owner() + QLatin1Char('=') + ownerId,
            QStringLiteral("--format"),
            listFormat()};
}

QList<ContainerInfo> DockerRuntime::parseList(const QByteArray& output) const {
    QList<ContainerInfo> containers;
    const QList<QByteArray> lines = output.split('\n');
    const QStringList keys = listedLabels();
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
        for (qsizetype i = 0; i < keys.size(); ++i) {
            const QString value = object.value(QStringLiteral("label%1").arg(i)).toString();
            if (!value.isEmpty()) {
                info.labels.insert(keys.at(i), value);
            }
        }
        containers.append(info);
    }
    return containers;
}

}  // namespace zeus
