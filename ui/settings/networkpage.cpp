#include "settings/networkpage.h"

#include "appsettings.h"
#include "sandbox/egress/egresspolicy.h"
#include "settings/networksettings.h"
#include "support/vocabulary.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>

#include <algorithm>

namespace zeus {

namespace {

QPlainTextEdit* makeRules(QWidget* parent, const QString& name, const QString& placeholder) {
    auto* edit = new QPlainTextEdit(parent);
    edit->setObjectName(name);
    edit->setPlaceholderText(placeholder);
    edit->setTabChangesFocus(true);
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * 4 + 12);
    return edit;
}

}  // namespace

NetworkPage::NetworkPage(AppSettings* settings, QWidget* parent) : QWidget(parent), m_settings(settings) {
    setObjectName(QStringLiteral("NetworkPage"));
    auto* form = new QFormLayout(this);

    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("networkMode"));
    m_mode->addItem(tr("As the profile says (Standard: allowlist, Hardened: none)"), QString());
    // Then one item per word of the table (the item's data), shown by a translated label.
    const auto modeLabel = [](NetworkMode mode) {
        switch (mode) {
            case NetworkMode::Allowlist:
                return tr("Allowlist: only the hosts below, through the app's proxy");
            case NetworkMode::None:
                return tr("None: no network at all");
            case NetworkMode::Open:
                return tr("Open: the engine's whole network, unfiltered");
        }
        return QString();
    };
    for (const NetworkMode mode : valuesOf<NetworkMode>()) {
        m_mode->addItem(modeLabel(mode), wordOf(mode));
    }
    form->addRow(tr("&Network:"), m_mode);

    m_preset = new QComboBox(this);
    m_preset->setObjectName(QStringLiteral("networkPreset"));
    for (const EgressPreset preset : valuesOf<EgressPreset>()) {
        m_preset->addItem(preset == EgressPreset::Dev ? tr("Developer (package registries, GitHub)")
                                                      : tr("Locked (only your own rules)"),
                          wordOf(preset));
    }
    form->addRow(tr("&Preset:"), m_preset);
    m_presetHosts = new QLabel(this);
    m_presetHosts->setObjectName(QStringLiteral("presetHosts"));
    m_presetHosts->setWordWrap(true);
    m_presetHosts->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // extra height goes to the lists
    m_presetHosts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette hint = m_presetHosts->palette();
    hint.setColor(QPalette::WindowText, hint.color(QPalette::PlaceholderText));
    m_presetHosts->setPalette(hint);
    form->addRow(QString(), m_presetHosts);

    m_allow = makeRules(this, QStringLiteral("allowHosts"), tr("example.com\n*.example.com\nhost.example:8443"));
    form->addRow(tr("&Allow:"), m_allow);
    m_deny = makeRules(this, QStringLiteral("denyHosts"), tr("Deny wins over any allow rule"));
    form->addRow(tr("&Deny:"), m_deny);
    m_resolve = makeRules(this, QStringLiteral("resolveOverrides"), tr("HOST:PORT:ADDRESS (like curl --resolve)"));
    form->addRow(tr("&Resolve:"), m_resolve);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("networkProblem"));
    m_problem->setWordWrap(true);
    m_problem->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // extra height goes to the lists
    QPalette red = m_problem->palette();
    red.setColor(QPalette::WindowText, QColor(0xb4, 0x23, 0x18));
    m_problem->setPalette(red);
    m_problem->setVisible(false);
    form->addRow(QString(), m_problem);

    addUpstreamRows(form, hint);
    m_hostCertificates =
        new QCheckBox(tr("Trust this computer's root certificates in the sandbox (needed where the network inspects "
                         "HTTPS)"),
                      this);
    m_hostCertificates->setObjectName(QStringLiteral("hostCertificates"));
    form->addRow(tr("Certificates:"), m_hostCertificates);

    m_checkHost = new QLineEdit(this);
    m_checkHost->setObjectName(QStringLiteral("checkHost"));
    m_checkHost->setPlaceholderText(tr("host or host:port"));
    m_checkHost->setClearButtonEnabled(true);
    form->addRow(tr("C&heck a host:"), m_checkHost);
    m_checkResult = new QLabel(this);
    m_checkResult->setObjectName(QStringLiteral("checkResult"));
    m_checkResult->setWordWrap(true);
    m_checkResult->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // extra height goes to the lists
    form->addRow(QString(), m_checkResult);

    auto* note = new QLabel(tr("A host name that resolves to a private, loopback or link-local address is refused "
                               "unless an address rule or a resolve entry names that address. Rule changes apply "
                               "to running sessions at once."),
                            this);
    note->setWordWrap(true);
    note->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // extra height goes to the lists
    note->setPalette(hint);
    form->addRow(QString(), note);

    connect(m_preset, &QComboBox::currentIndexChanged, this, [this] {
        updatePreset();
        updateCheck();
    });
    connect(m_mode, &QComboBox::currentIndexChanged, this, &NetworkPage::updateCheck);
    for (QPlainTextEdit* edit : {m_allow, m_deny, m_resolve}) {
        connect(edit, &QPlainTextEdit::textChanged, this, &NetworkPage::updateCheck);
    }
    connect(m_checkHost, &QLineEdit::textChanged, this, &NetworkPage::updateCheck);
    connect(m_upstream, &QLineEdit::textChanged, this, &NetworkPage::updateCheck);
    load();
}

