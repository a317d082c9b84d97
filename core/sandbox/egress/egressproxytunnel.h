#pragma once

// The private part of egressproxy.cpp: one connection from the container (EgressProxy::Tunnel), in a header of its
// own for its size. Included by egressproxy.cpp only.

#include "sandbox/agent/agentchannel.h"
#include "sandbox/agent/agenttunnel.h"
#include "sandbox/agent/lanesocket.h"
#include "sandbox/egress/clienthello.h"
#include "sandbox/egress/egressproxy.h"
#include "sandbox/egress/proxyrequest.h"
#include "sandbox/egress/secretsubstitution.h"
#include "sandbox/egress/splicerelay.h"
#include "sandbox/egress/tlstrustwatch.h"
#include "sandbox/egress/upstreamproxy.h"
#include "support/logging.h"

#include <QElapsedTimer>
#include <QHostInfo>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

#ifndef Q_OS_WIN
#include <sys/socket.h>
#endif

#include <utility>

namespace zeus {

// One connection from the container. Lives from the agent's `open` until the agent's `closed`, an error, or the
// proxy's end; deletes itself through the proxy's forget().
class EgressProxy::Tunnel : public QObject, public AgentTunnel {
public:
    static constexpr qint64 kReadAhead = 256 * 1024;  // what the socket may hold from the server beyond the window
    // Hello: the tunnel to a name was granted (200 / SOCKS success) and the proxy reads the client's first bytes,
    // a TLS ClientHello whose server name must be the name it checked, before it connects anywhere.
    // Upstream: connected to the upstream proxy and asked it for a tunnel (CONNECT); its answer is awaited.
    enum class Phase { Head, Hello, Resolving, Connecting, Upstream, Relaying, Refused };

    Tunnel(EgressProxy* proxy, quint32 id, agentframe::ListenerKind kind)
        : QObject(proxy), m_proxy(proxy), m_id(id), m_kind(kind) {
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, [this] { onTimeout(); });
        m_timer.start(m_proxy->m_timeouts.headMs);
        m_clock.start();
    }

    ~Tunnel() override {
        if (m_lookupId >= 0) {
            QHostInfo::abortHostLookup(m_lookupId);
        }
    }

    void tunnelData(const QByteArray& data) override {
        if (data.isEmpty()) {
            m_clientDone = true;
            watchClientEnd();
            if (m_phase == Phase::Relaying) {
                shutdownServerWrite();
            }
            return;
        }
        switch (m_phase) {
            case Phase::Head:
                m_buffer += data;
                channel()->consumedTunnel(m_id, quint32(data.size()));
                readHead();
                return;
            case Phase::Hello:
                // Bounded: the verdict comes by clienthello::kMaxHelloBytes, and the window is given back as read.
                m_buffer += data;
                channel()->consumedTunnel(m_id, quint32(data.size()));
                readHello();
                return;
            case Phase::Resolving:
            case Phase::Connecting:
            case Phase::Upstream:
                // Bytes after the head (a TLS hello sent early): held, and bounded by the window we do not renew.
                m_buffer += bodyPart(data);
                watchClient(data);
                return;
            case Phase::Relaying: {
                const QByteArray part = bodyPart(data);
                if (!part.isEmpty()) {
                    toServer(part, part.size());
                }
                watchClient(data);
                handOver();
                return;
            }
            case Phase::Refused:
                channel()->consumedTunnel(m_id, quint32(data.size()));  // read and dropped
                return;
        }
    }

    void tunnelWritable() override { pumpServer(); }

    // The client's socket, once the agent wrote all the app sent it: the relay starts when the server's socket has
    // written all the client sent (its bytes came before this, in frames).
    bool tunnelHandedOver(int descriptor) override {
        m_client = descriptor;
        takeOver();
        return true;
    }

    void tunnelClosed() override {
        watchClientEnd();
        m_closedByAgent = true;
        end();
    }

    // Ends the tunnel from the app's side (the proxy goes away, a refusal lingered long enough).
    void drop() {
        if (!m_closedByAgent && channel() != nullptr) {
            channel()->closeTunnel(m_id);
        }
        m_closedByAgent = true;
        end();
    }

private:
    AgentChannel* channel() const { return m_proxy->m_channel.data(); }

