#pragma once

#include "sandbox/egress/egresspolicy.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// A secret bound to hosts (SPEC §9 "Host-bound secrets"): `--bind-secret NAME=HOST[,HOST…]` and Settings → Secrets
// "Use only with…". The hosts are egress rules exactly as SPEC §8 writes them (HostRule: `example.com`,
// `*.example.com`, an optional `:port`, IP literals, blocks), and a preset's word with an `@` (`@github`, `@npm`,
// `@pypi`) stands for its hosts (presetRules(), docs/secrets.md says why each is there).
//
// It lives beside the egress policy because it reuses its rule parser and matcher: the words a user writes for
// "allow this host" and "use this secret with this host" must mean the same hosts.
//
// A binding only says where a value may go. Whether a request may carry it there is allows(): over TLS a rule
// without a port covers 443 (and 80 is never TLS in practice), and over clear text only a rule that names the
// very port covers it, so the GitHub preset never sends a token to port 80 in clear text.
struct SecretBinding {
    QString name;
    QList<HostRule> hosts;  // in the order written, presets expanded

    // `NAME=HOST[,HOST…]`; nullopt and *error (for the user) when the name is not a secret's name, a host is
    // not a rule, a preset is unknown, or the list is empty. Spaces around entries are ignored.
    static std::optional<SecretBinding> parse(const QString& text, QString* error = nullptr);
    // The same from a name and the rules as Settings keeps them (presets may appear as `@word`).
    static std::optional<SecretBinding> fromRules(const QString& name, const QStringList& rules,
                                                  QString* error = nullptr);

    // Whether a request to `host` (normalised as EgressPolicy::normalizeHost) on `port` may carry the value.
    // `tls`: the leg to the server is TLS (the proxy's own, verified); otherwise it is clear text.
    bool allows(const QString& host, int port, bool tls) const;
    // The rules as written (presets expanded), for the policy log, diagnostics and Settings.
    QStringList ruleTexts() const;

    // The presets' words (without the `@`) and their hosts.
    static QStringList presetNames();
    static QStringList presetRules(const QString& preset);  // empty for an unknown word

    // At most this many hosts per binding: a longer list is a mistake, not a policy.
    static constexpr int kMaxHosts = 64;
};

}  // namespace zeus
