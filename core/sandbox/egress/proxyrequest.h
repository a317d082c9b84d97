#pragma once

#include <QByteArray>
#include <QString>

namespace zeus::proxyrequest {

// The first bytes of an egress tunnel, read as the proxy protocol of its listener (SPEC §8), as pure
// functions: what the client asks for, and the replies the proxy sends. Everything here is untrusted input
// from a command in the container; heads are bounded and anything unexpected is an error, never a guess.
inline constexpr int kMaxHeadBytes = 16 * 1024;

enum class Status {
    NeedMore,  // not a whole head yet
    Error,     // not a request this proxy serves: reply `reply` and close
    Connect,   // a CONNECT (HTTP) or a SOCKS5 connect: reply once connected, then relay both ways
    Forward,   // an absolute-URI HTTP request: connect, send `forward` first, then relay both ways
    Reply,     // SOCKS5 greeting: send `reply`, keep reading
    // An absolute https:// request (busybox wget sends them): judged by the policy like a tunnel to host:port, and
    // never carried (https goes through CONNECT): a denied host gets the denial, an allowed one `reply` (400).
    HttpsForm,
};

struct Request {
    Status status = Status::NeedMore;
    QString host;  // as asked: a name or an IP literal, lower case
    int port = 0;
    qsizetype consumed = 0;  // bytes of the buffer this step used up
    QByteArray forward;      // Forward: the head to send to the server (origin form, Connection: close)
    qint64 bodyBytes = 0;    // Forward: how many bytes of body follow the head (Content-Length); nothing after
                             // them is forwarded, so a second request cannot ride on the first one's connection
    QByteArray reply;        // Error / Reply: what to send the client
    QString error;           // Error: why, for the log
};

// HTTP proxy (the 3128 listener): `CONNECT host:port HTTP/1.x` or `METHOD http://host[:port]/path HTTP/1.x`.
// A forwarded request's body is framed by Content-Length only: Transfer-Encoding (chunked) is refused with 411,
// conflicting lengths with 400, and Upgrade is removed (the connection never becomes a raw stream).
Request parseHttp(const QByteArray& buffered);
// SOCKS5 (the 1080 listener). `greeted`: whether the greeting was answered already. Connect only, no
// authentication; names (socks5h), IPv4 and IPv6 literals.
Request parseSocks5(const QByteArray& buffered, bool greeted);

// Replies.
QByteArray httpConnected();
// 403 with X-Proxy-Error: blocked-by-allowlist and a one-line body that names the host and how to allow it.
QByteArray httpDenied(const QString& host, int port, const QString& rule);
QByteArray httpError(int code, const QString& reason, const QString& message);
// SOCKS5 reply codes: 0 success, 2 not allowed by the ruleset, 4 host unreachable, 5 refused, 1 failure.
QByteArray socksReply(quint8 code);

}  // namespace zeus::proxyrequest
