#include "sandbox/egress/upstreamproxy.h"

#include <QHostAddress>
#include <QNetworkProxyFactory>
#include <QNetworkProxyQuery>
#include <QProcessEnvironment>
#include <QUrl>

namespace zeus {

namespace {

// The lower-case form first: curl reads http_proxy only in lower case (a CGI program's HTTP_PROXY is a request
// header), and where both are set the lower-case one is what most tools use.
QString firstOf(const QHash<QString, QString>& environment, const char* lower, const char* upper) {
    for (const char* name : {lower, upper}) {
        QString value = environment.value(QString::fromLatin1(name)).trimmed();
        if (!value.isEmpty()) {
            return value;
        }
    }
    return {};
}

// "host:port" or "[v6]:port" for a request line.
QString hostPort(const QString& host, int port) {
    const QString bracketed = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return bracketed + QLatin1Char(':') + QString::number(port);
}

bool matchesEntry(QString entry, const QString& host, int port) {
    // host:port and [v6]:port; a bare IPv6 address has colons too, and no port.
    int entryPort = 0;
    if (entry.startsWith(QLatin1Char('['))) {
        const qsizetype close = entry.indexOf(QLatin1Char(']'));
        if (close < 0) {
            return false;
        }
        const QString rest = entry.mid(close + 1);
        if (rest.startsWith(QLatin1Char(':'))) {
            entryPort = rest.mid(1).toInt();
        }
        entry = entry.mid(1, close - 1);
    } else if (entry.count(QLatin1Char(':')) == 1) {
        const qsizetype colon = entry.indexOf(QLatin1Char(':'));
        bool ok = false;
        entryPort = entry.mid(colon + 1).toInt(&ok);
        if (!ok) {
            return false;
        }
        entry.truncate(colon);
    }
    if (entryPort != 0 && entryPort != port) {
        return false;
    }
    QHostAddress hostAddress;
    const bool hostIsLiteral = hostAddress.setAddress(host);
    if (entry.contains(QLatin1Char('/'))) {
        const auto subnet = QHostAddress::parseSubnet(entry);
        return hostIsLiteral && subnet.second >= 0 && hostAddress.isInSubnet(subnet);
    }
    QHostAddress entryAddress;
    if (entryAddress.setAddress(entry)) {
        return hostIsLiteral && entryAddress.isEqual(hostAddress, QHostAddress::ConvertV4MappedToIPv4);
    }
    if (entry.startsWith(QLatin1String("*."))) {
        entry = entry.mid(2);
    } else if (entry.startsWith(QLatin1Char('.'))) {
        entry = entry.mid(1);
    }
    while (entry.endsWith(QLatin1Char('.'))) {
        entry.chop(1);
    }
    if (entry.isEmpty()) {
        return false;
    }
    return host == entry || host.endsWith(QLatin1Char('.') + entry);
}

}  // namespace

QString UpstreamProxy::Endpoint::display() const {
    return QStringLiteral("http://") + hostPort(host, port);
}

QByteArray UpstreamProxy::Endpoint::authorization() const {
    if (user.isEmpty()) {
        return {};
    }
    return "Basic " + (user + QLatin1Char(':') + password).toUtf8().toBase64();
}

QStringList UpstreamProxy::variableNames() {
    return {QStringLiteral("https_proxy"), QStringLiteral("HTTPS_PROXY"), QStringLiteral("http_proxy"),
            QStringLiteral("HTTP_PROXY"),  QStringLiteral("no_proxy"),    QStringLiteral("NO_PROXY")};
}

QHash<QString, QString> UpstreamProxy::processEnvironment() {
    const QProcessEnvironment process = QProcessEnvironment::systemEnvironment();
    QHash<QString, QString> kept;
    for (const QString& name : variableNames()) {
        if (process.contains(name)) {
            kept.insert(name, process.value(name));
        }
    }
    return kept;
}

std::optional<UpstreamProxy::Endpoint> UpstreamProxy::parseUrl(const QString& text, QString* error) {
    const auto fail = [error](const QString& why) -> std::optional<Endpoint> {
        if (error != nullptr) {
            *error = why;
        }
        return std::nullopt;
    };
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        return fail(QStringLiteral("an empty proxy URL"));
    }
    const qsizetype schemeEnd = trimmed.indexOf(QLatin1String("://"));
    const QString scheme = schemeEnd < 0 ? QStringLiteral("http") : trimmed.left(schemeEnd).toLower();
    if (scheme != QLatin1String("http")) {
        return fail(QStringLiteral("only http:// proxies can be used upstream (they are spoken to with CONNECT), "
                                   "not %1://")
                        .arg(scheme));
    }
    const QUrl url(schemeEnd < 0 ? QStringLiteral("http://") + trimmed : trimmed, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()) {
        // The URL's own text may carry a password: the message names neither.
        return fail(QStringLiteral("not a proxy URL (http://[user:password@]host:port)"));
    }
    if (!url.path().isEmpty() && url.path() != QLatin1String("/")) {
        return fail(QStringLiteral("a proxy URL has no path"));
    }
    if (url.hasQuery() || url.hasFragment()) {
        return fail(QStringLiteral("a proxy URL has no query or fragment"));
    }
    const int port = url.port(80);
    if (port <= 0 || port > 65535) {
        return fail(QStringLiteral("a bad port in the proxy URL"));
    }
    Endpoint endpoint;
    endpoint.host = url.host().toLower();
    endpoint.port = quint16(port);
    endpoint.user = url.userName(QUrl::FullyDecoded);
    endpoint.password = url.password(QUrl::FullyDecoded);
    return endpoint;
}