    void readHead() {
        const bool socks = m_kind == agentframe::ListenerKind::Socks5;
        proxyrequest::Request r =
            socks ? proxyrequest::parseSocks5(m_buffer, m_greeted) : proxyrequest::parseHttp(m_buffer);
        if (r.status == proxyrequest::Status::Reply) {
            m_buffer.remove(0, r.consumed);
            m_greeted = true;
            channel()->sendTunnel(m_id, r.reply);
            readHead();
            return;
        }
        if (r.status == proxyrequest::Status::NeedMore) {
            return;
        }
        if (r.status == proxyrequest::Status::Error) {
            qCInfo(lcSession) << "egress: a request that is not one:" << r.error;
            refuse(r.reply);
            return;
        }
        m_buffer.remove(0, r.consumed);
        m_host = r.host;
        m_port = r.port;
        m_forward = r.forward;
        m_socks = socks;
        if (r.status == proxyrequest::Status::HttpsForm) {
            // Said like any denial when the policy refuses the host; otherwise why this form is not carried.
            const EgressDecision decision = m_proxy->decide(m_host, m_port);
            if (!decision.allowed) {
                deny(decision.rule);
            } else {
                refuse(r.reply);
            }
            return;
        }
        const bool tunnel = r.status == proxyrequest::Status::Connect;
        m_tunnel = tunnel;
        QHostAddress literal;
        const bool toName = !literal.setAddress(m_host);
        if (tunnel && m_port == 80) {
            // A raw tunnel to port 80 carries an HTTP Host the proxy never reads (behind a CDN: any site). Plain
            // HTTP goes through the absolute-URI path, whose Host the proxy writes itself.
            deny(QStringLiteral("a tunnel to port 80 (plain HTTP goes through the proxy as http:// requests)"));
            return;
        }
        if (!tunnel) {
            // One request per connection: its body and nothing after it, so no second request rides along.
            m_bodyLeft = r.bodyBytes;
            m_buffer.truncate(qMin<qint64>(m_buffer.size(), m_bodyLeft));
            m_bodyLeft -= m_buffer.size();
        }
        const EgressDecision decision = m_proxy->decide(m_host, m_port);
        if (!decision.allowed) {
            deny(decision.rule);
            return;
        }
        m_rule = decision.rule;
        // A host a secret of the session is bound to: TLS ends in this proxy (SPEC §9); every other stays a tunnel.
        m_intercept = tunnel && m_proxy->m_interception.covers(m_host, m_port);
        if (tunnel && toName && m_proxy->m_policy.mode == NetworkMode::Allowlist) {
            // The client sends its ClientHello only once the tunnel is granted: grant it, read, then connect.
            m_replied = true;
            channel()->sendTunnel(m_id, m_socks ? proxyrequest::socksReply(0) : proxyrequest::httpConnected());
            m_phase = Phase::Hello;
            m_timer.start(m_proxy->m_timeouts.helloMs);
            readHello();
            return;
        }
        resolve();
    }

    void readHello() {
        const clienthello::Verdict verdict = clienthello::judge(m_buffer, m_host);
        if (verdict.status == clienthello::Verdict::Status::NeedMore) {
            if (m_buffer.size() > clienthello::kMaxHelloBytes) {
                deny(QStringLiteral("a malformed TLS ClientHello"));
            }
            return;
        }
        if (verdict.status == clienthello::Verdict::Status::Refuse) {
            // The SNI goes to the local log only: the rule (sent to the backend) names no host.
            m_proxy->report(
                m_host, m_port, false, verdict.why,
                verdict.serverName.isEmpty() ? QString() : QStringLiteral("server name %1").arg(verdict.serverName));
            refuse({});
            return;
        }
        if (!verdict.ssh) {
            // A TLS tunnel to an allowed name: its first records say whether the client will trust the server.
            m_trust.emplace();
            watchClient(m_buffer);
        }
        resolve();
    }

    void watchClient(const QByteArray& data) {
        if (m_trust) {
            m_trust->clientBytes(data, m_clock.elapsed());
            judgeTrust();
        }
    }

    void watchServer(const QByteArray& data) {
        if (m_trust) {
            m_trust->serverBytes(data, m_clock.elapsed());
            judgeTrust();
        }
    }

    void watchClientEnd() {
        if (m_trust && m_phase == Phase::Relaying) {
            m_trust->clientEnded(m_clock.elapsed());
            judgeTrust();
        }
    }