void NetworkPage::load() {
    m_mode->setCurrentIndex(std::max(0, m_mode->findData(m_settings->networkMode())));
    m_preset->setCurrentIndex(std::max(0, m_preset->findData(m_settings->networkPreset())));
    m_upstream->setText(m_settings->network().upstreamProxy());
    m_upstreamUser->setText(m_settings->network().upstreamProxyUser());
    m_upstreamPassword->clear();
    m_upstreamPassword->setPlaceholderText(m_upstreamUser->text().isEmpty()
                                               ? tr("Kept in the system keychain")
                                               : tr("Kept in the system keychain; type to replace it"));
    m_allow->setPlainText(m_settings->allowedHosts().join(QLatin1Char('\n')));
    m_deny->setPlainText(m_settings->deniedHosts().join(QLatin1Char('\n')));
    m_resolve->setPlainText(m_settings->resolveOverrides().join(QLatin1Char('\n')));
    m_hostCertificates->setChecked(m_settings->network().hostCertificates());
    updatePreset();
    updateCheck();
}

QStringList NetworkPage::lines(const QPlainTextEdit* edit) {
    QStringList out;
    for (const QString& line : edit->toPlainText().split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty()) {
            out << line.trimmed();
        }
    }
    return out;
}

QStringList NetworkPage::problems() const {
    QStringList out;
    for (const QString& rule : lines(m_allow) + lines(m_deny)) {
        QString why;
        if (!HostRule::parse(rule, &why)) {
            out << why;
        }
    }
    for (const QString& entry : lines(m_resolve)) {
        QString why;
        if (!ResolveOverride::parse(entry, &why)) {
            out << why;
        }
    }
    const QString upstream = m_upstream->text().trimmed();
    if (!upstream.isEmpty()) {
        QString why;
        const auto endpoint = UpstreamProxy::parseUrl(upstream, &why);
        if (!endpoint) {
            out << tr("Upstream proxy: %1").arg(why);
        } else if (!endpoint->user.isEmpty()) {
            out << tr(
                "Upstream proxy: the user name and password go in the fields below, not in the URL (the URL is "
                "kept in the settings file in the clear)");
        }
    }
    return out;
}

void NetworkPage::updatePreset() {
    const QStringList hosts = EgressPolicy::presetRules(m_preset->currentData().toString());
    m_presetHosts->setText(hosts.isEmpty() ? tr("Nothing is allowed but your own rules.")
                                           : tr("Allows: %1").arg(hosts.join(QStringLiteral(", "))));
}

