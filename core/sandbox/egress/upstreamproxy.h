#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QNetworkProxy>
#include <QString>

#include <functional>
#include <optional>

class QNetworkProxyQuery;

namespace zeus {

// Where the egress proxy's allowed connections leave this computer (SPEC §8 "Upstream"): straight to the host,
// or through the HTTP proxy the host itself uses. The first that says something decides:
//   1. --upstream-proxy URL|none (none: straight to the host, whatever the environment says);
//   2. the setting (Settings → Network), a URL;
//   3. the app's environment: https_proxy/HTTPS_PROXY for tunnels (CONNECT, SOCKS: TLS and SSH),
//      http_proxy/HTTP_PROXY for plain HTTP, unless no_proxy/NO_PROXY names the host;
//   4. the system proxy as Qt knows it (QNetworkProxyFactory::systemProxyForQuery), when it is an HTTP proxy.
//
// A value plus pure functions: it reads the environment it was given, never the process's, and the system proxy
// through a function the tests replace. It decides where to connect, never whether: the egress policy has judged
// the request before this is asked, so an upstream proxy never sees a denied request.
//
// Only http:// proxies (spoken to with CONNECT and absolute-URI requests); any other scheme is an error, said
// where the URL is read. Credentials (user:password@ in a URL, or the stored ones: Settings → Network's user name,
// the password from the keychain) become Proxy-Authorization: Basic and appear nowhere else: display() is the one
// form for logs and messages.
class UpstreamProxy {
public:
    // One HTTP proxy.
    struct Endpoint {
        QString host;
        quint16 port = 0;
        QString user;
        QString password;

        // "http://host:port", without the credentials.
        QString display() const;
        // "Basic base64(user:password)"; empty without a user.
        QByteArray authorization() const;
        bool operator==(const Endpoint& other) const {
            return host == other.host && port == other.port && user == other.user && password == other.password;
        }
    };

    // Where one connection goes, and why.
    struct Choice {
        std::optional<Endpoint> proxy;  // none: straight to the host
        QString source;                 // "--upstream-proxy", "setting", "HTTPS_PROXY", "system proxy", or ""
        QString error;                  // the proxy that applies cannot be used (its URL does not parse)
    };

    QString flag;     // --upstream-proxy: a URL, "none", or empty (not given)
    QString setting;  // Settings → Network: a URL, or empty
    // The stored credentials (Settings → Network: the user name in the settings, the password in the keychain),
    // sent to whichever proxy is chosen when its URL carries none of its own. Empty user: none.
    QString user;
    QString password;
    // The proxy variables of the app's own environment (names as written: HTTPS_PROXY, https_proxy, ...).
    QHash<QString, QString> environment;
    // The system proxy; unset: QNetworkProxyFactory::systemProxyForQuery. Tests set one that answers nothing.
    std::function<QList<QNetworkProxy>(const QNetworkProxyQuery&)> systemProxy;

    // The variables environment() keeps, the upper- and lower-case forms of each.
    static QStringList variableNames();
    // Those of the running process, for the composition root.
    static QHash<QString, QString> processEnvironment();

    // Where a connection to host:port goes; `tunnel`: a CONNECT or SOCKS tunnel (else a plain HTTP request).
    Choice choose(const QString& host, int port, bool tunnel) const;

    // What --diagnose says about the upstream proxy, never a credential: where it comes from ("flag", "setting",
    // "environment", "system", "none"), the proxy as display() writes it (empty: straight to the host), whether
    // credentials are set (in the URL or stored), the NO_PROXY list, and why the URL cannot be used.
    struct Summary {
        QString source;
        QString proxy;
        bool credentials = false;
        QString noProxy;
        QString error;
        // {source, proxy, credentials, no_proxy, error}
        QJsonObject toJson() const;
    };
    Summary summary() const;

    // `http://[user[:password]@]host[:port][/]`, or `host:port` (http is meant, as curl and the environment
    // variables' users read it); without a port: 80. Any other scheme, a path, or a bad port is an error.
    static std::optional<Endpoint> parseUrl(const QString& text, QString* error = nullptr);
    // The flag's or setting's value: empty, "none" or a URL that parses; the error says why not.
    static bool isValidValue(const QString& value, QString* error = nullptr);
    // Whether a NO_PROXY list names this host and port: a comma-separated list of `*`, domains (with or without a
    // leading `.` or `*.`: the domain and its subdomains), `host:port`, IP literals and CIDR blocks (matched
    // against IP-literal hosts only: nothing is looked up).
    static bool bypasses(const QString& noProxy, const QString& host, int port);

    // The request that opens a tunnel through the proxy to `authority` ("host:port", "[v6]:port").
    static QByteArray connectRequest(const QString& authority, const QByteArray& authorization);
    // An origin-form request head (`GET /path HTTP/1.1` ...) rewritten for the proxy: absolute URI to
    // `authority`, with Proxy-Authorization when given.
    static QByteArray absoluteForm(const QByteArray& originHead, const QString& authority,
                                   const QByteArray& authorization);

    // The proxy's answer to a CONNECT: NeedMore, Established (`consumed` bytes were its head), or Failed with its
    // status line as `why` ("407 Proxy Authentication Required").
    struct Reply {
        enum class Status { NeedMore, Established, Failed };
        Status status = Status::NeedMore;
        qsizetype consumed = 0;
        QString why;
    };
    static constexpr qsizetype kMaxReplyBytes = 16 * 1024;
    static Reply parseConnectReply(const QByteArray& buffered);
    // The status line of a response head, when it is a proxy's own refusal that must not reach the client as
    // the site's answer (407); empty otherwise or while the line is not whole.
    static QString proxyRefusal(const QByteArray& buffered);
};

}  // namespace zeus
