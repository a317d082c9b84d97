// The egress policy and the proxy's request parser (SPEC §8) as pure functions: rules, presets, deny over
// allow, ports, restricted addresses and overrides; what the proxy reads from the first bytes of a tunnel; and
// the TLS ClientHello whose server name must be the name the policy checked.
#include "sandbox/egress/clienthello.h"
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/egress/proxyrequest.h"

#include <QTest>

using namespace zeus;

namespace {

QByteArray u16(int v) {
    return QByteArray(1, char((v >> 8) & 0xff)) + char(v & 0xff);
}

QByteArray u24(int v) {
    return QByteArray(1, char((v >> 16) & 0xff)) + u16(v);
}

QByteArray extension(int type, const QByteArray& data) {
    return u16(type) + u16(int(data.size())) + data;
}

QByteArray serverName(const QByteArray& name) {
    const QByteArray entry = QByteArray(1, '\0') + u16(int(name.size())) + name;
    return extension(0, u16(int(entry.size())) + entry);
}

// A ClientHello handshake message (type 1) with these extensions; `withExtensions` false leaves the block out.
QByteArray handshake(const QList<QByteArray>& extensions, bool withExtensions = true) {
    QByteArray body = u16(0x0303) + QByteArray(32, 'r') + char(32) + QByteArray(32, 's');
    body += u16(4) + u16(0x1301) + u16(0x1302);  // cipher suites
    body += char(1) + QByteArray(1, '\0');       // compression: null
    if (withExtensions) {
        QByteArray block;
        for (const QByteArray& e : extensions) {
            block += e;
        }
        body += u16(int(block.size())) + block;
    }
    return char(1) + u24(int(body.size())) + body;
}

// The handshake in TLS records of at most `fragment` bytes each.
QByteArray records(const QByteArray& message, int fragment = 16384) {
    QByteArray out;
    for (qsizetype at = 0; at < message.size(); at += fragment) {
        const QByteArray part = message.mid(at, fragment);
        out += char(0x16) + u16(0x0301) + u16(int(part.size())) + part;
    }
    return out;
}

QByteArray hello(const QByteArray& name, const QList<QByteArray>& more = {}) {
    return records(handshake(QList<QByteArray>{extension(10, u16(2) + u16(29)), serverName(name)} + more));
}

// Captured from `openssl s_client -servername allowed.test` (OpenSSL 3.0) and from
// `curl --resolve other.test:PORT:127.0.0.1 https://other.test:PORT/`: real clients' first bytes.
const QByteArray kOpensslHello = QByteArray::fromHex(
    "1603010139010001350303aaf02ee1f566530fffb7ddcbe460206479ef6c50119c6df2e166232034bd73cf20eff7bf1d"
    "8ef53d73da534addecd3361610323bf1b05492d8a8785f13d2d67cd7003e130213031301c02cc030009fcca9cca8ccaa"
    "c02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f00ff010000ae"
    "00000011000f00000c616c6c6f7765642e74657374000b000403000102000a00160014001d0017001e00190018010001"
    "01010201030104002300000016000000170000000d002a0028040305030603080708080809080a080b08040805080604"
    "0105010601030303010302040205020602002b0009080304030303020301002d00020101003300260024001d0020bd58"
    "791294d3a352bd82810e189fd5f6f37065c42555f7b516a56e06d8802d26");
const QByteArray kCurlHello = QByteArray::fromHex(
    "1603010200010001fc030320fd42de4b45f8d0e93d85b126fa6412011306ae9c2971a8bfce775e6d0263ef204a96d319"
    "6d95ade270aca404d36464295235d8899791f77e28f918737a71205a003e130213031301c02cc030009fcca9cca8ccaa"
    "c02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f00ff01000175"
    "0000000f000d00000a6f746865722e74657374000b000403000102000a00160014001d0017001e001900180100010101"
    "02010301040010000e000c02683208687474702f312e31001600000017000000310000000d002a002804030503060308"
    "0708080809080a080b080408050806040105010601030303010302040205020602002b0009080304030303020301002d"
    "00020101003300260024001d00205287189408fb7a14c727a3312458e477c39eadcf2a3c1fb40b74203429305a700015"
    "00b300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00000000000000000000000000000000000000000000000000000000000000000000000000");

}  // namespace

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
    void embeddedIPv4IsJudged_data();
    void embeddedIPv4IsJudged();
    void blocksNeverOpenLoopbackLinkLocalMetadata_data();
    void blocksNeverOpenLoopbackLinkLocalMetadata();
    void modes();
    void devPresetParsesAndLocksIsEmpty();
    void resolveOverrides_data();
    void resolveOverrides();
    void parsesHttpRequests_data();
    void parsesHttpRequests();
    void rewritesForwardedRequests();
    void forwardedBodyIsBounded_data();
    void forwardedBodyIsBounded();
    void parsesSocks5_data();
    void parsesSocks5();
    void denialNamesHostAndHowToAllow();
    void parsesClientHello_data();
    void parsesClientHello();
    void clientHelloAtEverySplit();
    void judgesTunnelStart_data();
    void judgesTunnelStart();
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
    QTest::newRow("6to4 literal judged by its ipv4")
        << QStringList{QStringLiteral("93.184.216.34")} << none << QStringLiteral("2002:5db8:d822::1") << 443 << true
        << QStringLiteral("93.184.216.34");
    QTest::newRow("nat64 literal judged by its ipv4")
        << QStringList{QStringLiteral("93.184.216.34")} << none << QStringLiteral("[64:ff9b::5db8:d822]") << 443 << true
        << QStringLiteral("93.184.216.34");
    QTest::newRow("deny reaches the embedded ipv4")
        << QStringList{QStringLiteral("2002::/16")} << QStringList{QStringLiteral("169.254.169.254")}
        << QStringLiteral("2002:a9fe:a9fe::") << 443 << false << QStringLiteral("deny 169.254.169.254");
    QTest::newRow("decimal ipv4") << QStringList{QStringLiteral("169.254.169.254")} << none
                                  << QStringLiteral("2852039166") << 80 << false << QStringLiteral("not a host name");
    QTest::newRow("octal ipv4") << QStringList{QStringLiteral("169.254.169.254")} << none
                                << QStringLiteral("0251.0376.0251.0376") << 80 << false
                                << QStringLiteral("not a host name");
    QTest::newRow("hex ipv4") << QStringList{QStringLiteral("169.254.169.254")} << none
                              << QStringLiteral("0xa9.0xfe.0xa9.0xfe") << 80 << false
                              << QStringLiteral("not a host name");
    QTest::newRow("short ipv4") << QStringList{QStringLiteral("127.0.0.1")} << none << QStringLiteral("127.1") << 80
                                << false << QStringLiteral("not a host name");
    QTest::newRow("leading zero ipv4") << QStringList{QStringLiteral("10.0.0.1")} << none << QStringLiteral("010.0.0.1")
                                       << 80 << false << QStringLiteral("not a host name");
    QTest::newRow("numeric last label") << QStringList{QStringLiteral("*.x.test")} << none
                                        << QStringLiteral("a.x.test.123") << 443 << false
                                        << QStringLiteral("not a host name");
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

