// The egress policy and the proxy's request parser (SPEC §8) as pure functions: rules, presets, deny over
// allow, ports, restricted addresses and overrides; and what the proxy reads from the first bytes of a tunnel.
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/egress/proxyrequest.h"

#include <QTest>

using namespace zeus;

class TestEgressPolicy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesRules_data();
    void parsesRules();
    void decidesHosts_data();
    void decidesHosts();
    void permitsAddresses_data();
    void permitsAddresses();
    void restrictedAddresses_data();
    void restrictedAddresses();
    void modes();
    void devPresetParsesAndLocksIsEmpty();
    void resolveOverrides_data();
    void resolveOverrides();
    void parsesHttpRequests_data();
    void parsesHttpRequests();
    void rewritesForwardedRequests();
    void parsesSocks5_data();
    void parsesSocks5();
    void denialNamesHostAndHowToAllow();
};

void TestEgressPolicy::parsesRules_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("port");
    QTest::newRow("domain") << QStringLiteral("example.com") << true << int(HostRule::Kind::Domain) << 0;
    QTest::newRow("domain upper case") << QStringLiteral("Example.COM") << true << int(HostRule::Kind::Domain) << 0;
    QTest::newRow("domain trailing dot") << QStringLiteral("example.com.") << true << int(HostRule::Kind::Domain) << 0;
    QTest::newRow("domain port") << QStringLiteral("example.com:8443") << true << int(HostRule::Kind::Domain) << 8443;
    QTest::newRow("subdomains") << QStringLiteral("*.example.com") << true << int(HostRule::Kind::Subdomains) << 0;
    QTest::newRow("subdomains port") << QStringLiteral("*.example.com:22") << true << int(HostRule::Kind::Subdomains)
                                     << 22;
    QTest::newRow("ipv4") << QStringLiteral("10.1.2.3") << true << int(HostRule::Kind::Address) << 0;
    QTest::newRow("ipv4 port") << QStringLiteral("10.1.2.3:5432") << true << int(HostRule::Kind::Address) << 5432;
    QTest::newRow("ipv6") << QStringLiteral("::1") << true << int(HostRule::Kind::Address) << 0;
    QTest::newRow("ipv6 port") << QStringLiteral("[::1]:8080") << true << int(HostRule::Kind::Address) << 8080;
    QTest::newRow("cidr") << QStringLiteral("10.0.0.0/8") << true << int(HostRule::Kind::Block) << 0;
    QTest::newRow("cidr port") << QStringLiteral("10.0.0.0/8:443") << true << int(HostRule::Kind::Block) << 443;
    QTest::newRow("cidr v6") << QStringLiteral("fd00::/8") << true << int(HostRule::Kind::Block) << 0;
    QTest::newRow("empty") << QStringLiteral("") << false << 0 << 0;
    QTest::newRow("star in the middle") << QStringLiteral("a.*.com") << false << 0 << 0;
    QTest::newRow("bare star") << QStringLiteral("*") << false << 0 << 0;
    QTest::newRow("star tld") << QStringLiteral("*.com") << false << 0 << 0;
    QTest::newRow("port 0") << QStringLiteral("example.com:0") << false << 0 << 0;
    QTest::newRow("port too big") << QStringLiteral("example.com:65536") << false << 0 << 0;
    QTest::newRow("port not a number") << QStringLiteral("example.com:https") << false << 0 << 0;
    QTest::newRow("signed port") << QStringLiteral("example.com:+80") << false << 0 << 0;
    QTest::newRow("url") << QStringLiteral("https://example.com/") << false << 0 << 0;
    QTest::newRow("user info") << QStringLiteral("me@example.com") << false << 0 << 0;
    QTest::newRow("space") << QStringLiteral("exa mple.com") << false << 0 << 0;
    QTest::newRow("control") << QStringLiteral("example.com\n") << true << int(HostRule::Kind::Domain) << 0;  // trimmed
    QTest::newRow("cidr too long") << QStringLiteral("10.0.0.0/33") << false << 0 << 0;
    QTest::newRow("cidr no length") << QStringLiteral("10.0.0.0/") << false << 0 << 0;
    QTest::newRow("label too long") << QString(64, QLatin1Char('a')) + QStringLiteral(".com") << false << 0 << 0;
}

