#include "sandbox/egress/egresspolicy.h"

#include "support/vocabulary.h"

#include <QNetworkInterface>
#include <QRegularExpression>

namespace zeus {

QString networkModeName(NetworkMode mode) {
    return wordOf(mode);
}

std::optional<NetworkMode> networkModeFromName(const QString& name) {
    return fromWord<NetworkMode>(name);
}

namespace {

// A DNS name as the rules and requests may use it: labels of letters, digits, '-' and '_' (service names), at
// most 253 characters. Anything else (spaces, '@', '/', control characters, percent signs) is not a host.
bool isHostName(const QString& host) {
    static const QRegularExpression label(QStringLiteral("^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$"));
    if (host.isEmpty() || host.size() > 253) {
        return false;
    }
    const QStringList labels = host.split(QLatin1Char('.'));
    for (const QString& part : labels) {
        if (!label.match(part).hasMatch()) {
            return false;
        }
    }
    // A last label that is a number (decimal, or 0x hex) makes the whole an IPv4 address to inet_aton and to
    // URL parsers (WHATWG's "ends in a number"), never a DNS name: no top-level domain is numeric.
    static const QRegularExpression number(QStringLiteral("^([0-9]+|0x[0-9a-f]*)$"));
    return !number.match(labels.last()).hasMatch();
}

// Whether a literal that parsed as IPv4 was written as four decimal numbers, without leading zeros.
bool isCanonicalIPv4(const QString& text, const QHostAddress& parsed) {
    return parsed.protocol() != QAbstractSocket::IPv4Protocol || parsed.toString() == text;
}

// Splits "host:port", "[v6]:port", "v6" and "host" into host and port (0 when none). False when the port is
// not a number in 1..65535.
bool splitHostPort(const QString& text, QString* host, int* port) {
    *port = 0;
    if (text.startsWith(QLatin1Char('['))) {
        const qsizetype close = text.indexOf(QLatin1Char(']'));
        if (close < 0) {
            return false;
        }
        *host = text.mid(1, close - 1);
        const QString rest = text.mid(close + 1);
        if (rest.isEmpty()) {
            return true;
        }
        if (!rest.startsWith(QLatin1Char(':'))) {
            return false;
        }
        bool ok = false;
        *port = rest.mid(1).toInt(&ok);
        return ok && *port > 0 && *port <= 65535 && rest.size() > 1 && rest.size() <= 6;
    }
    const int colons = int(text.count(QLatin1Char(':')));
    if (colons > 1) {  // a bare IPv6 literal
        *host = text;
        return true;
    }
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon < 0) {
        *host = text;
        return true;
    }
    *host = text.left(colon);
    const QString digits = text.mid(colon + 1);
    bool ok = false;
    *port = digits.toInt(&ok);
    return ok && !digits.isEmpty() && digits.size() <= 5 && digits.front().isDigit() && *port > 0 && *port <= 65535;
}

// An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
QHostAddress unmapped(const QHostAddress& address) {
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4);
    return isV4 ? QHostAddress(v4) : address;
}

}  // namespace

QString EgressPolicy::normalizeHost(const QString& host) {
    QString h = host.trimmed().toLower();
    if (h.startsWith(QLatin1Char('[')) && h.endsWith(QLatin1Char(']'))) {
        h = h.mid(1, h.size() - 2);
    }
    if (h.endsWith(QLatin1Char('.'))) {
        h.chop(1);
    }
    QHostAddress literal;
    if (literal.setAddress(h)) {
        if (literal.protocol() == QAbstractSocket::IPv6Protocol && !h.contains(QLatin1Char(':'))) {
            return {};  // no IPv6 without colons: Qt also reads odd forms we do not want here
        }
        return isCanonicalIPv4(h, literal) ? unmapped(literal).toString() : QString();
    }
    return isHostName(h) ? h : QString();
}

