#pragma once

#include "sandbox/agent/agentframe.h"
#include "sandbox/egress/egressevent.h"
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/egress/interceptedconnection.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace zeus {

class AgentChannel;

// The app's side of a session's egress (SPEC §8): it takes every tunnel the session's agent opens, reads the
// request the command made (HTTP CONNECT, an absolute-URI request, or SOCKS5), decides from that request alone
// under the session's EgressPolicy, resolves the name itself (or takes the --resolve override), drops the
// addresses the policy forbids, connects with QTcpSocket to an address it checked -- never a second lookup --
// and relays both ways with flow control: no more than the agent's window is sent, and no more than the
// socket's buffers is read ahead, so neither a fast server nor a fast command grows memory.
//
// The connection judged is the connection made: a CONNECT or SOCKS tunnel to port 80 is refused (plain HTTP
// comes as an absolute-URI request, whose Host this proxy writes, one request per connection); a tunnel to a
// name on any other port is granted, then its first bytes must be a TLS ClientHello naming that very name (or
// an SSH identification line) before anything is connected; otherwise the tunnel ends, reported as a denial.
//
// Upstream (SPEC §8): once a connection is allowed and its addresses checked, the policy's UpstreamProxy says
// whether it leaves through the proxy the host uses; then the proxy asks that one for a CONNECT tunnel (or sends
// it the absolute-URI request), and any failure there is a 502 naming it without its credentials.
//
// Certificates (SPEC §8): a tunnel to a name that passed its ClientHello is watched through its first records
// (TlsTrustWatch); a client that refuses the server's certificate is reported once more, as tls_untrusted.
//
// Speed: once a plain tunnel is relaying both ways and its watch has its verdict, there is nothing left to read in
// it; on the lane the proxy asks the agent for the client's socket and a SpliceRelay moves the bytes between the two
// sockets in the kernel. Never for an intercepted connection, a plain HTTP request, or while the watch watches.
//
// Host-bound secrets (SPEC §9): a CONNECT or SOCKS tunnel the policy allowed to a host:port that one of the session's
// bound secrets covers (setSecretInterception()) is not a tunnel: once the connection to the host (or through the
// upstream proxy) is made, an InterceptedConnection ends the client's TLS there with a leaf of the per-install CA,
// puts the values in place of the placeholders, and speaks its own verified TLS to the host. A host whose real
// certificate does not verify is refused with a 502 that says so, never tunnelled. A plain-HTTP request passes
// through the same rewriter (clear text: only bindings that name the port). Every other connection is untouched.
//
// It trusts nothing the agent or the command says beyond the bytes of the request; a malformed or oversized
// request is answered with an error and closed. Denials are answered as SPEC §8 says (403 with
// X-Proxy-Error: blocked-by-allowlist; SOCKS reply 2) and reported with decided().
class EgressProxy : public QObject {
    Q_OBJECT
public:
    EgressProxy(QString sessionId, AgentChannel* channel, EgressPolicy policy, QObject* parent = nullptr);
    ~EgressProxy() override;

    // The policy can change while the session lives ("Allow for this session"); tunnels already open keep going.
    void setPolicy(const EgressPolicy& policy) { m_policy = policy; }
    const EgressPolicy& policy() const { return m_policy; }
    // The next request for this host and port is allowed once, whatever the rules say (deny rules still win).
    void allowOnce(const QString& host, int port);

    struct Timeouts {
        int headMs = 30000;     // a client that connects and says nothing
        int helloMs = 10000;    // a granted tunnel to a name whose client sends no ClientHello
        int connectMs = 15000;  // resolving and connecting
        int lingerMs = 5000;    // after a refusal, before the tunnel is dropped
    };
    void setTimeouts(const Timeouts& timeouts) { m_timeouts = timeouts; }
    const Timeouts& timeouts() const { return m_timeouts; }

    // Host names, rules and details pass through this before they reach the log or decided() (SPEC §8): a command
    // can put a secret into a name it asks for. The session sets its redactor here; none: text as it is.
    using TextRedaction = std::function<QString(const QString&)>;
    void setRedaction(TextRedaction redaction) { m_redaction = std::move(redaction); }
    // The session's bound secrets, the CA and the roots (SecretInterception); default: nothing is intercepted.
    void setSecretInterception(SecretInterception interception) { m_interception = std::move(interception); }

    int openTunnels() const { return int(m_tunnels.size()); }
    QString sessionId() const { return m_sessionId; }
    // Tunnels whose bytes no longer pass the agent's frames: the agent handed the client's socket over on the lane
    // (docs/agent-protocol.md "Handing a tunnel over") and a SpliceRelay carries them. At most kMaxHandedTunnels at
    // once per session (each holds four descriptors of the app); the others stay on the frames.
    static constexpr int kMaxHandedTunnels = 32;
    int handedTunnels() const { return m_handed; }

    // Asks the agent to listen on the proxy ports (3128 HTTP, 1080 SOCKS5) and takes its tunnels from then on.
    void start();
    static constexpr quint16 kHttpPort = 3128;
    static constexpr quint16 kSocksPort = 1080;

Q_SIGNALS:
    void decided(const zeus::EgressEvent& event);
    // A listener could not be opened in the container (the port is taken): egress will not work there.
    void listenFailed(quint16 port, const QString& reason);
    // The agent handed this tunnel's client socket over and a SpliceRelay carries it now (host redacted).
    void handedOver(const QString& host, int port);

private:
    class Tunnel;
    friend class Tunnel;
    EgressDecision decide(const QString& host, int port);
    void report(const QString& host, int port, bool allowed, const QString& rule, const QString& detail,
                bool tlsUntrusted = false);
    QString redacted(const QString& text) const;  // through setRedaction()'s function, if any
    void forget(quint32 id);

    void reportEvent(EgressEvent event);  // redacts its host and texts, logs it, emits decided()

    QString m_sessionId;
    QPointer<AgentChannel> m_channel;
    SecretInterception m_interception;
    EgressPolicy m_policy;
    Timeouts m_timeouts;
    QHash<quint32, Tunnel*> m_tunnels;
    QHash<QString, int> m_once;  // "host:port" -> allowances left
    int m_handed = 0;            // tunnels asked to be handed over or carried by a SpliceRelay
    TextRedaction m_redaction;
};

}  // namespace zeus