    // Said once per tunnel, as one more event of this allowed connection; the watch ends with its verdict.
    void judgeTrust() {
        switch (m_trust->verdict()) {
            case TlsTrustWatch::Verdict::Watching:
                return;
            case TlsTrustWatch::Verdict::Untrusted:
                m_proxy->report(m_host, m_port, true, m_rule, m_trust->why(), true);
                break;
            case TlsTrustWatch::Verdict::Done:
                break;
        }
        m_trust.reset();
        handOver();
    }

    // Nothing left to read in this connection: a tunnel relaying both ways with its trust watch over, or a plain HTTP
    // request sent whole (then only the answer's way is handed over: what the client sends after it is still read
    // and dropped, one request per connection).
    void handOver() {
        const bool ready = m_tunnel ? !m_trust : m_bodyLeft == 0 && !m_checkUpstreamReply;
        if (m_phase != Phase::Relaying || !ready || m_intercept || m_substitution || m_clientDone || m_serverDone
            || m_handingOver || m_proxy->m_handed >= kMaxHandedTunnels || !channel()->handOverTunnel(m_id)) {
            return;
        }
        m_handingOver = true;  // the server's bytes wait in its socket from now on
        ++m_proxy->m_handed;
    }

    void takeOver() {
        if (m_client < 0 || m_socket == nullptr) {
            return;
        }
        const bool connected = m_socket->state() == QAbstractSocket::ConnectedState;
        if (connected && m_socket->bytesToWrite() > 0) {
            return;  // the client's last bytes are still to write: onBytesWritten() or the end comes back
        }
        // Unhooked first: taking the socket out of Qt's hands aborts it, and that end is not the server's.
        QTcpSocket* socket = std::exchange(m_socket, nullptr);
        socket->disconnect(this);
        QByteArray held;
        const int server = connected ? SpliceRelay::takeSocket(socket, &held) : -1;
        if (!connected) {
            held = socket->readAll();  // the server ended meanwhile: this is the rest of its answer
        }
        if (server < 0) {
            socket->deleteLater();
        }
        if (connected && server < 0) {
            drop();  // no descriptor to take it with
            return;
        }
        const auto ways = m_tunnel ? SpliceRelay::Ways::Both : SpliceRelay::Ways::ToClientOnly;
        m_relay = new SpliceRelay(std::exchange(m_client, -1), server, held, ways, this);
        connect(m_relay, &SpliceRelay::finished, this, [this](const QString& error) {
            qCDebug(lcSession) << "egress:" << m_proxy->redacted(m_host) << m_port << "handed over, ended:" << error;
            m_closedByAgent = true;  // the agent has not known this tunnel since it handed it over
            end();
        });
        Q_EMIT m_proxy->handedOver(m_proxy->redacted(m_host), m_port);
    }

    void resolve() {
        m_prepaid = m_buffer.size();  // read with the head or as the hello: their window was given back already
        m_phase = Phase::Resolving;
        m_timer.start(m_proxy->m_timeouts.connectMs);
        QHostAddress literal;
        if (const auto trusted = m_proxy->m_policy.overrideFor(m_host, m_port)) {
            candidates({*trusted});
        } else if (literal.setAddress(m_host)) {
            candidates({literal});
        } else {
            m_lookupId = QHostInfo::lookupHost(m_host, this, [this](const QHostInfo& info) {
                m_lookupId = -1;
                if (info.error() != QHostInfo::NoError) {
                    fail(502, 4, QStringLiteral("%1 could not be resolved").arg(m_host));
                    return;
                }
                candidates(info.addresses());
            });
        }
    }

    void candidates(const QList<QHostAddress>& addresses) {
        QString refusal;
        m_addresses = m_proxy->m_policy.permittedAddresses(m_host, m_port, addresses, &refusal);
        if (m_addresses.isEmpty()) {
            deny(refusal);
            return;
        }
        // Where it leaves the host is asked only now: a request refused above never reaches an upstream proxy.
        const UpstreamProxy::Choice upstream = m_proxy->m_policy.upstream.choose(m_host, m_port, m_tunnel);
        if (!upstream.error.isEmpty()) {
            fail(502, 1, QStringLiteral("the upstream proxy cannot be used: %1").arg(upstream.error));
            return;
        }
        m_phase = Phase::Connecting;
        if (upstream.proxy) {
            m_upstream = upstream.proxy;
            connectUpstream();
            return;
        }
        connectNext();
    }

