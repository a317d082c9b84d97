#pragma once

#include "sandbox/egress/upstreamproxy.h"

#include <QHash>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// The enums' own namespace holds their word tables (support/vocabulary.h); zeus uses them by their names.
namespace egresswords {
Q_NAMESPACE

// A session's network (SPEC §8); words: allowlist, none, open (settings, --network). Declared in the order
// people are offered them (the default first):
//   Allowlist - no network either (`--network none`), but the sandbox agent carries connections to the
//               app's egress proxy, which lets through only what the rules allow;
//   None      - no network at all;
//   Open      - the engine's own network, nothing filtered.
enum class NetworkMode { Allowlist, None, Open };
Q_ENUM_NS(NetworkMode)

// The hosts an allowlist lets through before the user's own rules (docs/network-policy.md); words: dev, locked
// (settings, --network-preset):
//   Dev    - package registries and GitHub (presetRules());
//   Locked - nothing: only the user's own rules.
enum class EgressPreset { Dev, Locked };
Q_ENUM_NS(EgressPreset)

}  // namespace egresswords

using egresswords::EgressPreset;
using egresswords::NetworkMode;

// The words, exactly as written (no case folding).
QString networkModeName(NetworkMode mode);
std::optional<NetworkMode> networkModeFromName(const QString& name);

// One allow or deny rule, parsed: `example.com`, `*.example.com` (subdomains only), either with an optional
// `:port` (without one: 80 and 443), an IP literal (`10.0.0.5`, `[::1]:8080`) or a CIDR block (`10.0.0.0/8`,
// with an optional port too).
struct HostRule {
    enum class Kind { Domain, Subdomains, Address, Block };
    Kind kind = Kind::Domain;
    QString domain;  // Domain / Subdomains: lower case, no trailing dot, without the `*.`
    QHostAddress address;
    int prefixLength = -1;  // Block
    int port = 0;           // 0: 80 and 443
    QString text;           // as the user wrote it, for the logs and the policy view

    // Parses one rule; nullopt (and *error says why) when it is not one.
    static std::optional<HostRule> parse(const QString& text, QString* error = nullptr);
    bool matchesPort(int port) const;
    // Whether a host name (lower case, no trailing dot) is named by this rule, port aside.
    bool matchesName(const QString& host) const;
    // Whether an address is named by this rule (IP literal or block), port aside.
    bool matchesAddress(const QHostAddress& candidate) const;
    bool isAddressRule() const { return kind == Kind::Address || kind == Kind::Block; }
};

// `--resolve HOST:PORT:ADDR`: a trusted answer for one name and port, like curl's.
struct ResolveOverride {
    QString host;
    int port = 0;
    QHostAddress address;
    static std::optional<ResolveOverride> parse(const QString& text, QString* error = nullptr);
};

// What the policy says about one request.
struct EgressDecision {
    bool allowed = false;
    // The rule that decided, as written ("github.com", "preset dev: registry.npmjs.org"), or why none did:
    // "no rule", "private address 10.0.0.5", "network none".
    QString rule;
};

// The whole egress policy of a session, as pure functions: which host and port may be reached, and which of the
// addresses a name resolved to may be connected to. Deny wins over allow. A name that resolves to a loopback,
// link-local, private, shared (CGNAT), multicast, unspecified or cloud-metadata address is refused unless an
// IP-literal or block rule, or a --resolve override, names that very address. Never looks anything up itself.
class EgressPolicy {
public:
    NetworkMode mode = NetworkMode::Allowlist;
    EgressPreset preset = EgressPreset::Dev;
    QList<HostRule> allow;  // the user's own, added to the preset
    QList<HostRule> deny;
    QList<ResolveOverride> overrides;
    // Where an allowed connection leaves the host (SPEC §8 "Upstream"); no part of the decision, which is made
    // before it is asked.
    UpstreamProxy upstream;

    // Builds a policy from the user's words; every rule that does not parse is named in *errors. A preset that
    // is not a preset's word is named there too, and Locked is used.
    static EgressPolicy fromStrings(NetworkMode mode, const QString& preset, const QStringList& allow,
                                    const QStringList& deny, const QStringList& resolve, QStringList* errors);
    static QStringList presetNames();  // the presets' words, wordsOf<EgressPreset>()
    // The hosts a preset allows (Locked: none), in the order docs/network-policy.md explains them.
    static QStringList presetRules(EgressPreset preset);
    // The same by the preset's word; an unknown word allows nothing.
    static QStringList presetRules(const QString& preset);

    // The first step, before any lookup: may this host (a name or an IP literal) and port be asked for at all?
    EgressDecision decideHost(const QString& host, int port) const;
    // The second step, after the lookup: which of these addresses may be connected to (in their order). An
    // address named by a deny rule, or restricted (see above) and not named by an address rule or an override,
    // is dropped; *refusal says why when none is left. A block rule opens private and reserved addresses, but
    // never a loopback, link-local or metadata address, nor one of the host's own interface addresses (they
    // count as loopback: a service bound to them is the host's), unless it is exactly that address (/32, /128).
    // This form asks QNetworkInterface for the host's addresses; the other takes them (for tests).
    QList<QHostAddress> permittedAddresses(const QString& host, int port, const QList<QHostAddress>& addresses,
                                           QString* refusal) const;
    QList<QHostAddress> permittedAddresses(const QString& host, int port, const QList<QHostAddress>& addresses,
                                           const QList<QHostAddress>& hostAddresses, QString* refusal) const;
    // The override's address for this host and port, if there is one: it is used instead of a lookup.
    std::optional<QHostAddress> overrideFor(const QString& host, int port) const;

    // Loopback, link-local, private, shared, multicast, unspecified, broadcast, metadata; an IPv6 address that
    // carries an IPv4 address is judged as that address (judged()). *what names the kind ("private address").
    static bool isRestricted(const QHostAddress& raw, QString* what = nullptr);
    // The IPv4 address an IPv6 address carries, which is where the network delivers it: IPv4-mapped
    // (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, but not :: and ::1), 6to4 (2002:AABB:CCDD::/48), NAT64
    // (64:ff9b::/96, and 64:ff9b:1::/48 read in its /96 form, the last 32 bits). Any other address: itself.
    static QHostAddress judged(const QHostAddress& address);
    // Lower case, no trailing dot, brackets off an IPv6 literal; empty when it is not a plausible host. An IPv4
    // literal must be four decimal numbers without leading zeros: 2852039166, 0251.0376.0251.0376, 0xa9.0xfe..,
    // 127.1 are read differently by different programs, so they are no host at all. A name whose last label is
    // a number is not a DNS name either.
    static QString normalizeHost(const QString& host);

private:
    QList<HostRule> m_presetRules;
};

}  // namespace zeus
