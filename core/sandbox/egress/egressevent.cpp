#include "sandbox/egress/egressevent.h"

#include <QStringList>

namespace zeus {

QString EgressEvent::decisionWord() const {
    if (secretNotBound) {
        return QStringLiteral("secret_not_bound");
    }
    if (tlsUntrusted) {
        return QStringLiteral("tls_untrusted");
    }
    return allowed ? QStringLiteral("allowed") : QStringLiteral("denied");
}

EgressEvent EgressEvent::notBound(const QString& host, int port, const QString& name, const QString& why) {
    EgressEvent event;
    event.host = host;
    event.port = port;
    event.secretNotBound = true;
    event.rule = QStringLiteral("secret %1 is not bound to this host").arg(name);
    event.detail = why;
    return event;
}

EgressEvent EgressEvent::substituted(const QString& host, int port, const QHash<QString, qint64>& counts) {
    EgressEvent event;
    event.host = host;
    event.port = port;
    event.allowed = true;
    event.substitutions = counts;
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        parts.append(QStringLiteral("%1 x%2").arg(it.key()).arg(it.value()));
    }
    parts.sort();
    event.rule = QStringLiteral("bound secrets");
    event.detail = QStringLiteral("substituted: %1").arg(parts.join(QStringLiteral(", ")));
    return event;
}

}  // namespace zeus