bool UpstreamProxy::isValidValue(const QString& value, QString* error) {
    const QString trimmed = value.trimmed();
    return trimmed.isEmpty() || trimmed == QLatin1String("none") || parseUrl(trimmed, error).has_value();
}

bool UpstreamProxy::bypasses(const QString& noProxy, const QString& rawHost, int port) {
    QString host = rawHost.toLower();
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']'))) {
        host = host.mid(1, host.size() - 2);
    }
    while (host.endsWith(QLatin1Char('.'))) {
        host.chop(1);
    }
    const QStringList entries = noProxy.toLower().split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString& raw : entries) {
        const QString entry = raw.trimmed();
        if (entry == QLatin1String("*")) {
            return true;
        }
        if (!entry.isEmpty() && matchesEntry(entry, host, port)) {
            return true;
        }
    }
    return false;
}

UpstreamProxy::Choice UpstreamProxy::choose(const QString& host, int port, bool tunnel) const {
    Choice choice;
    const auto from = [this, &choice](const QString& url, const QString& source) {
        choice.source = source;
        QString why;
        choice.proxy = parseUrl(url, &why);
        if (!choice.proxy) {
            choice.error = QStringLiteral("%1: %2").arg(source, why);
        } else if (choice.proxy->user.isEmpty()) {
            choice.proxy->user = user;
            choice.proxy->password = password;
        }
        return choice;
    };
    const QString given = flag.trimmed();
    if (given == QLatin1String("none")) {
        choice.source = QStringLiteral("--upstream-proxy");
        return choice;
    }
    if (!given.isEmpty()) {
        return from(given, QStringLiteral("--upstream-proxy"));
    }
    if (!setting.trimmed().isEmpty()) {
        return from(setting, QStringLiteral("setting"));
    }
    const QString variable =
        tunnel ? firstOf(environment, "https_proxy", "HTTPS_PROXY") : firstOf(environment, "http_proxy", "HTTP_PROXY");
    if (!variable.isEmpty()) {
        if (bypasses(firstOf(environment, "no_proxy", "NO_PROXY"), host, port)) {
            choice.source = QStringLiteral("NO_PROXY");
            return choice;
        }
        return from(variable, tunnel ? QStringLiteral("HTTPS_PROXY") : QStringLiteral("HTTP_PROXY"));
    }
    const QNetworkProxyQuery query(host, port, tunnel ? QStringLiteral("https") : QStringLiteral("http"));
    const QList<QNetworkProxy> system =
        systemProxy ? systemProxy(query) : QNetworkProxyFactory::systemProxyForQuery(query);
    for (const QNetworkProxy& proxy : system) {
        if (proxy.type() == QNetworkProxy::NoProxy) {
            break;  // the system says: straight there
        }
        if (proxy.type() == QNetworkProxy::HttpProxy && !proxy.hostName().isEmpty() && proxy.port() != 0) {
            choice.source = QStringLiteral("system proxy");
            choice.proxy = proxy.user().isEmpty()
                               ? Endpoint{proxy.hostName(), proxy.port(), user, password}
                               : Endpoint{proxy.hostName(), proxy.port(), proxy.user(), proxy.password()};
            return choice;
        }
    }
    return choice;
}

QJsonObject UpstreamProxy::Summary::toJson() const {
    return QJsonObject{{QStringLiteral("source"), source},
                       {QStringLiteral("proxy"), proxy},
                       {QStringLiteral("credentials"), credentials},
                       {QStringLiteral("no_proxy"), noProxy},
                       {QStringLiteral("error"), error}};
}