std::optional<HostRule> HostRule::parse(const QString& text, QString* error) {
    const auto refuse = [error](const QString& why) {
        if (error != nullptr) {
            *error = why;
        }
        return std::optional<HostRule>();
    };
    HostRule rule;
    rule.text = text.trimmed();
    if (rule.text.isEmpty()) {
        return refuse(QStringLiteral("an empty rule"));
    }
    QString body = rule.text.toLower();
    // A block: ADDR/LEN, optionally [v6]/LEN:port or v4/LEN:port.
    const qsizetype slash = body.indexOf(QLatin1Char('/'));
    if (slash >= 0) {
        QString tail = body.mid(slash + 1);
        QString head = body.left(slash);
        if (head.startsWith(QLatin1Char('['))) {
            head = head.mid(1);
            const qsizetype close = tail.indexOf(QLatin1Char(']'));
            if (close < 0) {
                return refuse(QStringLiteral("'%1' is not a rule: an unclosed '['").arg(rule.text));
            }
            const QString after = tail.mid(close + 1);
            tail = tail.left(close) + after;
        }
        const qsizetype colon = tail.indexOf(QLatin1Char(':'));
        QString lengthText = colon < 0 ? tail : tail.left(colon);
        if (colon >= 0) {
            bool ok = false;
            rule.port = tail.mid(colon + 1).toInt(&ok);
            if (!ok || rule.port <= 0 || rule.port > 65535) {
                return refuse(QStringLiteral("'%1' is not a rule: a bad port").arg(rule.text));
            }
        }
        bool ok = false;
        rule.prefixLength = lengthText.toInt(&ok);
        if (!rule.address.setAddress(head) || !ok || !isCanonicalIPv4(head, rule.address)) {
            return refuse(QStringLiteral("'%1' is not a rule: a block is ADDRESS/LENGTH").arg(rule.text));
        }
        rule.address = unmapped(rule.address);
        const int bits = rule.address.protocol() == QAbstractSocket::IPv4Protocol ? 32 : 128;
        if (rule.prefixLength < 0 || rule.prefixLength > bits) {
            return refuse(QStringLiteral("'%1' is not a rule: the length must be 0 to %2").arg(rule.text).arg(bits));
        }
        rule.kind = Kind::Block;
        return rule;
    }
    QString host;
    if (!splitHostPort(body, &host, &rule.port)) {
        return refuse(QStringLiteral("'%1' is not a rule: a bad port").arg(rule.text));
    }
    QHostAddress literal;
    if (literal.setAddress(host)) {
        if (!isCanonicalIPv4(host, literal)) {
            return refuse(
                QStringLiteral("'%1' is not a rule: write an IPv4 address as four decimal numbers").arg(rule.text));
        }
        rule.kind = Kind::Address;
        rule.address = unmapped(literal);
        return rule;
    }
    if (host.startsWith(QStringLiteral("*."))) {
        rule.kind = Kind::Subdomains;
        host = host.mid(2);
    } else if (host.contains(QLatin1Char('*'))) {
        return refuse(QStringLiteral("'%1' is not a rule: '*' only as '*.' at the start").arg(rule.text));
    }
    if (host.endsWith(QLatin1Char('.'))) {
        host.chop(1);
    }
    if (!isHostName(host)) {
        return refuse(QStringLiteral("'%1' is not a host name").arg(rule.text));
    }
    if (rule.kind == Kind::Subdomains && !host.contains(QLatin1Char('.'))) {
        return refuse(QStringLiteral("'%1' would allow a whole top-level domain").arg(rule.text));
    }
    rule.domain = host;
    return rule;
}

bool HostRule::matchesPort(int p) const {
    return port == 0 ? (p == 80 || p == 443) : p == port;
}

bool HostRule::matchesName(const QString& host) const {
    switch (kind) {
        case Kind::Domain:
            return host == domain;
        case Kind::Subdomains:
            return host.size() > domain.size() + 1 && host.endsWith(domain)
                   && host.at(host.size() - domain.size() - 1) == QLatin1Char('.');
        case Kind::Address:
        case Kind::Block:
            return false;
    }
    return false;
}

bool HostRule::matchesAddress(const QHostAddress& candidate) const {
    // The address as written and the IPv4 address it carries: either names it (a deny rule for 169.254.169.254
    // also stops 2002:a9fe:a9fe::; whether an allowed one may be connected to is permittedAddresses' question).
    for (const QHostAddress& a : {unmapped(candidate), EgressPolicy::judged(candidate)}) {
        if (kind == Kind::Address && a.isEqual(address, QHostAddress::StrictConversion)) {
            return true;
        }
        if (kind == Kind::Block && a.protocol() == address.protocol() && a.isInSubnet(address, prefixLength)) {
            return true;
        }
    }
    return false;
}

