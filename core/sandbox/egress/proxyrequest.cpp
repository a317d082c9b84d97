#include "sandbox/egress/proxyrequest.h"

#include "sandbox/egress/egresspolicy.h"

#include <QHostAddress>
#include <QList>

#include <cctype>

namespace zeus::proxyrequest {

namespace {

Request error(int code, const char* reason, const QString& why) {
    Request r;
    r.status = Status::Error;
    r.error = why;
    r.reply = httpError(code, QString::fromLatin1(reason), why);
    return r;
}

// "host:port", "[v6]:port" or (defaultPort) "host"; false when malformed.
bool authority(const QByteArray& text, int defaultPort, QString* host, int* port) {
    QByteArray h = text;
    *port = defaultPort;
    if (h.startsWith('[')) {
        const qsizetype close = h.indexOf(']');
        if (close < 0) {
            return false;
        }
        const QByteArray rest = h.mid(close + 1);
        h = h.mid(1, close - 1);
        if (!rest.isEmpty()) {
            bool ok = false;
            if (!rest.startsWith(':') || rest.size() > 6) {
                return false;
            }
            *port = rest.mid(1).toInt(&ok);
            if (!ok) {
                return false;
            }
        }
    } else {
        const qsizetype colon = h.lastIndexOf(':');
        if (colon >= 0) {
            bool ok = false;
            const QByteArray digits = h.mid(colon + 1);
            *port = digits.toInt(&ok);
            if (!ok || digits.isEmpty() || digits.size() > 5 || !std::isdigit(uchar(digits.front()))) {
                return false;
            }
            h = h.left(colon);
        }
    }
    if (*port <= 0 || *port > 65535) {
        return false;
    }
    *host = EgressPolicy::normalizeHost(QString::fromLatin1(h));
    return !host->isEmpty();
}

bool isToken(const QByteArray& word) {
    if (word.isEmpty() || word.size() > 32) {
        return false;
    }
    for (const char c : word) {
        if (!(std::isupper(uchar(c)) || c == '-')) {
            return false;
        }
    }
    return true;
}

}  // namespace

Request parseHttp(const QByteArray& buffered) {
    // The head ends at its first empty line, with or without CR: "\n\n" or "\n\r\n" (which "\r\n\r\n" contains).
    // Any other end would leave an empty line inside the head, and a server reads what follows it as a second
    // request the proxy never judged.
    qsizetype end = buffered.indexOf("\n\r\n");
    qsizetype endLength = 3;
    const qsizetype bare = buffered.indexOf("\n\n");
    if (bare >= 0 && (end < 0 || bare < end)) {
        end = bare;
        endLength = 2;
    }
    // A method is upper-case letters: anything else in the first bytes (a TLS hello sent to the wrong port,
    // binary) is refused now rather than after 16 KiB or the head timeout.
    const qsizetype space = buffered.indexOf(' ');
    const QByteArray method = buffered.left(space < 0 ? qMin<qsizetype>(buffered.size(), 33) : space);
    if (!method.isEmpty() && !isToken(method)) {
        return error(400, "Bad Request", QStringLiteral("not an HTTP/1 proxy request"));
    }
    if (end < 0) {
        if (buffered.size() > kMaxHeadBytes) {
            return error(431, "Request Header Fields Too Large", QStringLiteral("a request head over 16 KiB"));
        }
        Request r;
        r.status = Status::NeedMore;
        return r;
    }
    if (end > kMaxHeadBytes) {
        return error(431, "Request Header Fields Too Large", QStringLiteral("a request head over 16 KiB"));
    }
    QList<QByteArray> lines = buffered.left(end).split('\n');
    for (QByteArray& line : lines) {
        if (line.endsWith('\r')) {
            line.chop(1);
        }
        for (const char c : line) {
            if ((uchar(c) < 0x20 && c != '\t') || c == 0x7f) {
                return error(400, "Bad Request", QStringLiteral("a control character in the request head"));
            }
        }
    }
    const QList<QByteArray> words = lines.front().split(' ');
    if (words.size() != 3 || !isToken(words[0]) || !words[2].startsWith("HTTP/1.")) {
        return error(400, "Bad Request", QStringLiteral("not an HTTP/1 proxy request"));
    }
    Request r;
    r.consumed = end + endLength;
    if (words[0] == "CONNECT") {
        if (!authority(words[1], -1, &r.host, &r.port) || r.port <= 0) {
            return error(400, "Bad Request", QStringLiteral("CONNECT needs HOST:PORT"));
        }
        r.status = Status::Connect;
        return r;
    }
    const QByteArray& target = words[1];
    if (target.startsWith("https://")) {
        const QByteArray rest = target.mid(8);
        const qsizetype pathAt = rest.indexOf('/');
        const QByteArray hostPart = pathAt < 0 ? rest : rest.left(pathAt);
        if (hostPart.contains('@') || !authority(hostPart, 443, &r.host, &r.port)) {
            return error(400, "Bad Request", QStringLiteral("a bad host in the URL"));
        }
        Request https = error(400, "Bad Request",
                              QStringLiteral("this proxy carries https only through CONNECT tunnels; the client sent "
                                             "an https:// request instead (busybox wget does: use curl or GNU wget)"));
        https.status = Status::HttpsForm;
        https.host = r.host;
        https.port = r.port;
        https.consumed = r.consumed;
        return https;
    }
    if (!target.startsWith("http://")) {
        return error(400, "Bad Request",
                     QStringLiteral("only CONNECT and absolute http:// requests go through this proxy"));
    }
    const QByteArray rest = target.mid(7);
    const qsizetype pathAt = rest.indexOf('/');
    const QByteArray hostPart = pathAt < 0 ? rest : rest.left(pathAt);
    if (hostPart.contains('@')) {
        return error(400, "Bad Request", QStringLiteral("user information in the URL"));
    }
    if (!authority(hostPart, 80, &r.host, &r.port)) {
        return error(400, "Bad Request", QStringLiteral("a bad host in the URL"));
    }
    QByteArray path = pathAt < 0 ? QByteArray("/") : rest.mid(pathAt);
    const qsizetype fragment = path.indexOf('#');
    if (fragment >= 0) {
        path.truncate(fragment);
    }
    QByteArray head = words[0] + ' ' + path + ' ' + words[2] + "\r\n";
    head += "Host: " + hostPart + "\r\n";
    qint64 length = -1;
    for (qsizetype i = 1; i < lines.size(); i++) {
        const QByteArray name = lines[i].left(lines[i].indexOf(':')).trimmed().toLower();
        if (name == "transfer-encoding") {
            return error(411, "Length Required",
                         QStringLiteral("a request body must have a Content-Length on this proxy (no chunked)"));
        }
        if (name == "content-length") {
            const QByteArray value = lines[i].mid(lines[i].indexOf(':') + 1).trimmed();
            bool ok = !value.isEmpty() && value.size() <= 15;
            for (const char c : value) {
                ok = ok && std::isdigit(uchar(c));
            }
            const qint64 n = ok ? value.toLongLong(&ok) : -1;
            if (!ok || (length >= 0 && n != length)) {
                return error(400, "Bad Request", QStringLiteral("a bad or repeated Content-Length"));
            }
            length = n;
        }
        if (name == "host" || name == "connection" || name == "proxy-connection" || name == "proxy-authorization"
            || name == "keep-alive" || name == "upgrade") {
            continue;  // ours replace them: one request per connection, nothing for the proxy passed on
        }
        head += lines[i] + "\r\n";
    }
    r.bodyBytes = qMax<qint64>(length, 0);
    head += "Connection: close\r\n\r\n";
    r.status = Status::Forward;
    r.forward = head;
    return r;
}

Request parseSocks5(const QByteArray& b, bool greeted) {
    Request r;
    const auto fail = [](quint8 code, const QString& why) {
        Request f;
        f.status = Status::Error;
        f.error = why;
        f.reply = socksReply(code);
        return f;
    };
    if (!greeted) {
        if (b.size() < 2) {
            return r;
        }
        if (b[0] != 5) {
            Request f;
            f.status = Status::Error;
            f.error = QStringLiteral("not a SOCKS5 greeting");
            return f;  // nothing to reply in a protocol we do not speak
        }
        const int n = uchar(b[1]);
        if (b.size() < 2 + n) {
            return r;
        }
        const bool noAuth = n > 0 && b.mid(2, n).contains('\0');
        r.consumed = 2 + n;
        if (!noAuth) {
            r.status = Status::Error;
            r.error = QStringLiteral("the SOCKS5 client offers no method without authentication");
            r.reply = QByteArray("\x05\xff", 2);
            return r;
        }
        r.status = Status::Reply;
        r.reply = QByteArray("\x05\x00", 2);
        return r;
    }
    if (b.size() < 5) {
        return r;
    }
    if (b[0] != 5 || b[2] != 0) {
        return fail(1, QStringLiteral("a malformed SOCKS5 request"));
    }
    if (b[1] != 1) {
        return fail(7, QStringLiteral("only SOCKS5 CONNECT is served"));
    }
    const int type = uchar(b[3]);
    qsizetype at = 4;
    QString host;
    if (type == 1) {
        if (b.size() < 4 + 4 + 2) {
            return r;
        }
        host = QHostAddress(quint32(uchar(b[4])) << 24 | quint32(uchar(b[5])) << 16 | quint32(uchar(b[6])) << 8
                            | quint32(uchar(b[7])))
                   .toString();
        at = 8;
    } else if (type == 4) {
        if (b.size() < 4 + 16 + 2) {
            return r;
        }
        Q_IPV6ADDR v6;
        for (int i = 0; i < 16; i++) {
            v6[i] = quint8(b[4 + i]);
        }
        host = QHostAddress(v6).toString();
        at = 20;
    } else if (type == 3) {
        const int len = uchar(b[4]);
        if (b.size() < 5 + len + 2) {
            return r;
        }
        host = EgressPolicy::normalizeHost(QString::fromLatin1(b.mid(5, len)));
        if (host.isEmpty() || b.mid(5, len).contains('\0')) {
            return fail(4, QStringLiteral("a bad host name in the SOCKS5 request"));
        }
        at = 5 + len;
    } else {
        return fail(8, QStringLiteral("an unknown SOCKS5 address type"));
    }
    r.port = int(uchar(b[at])) << 8 | uchar(b[at + 1]);
    if (r.port == 0) {
        return fail(1, QStringLiteral("port 0 in the SOCKS5 request"));
    }
    r.host = EgressPolicy::normalizeHost(host);
    r.consumed = at + 2;
    r.status = Status::Connect;
    return r;
}

QByteArray httpConnected() {
    return QByteArrayLiteral("HTTP/1.1 200 Connection established\r\n\r\n");
}

QByteArray httpError(int code, const QString& reason, const QString& message) {
    const QByteArray body = message.toUtf8() + '\n';
    return "HTTP/1.1 " + QByteArray::number(code) + ' ' + reason.toLatin1()
           + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + QByteArray::number(body.size())
           + "\r\nConnection: close\r\n\r\n" + body;
}

QByteArray httpDenied(const QString& host, int port, const QString& rule) {
    const QString hostPort = QStringLiteral("%1:%2").arg(host).arg(port);
    // A tunnel to port 80 is never allowed, whatever the rules: the way that works is said instead.
    const QString how =
        rule.startsWith(QLatin1String("a tunnel to port 80"))
            ? QStringLiteral("send it as an http://%1/ request through the proxy (HTTP_PROXY)").arg(host)
            : QStringLiteral("allow it in Zeus Desktop (Settings > Network) or with --allow-host %1")
                  .arg(port == 80 || port == 443 ? host : hostPort);
    const QByteArray body = QStringLiteral("Zeus Desktop: %1 is not allowed by the network policy (%2); %3\n")
                                .arg(hostPort, rule, how)
                                .toUtf8();
    return "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: blocked-by-allowlist\r\nContent-Type: text/plain; "
           "charset=utf-8\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

QByteArray socksReply(quint8 code) {
    QByteArray reply("\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00", 10);
    reply[1] = char(code);
    return reply;
}

}  // namespace zeus::proxyrequest
