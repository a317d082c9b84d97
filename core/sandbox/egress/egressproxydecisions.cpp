#include "sandbox/egress/egressproxy.h"
#include "support/logging.h"

#include <QDateTime>

#include <utility>

// What the egress proxy decides and how it says so (egressproxy.h); the tunnels that ask are in egressproxy.cpp.

namespace zeus {

void EgressProxy::allowOnce(const QString& host, int port) {
    m_once[EgressPolicy::normalizeHost(host) + QLatin1Char(':') + QString::number(port)] += 1;
}

EgressDecision EgressProxy::decide(const QString& host, int port) {
    EgressDecision decision = m_policy.decideHost(host, port);
    const bool deniedByRule = decision.rule.startsWith(QLatin1String("deny "));
    const QString key = host + QLatin1Char(':') + QString::number(port);
    if (!decision.allowed && !deniedByRule && m_policy.mode == NetworkMode::Allowlist) {
        const auto once = m_once.find(key);
        if (once != m_once.end()) {
            if (--*once <= 0) {
                m_once.erase(once);
            }
            return {true, QStringLiteral("allowed once")};
        }
    }
    return decision;
}

void EgressProxy::report(const QString& host, int port, bool allowed, const QString& rule, const QString& detail,
                         bool tlsUntrusted) {
    EgressEvent event;
    event.host = host;
    event.port = port;
    event.allowed = allowed;
    event.tlsUntrusted = tlsUntrusted;
    event.rule = rule;
    event.detail = detail;
    reportEvent(std::move(event));
}

void EgressProxy::reportEvent(EgressEvent event) {
    event.sessionId = m_sessionId;
    event.host = redacted(event.host);
    event.rule = redacted(event.rule);
    event.detail = redacted(event.detail);
    event.when = QDateTime::currentDateTimeUtc();
    qCInfo(lcSession).noquote() << "egress" << m_sessionId << event.host << event.port << event.decisionWord()
                                << event.rule << event.detail;
    Q_EMIT decided(event);
}

QString EgressProxy::redacted(const QString& text) const {
    return m_redaction ? m_redaction(text) : text;
}

}  // namespace zeus
