// Where allowed egress leaves the host (SPEC §8 "Upstream"), as pure functions: proxy URLs, the order of the
// sources (flag, setting, environment, system), NO_PROXY's forms, and the bytes spoken to the upstream proxy.
#include "sandbox/egress/upstreamproxy.h"

#include <QJsonDocument>
#include <QNetworkProxyQuery>
#include <QTest>

using namespace zeus;

namespace {

// A system that knows no proxy, so the process's own settings never leak into a row.
QList<QNetworkProxy> noSystemProxy(const QNetworkProxyQuery&) {
    return {QNetworkProxy(QNetworkProxy::NoProxy)};
}

UpstreamProxy upstream(const QString& flag, const QString& setting, const QHash<QString, QString>& environment) {
    UpstreamProxy u;
    u.flag = flag;
    u.setting = setting;
    u.environment = environment;
    u.systemProxy = noSystemProxy;
    return u;
}

}  // namespace

class TestUpstreamProxy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parseUrl_data();
    void parseUrl();
    void credentialsNeverInDisplay();
    void bypasses_data();
    void bypasses();
    void choose_data();
    void choose();
    void systemProxyWhenNothingElse();
    void storedCredentials();
    void summary_data();
    void summary();
    void requests();
    void connectReply_data();
    void connectReply();
    void proxyRefusal();
};

void TestUpstreamProxy::parseUrl_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QString>("error");  // a part of the message

    QTest::newRow("plain") << "http://proxy.corp:3128" << true << "proxy.corp" << 3128 << ""
                           << ""
                           << "";
    QTest::newRow("slash") << "http://proxy.corp:3128/" << true << "proxy.corp" << 3128 << ""
                           << ""
                           << "";
    QTest::newRow("no port: 80") << "http://proxy.corp" << true << "proxy.corp" << 80 << ""
                                 << ""
                                 << "";
    QTest::newRow("no scheme") << "proxy.corp:8080" << true << "proxy.corp" << 8080 << ""
                               << ""
                               << "";
    QTest::newRow("upper scheme") << "HTTP://Proxy.Corp:8080" << true << "proxy.corp" << 8080 << ""
                                  << ""
                                  << "";
    QTest::newRow("loopback") << "http://127.0.0.1:8888" << true << "127.0.0.1" << 8888 << ""
                              << ""
                              << "";
    QTest::newRow("ipv6") << "http://[::1]:8888" << true << "::1" << 8888 << ""
                          << ""
                          << "";
    QTest::newRow("credentials") << "http://alice:s3cr%40t@proxy:3128" << true << "proxy" << 3128 << "alice"
                                 << "s3cr@t"
                                 << "";
    QTest::newRow("user only") << "http://alice@proxy:3128" << true << "proxy" << 3128 << "alice"
                               << ""
                               << "";
    QTest::newRow("https") << "https://proxy:3128" << false << "" << 0 << ""
                           << ""
                           << "only http://";
    QTest::newRow("socks5") << "socks5://proxy:1080" << false << "" << 0 << ""
                            << ""
                            << "not socks5://";
    QTest::newRow("socks5h") << "socks5h://proxy:1080" << false << "" << 0 << ""
                             << ""
                             << "not socks5h://";
    QTest::newRow("empty") << "" << false << "" << 0 << ""
                           << ""
                           << "empty";
    QTest::newRow("path") << "http://proxy:3128/x" << false << "" << 0 << ""
                          << ""
                          << "no path";
    QTest::newRow("query") << "http://proxy:3128?a=b" << false << "" << 0 << ""
                           << ""
                           << "no query";
    QTest::newRow("bad port") << "http://proxy:99999" << false << "" << 0 << ""
                              << ""
                              << "";
    QTest::newRow("no host") << "http://:3128" << false << "" << 0 << ""
                             << ""
                             << "not a proxy URL";
}