void TestEgressPolicy::parsesRules() {
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(int, kind);
    QFETCH(int, port);
    QString error;
    const auto rule = HostRule::parse(text, &error);
    QCOMPARE(rule.has_value(), ok);
    if (ok) {
        QCOMPARE(int(rule->kind), kind);
        QCOMPARE(rule->port, port);
    } else {
        QVERIFY(!error.isEmpty());
    }
}

void TestEgressPolicy::decidesHosts_data() {
    QTest::addColumn<QStringList>("allow");
    QTest::addColumn<QStringList>("deny");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("allowed");
    QTest::addColumn<QString>("rule");
    const QStringList none;
    QTest::newRow("exact name 443") << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("x.test") << 443
                                    << true << QStringLiteral("x.test");
    QTest::newRow("exact name 80") << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("x.test") << 80
                                   << true << QStringLiteral("x.test");
    QTest::newRow("exact name other port") << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("x.test")
                                           << 8080 << false << QStringLiteral("no rule");
    QTest::newRow("case and trailing dot") << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("X.Test.")
                                           << 443 << true << QStringLiteral("x.test");
    QTest::newRow("exact does not cover subdomain")
        << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("a.x.test") << 443 << false
        << QStringLiteral("no rule");
    QTest::newRow("wildcard subdomain") << QStringList{QStringLiteral("*.x.test")} << none << QStringLiteral("a.x.test")
                                        << 443 << true << QStringLiteral("*.x.test");
    QTest::newRow("wildcard deep subdomain")
        << QStringList{QStringLiteral("*.x.test")} << none << QStringLiteral("b.a.x.test") << 443 << true
        << QStringLiteral("*.x.test");
    QTest::newRow("wildcard not the apex") << QStringList{QStringLiteral("*.x.test")} << none
                                           << QStringLiteral("x.test") << 443 << false << QStringLiteral("no rule");
    QTest::newRow("wildcard not a suffix trick")
        << QStringList{QStringLiteral("*.x.test")} << none << QStringLiteral("evilx.test") << 443 << false
        << QStringLiteral("no rule");
    QTest::newRow("name is not a suffix of another")
        << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("x.test.evil.com") << 443 << false
        << QStringLiteral("no rule");
    QTest::newRow("port rule") << QStringList{QStringLiteral("x.test:8080")} << none << QStringLiteral("x.test") << 8080
                               << true << QStringLiteral("x.test:8080");
    QTest::newRow("port rule not 443") << QStringList{QStringLiteral("x.test:8080")} << none << QStringLiteral("x.test")
                                       << 443 << false << QStringLiteral("no rule");
    QTest::newRow("deny beats allow") << QStringList{QStringLiteral("*.x.test")}
                                      << QStringList{QStringLiteral("bad.x.test")} << QStringLiteral("bad.x.test")
                                      << 443 << false << QStringLiteral("deny bad.x.test");
    QTest::newRow("deny beats preset") << none << QStringList{QStringLiteral("github.com")}
                                       << QStringLiteral("github.com") << 443 << false
                                       << QStringLiteral("deny github.com");
    QTest::newRow("deny leaves others") << QStringList{QStringLiteral("*.x.test")}
                                        << QStringList{QStringLiteral("bad.x.test")} << QStringLiteral("ok.x.test")
                                        << 443 << true << QStringLiteral("*.x.test");
    QTest::newRow("preset") << none << none << QStringLiteral("registry.npmjs.org") << 443 << true
                            << QStringLiteral("preset dev: registry.npmjs.org");
    QTest::newRow("preset ssh") << none << none << QStringLiteral("github.com") << 22 << true
                                << QStringLiteral("preset dev: github.com:22");
    QTest::newRow("not in preset") << none << none << QStringLiteral("example.com") << 443 << false
                                   << QStringLiteral("no rule");
    QTest::newRow("ip literal needs an ip rule")
        << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("93.184.216.34") << 443 << false
        << QStringLiteral("no rule");
    QTest::newRow("ip literal rule") << QStringList{QStringLiteral("93.184.216.34")} << none
                                     << QStringLiteral("93.184.216.34") << 443 << true
                                     << QStringLiteral("93.184.216.34");
    QTest::newRow("cidr rule") << QStringList{QStringLiteral("93.184.0.0/16")} << none
                               << QStringLiteral("93.184.216.34") << 80 << true << QStringLiteral("93.184.0.0/16");
    QTest::newRow("mapped v6 literal") << QStringList{QStringLiteral("93.184.216.34")} << none
                                       << QStringLiteral("[::ffff:93.184.216.34]") << 443 << true
                                       << QStringLiteral("93.184.216.34");
    QTest::newRow("garbage host") << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("x.test/evil")
                                  << 443 << false << QStringLiteral("not a host name");
    QTest::newRow("empty host") << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("") << 443 << false
                                << QStringLiteral("not a host name");
    QTest::newRow("percent host") << QStringList{QStringLiteral("x.test")} << none << QStringLiteral("x%2etest") << 443
                                  << false << QStringLiteral("not a host name");
    QTest::newRow("null byte host") << QStringList{QStringLiteral("x.test")} << none
                                    << QString::fromLatin1("x.test\0.evil", 11) << 443 << false
                                    << QStringLiteral("not a host name");
}