UpstreamProxy::Summary UpstreamProxy::summary() const {
    Summary summary;
    summary.noProxy = firstOf(environment, "no_proxy", "NO_PROXY");
    QString url;
    if (!flag.trimmed().isEmpty()) {
        summary.source = QStringLiteral("flag");
        url = flag.trimmed() == QLatin1String("none") ? QString() : flag;
    } else if (!setting.trimmed().isEmpty()) {
        summary.source = QStringLiteral("setting");
        url = setting;
    } else {
        url = firstOf(environment, "https_proxy", "HTTPS_PROXY");
        if (url.isEmpty()) {
            url = firstOf(environment, "http_proxy", "HTTP_PROXY");
        }
        if (!url.isEmpty()) {
            summary.source = QStringLiteral("environment");
        }
    }
    if (summary.source.isEmpty()) {
        // Nothing above names one: the system's answer for a host outside any local network (a PAC file may
        // answer differently per host; each connection asks for its own).
        const Choice system = choose(QStringLiteral("example.com"), 443, true);
        summary.source = system.proxy ? QStringLiteral("system") : QStringLiteral("none");
        if (system.proxy) {
            summary.proxy = system.proxy->display();
            summary.credentials = !system.proxy->user.isEmpty();
        }
        return summary;
    }
    if (url.isEmpty()) {
        return summary;  // --upstream-proxy none
    }
    const std::optional<Endpoint> endpoint = parseUrl(url, &summary.error);
    if (endpoint) {
        summary.proxy = endpoint->display();
        summary.credentials = !endpoint->user.isEmpty() || !user.isEmpty();
    }
    return summary;
}

QByteArray UpstreamProxy::connectRequest(const QString& authority, const QByteArray& authorization) {
    QByteArray request = "CONNECT " + authority.toUtf8() + " HTTP/1.1\r\nHost: " + authority.toUtf8() + "\r\n";
    if (!authorization.isEmpty()) {
        request += "Proxy-Authorization: " + authorization + "\r\n";
    }
    return request + "\r\n";
}

QByteArray UpstreamProxy::absoluteForm(const QByteArray& originHead, const QString& authority,
                                       const QByteArray& authorization) {
    const qsizetype lineEnd = originHead.indexOf("\r\n");
    const QByteArray line = originHead.left(lineEnd);
    const qsizetype firstSpace = line.indexOf(' ');
    const QByteArray method = line.left(firstSpace);
    QByteArray head = method + " http://" + authority.toUtf8() + line.mid(firstSpace + 1) + "\r\n";
    if (!authorization.isEmpty()) {
        head += "Proxy-Authorization: " + authorization + "\r\n";
    }
    return head + originHead.mid(lineEnd + 2);
}

UpstreamProxy::Reply UpstreamProxy::parseConnectReply(const QByteArray& buffered) {
    Reply reply;
    const qsizetype end = buffered.indexOf("\r\n\r\n");
    if (end < 0) {
        if (buffered.size() > kMaxReplyBytes) {
            reply.status = Reply::Status::Failed;
            reply.why = QStringLiteral("an oversized reply");
        }
        return reply;
    }
    const QByteArray line = buffered.left(buffered.indexOf("\r\n"));
    const QList<QByteArray> words = line.split(' ');
    bool ok = false;
    const int code = words.value(1).toInt(&ok);
    if (!line.startsWith("HTTP/1.") || !ok) {
        reply.status = Reply::Status::Failed;
        reply.why = QStringLiteral("not an HTTP reply");
        return reply;
    }
    if (code >= 200 && code < 300) {
        reply.status = Reply::Status::Established;
        reply.consumed = end + 4;
        return reply;
    }
    reply.status = Reply::Status::Failed;
    // The status line only, printable: it ends up in a one-line message.
    reply.why = QString::fromLatin1(line.mid(line.indexOf(' ') + 1).left(200)).simplified();
    return reply;
}

QString UpstreamProxy::proxyRefusal(const QByteArray& buffered) {
    const qsizetype lineEnd = buffered.indexOf("\r\n");
    if (lineEnd < 0) {
        return {};
    }
    const QByteArray line = buffered.left(lineEnd);
    if (line.startsWith("HTTP/1.") && line.split(' ').value(1) == "407") {
        return QString::fromLatin1(line.mid(line.indexOf(' ') + 1).left(200)).simplified();
    }
    return {};
}

}  // namespace zeus