void TestEgressPolicy::embeddedIPv4IsJudged_data() {
    QTest::addColumn<QString>("address");
    QTest::addColumn<bool>("restricted");
    QTest::addColumn<QString>("what");
    QTest::newRow("compatible loopback") << QStringLiteral("::127.0.0.1") << true << QStringLiteral("loopback address");
    QTest::newRow("compatible metadata") << QStringLiteral("::169.254.169.254") << true
                                         << QStringLiteral("cloud metadata address");
    QTest::newRow("mapped metadata") << QStringLiteral("::ffff:169.254.169.254") << true
                                     << QStringLiteral("cloud metadata address");
    QTest::newRow("6to4 metadata") << QStringLiteral("2002:a9fe:a9fe::1") << true
                                   << QStringLiteral("cloud metadata address");
    QTest::newRow("6to4 loopback") << QStringLiteral("2002:7f00:1::") << true << QStringLiteral("loopback address");
    QTest::newRow("6to4 private") << QStringLiteral("2002:a00:1::1") << true << QStringLiteral("private address");
    QTest::newRow("nat64 metadata") << QStringLiteral("64:ff9b::a9fe:a9fe") << true
                                    << QStringLiteral("cloud metadata address");
    QTest::newRow("nat64 loopback") << QStringLiteral("64:ff9b::127.0.0.1") << true
                                    << QStringLiteral("loopback address");
    QTest::newRow("local nat64 metadata")
        << QStringLiteral("64:ff9b:1::a9fe:a9fe") << true << QStringLiteral("cloud metadata address");
    QTest::newRow("local nat64 subnet metadata")
        << QStringLiteral("64:ff9b:1:abcd::a9fe:a9fe") << true << QStringLiteral("cloud metadata address");
    QTest::newRow("nat64 public") << QStringLiteral("64:ff9b::5db8:d822") << false << QString();
    QTest::newRow("6to4 public") << QStringLiteral("2002:5db8:d822::1") << false << QString();
    QTest::newRow("compatible public") << QStringLiteral("::93.184.216.34") << false << QString();
    QTest::newRow("v6 loopback") << QStringLiteral("::1") << true << QStringLiteral("loopback address");
    QTest::newRow("v6 unspecified") << QStringLiteral("::") << true << QStringLiteral("unspecified address");
}