void TestEgressPolicy::decidesHosts() {
    QFETCH(QStringList, allow);
    QFETCH(QStringList, deny);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(bool, allowed);
    QFETCH(QString, rule);
    QStringList errors;
    const EgressPolicy policy =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("dev"), allow, deny, {}, &errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char(';'))));
    const EgressDecision decision = policy.decideHost(host, port);
    QCOMPARE(decision.allowed, allowed);
    QCOMPARE(decision.rule, rule);
}

void TestEgressPolicy::permitsAddresses_data() {
    QTest::addColumn<QStringList>("allow");
    QTest::addColumn<QStringList>("deny");
    QTest::addColumn<QStringList>("resolve");
    QTest::addColumn<QStringList>("addresses");
    QTest::addColumn<QStringList>("permitted");
    QTest::addColumn<QString>("refusal");
    const QStringList none;
    QTest::newRow("public") << none << none << none << QStringList{QStringLiteral("93.184.216.34")}
                            << QStringList{QStringLiteral("93.184.216.34")} << QStringLiteral("");
    QTest::newRow("loopback refused") << none << none << none << QStringList{QStringLiteral("127.0.0.1")} << none
                                      << QStringLiteral("loopback address 127.0.0.1");
    QTest::newRow("private refused") << none << none << none << QStringList{QStringLiteral("10.1.2.3")} << none
                                     << QStringLiteral("private address 10.1.2.3");
    QTest::newRow("metadata refused") << none << none << none << QStringList{QStringLiteral("169.254.169.254")} << none
                                      << QStringLiteral("cloud metadata address 169.254.169.254");
    QTest::newRow("mapped loopback refused") << none << none << none << QStringList{QStringLiteral("::ffff:127.0.0.1")}
                                             << none << QStringLiteral("loopback address 127.0.0.1");
    QTest::newRow("mixed keeps public only")
        << none << none << none << QStringList{QStringLiteral("10.0.0.1"), QStringLiteral("93.184.216.34")}
        << QStringList{QStringLiteral("93.184.216.34")} << QStringLiteral("");
    QTest::newRow("ip rule names private")
        << QStringList{QStringLiteral("10.1.2.3")} << none << none << QStringList{QStringLiteral("10.1.2.3")}
        << QStringList{QStringLiteral("10.1.2.3")} << QStringLiteral("");
    QTest::newRow("cidr rule names private")
        << QStringList{QStringLiteral("10.0.0.0/8")} << none << none << QStringList{QStringLiteral("10.1.2.3")}
        << QStringList{QStringLiteral("10.1.2.3")} << QStringLiteral("");
    QTest::newRow("ip rule on other port")
        << QStringList{QStringLiteral("10.1.2.3:5432")} << none << none << QStringList{QStringLiteral("10.1.2.3")}
        << none << QStringLiteral("private address 10.1.2.3");
    QTest::newRow("override names loopback")
        << none << none << QStringList{QStringLiteral("x.test:443:127.0.0.1")}
        << QStringList{QStringLiteral("127.0.0.1")} << QStringList{QStringLiteral("127.0.0.1")} << QStringLiteral("");
    QTest::newRow("override is per port")
        << none << none << QStringList{QStringLiteral("x.test:80:127.0.0.1")}
        << QStringList{QStringLiteral("127.0.0.1")} << none << QStringLiteral("loopback address 127.0.0.1");
    QTest::newRow("deny cidr") << none << QStringList{QStringLiteral("93.184.0.0/16")} << none
                               << QStringList{QStringLiteral("93.184.216.34")} << none
                               << QStringLiteral("deny 93.184.0.0/16");
}

