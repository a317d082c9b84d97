#include "sandbox/egress/secretbinding.h"

#include "secrets/secretstore.h"

#include <QCoreApplication>

namespace zeus {

namespace {

struct Preset {
    const char* word;
    QStringList rules;
};

// docs/secrets.md ("Presets") says why each host is here; keep the two in step. Only hosts the service itself
// runs: a token must never reach a host where someone else's content answers (no *.github.io, no CDN-wide rule).
const QList<Preset>& presets() {
    static const QList<Preset> table = {
        {"github",
         {
             QStringLiteral("github.com"),               // git over https (http.extraHeader, Basic from a URL)
             QStringLiteral("api.github.com"),           // gh, the REST and GraphQL APIs
             QStringLiteral("uploads.github.com"),       // release asset uploads
             QStringLiteral("codeload.github.com"),      // archives of private repositories
             QStringLiteral("*.githubusercontent.com"),  // raw files, release assets and LFS objects
             QStringLiteral("*.pkg.github.com"),         // GitHub Packages (npm, Maven, NuGet, RubyGems)
             QStringLiteral("ghcr.io"),                  // the container registry (oras, crane, skopeo)
         }},
        {"npm",
         {
             QStringLiteral("registry.npmjs.org"),  // npm's registry: .npmrc //registry.npmjs.org/:_authToken
         }},
        {"pypi",
         {
             QStringLiteral("pypi.org"),                // the index (pip, uv, poetry with credentials)
             QStringLiteral("files.pythonhosted.org"),  // the files the index points to
             QStringLiteral("upload.pypi.org"),         // twine upload (__token__ as a Basic credential)
         }},
    };
    return table;
}

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::SecretBinding", text);
}

}  // namespace

QStringList SecretBinding::presetNames() {
    QStringList names;
    for (const Preset& preset : presets()) {
        names.append(QString::fromLatin1(preset.word));
    }
    return names;
}

QStringList SecretBinding::presetRules(const QString& preset) {
    for (const Preset& known : presets()) {
        if (preset == QLatin1String(known.word)) {
            return known.rules;
        }
    }
    return {};
}

std::optional<SecretBinding> SecretBinding::parse(const QString& text, QString* error) {
    const qsizetype equals = text.indexOf(QLatin1Char('='));
    if (equals < 0) {
        if (error != nullptr) {
            *error = tr("'%1' is not a binding: write NAME=HOST[,HOST…], e.g. GITHUB_TOKEN=@github").arg(text);
        }
        return std::nullopt;
    }
    const QStringList hosts = text.mid(equals + 1).split(QLatin1Char(','));
    return fromRules(text.left(equals).trimmed(), hosts, error);
}

std::optional<SecretBinding> SecretBinding::fromRules(const QString& name, const QStringList& rules, QString* error) {
    const auto refuse = [error](const QString& why) {
        if (error != nullptr) {
            *error = why;
        }
        return std::optional<SecretBinding>();
    };
    const QString nameProblem = SecretStore::nameProblem(name);
    if (!nameProblem.isEmpty()) {
        return refuse(nameProblem);
    }
    SecretBinding binding;
    binding.name = name;
    for (const QString& raw : rules) {
        const QString entry = raw.trimmed();
        if (entry.isEmpty()) {
            return refuse(tr("%1: an empty host in the list").arg(name));
        }
        QStringList expanded{entry};
        if (entry.startsWith(QLatin1Char('@'))) {
            expanded = presetRules(entry.mid(1));
            if (expanded.isEmpty()) {
                return refuse(tr("%1: '%2' is not a preset (known: %3)")
                                  .arg(name, entry, QStringLiteral("@") + presetNames().join(QStringLiteral(", @"))));
            }
        }
        for (const QString& ruleText : expanded) {
            QString why;
            std::optional<HostRule> rule = HostRule::parse(ruleText, &why);
            if (!rule) {
                return refuse(tr("%1: %2").arg(name, why));
            }
            binding.hosts.append(*rule);
        }
    }
    if (binding.hosts.isEmpty()) {
        return refuse(tr("%1: a binding names at least one host").arg(name));
    }
    if (binding.hosts.size() > kMaxHosts) {
        return refuse(tr("%1: at most %2 hosts per secret").arg(name).arg(kMaxHosts));
    }
    return binding;
}

bool SecretBinding::allows(const QString& rawHost, int port, bool tls) const {
    const QString host = EgressPolicy::normalizeHost(rawHost);
    if (host.isEmpty() || port <= 0 || port > 65535) {
        return false;
    }
    QHostAddress literal;
    const bool isLiteral = literal.setAddress(host);
    for (const HostRule& rule : hosts) {
        // Clear text only where the user named the port: a rule without one means the usual HTTPS port here.
        const bool portOk = tls ? rule.matchesPort(port) : (rule.port != 0 && rule.port == port);
        if (!portOk) {
            continue;
        }
        if (isLiteral ? rule.matchesAddress(literal) : rule.matchesName(host)) {
            return true;
        }
    }
    return false;
}

QStringList SecretBinding::ruleTexts() const {
    QStringList texts;
    for (const HostRule& rule : hosts) {
        texts.append(rule.text);
    }
    return texts;
}

}  // namespace zeus