void TestEgressPolicy::embeddedIPv4IsJudged() {
    QFETCH(QString, address);
    QFETCH(bool, restricted);
    QFETCH(QString, what);
    QString said;
    QCOMPARE(EgressPolicy::isRestricted(QHostAddress(address), &said), restricted);
    QCOMPARE(said, what);
}

void TestEgressPolicy::blocksNeverOpenLoopbackLinkLocalMetadata_data() {
    QTest::addColumn<QStringList>("allow");
    QTest::addColumn<QString>("address");
    QTest::addColumn<bool>("permitted");
    const auto rules = [](const char* rule) { return QStringList{QString::fromLatin1(rule)}; };
    QTest::newRow("link-local block, metadata")
        << rules("169.254.0.0/16") << QStringLiteral("169.254.169.254") << false;
    QTest::newRow("link-local block, link-local") << rules("169.254.0.0/16") << QStringLiteral("169.254.1.1") << false;
    QTest::newRow("metadata /32") << rules("169.254.169.254/32") << QStringLiteral("169.254.169.254") << true;
    QTest::newRow("metadata address rule") << rules("169.254.169.254") << QStringLiteral("169.254.169.254") << true;
    QTest::newRow("loopback block") << rules("127.0.0.0/8") << QStringLiteral("127.0.0.1") << false;
    QTest::newRow("loopback /32") << rules("127.0.0.1/32") << QStringLiteral("127.0.0.1") << true;
    QTest::newRow("everything v4, loopback") << rules("0.0.0.0/0") << QStringLiteral("127.0.0.1") << false;
    QTest::newRow("everything v4, private") << rules("0.0.0.0/0") << QStringLiteral("10.1.2.3") << true;
    QTest::newRow("everything v6, loopback") << rules("::/0") << QStringLiteral("::1") << false;
    QTest::newRow("everything v6, mapped metadata")
        << rules("::/0") << QStringLiteral("::ffff:169.254.169.254") << false;
    QTest::newRow("6to4 block, embedded metadata") << rules("2002::/16") << QStringLiteral("2002:a9fe:a9fe::") << false;
    QTest::newRow("6to4 block, embedded private") << rules("2002::/16") << QStringLiteral("2002:a00:1::") << true;
    QTest::newRow("nat64 block, embedded loopback")
        << rules("64:ff9b::/96") << QStringLiteral("64:ff9b::7f00:1") << false;
    QTest::newRow("v6 link-local block") << rules("fe80::/10") << QStringLiteral("fe80::1") << false;
    QTest::newRow("v6 link-local /128") << rules("fe80::1/128") << QStringLiteral("fe80::1") << true;
    QTest::newRow("ula block") << rules("fd00::/8") << QStringLiteral("fd12::1") << true;
    QTest::newRow("host's own address, block") << rules("203.0.113.0/24") << QStringLiteral("203.0.113.7") << false;
    QTest::newRow("host's own address, exact") << rules("203.0.113.7") << QStringLiteral("203.0.113.7") << true;
    QTest::newRow("host's own address, no rule") << QStringList() << QStringLiteral("203.0.113.7") << false;
    QTest::newRow("host's own v6 address, block")
        << rules("2001:db8:1::/48") << QStringLiteral("2001:db8:1::5") << false;
    QTest::newRow("host's neighbour, block") << rules("203.0.113.0/24") << QStringLiteral("203.0.113.8") << true;
}