void NetworkPage::updateCheck() {
    const QStringList issues = problems();
    m_problem->setText(issues.join(QLatin1Char('\n')));
    m_problem->setVisible(!issues.isEmpty());
    const QString text = m_checkHost->text().trimmed();
    if (text.isEmpty()) {
        m_checkResult->setText(tr("Type a host to see which rule decides it."));
        return;
    }
    QString host = text;
    int port = 443;
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    if (colon > 0 && !text.endsWith(QLatin1Char(']')) && text.count(QLatin1Char(':')) == 1) {
        bool ok = false;
        port = text.mid(colon + 1).toInt(&ok);
        host = text.left(colon);
        if (!ok) {
            port = 0;
        }
    }
    NetworkMode mode = NetworkMode::Allowlist;
    if (const auto chosen = fromWord<NetworkMode>(m_mode->currentData().toString())) {
        mode = *chosen;
    }
    const EgressPolicy policy = EgressPolicy::fromStrings(mode, m_preset->currentData().toString(), lines(m_allow),
                                                          lines(m_deny), lines(m_resolve), nullptr);
    const EgressDecision decision = policy.decideHost(host, port);
    m_checkResult->setText(decision.allowed ? tr("✔ %1:%2 is allowed (%3).").arg(host).arg(port).arg(decision.rule)
                                            : tr("✘ %1:%2 is denied (%3).").arg(host).arg(port).arg(decision.rule));
}

bool NetworkPage::apply() {
    if (!problems().isEmpty()) {
        updateCheck();
        return false;
    }
    m_settings->setNetworkMode(m_mode->currentData().toString());
    m_settings->setNetworkPreset(m_preset->currentData().toString());
    m_settings->network().setUpstreamProxy(m_upstream->text());
    applyUpstreamCredentials();
    m_settings->setAllowedHosts(lines(m_allow));
    m_settings->setDeniedHosts(lines(m_deny));
    m_settings->setResolveOverrides(lines(m_resolve));
    m_settings->network().setHostCertificates(m_hostCertificates->isChecked());
    return true;
}

void NetworkPage::applyUpstreamCredentials() {
    NetworkSettings& network = m_settings->network();
    const QString user = m_upstreamUser->text().trimmed();
    const bool hadUser = !network.upstreamProxyUser().isEmpty();
    network.setUpstreamProxyUser(user);
    if (user.isEmpty()) {
        if (hadUser) {
            network.storeUpstreamProxyPassword(QString());  // no user: the keychain keeps no password for it
        }
    } else if (!m_upstreamPassword->text().isEmpty()) {
        m_upstreamStatus->setVisible(true);
        m_upstreamStatus->setText(tr("Waiting for the keychain…"));
        network.storeUpstreamProxyPassword(m_upstreamPassword->text());
    }
    m_upstreamPassword->clear();
}

void NetworkPage::addUpstreamRows(QFormLayout* form, const QPalette& hint) {
    m_upstream = new QLineEdit(this);
    m_upstream->setObjectName(QStringLiteral("upstreamProxy"));
    m_upstream->setPlaceholderText(tr("http://proxy.example:3128 (empty: HTTPS_PROXY, then the system's proxy)"));
    m_upstream->setClearButtonEnabled(true);
    m_upstream->setToolTip(
        tr("Allowed connections leave this computer through this HTTP proxy. Its user name and password go in the "
           "fields below, not in the URL."));
    form->addRow(tr("&Upstream proxy:"), m_upstream);
    m_upstreamUser = new QLineEdit(this);
    m_upstreamUser->setObjectName(QStringLiteral("upstreamProxyUser"));
    m_upstreamUser->setPlaceholderText(tr("Only if the proxy asks for one"));
    form->addRow(tr("Proxy user &name:"), m_upstreamUser);
    // Like Settings > Secrets, the password is never shown back: the field only ever replaces it.
    m_upstreamPassword = new QLineEdit(this);
    m_upstreamPassword->setObjectName(QStringLiteral("upstreamProxyPassword"));
    m_upstreamPassword->setEchoMode(QLineEdit::Password);
    form->addRow(tr("Proxy pass&word:"), m_upstreamPassword);
    m_upstreamStatus = new QLabel(this);
    m_upstreamStatus->setObjectName(QStringLiteral("upstreamProxyStatus"));
    m_upstreamStatus->setWordWrap(true);
    m_upstreamStatus->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // extra height goes to the lists
    m_upstreamStatus->setPalette(hint);
    m_upstreamStatus->setVisible(false);  // until there is something to say
    form->addRow(QString(), m_upstreamStatus);
    connect(&m_settings->network(), &NetworkSettings::upstreamProxyPasswordStored, this,
            [this](const QString& problem) {
                m_upstreamStatus->setVisible(true);
                m_upstreamStatus->setText(problem.isEmpty() ? tr("The proxy password is stored in the keychain.")
                                                            : tr("The proxy password was not stored: %1").arg(problem));
            });
}

}  // namespace zeus