std::optional<ResolveOverride> ResolveOverride::parse(const QString& text, QString* error) {
    // HOST:PORT:ADDR, ADDR possibly an IPv6 literal in brackets or bare.
    const qsizetype first = text.indexOf(QLatin1Char(':'));
    const qsizetype second = first < 0 ? -1 : text.indexOf(QLatin1Char(':'), first + 1);
    ResolveOverride o;
    bool ok = false;
    if (second > 0) {
        o.host = EgressPolicy::normalizeHost(text.left(first));
        o.port = text.mid(first + 1, second - first - 1).toInt(&ok);
        QString addr = text.mid(second + 1);
        if (addr.startsWith(QLatin1Char('[')) && addr.endsWith(QLatin1Char(']'))) {
            addr = addr.mid(1, addr.size() - 2);
        }
        if (!o.host.isEmpty() && ok && o.port > 0 && o.port <= 65535 && o.address.setAddress(addr)) {
            o.address = unmapped(o.address);
            return o;
        }
    }
    if (error != nullptr) {
        *error = QStringLiteral("'%1' is not HOST:PORT:ADDRESS").arg(text);
    }
    return std::nullopt;
}

QStringList EgressPolicy::presetNames() {
    return wordsOf<EgressPreset>();
}

QStringList EgressPolicy::presetRules(const QString& preset) {
    const std::optional<EgressPreset> known = fromWord<EgressPreset>(preset);
    return known ? presetRules(*known) : QStringList();
}

QStringList EgressPolicy::presetRules(EgressPreset preset) {
    if (preset != EgressPreset::Dev) {
        return {};
    }
    // docs/network-policy.md says why each is here; keep the two in step.
    return {
        QStringLiteral("registry.npmjs.org"),                    // npm, pnpm, yarn (berry), corepack
        QStringLiteral("registry.yarnpkg.com"),                  // yarn classic
        QStringLiteral("nodejs.org"),                            // Node releases (nvm, corepack, node-gyp headers)
        QStringLiteral("pypi.org"),                              // pip, uv, poetry: the index
        QStringLiteral("files.pythonhosted.org"),                // pip, uv, poetry: the files
        QStringLiteral("crates.io"),                             // cargo: API and downloads redirect
        QStringLiteral("index.crates.io"),                       // cargo: sparse index
        QStringLiteral("static.crates.io"),                      // cargo: crate files
        QStringLiteral("proxy.golang.org"),                      // go modules
        QStringLiteral("sum.golang.org"),                        // go checksum database
        QStringLiteral("repo.maven.apache.org"),                 // Maven Central
        QStringLiteral("repo1.maven.org"),                       // Maven Central (older clients, Gradle)
        QStringLiteral("rubygems.org"),                          // gem, bundler
        QStringLiteral("index.rubygems.org"),                    // bundler's compact index
        QStringLiteral("deb.debian.org"),                        // apt on Debian images
        QStringLiteral("security.debian.org"),                   // apt on Debian images: security updates
        QStringLiteral("archive.ubuntu.com"),                    // apt on Ubuntu images
        QStringLiteral("security.ubuntu.com"),                   // apt on Ubuntu images: security updates
        QStringLiteral("ports.ubuntu.com"),                      // apt on Ubuntu images, arm64
        QStringLiteral("dl-cdn.alpinelinux.org"),                // apk on Alpine images
        QStringLiteral("github.com"),                            // git clone/fetch over https
        QStringLiteral("github.com:22"),                         // git over ssh (through `connect`)
        QStringLiteral("codeload.github.com"),                   // archive downloads (npm github: deps, go)
        QStringLiteral("objects.githubusercontent.com"),         // release assets, LFS
        QStringLiteral("raw.githubusercontent.com"),             // raw files (install scripts, nvm)
        QStringLiteral("release-assets.githubusercontent.com"),  // release assets (newer redirect target)
    };
}