void TestEgressPolicy::blocksNeverOpenLoopbackLinkLocalMetadata() {
    QFETCH(QStringList, allow);
    QFETCH(QString, address);
    QFETCH(bool, permitted);
    QStringList errors;
    const EgressPolicy policy =
        EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"), allow, {}, {}, &errors);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char(';'))));
    // The host's own interface addresses, as QNetworkInterface::allAddresses() would list them.
    const QList<QHostAddress> own{QHostAddress(QStringLiteral("203.0.113.7")),
                                  QHostAddress(QStringLiteral("2001:db8:1::5")), QHostAddress::LocalHost};
    QString why;
    const QList<QHostAddress> out =
        policy.permittedAddresses(QStringLiteral("x.test"), 443, {QHostAddress(address)}, own, &why);
    QVERIFY2(out.isEmpty() != permitted, qPrintable(why));
    if (!permitted && address == QLatin1String("203.0.113.7")) {
        QCOMPARE(why, QStringLiteral("the host's own address 203.0.113.7"));
    }
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
    QTest::newRow("https absolute") << QByteArray("GET https://a.test/ HTTP/1.1\r\n\r\n") << int(Status::HttpsForm)
                                    << QStringLiteral("a.test") << 443;
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
    // Odd spellings of an address are not host names: refused as malformed, never looked up or connected to.
    QTest::newRow("decimal ipv4 url") << QByteArray("GET http://2852039166/ HTTP/1.1\r\n\r\n") << int(Status::Error)
                                      << QStringLiteral("") << 0;
    QTest::newRow("octal ipv4 url") << QByteArray("GET http://0251.0376.0251.0376/ HTTP/1.1\r\n\r\n")
                                    << int(Status::Error) << QStringLiteral("") << 0;
    QTest::newRow("hex ipv4 url") << QByteArray("GET http://0xa9.0xfe.0xa9.0xfe/ HTTP/1.1\r\n\r\n")
                                  << int(Status::Error) << QStringLiteral("") << 0;
    QTest::newRow("hex ipv4 connect") << QByteArray("CONNECT 0xa9fea9fe:443 HTTP/1.1\r\n\r\n") << int(Status::Error)
                                      << QStringLiteral("") << 0;
    QTest::newRow("short ipv4 connect") << QByteArray("CONNECT 127.1:443 HTTP/1.1\r\n\r\n") << int(Status::Error)
                                        << QStringLiteral("") << 0;
    // ... and the forms that are addresses are judged as the address they are.
    QTest::newRow("mapped metadata url") << QByteArray("GET http://[::ffff:169.254.169.254]/ HTTP/1.1\r\n\r\n")
                                         << int(Status::Forward) << QStringLiteral("169.254.169.254") << 80;
    QTest::newRow("user info to loopback") << QByteArray("GET http://github.com@127.0.0.1/ HTTP/1.1\r\n\r\n")
                                           << int(Status::Error) << QStringLiteral("") << 0;
    // busybox wget sends https:// requests to the proxy: judged by their host (a denied one gets the denial, not
    // a 400 that hides it), never carried.
    QTest::newRow("https form") << QByteArray("GET https://example.com/x HTTP/1.1\r\nHost: example.com\r\n\r\n")
                                << int(Status::HttpsForm) << QStringLiteral("example.com") << 443;
    QTest::newRow("https form with a port") << QByteArray("GET https://a.test:8443 HTTP/1.1\r\n\r\n")
                                            << int(Status::HttpsForm) << QStringLiteral("a.test") << 8443;
    QTest::newRow("https form with user info")
        << QByteArray("GET https://a@127.0.0.1/ HTTP/1.1\r\n\r\n") << int(Status::Error) << QStringLiteral("") << 0;
}