void TestEgressPolicy::permitsAddresses() {
    QFETCH(QStringList, allow);
    QFETCH(QStringList, deny);
    QFETCH(QStringList, resolve);
    QFETCH(QStringList, addresses);
    QFETCH(QStringList, permitted);
    QFETCH(QString, refusal);
    QStringList errors;
    const EgressPolicy policy =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"), allow, deny, resolve, &errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char(';'))));
    QList<QHostAddress> in;
    for (const QString& a : addresses) {
        in << QHostAddress(a);
    }
    QString why;
    QStringList out;
    for (const QHostAddress& a : policy.permittedAddresses(QStringLiteral("x.test"), 443, in, &why)) {
        out << a.toString();
    }
    QCOMPARE(out, permitted);
    if (permitted.isEmpty()) {
        QCOMPARE(why, refusal);
    }
}

void TestEgressPolicy::restrictedAddresses_data() {
    QTest::addColumn<QString>("address");
    QTest::addColumn<bool>("restricted");
    for (const char* a : {"127.0.0.1",       "127.255.0.1",     "::1",         "10.0.0.1",
                          "172.16.5.4",      "172.31.255.255",  "192.168.1.1", "169.254.1.1",
                          "169.254.169.254", "100.64.0.1",      "0.0.0.0",     "0.1.2.3",
                          "224.0.0.1",       "255.255.255.255", "fe80::1",     "fc00::1",
                          "fd12:3456::1",    "ff02::1",         "::",          "::ffff:10.0.0.1",
                          "fd00:ec2::254",   "64:ff9b::a00:1",  "240.0.0.1"}) {
        QTest::newRow(a) << QString::fromLatin1(a) << true;
    }
    for (const char* a : {"93.184.216.34", "1.1.1.1", "172.32.0.1", "192.169.0.1", "2606:4700::1111",
                          "::ffff:93.184.216.34", "100.128.0.1"}) {
        QTest::newRow(a) << QString::fromLatin1(a) << false;
    }
}

void TestEgressPolicy::restrictedAddresses() {
    QFETCH(QString, address);
    QFETCH(bool, restricted);
    QCOMPARE(EgressPolicy::isRestricted(QHostAddress(address)), restricted);
}

void TestEgressPolicy::modes() {
    EgressPolicy policy;
    policy.mode = NetworkMode::None;
    QVERIFY(!policy.decideHost(QStringLiteral("github.com"), 443).allowed);
    policy.mode = NetworkMode::Open;
    QVERIFY(policy.decideHost(QStringLiteral("anything.test"), 443).allowed);
    QCOMPARE(networkModeFromName(QStringLiteral("allowlist")), NetworkMode::Allowlist);
    QCOMPARE(networkModeFromName(QStringLiteral("open")), NetworkMode::Open);
    QCOMPARE(networkModeFromName(QStringLiteral("none")), NetworkMode::None);
    QVERIFY(!networkModeFromName(QStringLiteral("Allowlist")));
    QStringList errors;
    EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("everything"), {QStringLiteral("a b")}, {},
                              {QStringLiteral("nope")}, &errors);
    QCOMPARE(errors.size(), 3);
}