EgressPolicy EgressPolicy::fromStrings(NetworkMode mode, const QString& preset, const QStringList& allow,
                                       const QStringList& deny, const QStringList& resolve, QStringList* errors) {
    EgressPolicy policy;
    policy.mode = mode;
    const std::optional<EgressPreset> known = fromWord<EgressPreset>(preset);
    policy.preset = known.value_or(EgressPreset::Locked);
    if (!known && errors != nullptr) {
        errors->append(QStringLiteral("'%1' is not a preset (%2): using %3")
                           .arg(preset, presetNames().join(QStringLiteral(", ")), wordOf(policy.preset)));
    }
    for (const QString& text : presetRules(policy.preset)) {
        if (auto rule = HostRule::parse(text)) {
            rule->text = QStringLiteral("preset %1: %2").arg(wordOf(policy.preset), text);
            policy.m_presetRules.append(*rule);
        }
    }
    const auto parseAll = [errors](const QStringList& texts, QList<HostRule>* into) {
        for (const QString& text : texts) {
            QString why;
            if (auto rule = HostRule::parse(text, &why)) {
                into->append(*rule);
            } else if (errors != nullptr) {
                errors->append(why);
            }
        }
    };
    parseAll(allow, &policy.allow);
    parseAll(deny, &policy.deny);
    for (const QString& text : resolve) {
        QString why;
        if (auto o = ResolveOverride::parse(text, &why)) {
            policy.overrides.append(*o);
        } else if (errors != nullptr) {
            errors->append(why);
        }
    }
    return policy;
}

EgressDecision EgressPolicy::decideHost(const QString& rawHost, int port) const {
    if (mode == NetworkMode::None) {
        return {false, QStringLiteral("network none")};
    }
    if (mode == NetworkMode::Open) {
        return {true, QStringLiteral("network open")};
    }
    const QString host = normalizeHost(rawHost);
    if (host.isEmpty() || port <= 0 || port > 65535) {
        return {false, QStringLiteral("not a host name")};
    }
    QHostAddress literal;
    const bool isLiteral = literal.setAddress(host);
    const auto names = [&](const HostRule& rule) {
        return rule.matchesPort(port) && (isLiteral ? rule.matchesAddress(literal) : rule.matchesName(host));
    };
    for (const HostRule& rule : deny) {
        if (names(rule)) {
            return {false, QStringLiteral("deny %1").arg(rule.text)};
        }
    }
    for (const QList<HostRule>* list : {&allow, &m_presetRules}) {
        for (const HostRule& rule : *list) {
            if (names(rule)) {
                return {true, rule.text};
            }
        }
    }
    return {false, QStringLiteral("no rule")};
}

std::optional<QHostAddress> EgressPolicy::overrideFor(const QString& rawHost, int port) const {
    const QString host = normalizeHost(rawHost);
    for (const ResolveOverride& o : overrides) {
        if (o.host == host && o.port == port) {
            return o.address;
        }
    }
    return std::nullopt;
}

QList<QHostAddress> EgressPolicy::permittedAddresses(const QString& host, int port,
                                                     const QList<QHostAddress>& addresses, QString* refusal) const {
    return permittedAddresses(host, port, addresses, QNetworkInterface::allAddresses(), refusal);
}

namespace {

bool sameAddress(const QHostAddress& a, const QHostAddress& b) {
    QHostAddress x = a;
    QHostAddress y = b;
    x.setScopeId({});
    y.setScopeId({});
    return unmapped(x).isEqual(unmapped(y), QHostAddress::StrictConversion);
}

}  // namespace