    // A fresh socket to the server or the upstream proxy, wired to this tunnel.
    void newSocket() {
        if (m_socket != nullptr) {
            m_socket->disconnect(this);
            m_socket->deleteLater();
        }
        m_socket = m_intercept ? new QSslSocket(this) : new QTcpSocket(this);
        wire();
    }

    void wire() {
        m_socket->setReadBufferSize(kReadAhead);
        connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) { onSocketError(); });
        connect(m_socket, &QTcpSocket::readyRead, this, [this] {
            if (m_phase == Phase::Upstream) {
                readUpstreamReply();
            } else {
                pumpServer();
            }
        });
        connect(m_socket, &QTcpSocket::bytesWritten, this, [this](qint64 n) { onBytesWritten(n); });
        connect(m_socket, &QTcpSocket::disconnected, this, [this] { onServerDone(); });
    }

    // The user's own proxy: the socket looks its name up, and loopback or a private address is its normal place,
    // so none of the checks of the requested host apply to it.
    void connectUpstream() {
        newSocket();
        connect(m_socket, &QTcpSocket::connected, this, [this] { onUpstreamConnected(); });
        m_socket->connectToHost(m_upstream->host, m_upstream->port);
    }

    // What the upstream proxy is asked for: the checked name, or the address a --resolve override gave it (the
    // upstream proxy cannot know that answer).
    QString upstreamAuthority() const {
        const auto trusted = m_proxy->m_policy.overrideFor(m_host, m_port);
        const QString host = trusted ? trusted->toString() : m_host;
        return (host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host) + QLatin1Char(':')
               + QString::number(m_port);
    }

    QString throughUpstream() const {
        return QStringLiteral("connected through the upstream proxy %1").arg(m_upstream->display());
    }

    void onUpstreamConnected() {
        const QByteArray authorization = m_upstream->authorization();
        if (m_tunnel) {
            m_phase = Phase::Upstream;
            m_socket->write(UpstreamProxy::connectRequest(upstreamAuthority(), authorization));
            return;
        }
        // Plain HTTP: the absolute-URI request goes to the upstream proxy, whose refusal (407) is not the site's.
        m_forward = UpstreamProxy::absoluteForm(m_forward, upstreamAuthority(), authorization);
        m_checkUpstreamReply = true;
        onConnected(throughUpstream());
    }

    void readUpstreamReply() {
        const UpstreamProxy::Reply reply =
            UpstreamProxy::parseConnectReply(m_socket->peek(UpstreamProxy::kMaxReplyBytes + 1));
        if (reply.status == UpstreamProxy::Reply::Status::NeedMore) {
            return;
        }
        if (reply.status == UpstreamProxy::Reply::Status::Failed) {
            upstreamFailed(reply.why);
            return;
        }
        m_socket->read(reply.consumed);  // what follows its head is the server's
        onConnected(throughUpstream());
    }

    // One line for the client and the log: the proxy without its credentials, and why.
    void upstreamFailed(const QString& why) {
        fail(502, 1,
             QStringLiteral("the upstream proxy %1 did not carry %2:%3: %4")
                 .arg(m_upstream->display(), m_host)
                 .arg(m_port)
                 .arg(why));
    }

    void connectNext() {
        if (m_addresses.isEmpty()) {
            fail(502, 5, QStringLiteral("%1:%2 refused the connection (%3)").arg(m_host).arg(m_port).arg(m_lastError));
            return;
        }
        const QHostAddress address = m_addresses.takeFirst();
        newSocket();
        connect(m_socket, &QTcpSocket::connected, this,
                [this, address] { onConnected(QStringLiteral("connected to %1").arg(address.toString())); });
        // The address this proxy checked, never the name: there is no second lookup to race.
        m_socket->connectToHost(address, quint16(m_port));
    }

    void onConnected(const QString& detail) {
        if (m_intercept && m_intercepted == nullptr && !intercept()) {
            return;
        }
        m_timer.stop();
        m_phase = Phase::Relaying;
        m_proxy->report(m_host, m_port, true, m_rule, detail);
        // The forwarded head is ours and the bytes read with the client's head were paid for: neither gives
        // window back when written, so the agent never gets more than it is owed.
        m_headBytesUnacked = m_forward.size() + m_prepaid;
        if (m_replied) {
            // The tunnel was granted before the hello was read; the hello is in m_buffer.
        } else if (m_socks) {
            channel()->sendTunnel(m_id, proxyrequest::socksReply(0));
        } else if (m_forward.isEmpty()) {
            channel()->sendTunnel(m_id, proxyrequest::httpConnected());
        } else {
            if (m_proxy->m_interception.placeholders != nullptr && !m_proxy->m_interception.placeholders->isEmpty()) {
                // Plain HTTP of a session with bound secrets: the one request passes the rewriter (clear text).
                m_substitution = std::make_unique<SecretSubstitution>(m_proxy->m_interception.placeholders, m_host,
                                                                      m_port, /*tls=*/false);
            }
            toServer(std::exchange(m_forward, {}), 0);
        }
        if (!m_buffer.isEmpty()) {
            // Held bytes: their window is given back once the socket wrote them, like any other.
            const qint64 unpaid = qMax<qint64>(0, m_buffer.size() - m_prepaid);
            toServer(std::exchange(m_buffer, {}), unpaid);
        }
        if (m_clientDone) {
            shutdownServerWrite();
        }
        pumpServer();
        if (!m_trust) {
            handOver();  // a tunnel without a watch (SSH, an address): nothing to wait for
        }
    }

    void onBytesWritten(qint64 n) {
        if (m_phase != Phase::Relaying || channel() == nullptr) {
            return;
        }
        if (m_client >= 0) {
            return takeOver();  // the window of these bytes is the agent's no more
        }
        if (m_substitution) {
            giveBackWindow();
            return;
        }
        // The forwarded head was ours, not the client's: only the client's bytes give window back.
        qint64 clientBytes = n;
        if (m_headBytesUnacked > 0) {
            const qint64 ours = qMin(m_headBytesUnacked, clientBytes);
            m_headBytesUnacked -= ours;
            clientBytes -= ours;
        }
        if (clientBytes > 0) {
            channel()->consumedTunnel(m_id, quint32(clientBytes));
        }
        if (m_clientDone) {
            shutdownServerWrite();
        }
    }

    void pumpServer() {
        if (m_phase != Phase::Relaying || m_socket == nullptr || channel() == nullptr || m_handingOver) {
            return;
        }
        if (m_checkUpstreamReply) {
            const QByteArray start = m_socket->peek(UpstreamProxy::kMaxReplyBytes);
            if (!start.contains("\r\n") && !m_serverDone && start.size() < UpstreamProxy::kMaxReplyBytes) {
                return;  // the status line is not whole yet
            }
            m_checkUpstreamReply = false;
            const QString refusal = UpstreamProxy::proxyRefusal(start);
            if (!refusal.isEmpty()) {
                upstreamFailed(refusal);
                return;
            }
            handOver();  // the status line is the site's: the rest of the answer may go straight to the client
        }
        while (m_socket->bytesAvailable() > 0) {
            const quint32 room = channel()->tunnelRoom(m_id);
            if (room == 0) {
                return;  // the agent has not written the last bytes yet: tunnelWritable() comes back here
            }
            const QByteArray chunk = m_socket->read(qMin<qint64>(room, kReadAhead));
            channel()->sendTunnel(m_id, chunk);
            watchServer(chunk);
        }
        if (m_serverDone && !m_sentEnd) {
            m_sentEnd = true;
            channel()->sendTunnel(m_id, {});
        }
    }

    void onServerDone() {
        m_serverDone = true;
        takeOver();  // handed over while the server ended
        if (m_phase == Phase::Upstream) {
            upstreamFailed(QStringLiteral("it closed the connection"));
            return;
        }
        pumpServer();
    }

    void onSocketError() {
        if (m_upstream && (m_phase == Phase::Connecting || m_phase == Phase::Upstream)) {
            upstreamFailed(m_socket->error() == QAbstractSocket::RemoteHostClosedError
                               ? QStringLiteral("it closed the connection")
                               : m_socket->errorString());
            return;
        }
        if (m_phase == Phase::Connecting) {
            m_lastError = m_socket->errorString();
            connectNext();
            return;
        }
        if (m_socket->error() == QAbstractSocket::RemoteHostClosedError) {
            onServerDone();
            return;
        }
        if (m_phase == Phase::Relaying) {
            qCInfo(lcSession) << "egress:" << m_proxy->redacted(m_host) << m_port
                              << "ended:" << m_socket->errorString();
            drop();
        }
    }

    // Not on an intercepted connection: its TLS socket would take the half-close for the end and drop the answer.
    void shutdownServerWrite() {
        if (m_serverWriteShut || m_socket == nullptr || m_socket->bytesToWrite() > 0 || m_intercepted != nullptr) {
            return;
        }
        m_serverWriteShut = true;
#ifndef Q_OS_WIN
        ::shutdown(int(m_socket->socketDescriptor()), SHUT_WR);
#endif
    }

    // The client's bytes on their way to the server: through the rewriter when the request is plain HTTP of a
    // session with bound secrets (its window is then given back by what it took in, `unpaid` of these bytes).
    void toServer(const QByteArray& bytes, qint64 unpaid) {
        if (!m_substitution) {
            m_socket->write(bytes);
            return;
        }
        m_owed += unpaid;
        const QByteArray out = m_substitution->feed(bytes);
        if (!out.isEmpty()) {
            m_socket->write(out);
        }
        const QByteArray early = m_substitution->takeClientReply();
        if (!early.isEmpty()) {
            channel()->sendTunnel(m_id, early);
        }
        if (m_substitution->status() == SecretSubstitution::Status::Ok) {
            giveBackWindow();
            return;
        }
        if (m_substitution->status() == SecretSubstitution::Status::NotBound) {
            m_proxy->reportEvent(
                EgressEvent::notBound(m_host, m_port, m_substitution->refusedName(), m_substitution->error()));
        }
        refuse(m_substitution->reply());  // nothing of this request has left: it was held until judged
    }

    void giveBackWindow() {
        if (m_owed > 0 && m_socket->bytesToWrite() < kReadAhead) {
            channel()->consumedTunnel(m_id, quint32(std::exchange(m_owed, 0)));
        }
        if (m_clientDone) {
            shutdownServerWrite();
        }
    }

    // The connection to the bound host is made (directly or through the upstream proxy): its socket becomes the
    // InterceptedConnection's TLS to the host, and this tunnel relays the client's side of a local pair instead.
    bool intercept() {
        auto* upstream = static_cast<QSslSocket*>(m_socket);  // newSocket() made one for an intercepted connection
        m_socket->disconnect(this);
        qintptr local = -1;
        QString error;
        InterceptedConnection* connection =
            InterceptedConnection::start(upstream, m_host, m_port, m_proxy->m_interception, this, &local, &error);
        if (connection == nullptr) {
            const QString why = QStringLiteral("%1:%2 has a secret bound to it but its TLS cannot be ended here (%3)");
            fail(502, 1, why.arg(m_host, QString::number(m_port), error));
            return false;
        }
        m_intercepted = connection;
        m_socket = new QTcpSocket(this);
        wire();
        m_socket->setSocketDescriptor(local);
        connect(connection, &InterceptedConnection::secured, this, [this](const QString& detail) {
            qCInfo(lcSession).noquote() << "egress" << m_proxy->m_sessionId << m_proxy->redacted(m_host) << detail;
        });
        connect(connection, &InterceptedConnection::untrusted, this,
                [this](const QString& why) { m_proxy->report(m_host, m_port, true, m_rule, why, true); });
        connect(connection, &InterceptedConnection::notBound, this, [this](const QString& name, const QString& why) {
            m_proxy->reportEvent(EgressEvent::notBound(m_host, m_port, name, why));
        });
        connect(connection, &InterceptedConnection::substituted, this, [this](const QHash<QString, qint64>& counts) {
            m_proxy->reportEvent(EgressEvent::substituted(m_host, m_port, counts));
        });
        return true;
    }

    // Once the tunnel was granted (m_replied) there is no reply to give: the tunnel just ends.
    void deny(const QString& rule) {
        m_proxy->report(m_host, m_port, false, rule, QString());
        if (m_replied) {
            refuse({});
            return;
        }
        refuse(m_socks ? proxyrequest::socksReply(2) : proxyrequest::httpDenied(m_host, m_port, rule));
    }

    void fail(int httpCode, quint8 socks, const QString& message) {
        m_proxy->report(m_host, m_port, true, m_rule, message);
        if (m_replied) {
            refuse({});
            return;
        }
        refuse(m_socks ? proxyrequest::socksReply(socks)
                       : proxyrequest::httpError(httpCode, QStringLiteral("Bad Gateway"), message));
    }

    // The part of the client's bytes that is still the forwarded request's body; the rest is read and dropped.
    QByteArray bodyPart(const QByteArray& data) {
        if (m_bodyLeft < 0 || data.size() <= m_bodyLeft) {
            m_bodyLeft = m_bodyLeft < 0 ? m_bodyLeft : m_bodyLeft - data.size();
            return data;
        }
        QByteArray part = data.left(m_bodyLeft);
        channel()->consumedTunnel(m_id, quint32(data.size() - part.size()));
        m_bodyLeft = 0;
        return part;
    }

    // Answers, says the end, and waits a little for the client to read it before dropping the tunnel.
    void refuse(const QByteArray& reply) {
        m_phase = Phase::Refused;
        if (m_socket != nullptr) {
            m_socket->abort();
        }
        if (channel() != nullptr && !reply.isEmpty()) {
            channel()->sendTunnel(m_id, reply);  // replies are far below the initial window
        }
        if (channel() != nullptr) {
            channel()->sendTunnel(m_id, {});
        }
        m_buffer.clear();
        m_timer.start(m_proxy->m_timeouts.lingerMs);
    }

    void onTimeout() {
        switch (m_phase) {
            case Phase::Head:
                refuse(m_kind == agentframe::ListenerKind::Socks5
                           ? QByteArray()
                           : proxyrequest::httpError(408, QStringLiteral("Request Timeout"),
                                                     QStringLiteral("no request came")));
                return;
            case Phase::Hello:
                deny(QStringLiteral("no TLS ClientHello in time"));
                return;
            case Phase::Upstream:
                upstreamFailed(QStringLiteral("no answer in time"));
                return;
            case Phase::Resolving:
            case Phase::Connecting:
                if (m_upstream) {
                    upstreamFailed(QStringLiteral("no connection in time"));
                    return;
                }
                fail(504, 4, QStringLiteral("%1:%2 did not answer in time").arg(m_host).arg(m_port));
                return;
            case Phase::Relaying:
                return;
            case Phase::Refused:
                drop();
                return;
        }
    }

    void end() {
        if (m_ended) {
            return;
        }
        m_ended = true;
        m_timer.stop();
        m_proxy->m_handed -= m_handingOver ? 1 : 0;
        LaneSocket::closeDescriptor(std::exchange(m_client, -1));  // handed over, not yet relayed
        if (m_socket != nullptr) {
            m_socket->disconnect(this);
            m_socket->abort();
        }
        m_proxy->forget(m_id);
        deleteLater();
    }

    EgressProxy* m_proxy;
    quint32 m_id;
    agentframe::ListenerKind m_kind;
    Phase m_phase = Phase::Head;
    QTimer m_timer;
    QElapsedTimer m_clock;                 // since the tunnel opened: the trust watch's times
    std::optional<TlsTrustWatch> m_trust;  // a TLS tunnel to a name, until the watch has its verdict
    QByteArray m_buffer;
    QByteArray m_forward;
    QString m_host;
    int m_port = 0;
    QString m_rule;
    QString m_lastError;
    QList<QHostAddress> m_addresses;
    QTcpSocket* m_socket = nullptr;
    int m_lookupId = -1;
    qint64 m_headBytesUnacked = 0;
    qint64 m_prepaid = 0;
    qint64 m_bodyLeft = -1;  // a forwarded request: body bytes still to pass on; -1: a tunnel, no limit
    bool m_greeted = false;
    bool m_replied = false;  // the client was told the tunnel is open (before its hello was read)
    bool m_socks = false;
    bool m_tunnel = false;                              // CONNECT or SOCKS (else one plain HTTP request)
    std::optional<UpstreamProxy::Endpoint> m_upstream;  // set: connected through this proxy, not to the host
    bool m_checkUpstreamReply = false;  // plain HTTP through the upstream: its 407 is not passed on as the site's
    bool m_clientDone = false;
    bool m_serverDone = false;
    bool m_serverWriteShut = false;
    bool m_sentEnd = false;
    bool m_closedByAgent = false;
    bool m_ended = false;
    bool m_intercept = false;                            // a host:port a bound secret covers: TLS ends here
    QPointer<InterceptedConnection> m_intercepted;       // set once the connection is made
    std::unique_ptr<SecretSubstitution> m_substitution;  // plain HTTP with bound secrets in the session
    qint64 m_owed = 0;               // the client's bytes the rewriter took whose window is not given back yet
    bool m_handingOver = false;      // the agent was asked for the client's socket (handOver())
    int m_client = -1;               // the client's socket, handed over, until the relay takes it
    SpliceRelay* m_relay = nullptr;  // the bytes both ways once handed over
};

}  // namespace zeus