void TestEgressPolicy::devPresetParsesAndLocksIsEmpty() {
    const QStringList dev = EgressPolicy::presetRules(QStringLiteral("dev"));
    QVERIFY(dev.size() >= 20);
    for (const QString& text : dev) {
        QVERIFY2(HostRule::parse(text), qPrintable(text));
    }
    for (const char* expected :
         {"registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "static.crates.io", "proxy.golang.org",
          "sum.golang.org", "repo.maven.apache.org", "rubygems.org", "deb.debian.org", "archive.ubuntu.com",
          "github.com", "codeload.github.com", "objects.githubusercontent.com", "raw.githubusercontent.com"}) {
        QVERIFY2(dev.contains(QString::fromLatin1(expected)), expected);
    }
    QVERIFY(EgressPolicy::presetRules(QStringLiteral("locked")).isEmpty());
    const EgressPolicy locked =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"), {}, {}, {}, nullptr);
    QVERIFY(!locked.decideHost(QStringLiteral("github.com"), 443).allowed);
}

void TestEgressPolicy::resolveOverrides_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("address");
    QTest::newRow("v4") << QStringLiteral("a.test:443:127.0.0.1") << true << QStringLiteral("127.0.0.1");
    QTest::newRow("v6 brackets") << QStringLiteral("a.test:443:[::1]") << true << QStringLiteral("::1");
    QTest::newRow("v6 bare") << QStringLiteral("a.test:443:::1") << true << QStringLiteral("::1");
    QTest::newRow("no port") << QStringLiteral("a.test::127.0.0.1") << false << QStringLiteral("");
    QTest::newRow("no address") << QStringLiteral("a.test:443:") << false << QStringLiteral("");
    QTest::newRow("name as address") << QStringLiteral("a.test:443:b.test") << false << QStringLiteral("");
    QTest::newRow("bad host") << QStringLiteral("a b:443:127.0.0.1") << false << QStringLiteral("");
}

void TestEgressPolicy::resolveOverrides() {
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QString, address);
    const auto o = ResolveOverride::parse(text);
    QCOMPARE(o.has_value(), ok);
    if (ok) {
        QCOMPARE(o->address.toString(), address);
        QCOMPARE(o->port, 443);
    }
}