QList<QHostAddress> EgressPolicy::permittedAddresses(const QString& host, int port,
                                                     const QList<QHostAddress>& addresses,
                                                     const QList<QHostAddress>& hostAddresses, QString* refusal) const {
    QList<QHostAddress> out;
    const std::optional<QHostAddress> trusted = overrideFor(host, port);
    QString why = QStringLiteral("no address");
    for (const QHostAddress& raw : addresses) {
        const QHostAddress a = unmapped(raw);
        bool denied = false;
        for (const HostRule& rule : deny) {
            if (rule.isAddressRule() && rule.matchesPort(port) && rule.matchesAddress(a)) {
                why = QStringLiteral("deny %1").arg(rule.text);
                denied = true;
                break;
            }
        }
        if (denied) {
            continue;
        }
        if (mode == NetworkMode::Open) {
            out.append(a);
            continue;
        }
        QString what;
        bool restricted = isRestricted(a, &what);
        // Loopback, link-local and metadata addresses (and the host's own, which are loopback in effect) are
        // opened only by a rule that names exactly that address: a block written for a LAN must not open them.
        bool exactOnly = what == QLatin1String("loopback address") || what == QLatin1String("link-local address")
                         || what == QLatin1String("cloud metadata address");
        if (!exactOnly) {
            for (const QHostAddress& own : hostAddresses) {
                if (sameAddress(own, a) || sameAddress(own, judged(a))) {
                    restricted = true;
                    exactOnly = true;
                    what = QStringLiteral("the host's own address");
                    break;
                }
            }
        }
        if (restricted) {
            bool named = trusted && sameAddress(*trusted, a);
            for (const HostRule& rule : allow) {
                if (!rule.isAddressRule() || !rule.matchesPort(port) || !rule.matchesAddress(a)) {
                    continue;
                }
                const int bits = rule.address.protocol() == QAbstractSocket::IPv4Protocol ? 32 : 128;
                named = named || !exactOnly || rule.kind == HostRule::Kind::Address || rule.prefixLength == bits;
            }
            if (!named) {
                why = QStringLiteral("%1 %2").arg(what, a.toString());
                continue;
            }
        }
        out.append(a);
    }
    if (out.isEmpty() && refusal != nullptr) {
        *refusal = why;
    }
    return out;
}

QHostAddress EgressPolicy::judged(const QHostAddress& address) {
    const QHostAddress a = unmapped(address);
    if (a.protocol() != QAbstractSocket::IPv6Protocol) {
        return a;
    }
    const Q_IPV6ADDR b = a.toIPv6Address();
    const auto v4 = [&b](int at) {
        return QHostAddress(quint32(b[at]) << 24 | quint32(b[at + 1]) << 16 | quint32(b[at + 2]) << 8 | b[at + 3]);
    };
    const auto zero = [&b](int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    };
    if (zero(0, 12) && !(zero(12, 15) && b[15] <= 1)) {
        return v4(12);  // IPv4-compatible ::a.b.c.d (:: and ::1 are themselves)
    }
    if (b[0] == 0x20 && b[1] == 0x02) {
        return v4(2);  // 6to4: 2002:AABB:CCDD::/48
    }
    if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) {
        if (zero(4, 12)) {
            return v4(12);  // NAT64 well-known prefix 64:ff9b::/96
        }
        if (b[4] == 0x00 && b[5] == 0x01) {
            return v4(12);  // local-use NAT64 64:ff9b:1::/48, in its usual /96 form
        }
    }
    return a;
}

bool EgressPolicy::isRestricted(const QHostAddress& raw, QString* what) {
    const QHostAddress a = judged(raw);
    const auto say = [what](const char* kind) {
        if (what != nullptr) {
            *what = QString::fromLatin1(kind);
        }
        return true;
    };
    if (a.isNull()) {
        return say("no address");
    }
    const auto in = [&a](const char* block) { return a.isInSubnet(QHostAddress::parseSubnet(QLatin1String(block))); };
    if (in("169.254.169.254/32") || in("fd00:ec2::254/128") || in("100.100.100.200/32")) {
        return say("cloud metadata address");
    }
    if (a.isLoopback()) {
        return say("loopback address");
    }
    if (a.isLinkLocal() || in("fe80::/10")) {
        return say("link-local address");
    }
    if (a.isMulticast() || a.isBroadcast()) {
        return say("multicast address");
    }
    if (a.isEqual(QHostAddress::AnyIPv4) || a.isEqual(QHostAddress::AnyIPv6) || in("0.0.0.0/8")) {
        return say("unspecified address");
    }
    if (in("10.0.0.0/8") || in("172.16.0.0/12") || in("192.168.0.0/16") || in("fc00::/7") || a.isSiteLocal()
        || a.isUniqueLocalUnicast()) {
        return say("private address");
    }
    if (in("100.64.0.0/10") || in("198.18.0.0/15") || in("192.0.0.0/24") || in("240.0.0.0/4") || in("2001:db8::/32")) {
        return say("reserved address");
    }
    return false;
}

}  // namespace zeus