void TestUpstreamProxy::parseUrl() {
    QFETCH(QString, url);
    QFETCH(bool, ok);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(QString, error);
    QString why;
    const auto endpoint = UpstreamProxy::parseUrl(url, &why);
    QCOMPARE(endpoint.has_value(), ok);
    if (!ok) {
        QVERIFY2(why.contains(error), qPrintable(why));
        QVERIFY2(!why.contains(QLatin1String("s3cr")), qPrintable(why));
        return;
    }
    QCOMPARE(endpoint->host, host);
    QCOMPARE(int(endpoint->port), port);
    QCOMPARE(endpoint->user, user);
    QCOMPARE(endpoint->password, password);
}

void TestUpstreamProxy::credentialsNeverInDisplay() {
    const auto endpoint = UpstreamProxy::parseUrl(QStringLiteral("http://alice:hunter2@proxy.corp:3128"));
    QVERIFY(endpoint);
    QCOMPARE(endpoint->display(), QStringLiteral("http://proxy.corp:3128"));
    QCOMPARE(endpoint->authorization(), QByteArray("Basic ") + QByteArray("alice:hunter2").toBase64());
    const auto v6 = UpstreamProxy::parseUrl(QStringLiteral("http://[fd00::1]:3128"));
    QVERIFY(v6);
    QCOMPARE(v6->display(), QStringLiteral("http://[fd00::1]:3128"));
    QVERIFY(v6->authorization().isEmpty());
    // A URL that does not parse is not echoed either: its text may hold the password.
    QString why;
    QVERIFY(!UpstreamProxy::parseUrl(QStringLiteral("socks5://alice:hunter2@proxy:1080"), &why));
    QVERIFY2(!why.contains(QLatin1String("hunter2")), qPrintable(why));
    QVERIFY(UpstreamProxy::isValidValue(QStringLiteral("none")));
    QVERIFY(UpstreamProxy::isValidValue(QString()));
    QVERIFY(!UpstreamProxy::isValidValue(QStringLiteral("socks5://proxy:1080")));
}

void TestUpstreamProxy::bypasses_data() {
    QTest::addColumn<QString>("noProxy");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("bypass");

    QTest::newRow("empty") << ""
                           << "example.com" << 443 << false;
    QTest::newRow("star") << "*"
                          << "example.com" << 443 << true;
    QTest::newRow("star in list") << "a.test, *"
                                  << "example.com" << 443 << true;
    QTest::newRow("exact") << "example.com"
                           << "example.com" << 443 << true;
    QTest::newRow("suffix: subdomain") << "example.com"
                                       << "api.example.com" << 443 << true;
    QTest::newRow("suffix: not a label") << "example.com"
                                         << "badexample.com" << 443 << false;
    QTest::newRow("dot: subdomain") << ".example.com"
                                    << "api.example.com" << 443 << true;
    QTest::newRow("dot: apex") << ".example.com"
                               << "example.com" << 443 << true;
    QTest::newRow("star dot") << "*.example.com"
                              << "a.b.example.com" << 443 << true;
    QTest::newRow("case") << "Example.COM"
                          << "API.example.com" << 443 << true;
    QTest::newRow("trailing dot") << "example.com."
                                  << "example.com." << 443 << true;
    QTest::newRow("spaces") << " a.test ,  example.com "
                            << "example.com" << 443 << true;
    QTest::newRow("other") << "a.test,b.test"
                           << "example.com" << 443 << false;
    QTest::newRow("port matches") << "example.com:8443"
                                  << "example.com" << 8443 << true;
    QTest::newRow("port differs") << "example.com:8443"
                                  << "example.com" << 443 << false;
    QTest::newRow("ipv4") << "10.1.2.3"
                          << "10.1.2.3" << 443 << true;
    QTest::newRow("ipv4 other") << "10.1.2.3"
                                << "10.1.2.4" << 443 << false;
    QTest::newRow("cidr") << "10.0.0.0/8"
                          << "10.200.1.1" << 80 << true;
    QTest::newRow("cidr outside") << "10.0.0.0/8"
                                  << "11.0.0.1" << 80 << false;
    QTest::newRow("cidr: names are not looked up") << "10.0.0.0/8"
                                                   << "intranet.test" << 80 << false;
    QTest::newRow("ipv6") << "::1"
                          << "::1" << 443 << true;
    QTest::newRow("ipv6 bracketed host") << "::1"
                                         << "[::1]" << 443 << true;
    QTest::newRow("ipv6 with port") << "[::1]:8080"
                                    << "::1" << 8080 << true;
    QTest::newRow("ipv6 port differs") << "[::1]:8080"
                                       << "::1" << 443 << false;
    QTest::newRow("ipv6 cidr") << "fd00::/8"
                               << "fd12::5" << 443 << true;
    QTest::newRow("ipv4 port") << "127.0.0.1:9000"
                               << "127.0.0.1" << 9000 << true;
    QTest::newRow("localhost") << "localhost,127.0.0.1"
                               << "localhost" << 80 << true;
    QTest::newRow("lone dot") << "."
                              << "example.com" << 443 << false;
    QTest::newRow("garbage port") << "example.com:x"
                                  << "example.com" << 443 << false;
}