void TestEgressPolicy::parsesHttpRequests() {
    QFETCH(QByteArray, bytes);
    QFETCH(int, status);
    QFETCH(QString, host);
    QFETCH(int, port);
    const proxyrequest::Request r = proxyrequest::parseHttp(bytes);
    QCOMPARE(int(r.status), status);
    if (r.status == proxyrequest::Status::Connect || r.status == proxyrequest::Status::Forward
        || r.status == proxyrequest::Status::HttpsForm) {
        QCOMPARE(r.host, host);
        QCOMPARE(r.port, port);
    }
    if (r.status == proxyrequest::Status::Error || r.status == proxyrequest::Status::HttpsForm) {
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

void TestEgressPolicy::forwardedBodyIsBounded_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qint64>("body");
    QTest::newRow("no body") << QByteArray("GET http://a.test/ HTTP/1.1\r\n\r\n") << true << qint64(0);
    // A second request after the first is not the first's body: it is never forwarded (one request per
    // connection, so a keep-alive cannot smuggle another Host to the same server).
    QTest::newRow("pipelined second request")
        << QByteArray("GET http://a.test/ HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n") << true
        << qint64(0);
    // A bare LF before CR LF is an empty line to a lenient server: the head ends there, not at the next CR LF CR LF.
    QTest::newRow("lf cr lf ends the head")
        << QByteArray("GET http://a.test/ HTTP/1.1\r\nX: y\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n") << true
        << qint64(0);
    QTest::newRow("length") << QByteArray("POST http://a.test/ HTTP/1.1\r\nContent-Length: 12\r\n\r\n") << true
                            << qint64(12);
    QTest::newRow("same length twice") << QByteArray(
        "POST http://a.test/ HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\n")
                                       << true << qint64(2);
    QTest::newRow("two lengths") << QByteArray(
        "POST http://a.test/ HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\n")
                                 << false << qint64(0);
    QTest::newRow("signed length") << QByteArray("POST http://a.test/ HTTP/1.1\r\nContent-Length: +2\r\n\r\n") << false
                                   << qint64(0);
    QTest::newRow("list length") << QByteArray("POST http://a.test/ HTTP/1.1\r\nContent-Length: 2, 2\r\n\r\n") << false
                                 << qint64(0);
    QTest::newRow("chunked") << QByteArray("POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
                             << false << qint64(0);
    QTest::newRow("chunked and length") << QByteArray(
        "POST http://a.test/ HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n")
                                        << false << qint64(0);
    QTest::newRow("upgrade") << QByteArray("GET http://a.test/ HTTP/1.1\r\nUpgrade: websocket\r\n\r\n") << true
                             << qint64(0);
}

void TestEgressPolicy::forwardedBodyIsBounded() {
    QFETCH(QByteArray, bytes);
    QFETCH(bool, ok);
    QFETCH(qint64, body);
    const proxyrequest::Request r = proxyrequest::parseHttp(bytes);
    QCOMPARE(r.status == proxyrequest::Status::Forward, ok);
    if (ok) {
        QCOMPARE(r.bodyBytes, body);
        QVERIFY(!r.forward.toLower().contains("upgrade"));
        QVERIFY(!r.forward.contains("other.test"));
        QCOMPARE(r.forward.count("\r\n\r\n"), 1);
    } else {
        QCOMPARE(int(r.status), int(proxyrequest::Status::Error));
        QVERIFY(r.reply.startsWith("HTTP/1.1 4"));
    }
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
    QTest::newRow("decimal ipv4 as a name") << QByteArray(
        "\x05\x01\x00\x03\x0a"
        "2852039166\x01\xbb",
        17) << true << int(Status::Error) << QStringLiteral("")
                                            << 0 << proxyrequest::socksReply(4);
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
    // A tunnel to port 80 cannot be allowed: the body says what works instead.
    const QByteArray port80 = proxyrequest::httpDenied(QStringLiteral("a.test"), 80,
                                                       QStringLiteral("a tunnel to port 80 (plain HTTP goes through "
                                                                      "the proxy as http:// requests)"));
    QVERIFY(port80.contains("send it as an http://a.test/ request"));
    QVERIFY(!port80.contains("--allow-host"));
}

void TestEgressPolicy::parsesClientHello_data() {
    using State = clienthello::Hello::State;
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("state");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("encrypted");
    const QByteArray h = handshake({serverName("a.test")});
    QTest::newRow("openssl s_client") << kOpensslHello << int(State::Complete) << QStringLiteral("allowed.test")
                                      << false;
    QTest::newRow("curl") << kCurlHello << int(State::Complete) << QStringLiteral("other.test") << false;
    QTest::newRow("built") << hello("a.test") << int(State::Complete) << QStringLiteral("a.test") << false;
    QTest::newRow("upper case name") << hello("A.Test") << int(State::Complete) << QStringLiteral("a.test") << false;
    QTest::newRow("after it, early data") << hello("a.test") + QByteArray("\x17\x03\x03\x00\x01x", 6)
                                          << int(State::Complete) << QStringLiteral("a.test") << false;
    QTest::newRow("one record per byte") << records(h, 1) << int(State::Complete) << QStringLiteral("a.test") << false;
    QTest::newRow("three records") << records(h, 20) << int(State::Complete) << QStringLiteral("a.test") << false;
    QTest::newRow("no extensions") << records(handshake({}, false)) << int(State::Complete) << QString() << false;
    QTest::newRow("no server name") << records(handshake({extension(10, u16(2) + u16(29))})) << int(State::Complete)
                                    << QString() << false;
    QTest::newRow("ech") << hello("public.test", {extension(0xfe0d, QByteArray(40, 'e'))}) << int(State::Complete)
                         << QStringLiteral("public.test") << true;
    QTest::newRow("esni draft") << hello("a.test", {extension(0xffce, QByteArray(8, 'e'))}) << int(State::Complete)
                                << QStringLiteral("a.test") << true;
    QTest::newRow("empty") << QByteArray() << int(State::NeedMore) << QString() << false;
    QTest::newRow("record head only") << QByteArray("\x16\x03\x01", 3) << int(State::NeedMore) << QString() << false;
    QTest::newRow("half") << hello("a.test").left(40) << int(State::NeedMore) << QString() << false;
    QTest::newRow("plain http") << QByteArray("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n") << int(State::NotTls)
                                << QString() << false;
    QTest::newRow("sslv2 hello") << QByteArray("\x80\x2e\x01\x00\x02", 5) << int(State::NotTls) << QString() << false;
    QTest::newRow("alert record") << QByteArray("\x15\x03\x01\x00\x02\x02\x28", 7) << int(State::NotTls) << QString()
                                  << false;
    QTest::newRow("not version 3") << QByteArray("\x16\x02\x00\x00\x04\x01\x00\x00\x00", 9) << int(State::Malformed)
                                   << QString() << false;
    QTest::newRow("empty record") << QByteArray("\x16\x03\x01\x00\x00", 5) + hello("a.test") << int(State::Malformed)
                                  << QString() << false;
    QTest::newRow("record too long") << QByteArray("\x16\x03\x01\x48\x01", 5) << int(State::Malformed) << QString()
                                     << false;
    QTest::newRow("server hello") << records(QByteArray(1, '\x02') + h.mid(1)) << int(State::Malformed) << QString()
                                  << false;
    QTest::newRow("alert between fragments")
        << records(h.left(10)) + QByteArray("\x15\x03\x01\x00\x02\x02\x28", 7) + records(h.mid(10))
        << int(State::Malformed) << QString() << false;
    QTest::newRow("second message in the record")
        << records(h + QByteArray("\x0b\x00\x00\x00", 4)) << int(State::Malformed) << QString() << false;
    QTest::newRow("handshake too long") << records(QByteArray("\x01\x01\x00\x00", 4)) << int(State::Malformed)
                                        << QString() << false;
    QTest::newRow("session id too long") << records(QByteArray("\x01\x00\x00\x44", 4) + u16(0x0303)
                                                    + QByteArray(32, 'r') + char(33) + QByteArray(33, 's'))
                                         << int(State::Malformed) << QString() << false;
    QTest::newRow("extension longer than block")
        << records(handshake({u16(0) + u16(200)})) << int(State::Malformed) << QString() << false;
    QTest::newRow("bytes after extensions")
        << records(handshake({serverName("a.test")}).append('x')) << int(State::Malformed) << QString() << false;
    QTest::newRow("two server names") << records(handshake(
        {extension(0, u16(18) + QByteArray(1, '\0') + u16(6) + "a.test" + QByteArray(1, '\0') + u16(6) + "b.test")}))
                                      << int(State::Malformed) << QString() << false;
    QTest::newRow("server name extension twice") << records(handshake({serverName("a.test"), serverName("b.test")}))
                                                 << int(State::Malformed) << QString() << false;
    QTest::newRow("any extension twice") << records(
        handshake({serverName("a.test"), extension(10, u16(0)), extension(10, u16(0))}))
                                         << int(State::Malformed) << QString() << false;
    QTest::newRow("name with a trailing dot") << hello("a.test.") << int(State::Malformed) << QString() << false;
    QTest::newRow("name with a nul") << hello(QByteArray("a.test\0.evil", 12)) << int(State::Malformed) << QString()
                                     << false;
    QTest::newRow("ip literal name") << hello("10.0.0.1") << int(State::Malformed) << QString() << false;
    QTest::newRow("empty name") << hello("") << int(State::Malformed) << QString() << false;
    QTest::newRow("other name type") << records(
        handshake({extension(0, u16(9) + QByteArray(1, '\x01') + u16(6) + "a.test")}))
                                     << int(State::Malformed) << QString() << false;
    QTest::newRow("list shorter than extension")
        << records(handshake({extension(0, u16(5) + QByteArray(1, '\0') + u16(6) + "a.test")})) << int(State::Malformed)
        << QString() << false;
    QTest::newRow("over the limit") << records(handshake({serverName("a.test"), extension(21, QByteArray(40000, 0))}))
                                    << int(State::Malformed) << QString() << false;
}

void TestEgressPolicy::parsesClientHello() {
    QFETCH(QByteArray, bytes);
    QFETCH(int, state);
    QFETCH(QString, name);
    QFETCH(bool, encrypted);
    const clienthello::Hello hello = clienthello::parse(bytes);
    QCOMPARE(int(hello.state), state);
    if (hello.state == clienthello::Hello::State::Complete) {
        QCOMPARE(hello.serverName, name);
        QCOMPARE(hello.hasServerName, !name.isEmpty());
        QCOMPARE(hello.encrypted, encrypted);
    }
    if (hello.state == clienthello::Hello::State::Malformed) {
        QVERIFY(!hello.error.isEmpty());
    }
}

// The hello arrives in pieces of any size: every prefix waits for more, never a verdict on a part.
void TestEgressPolicy::clientHelloAtEverySplit() {
    for (const QByteArray& whole : {kCurlHello, records(handshake({serverName("a.test")}), 7)}) {
        for (qsizetype cut = 0; cut < whole.size(); cut++) {
            QCOMPARE(int(clienthello::parse(whole.left(cut)).state), int(clienthello::Hello::State::NeedMore));
        }
        QCOMPARE(int(clienthello::parse(whole).state), int(clienthello::Hello::State::Complete));
    }
}

void TestEgressPolicy::judgesTunnelStart_data() {
    using Status = clienthello::Verdict::Status;
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("why");
    QTest::newRow("matching name") << kOpensslHello << QStringLiteral("allowed.test") << int(Status::Pass) << QString();
    QTest::newRow("another name") << kCurlHello << QStringLiteral("allowed.test") << int(Status::Refuse)
                                  << QStringLiteral("TLS server name does not match");
    QTest::newRow("name case") << hello("Allowed.TEST") << QStringLiteral("allowed.test") << int(Status::Pass)
                               << QString();
    QTest::newRow("suffix is not the name") << hello("evil-allowed.test") << QStringLiteral("allowed.test")
                                            << int(Status::Refuse) << QStringLiteral("TLS server name does not match");
    QTest::newRow("subdomain is not the name")
        << hello("a.allowed.test") << QStringLiteral("allowed.test") << int(Status::Refuse)
        << QStringLiteral("TLS server name does not match");
    QTest::newRow("trailing dot") << hello("allowed.test.") << QStringLiteral("allowed.test") << int(Status::Refuse)
                                  << QStringLiteral("a malformed TLS ClientHello");
    QTest::newRow("no server name") << records(handshake({extension(10, u16(2) + u16(29))}))
                                    << QStringLiteral("allowed.test") << int(Status::Refuse)
                                    << QStringLiteral("no TLS server name (SNI)");
    QTest::newRow("ech") << hello("allowed.test", {extension(0xfe0d, QByteArray(40, 'e'))})
                         << QStringLiteral("allowed.test") << int(Status::Refuse)
                         << QStringLiteral("an encrypted ClientHello (ECH)");
    QTest::newRow("plain http") << QByteArray("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n")
                                << QStringLiteral("allowed.test") << int(Status::Refuse)
                                << QStringLiteral("not a TLS ClientHello");
    QTest::newRow("partial") << kOpensslHello.left(100) << QStringLiteral("allowed.test") << int(Status::NeedMore)
                             << QString();
    QTest::newRow("ssh") << QByteArray("SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n\0\0\x01", 43)
                         << QStringLiteral("allowed.test") << int(Status::Pass) << QString();
    QTest::newRow("ssh partial") << QByteArray("SSH-2.0-Open") << QStringLiteral("allowed.test")
                                 << int(Status::NeedMore) << QString();
    QTest::newRow("ssh prefix") << QByteArray("SS") << QStringLiteral("allowed.test") << int(Status::NeedMore)
                                << QString();
    QTest::newRow("ssh line shaped like http")
        << QByteArray("SSH-2.0-x / HTTP/1.1\r\nHost: other.test\r\n\r\n") << QStringLiteral("allowed.test")
        << int(Status::Refuse) << QStringLiteral("not a TLS ClientHello");
    QTest::newRow("ssh 1") << QByteArray("SSH-1.5-x\r\n") << QStringLiteral("allowed.test") << int(Status::Refuse)
                           << QStringLiteral("not a TLS ClientHello");
    QTest::newRow("ssh line too long") << QByteArray("SSH-2.0-") + QByteArray(300, 'x')
                                       << QStringLiteral("allowed.test") << int(Status::Refuse)
                                       << QStringLiteral("not a TLS ClientHello");
    QTest::newRow("ssh control") << QByteArray("SSH-2.0-x\x01\r\n") << QStringLiteral("allowed.test")
                                 << int(Status::Refuse) << QStringLiteral("not a TLS ClientHello");
    QTest::newRow("too big") << records(handshake({serverName("allowed.test"), extension(21, QByteArray(40000, 0))}))
                             << QStringLiteral("allowed.test") << int(Status::Refuse)
                             << QStringLiteral("a malformed TLS ClientHello");
}

void TestEgressPolicy::judgesTunnelStart() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, host);
    QFETCH(int, status);
    QFETCH(QString, why);
    const clienthello::Verdict verdict = clienthello::judge(bytes, host);
    QCOMPARE(int(verdict.status), status);
    QCOMPARE(verdict.why, why);
}

QTEST_GUILESS_MAIN(TestEgressPolicy)
#include "tst_egresspolicy.moc"