void TestEgressPolicy::parsesHttpRequests_data() {
    using proxyrequest::Status;
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("connect") << QByteArray("CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n")
                             << int(Status::Connect) << QStringLiteral("github.com") << 443;
    QTest::newRow("connect bare newlines")
        << QByteArray("CONNECT a.test:22 HTTP/1.0\n\n") << int(Status::Connect) << QStringLiteral("a.test") << 22;
    QTest::newRow("connect v6") << QByteArray("CONNECT [2606:4700::1111]:443 HTTP/1.1\r\n\r\n") << int(Status::Connect)
                                << QStringLiteral("2606:4700::1111") << 443;
    QTest::newRow("connect without port")
        << QByteArray("CONNECT a.test HTTP/1.1\r\n\r\n") << int(Status::Error) << QStringLiteral("") << 0;
    QTest::newRow("absolute get") << QByteArray("GET http://a.test/x?y=1 HTTP/1.1\r\nHost: a.test\r\n\r\n")
                                  << int(Status::Forward) << QStringLiteral("a.test") << 80;
    QTest::newRow("absolute get port") << QByteArray("GET http://a.test:8080 HTTP/1.1\r\n\r\n") << int(Status::Forward)
                                       << QStringLiteral("a.test") << 8080;
    QTest::newRow("incomplete") << QByteArray("GET http://a.test/ HTTP/1.1\r\nHost: a") << int(Status::NeedMore)
                                << QStringLiteral("") << 0;
    QTest::newRow("origin form") << QByteArray("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n") << int(Status::Error)
                                 << QStringLiteral("") << 0;
    QTest::newRow("https absolute") << QByteArray("GET https://a.test/ HTTP/1.1\r\n\r\n") << int(Status::Error)
                                    << QStringLiteral("") << 0;
    QTest::newRow("user info") << QByteArray("GET http://x.test@a.test/ HTTP/1.1\r\n\r\n") << int(Status::Error)
                               << QStringLiteral("") << 0;
    QTest::newRow("control char") << QByteArray("GET http://a.test/ HTTP/1.1\r\nX: a\x01\r\n\r\n") << int(Status::Error)
                                  << QStringLiteral("") << 0;
    QTest::newRow("not http") << QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\r\n\r\n", 13) << int(Status::Error)
                              << QStringLiteral("") << 0;
    QTest::newRow("http2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << int(Status::Error)
                                   << QStringLiteral("") << 0;
    QTest::newRow("lower case method") << QByteArray("get http://a.test/ HTTP/1.1\r\n\r\n") << int(Status::Error)
                                       << QStringLiteral("") << 0;
    QTest::newRow("tls without the head")
        << QByteArray("\x16\x03\x01", 3) << int(Status::Error) << QStringLiteral("") << 0;
    QTest::newRow("method so far") << QByteArray("CONN") << int(Status::NeedMore) << QStringLiteral("") << 0;
    QTest::newRow("too long") << QByteArray(20000, 'A') << int(Status::Error) << QStringLiteral("") << 0;
    QTest::newRow("bad port") << QByteArray("CONNECT a.test:99999 HTTP/1.1\r\n\r\n") << int(Status::Error)
                              << QStringLiteral("") << 0;
}

void TestEgressPolicy::parsesHttpRequests() {
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    QFETCH(QString, host);
    QFETCH(int, port);
    const proxyrequest::Request r = proxyrequest::parseHttp(bytes);
    QCOMPARE(int(r.status), status);
    if (r.status == proxyrequest::Status::Connect || r.status == proxyrequest::Status::Forward) {
        QCOMPARE(r.host, host);
        QCOMPARE(r.port, port);
    }
    if (r.status == proxyrequest::Status::Error) {
        QVERIFY(r.reply.startsWith("HTTP/1.1 4"));
    }
}

void TestEgressPolicy::rewritesForwardedRequests() {
    const QByteArray request =
        "POST http://a.test:8080/p?q#frag HTTP/1.1\r\nHost: evil.test\r\nProxy-Connection: "
        "keep-alive\r\nProxy-Authorization: Basic eA==\r\nContent-Length: 2\r\nConnection: "
        "keep-alive\r\n\r\nhi";
    const proxyrequest::Request r = proxyrequest::parseHttp(request);
    QCOMPARE(int(r.status), int(proxyrequest::Status::Forward));
    QCOMPARE(r.forward, QByteArray("POST /p?q HTTP/1.1\r\nHost: a.test:8080\r\nContent-Length: 2\r\nConnection: "
                                   "close\r\n\r\n"));
    QCOMPARE(request.mid(r.consumed), QByteArray("hi"));  // the body is relayed as it comes
}

void TestEgressPolicy::parsesSocks5_data() {
    using proxyrequest::Status;
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("greeted");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QByteArray>("reply");
    QTest::newRow("greeting") << QByteArray("\x05\x01\x00", 3) << false << int(Status::Reply) << QStringLiteral("") << 0
                              << QByteArray("\x05\x00", 2);
    QTest::newRow("greeting partial") << QByteArray("\x05\x02\x00", 3) << false << int(Status::NeedMore)
                                      << QStringLiteral("") << 0 << QByteArray();
    QTest::newRow("greeting auth only") << QByteArray("\x05\x01\x02", 3) << false << int(Status::Error)
                                        << QStringLiteral("") << 0 << QByteArray("\x05\xff", 2);
    QTest::newRow("socks4") << QByteArray("\x04\x01\x00\x50", 4) << false << int(Status::Error) << QStringLiteral("")
                            << 0 << QByteArray();
    QTest::newRow("name") << QByteArray(
        "\x05\x01\x00\x03\x06"
        "a.test"
        "\x01\xbb",
        13) << true << int(Status::Connect)
                          << QStringLiteral("a.test") << 443 << QByteArray();
    QTest::newRow("ipv4") << QByteArray("\x05\x01\x00\x01\x5d\xb8\xd8\x22\x00\x50", 10) << true << int(Status::Connect)
                          << QStringLiteral("93.184.216.34") << 80 << QByteArray();
    QTest::newRow("name partial") << QByteArray(
        "\x05\x01\x00\x03\x06"
        "a.te",
        9) << true << int(Status::NeedMore)
                                  << QStringLiteral("") << 0 << QByteArray();
    QTest::newRow("bind") << QByteArray(
        "\x05\x02\x00\x03\x06"
        "a.test"
        "\x01\xbb",
        13) << true << int(Status::Error)
                          << QStringLiteral("") << 0 << proxyrequest::socksReply(7);
    QTest::newRow("udp") << QByteArray("\x05\x03\x00\x01\x00\x00\x00\x00\x00\x00", 10) << true << int(Status::Error)
                         << QStringLiteral("") << 0 << proxyrequest::socksReply(7);
    QTest::newRow("bad name") << QByteArray(
        "\x05\x01\x00\x03\x03"
        "a b"
        "\x01\xbb",
        10) << true << int(Status::Error)
                              << QStringLiteral("") << 0 << proxyrequest::socksReply(4);
    QTest::newRow("port 0") << QByteArray(
        "\x05\x01\x00\x03\x06"
        "a.test"
        "\x00\x00",
        13) << true << int(Status::Error)
                            << QStringLiteral("") << 0 << proxyrequest::socksReply(1);
    QTest::newRow("unknown type") << QByteArray("\x05\x01\x00\x09\x00\x00", 6) << true << int(Status::Error)
                                  << QStringLiteral("") << 0 << proxyrequest::socksReply(8);
}

void TestEgressPolicy::parsesSocks5() {
    QFETCH(QByteArray, bytes);
    QFETCH(bool, greeted);
    QFETCH(int, status);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QByteArray, reply);
    const proxyrequest::Request r = proxyrequest::parseSocks5(bytes, greeted);
    QCOMPARE(int(r.status), status);
    QCOMPARE(r.host, host);
    QCOMPARE(r.port, port);
    QCOMPARE(r.reply.toHex(), reply.toHex());
}

void TestEgressPolicy::denialNamesHostAndHowToAllow() {
    const QByteArray reply = proxyrequest::httpDenied(QStringLiteral("evil.test"), 443, QStringLiteral("no rule"));
    QVERIFY(reply.startsWith("HTTP/1.1 403 Forbidden\r\n"));
    QVERIFY(reply.contains("\r\nX-Proxy-Error: blocked-by-allowlist\r\n"));
    const QByteArray body = reply.mid(reply.indexOf("\r\n\r\n") + 4);
    QCOMPARE(body.count('\n'), 1);  // one line
    QVERIFY(body.contains("evil.test:443"));
    QVERIFY(body.contains("--allow-host evil.test\n"));
    const qsizetype length = reply.indexOf("Content-Length: ");
    QCOMPARE(reply.mid(length + 16, reply.indexOf('\r', length) - length - 16).toInt(), body.size());
    QVERIFY(proxyrequest::httpDenied(QStringLiteral("a.test"), 8080, QStringLiteral("no rule"))
                .contains("--allow-host a.test:8080"));
}

QTEST_GUILESS_MAIN(TestEgressPolicy)
#include "tst_egresspolicy.moc"
