#pragma once

#include <QDateTime>
#include <QHash>
#include <QString>

namespace zeus {

// One decision of the egress proxy, for the policy log, the backend's network_event and the tray.
struct EgressEvent {
    QString sessionId;
    QString host;
    int port = 0;
    bool allowed = false;
    QString rule;    // the rule that decided, or why nothing allowed it
    QString detail;  // what happened next: "connected to 1.2.3.4", "connection refused", ...
    QDateTime when;
    // A tunnel the policy allowed whose client then refused the server's certificate (TlsTrustWatch): `allowed`
    // stays true, since the policy let it through; the fix is on the host (a CA to trust), not a rule.
    bool tlsUntrusted = false;
    // A request that carried a secret's placeholder to a host that secret is not bound to (SPEC §9): refused with
    // 403 and never forwarded; `allowed` is false, `rule` names the secret (never its value).
    bool secretNotBound = false;
    // Substitutions of host-bound secrets made on one intercepted connection (SPEC §9: the policy log shows name,
    // host and count, never the value); `allowed` stays true. Empty on every other event.
    QHash<QString, qint64> substitutions{};

    // The word of the backend's network_event and of the session log: "allowed", "denied", "tls_untrusted" or
    // "secret_not_bound".
    QString decisionWord() const;

    // The events of an intercepted connection (SPEC §9), before the proxy redacts and sends them: a placeholder of
    // `name` refused on host:port, and the substitutions made on one connection.
    static EgressEvent notBound(const QString& host, int port, const QString& name, const QString& why);
    static EgressEvent substituted(const QString& host, int port, const QHash<QString, qint64>& counts);
};

}  // namespace zeus
