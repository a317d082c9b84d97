#pragma once

#include "secrets/redactor.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QSslCertificate>
#include <QSslSocket>
#include <QString>
#include <QTimer>

#include <memory>

namespace zeus {

class InterceptCa;
class SecretPlaceholders;
class SecretSubstitution;

// What a session's egress proxy needs to end TLS for the hosts its secrets are bound to (SPEC §9 "Host-bound
// secrets"): the session's placeholders (values and bindings), the per-install CA that mints a leaf per host, and
// the roots the real host is verified against (this computer's store plus the test knob, SPEC §8 "Certificates").
// Both pointers belong to the session and the app and outlive the proxy. Without placeholders nothing is
// intercepted; without a loaded CA a bound host is refused (never tunnelled).
struct SecretInterception {
    const SecretPlaceholders* placeholders = nullptr;
    InterceptCa* ca = nullptr;
    QList<QSslCertificate> roots;

    // Some bound secret may go to host:port over the proxy's own TLS: that connection is intercepted, every other
    // one stays an end-to-end tunnel.
    bool covers(const QString& host, int port) const;
};

// One intercepted connection to a bound host: the client's TLS ends here, on a leaf minted for that host (ALPN
// offers HTTP/1.1 only, so h2 is negotiated down), its requests pass through a SecretSubstitution, and what comes
// out goes over the proxy's own TLS connection to the real host, verified against SecretInterception::roots for the
// host's name. The client's side is one end of a local socket pair whose other end the egress proxy's tunnel
// relays to the agent as it would relay a server, so the tunnel's flow control stays the only one towards the
// sandbox; this object bounds what it holds between the two TLS sockets.
//
// What the host answers is passed back with every form of every bound value of the session (Redactor::formsOf:
// as it is, percent-encoded, hex, base64 at any alignment) masked by as many '*', so a host that reflects the
// request (an echo endpoint, an error page quoting the URL or the headers) gives back no value and every length
// it states stays true; requests ask for `Accept-Encoding: identity` (SecretSubstitution), since a compressed
// reflection could not be read. A host that compresses anyway, or transforms the value, is not covered
// (docs/secrets.md).
//
// Never a fallback to a tunnel: a real certificate that does not verify ends the connection with a 502 that says
// so (and untrusted()), and a placeholder of a secret not bound to this host ends it with the substitution's 403
// (and notBound()); in both cases nothing of that request reaches the server. It never logs a value; the counts of
// substitutions go out by name (substituted()).
class InterceptedConnection : public QObject {
    Q_OBJECT
public:
    // Takes `upstream` (connected to the host, or to the upstream proxy's tunnel to it; not yet encrypted) and
    // starts both handshakes. *clientEnd is the socket for the tunnel to relay (the caller owns it). Null and
    // *error when the leaf or the socket pair cannot be made; `upstream` is then still the caller's.
    static InterceptedConnection* start(QSslSocket* upstream, const QString& host, int port,
                                        const SecretInterception& setup, QObject* parent, qintptr* clientEnd,
                                        QString* error);
    ~InterceptedConnection() override;

    // Bytes the proxy holds at most per direction between the two TLS sockets.
    static constexpr qint64 kHeldBytes = 256 * 1024;
    // The real host's TLS handshake: a host that accepts the connection and never completes it is refused.
    static constexpr int kHandshakeMs = 15000;
    // An answer's last bytes that could begin a form of a bound value wait this long for the rest.
    static constexpr int kQuietMs = 20;

Q_SIGNALS:
    // The real host's certificate verified: the connection carries requests from now on.
    void secured(const QString& detail);
    // The real host's certificate did not verify (or its TLS failed): the client gets a 502 naming `why`.
    void untrusted(const QString& why);
    // A placeholder of `name` went to a host that secret is not bound to: 403 to the client, nothing forwarded.
    void notBound(const QString& name, const QString& why);
    // Substitutions made on this connection, per secret name, once when it ends (the policy log; never a value).
    void substituted(const QHash<QString, qint64>& counts);

private:
    InterceptedConnection(QSslSocket* upstream, const QString& host, int port, const SecretPlaceholders* placeholders,
                          QObject* parent);
    void begin(const SecretInterception& setup, const QSslCertificate& leaf, const QSslKey& key);
    void fromClient();
    void fromServer();
    void onUpstreamError();
    void onUpstreamEncrypted();
    void answerClient(const QByteArray& reply);
    void finish();
    void maskNewValues();
    static qint64 held(const QSslSocket* socket);

    QTimer m_handshake;
    QSslSocket* m_upstream;
    QSslSocket* m_client = nullptr;
    QString m_host;
    int m_port;
    std::unique_ptr<SecretSubstitution> m_substitution;
    const SecretPlaceholders* m_placeholders;
    // The answers on their way into the sandbox: every form of a bound value masked, same length (SPEC §9: the
    // value never enters the sandbox, also when the host reflects the request). m_quiet hands over the bytes the
    // mask holds back (the start of a possible form) once the server has been quiet for kQuietMs.
    Redactor m_answers;
    QTimer m_quiet;
    QString m_untrusted;            // why the real host is not trusted; set: every request gets a 502
    bool m_secured = false;         // the real host's TLS is up and verified
    bool m_upstreamFailed = false;  // its TLS never came up: refused, said once
    bool m_clientSpoke = false;
    bool m_answered = false;  // the connection's last answer went to the client: nothing more is read
    bool m_serverEnded = false;
    bool m_countsSent = false;
};

}  // namespace zeus