void TestUpstreamProxy::bypasses() {
    QFETCH(QString, noProxy);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(bool, bypass);
    QCOMPARE(UpstreamProxy::bypasses(noProxy, host, port), bypass);
}

void TestUpstreamProxy::choose_data() {
    using Env = QHash<QString, QString>;
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("setting");
    QTest::addColumn<Env>("environment");
    QTest::addColumn<bool>("tunnel");
    QTest::addColumn<QString>("proxy");  // display(); empty: straight to the host
    QTest::addColumn<QString>("source");
    QTest::addColumn<bool>("error");

    const Env https{{QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://envs:3128")}};
    const Env both{{QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://envs:3128")},
                   {QStringLiteral("HTTP_PROXY"), QStringLiteral("http://envp:3128")}};
    QTest::newRow("nothing") << ""
                             << "" << Env() << true << ""
                             << "" << false;
    QTest::newRow("flag") << "http://flag:1"
                          << "http://set:2" << both << true << "http://flag:1"
                          << "--upstream-proxy" << false;
    QTest::newRow("flag none beats everything") << "none"
                                                << "http://set:2" << both << true << ""
                                                << "--upstream-proxy" << false;
    QTest::newRow("setting beats environment") << ""
                                               << "http://set:2" << both << true << "http://set:2"
                                               << "setting" << false;
    QTest::newRow("tunnel: HTTPS_PROXY") << ""
                                         << "" << both << true << "http://envs:3128"
                                         << "HTTPS_PROXY" << false;
    QTest::newRow("plain: HTTP_PROXY") << ""
                                       << "" << both << false << "http://envp:3128"
                                       << "HTTP_PROXY" << false;
    QTest::newRow("plain without HTTP_PROXY") << ""
                                              << "" << https << false << ""
                                              << "" << false;
    QTest::newRow("lower case first") << ""
                                      << ""
                                      << Env{{QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://upper:1")},
                                             {QStringLiteral("https_proxy"), QStringLiteral("http://lower:2")}}
                                      << true << "http://lower:2"
                                      << "HTTPS_PROXY" << false;
    QTest::newRow("lower http_proxy") << ""
                                      << "" << Env{{QStringLiteral("http_proxy"), QStringLiteral("proxy:8080")}}
                                      << false << "http://proxy:8080"
                                      << "HTTP_PROXY" << false;
    QTest::newRow("NO_PROXY") << ""
                              << ""
                              << Env{{QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://envs:3128")},
                                     {QStringLiteral("NO_PROXY"), QStringLiteral(".example.com")}}
                              << true << ""
                              << "NO_PROXY" << false;
    QTest::newRow("no_proxy lower") << ""
                                    << ""
                                    << Env{{QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://envs:3128")},
                                           {QStringLiteral("no_proxy"), QStringLiteral("*")}}
                                    << true << ""
                                    << "NO_PROXY" << false;
    QTest::newRow("NO_PROXY other host") << ""
                                         << ""
                                         << Env{{QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://envs:3128")},
                                                {QStringLiteral("NO_PROXY"), QStringLiteral("other.test")}}
                                         << true << "http://envs:3128"
                                         << "HTTPS_PROXY" << false;
    QTest::newRow("NO_PROXY not for the setting")
        << ""
        << "http://set:2" << Env{{QStringLiteral("NO_PROXY"), QStringLiteral("*")}} << true << "http://set:2"
        << "setting" << false;
    QTest::newRow("socks in the environment is an error")
        << ""
        << "" << Env{{QStringLiteral("HTTPS_PROXY"), QStringLiteral("socks5://s:1080")}} << true << ""
        << "HTTPS_PROXY" << true;
    QTest::newRow("bad flag is an error") << "ftp://x:1"
                                          << "" << Env() << true << ""
                                          << "--upstream-proxy" << true;
}

void TestUpstreamProxy::choose() {
    using Env = QHash<QString, QString>;
    QFETCH(QString, flag);
    QFETCH(QString, setting);
    QFETCH(Env, environment);
    QFETCH(bool, tunnel);
    QFETCH(QString, proxy);
    QFETCH(QString, source);
    QFETCH(bool, error);
    const UpstreamProxy::Choice choice =
        upstream(flag, setting, environment).choose(QStringLiteral("api.example.com"), 443, tunnel);
    QCOMPARE(choice.proxy ? choice.proxy->display() : QString(), proxy);
    QCOMPARE(choice.source, source);
    QCOMPARE(!choice.error.isEmpty(), error);
}

void TestUpstreamProxy::systemProxyWhenNothingElse() {
    UpstreamProxy u;
    QNetworkProxyQuery asked;
    u.systemProxy = [&asked](const QNetworkProxyQuery& query) {
        asked = query;
        return QList<QNetworkProxy>{QNetworkProxy(QNetworkProxy::Socks5Proxy, QStringLiteral("socks"), 1080),
                                    QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("sys"), 8080,
                                                  QStringLiteral("bob"), QStringLiteral("pw"))};
    };
    UpstreamProxy::Choice choice = u.choose(QStringLiteral("example.com"), 443, true);
    QCOMPARE(asked.peerHostName(), QStringLiteral("example.com"));
    QCOMPARE(asked.peerPort(), 443);
    QCOMPARE(asked.protocolTag(), QStringLiteral("https"));
    QVERIFY(choice.proxy);
    QCOMPARE(choice.proxy->display(), QStringLiteral("http://sys:8080"));
    QCOMPARE(choice.proxy->user, QStringLiteral("bob"));
    QCOMPARE(choice.source, QStringLiteral("system proxy"));
    // A system answer that says "no proxy" first means straight there; a SOCKS-only answer is not used.
    u.systemProxy = [](const QNetworkProxyQuery&) {
        return QList<QNetworkProxy>{QNetworkProxy(QNetworkProxy::Socks5Proxy, QStringLiteral("socks"), 1080)};
    };
    QVERIFY(!u.choose(QStringLiteral("example.com"), 443, true).proxy);
    u.systemProxy = noSystemProxy;
    QVERIFY(!u.choose(QStringLiteral("example.com"), 443, true).proxy);
    // The environment comes before the system.
    u.systemProxy = [](const QNetworkProxyQuery&) {
        return QList<QNetworkProxy>{QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("sys"), 8080)};
    };
    u.environment.insert(QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://env:3128"));
    QCOMPARE(u.choose(QStringLiteral("example.com"), 443, true).proxy->display(), QStringLiteral("http://env:3128"));
}

// Settings → Network's user name and the keychain's password: sent to the chosen proxy as Proxy-Authorization,
// never part of what logs and messages show, and a URL's own credentials win.
void TestUpstreamProxy::storedCredentials() {
    UpstreamProxy u = upstream({}, QStringLiteral("http://proxy.corp:3128"), {});
    u.user = QStringLiteral("alice");
    u.password = QStringLiteral("hunter2");
    const UpstreamProxy::Choice choice = u.choose(QStringLiteral("pypi.org"), 443, true);
    QVERIFY(choice.proxy);
    const QByteArray header = "Basic " + QByteArray("alice:hunter2").toBase64();
    QCOMPARE(choice.proxy->authorization(), header);
    QCOMPARE(UpstreamProxy::connectRequest(QStringLiteral("pypi.org:443"), choice.proxy->authorization()),
             "CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\nProxy-Authorization: " + header + "\r\n\r\n");
    QCOMPARE(choice.proxy->display(), QStringLiteral("http://proxy.corp:3128"));
    const QByteArray summary = QJsonDocument(u.summary().toJson()).toJson();
    QVERIFY2(!summary.contains("hunter2") && !summary.contains("alice"), summary.constData());
    QVERIFY(u.summary().credentials);
    // The environment's and the system's proxies get them too; a URL with its own keeps its own.
    u.setting.clear();
    u.environment.insert(QStringLiteral("HTTPS_PROXY"), QStringLiteral("http://env:3128"));
    QCOMPARE(u.choose(QStringLiteral("pypi.org"), 443, true).proxy->authorization(), header);
    u.flag = QStringLiteral("http://bob:pw@flag:3128");
    QCOMPARE(u.choose(QStringLiteral("pypi.org"), 443, true).proxy->user, QStringLiteral("bob"));
    // No user: no header, whatever password is left.
    u.flag.clear();
    u.user.clear();
    QVERIFY(u.choose(QStringLiteral("pypi.org"), 443, true).proxy->authorization().isEmpty());
    QVERIFY(!u.summary().credentials);
}

void TestUpstreamProxy::summary_data() {
    using Env = QHash<QString, QString>;
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("setting");
    QTest::addColumn<Env>("environment");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("proxy");
    QTest::addColumn<bool>("credentials");
    QTest::addColumn<QString>("noProxy");

    const Env env{{QStringLiteral("https_proxy"), QStringLiteral("http://carol:pw@env:3128")},
                  {QStringLiteral("NO_PROXY"), QStringLiteral("localhost,.corp")}};
    QTest::newRow("nothing") << ""
                             << "" << Env{} << "none"
                             << "" << false << "";
    QTest::newRow("flag none") << "none"
                               << "http://set:1" << env << "flag"
                               << "" << false << "localhost,.corp";
    QTest::newRow("flag") << "http://a:b@flag:8080"
                          << "" << Env{} << "flag"
                          << "http://flag:8080" << true << "";
    QTest::newRow("setting") << ""
                             << "http://set:3128" << env << "setting"
                             << "http://set:3128" << false << "localhost,.corp";
    QTest::newRow("environment") << ""
                                 << "" << env << "environment"
                                 << "http://env:3128" << true << "localhost,.corp";
    QTest::newRow("http_proxy only") << ""
                                     << "" << Env{{QStringLiteral("HTTP_PROXY"), QStringLiteral("web:80")}}
                                     << "environment"
                                     << "http://web:80" << false << "";
}

void TestUpstreamProxy::summary() {
    using Env = QHash<QString, QString>;
    QFETCH(QString, flag);
    QFETCH(QString, setting);
    QFETCH(Env, environment);
    QFETCH(QString, source);
    QFETCH(QString, proxy);
    QFETCH(bool, credentials);
    QFETCH(QString, noProxy);
    const UpstreamProxy::Summary summary = upstream(flag, setting, environment).summary();
    QCOMPARE(summary.source, source);
    QCOMPARE(summary.proxy, proxy);
    QCOMPARE(summary.credentials, credentials);
    QCOMPARE(summary.noProxy, noProxy);
    QVERIFY(summary.error.isEmpty());
    const QByteArray json = QJsonDocument(summary.toJson()).toJson();
    QVERIFY2(!json.contains(":pw") && !json.contains("carol"), json.constData());
}

void TestUpstreamProxy::requests() {
    QCOMPARE(UpstreamProxy::connectRequest(QStringLiteral("example.com:443"), {}),
             QByteArray("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"));
    QCOMPARE(UpstreamProxy::connectRequest(QStringLiteral("[::1]:8443"), "Basic YTpi"),
             QByteArray("CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic YTpi\r\n\r\n"));
    const QByteArray origin = "GET /a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\nConnection: close\r\n\r\n";
    QCOMPARE(UpstreamProxy::absoluteForm(origin, QStringLiteral("example.com:8080"), {}),
             QByteArray("GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\n"
                        "Connection: close\r\n\r\n"));
    QCOMPARE(UpstreamProxy::absoluteForm(origin, QStringLiteral("10.0.0.5:8080"), "Basic YTpi"),
             QByteArray("GET http://10.0.0.5:8080/a/b?c=d HTTP/1.1\r\nProxy-Authorization: Basic YTpi\r\n"
                        "Host: example.com:8080\r\nConnection: close\r\n\r\n"));
}

void TestUpstreamProxy::connectReply_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("consumed");
    QTest::addColumn<QString>("why");

    const int more = int(UpstreamProxy::Reply::Status::NeedMore);
    const int ok = int(UpstreamProxy::Reply::Status::Established);
    const int failed = int(UpstreamProxy::Reply::Status::Failed);
    QTest::newRow("partial") << QByteArray("HTTP/1.1 200 Conn") << more << 0 << "";
    QTest::newRow("200") << QByteArray("HTTP/1.1 200 Connection established\r\n\r\n") << ok << 39 << "";
    QTest::newRow("200 with headers and data")
        << QByteArray("HTTP/1.0 200 OK\r\nProxy-agent: tinyproxy\r\n\r\nSERVER") << ok << 43 << "";
    QTest::newRow("407") << QByteArray("HTTP/1.1 407 Proxy Authentication Required\r\nX: y\r\n\r\n") << failed << 0
                         << "407 Proxy Authentication Required";
    QTest::newRow("403") << QByteArray("HTTP/1.0 403 Access violation\r\n\r\n") << failed << 0
                         << "403 Access violation";
    QTest::newRow("not http") << QByteArray("SSH-2.0-x\r\n\r\n") << failed << 0 << "not an HTTP reply";
    QTest::newRow("oversized") << QByteArray(UpstreamProxy::kMaxReplyBytes + 1, 'a') << failed << 0
                               << "an oversized reply";
}

void TestUpstreamProxy::connectReply() {
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    QFETCH(int, consumed);
    QFETCH(QString, why);
    const UpstreamProxy::Reply reply = UpstreamProxy::parseConnectReply(bytes);
    QCOMPARE(int(reply.status), status);
    QCOMPARE(int(reply.consumed), consumed);
    QCOMPARE(reply.why, why);
}

void TestUpstreamProxy::proxyRefusal() {
    QCOMPARE(UpstreamProxy::proxyRefusal("HTTP/1.1 407 Proxy Authentication Required\r\n"),
             QStringLiteral("407 Proxy Authentication Required"));
    QVERIFY(UpstreamProxy::proxyRefusal("HTTP/1.1 200 OK\r\n").isEmpty());
    QVERIFY(UpstreamProxy::proxyRefusal("HTTP/1.1 407 Pro").isEmpty());
    QVERIFY(UpstreamProxy::proxyRefusal("HTTP/1.1 404 Not Found\r\n").isEmpty());
}

QTEST_GUILESS_MAIN(TestUpstreamProxy)
#include "tst_upstreamproxy.moc"
