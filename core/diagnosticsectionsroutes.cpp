#include "diagnosticsections.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>

#include <utility>

namespace zeus {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::DiagnosticSections", text);
}

}  // namespace

// The network section's lines on where traffic goes besides the rules: through an upstream proxy, and which
// services of this computer the sandbox reaches.
void DiagnosticSections::routes(const SandboxConfig& config, QJsonObject& value, QString& text) {
    // SPEC §8 "Upstream": where allowed connections leave this computer; whether credentials are set, never them.
    const UpstreamProxy::Summary upstream = config.egress.upstream.summary();
    value.insert(QStringLiteral("upstream_proxy"), upstream.toJson());
    text += QLatin1Char('\n')
            + tr("Upstream proxy: %1 (from: %2; credentials: %3; NO_PROXY: %4)")
                  .arg(!upstream.proxy.isEmpty()  ? upstream.proxy
                       : upstream.error.isEmpty() ? tr("straight to the host")
                                                  : upstream.error,
                       upstream.source, upstream.credentials ? tr("yes") : tr("no"), upstream.noProxy);
    // SPEC §8 "Ports": which host services the sandbox reaches (the run's --expose-host, each folder's setting).
    const auto spelled = [](const QList<ExposeSpec>& specs) {
        QStringList list;
        for (const ExposeSpec& spec : specs) {
            list << spec.text();
        }
        return list;
    };
    QJsonObject exposedFolders;
    QStringList exposedText;
    if (!config.exposeHost.isEmpty()) {
        exposedText << tr("every folder: %1").arg(spelled(config.exposeHost).join(QStringLiteral(", ")));
    }
    QStringList folders = config.folderExposeHost.keys();
    folders.sort();
    for (const QString& folder : std::as_const(folders)) {
        exposedFolders.insert(folder, QJsonArray::fromStringList(spelled(config.folderExposeHost.value(folder))));
        exposedText << tr("%1: %2").arg(folder,
                                        spelled(config.folderExposeHost.value(folder)).join(QStringLiteral(", ")));
    }
    value.insert(QStringLiteral("exposed_host_ports"),
                 QJsonObject{{QStringLiteral("run"), QJsonArray::fromStringList(spelled(config.exposeHost))},
                             {QStringLiteral("folders"), exposedFolders}});
    text += QLatin1Char('\n')
            + tr("Host services reachable in the sandbox: %1")
                  .arg(exposedText.isEmpty() ? tr("none") : exposedText.join(QStringLiteral("; ")));
}

}  // namespace zeus
