// Host-bound secrets (SPEC §9): `--bind-secret NAME=HOST[,HOST…]` read with the egress rules of SPEC §8 and the
// presets, where a binding lets a value go (TLS and clear text), and the session's placeholders: their form, their
// randomness, their stability within a session and how they are found in text.
#include "sandbox/egress/secretbinding.h"
#include "sandbox/egress/secretplaceholders.h"

#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace zeus;
using namespace Qt::StringLiterals;

class TestSecretBinding : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void refused_data();
    void refused();
    void allows_data();
    void allows();
    void presetsParse();
    void placeholderForm();
    void placeholderStablePerSessionAndName();
    void find();
    void findIgnoresLookalikes();
};

void TestSecretBinding::parse_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("rules");

    QTest::newRow("one host") << u"GITHUB_TOKEN=github.com"_s << u"GITHUB_TOKEN"_s << QStringList{u"github.com"_s};
    QTest::newRow("several, spaces") << u"T= a.example , *.b.example:8443 ,10.0.0.0/8"_s << u"T"_s
                                     << QStringList{u"a.example"_s, u"*.b.example:8443"_s, u"10.0.0.0/8"_s};
    QTest::newRow("ip literal") << u"_X1=[::1]:9000"_s << u"_X1"_s << QStringList{u"[::1]:9000"_s};
    QTest::newRow("preset npm") << u"NPM_TOKEN=@npm"_s << u"NPM_TOKEN"_s << QStringList{u"registry.npmjs.org"_s};
    QTest::newRow("preset and host") << u"PYPI_TOKEN=@pypi,test.pypi.org"_s << u"PYPI_TOKEN"_s
                                     << QStringList{u"pypi.org"_s, u"files.pythonhosted.org"_s, u"upload.pypi.org"_s,
                                                    u"test.pypi.org"_s};
}

void TestSecretBinding::parse() {
    QFETCH(QString, text);
    QFETCH(QString, name);
    QFETCH(QStringList, rules);
    QString error;
    const std::optional<SecretBinding> binding = SecretBinding::parse(text, &error);
    QVERIFY2(binding.has_value(), qPrintable(error));
    QCOMPARE(binding->name, name);
    QCOMPARE(binding->ruleTexts(), rules);
}

void TestSecretBinding::refused_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("says");

    QTest::newRow("no equals") << u"GITHUB_TOKEN"_s << u"NAME=HOST"_s;
    QTest::newRow("lower-case name") << u"token=github.com"_s << u"environment variable name"_s;
    QTest::newRow("name starts with digit") << u"1TOKEN=github.com"_s << u"environment variable name"_s;
    QTest::newRow("reserved name") << u"PATH=github.com"_s << u"relies on"_s;
    QTest::newRow("empty list") << u"T="_s << u"empty host"_s;
    QTest::newRow("empty entry") << u"T=a.example,,b.example"_s << u"empty host"_s;
    QTest::newRow("bad host") << u"T=exa mple.com"_s << u"not a host name"_s;
    QTest::newRow("star in middle") << u"T=a.*.example"_s << u"'*' only"_s;
    QTest::newRow("whole tld") << u"T=*.com"_s << u"top-level domain"_s;
    QTest::newRow("bad port") << u"T=example.com:99999"_s << u"bad port"_s;
    QTest::newRow("url") << u"T=https://example.com/"_s << u"T:"_s;
    QTest::newRow("unknown preset") << u"T=@gitlab"_s << u"not a preset"_s;
}

void TestSecretBinding::refused() {
    QFETCH(QString, text);
    QFETCH(QString, says);
    QString error;
    QVERIFY(!SecretBinding::parse(text, &error).has_value());
    QVERIFY2(error.contains(says), qPrintable(error));
}

void TestSecretBinding::allows_data() {
    QTest::addColumn<QString>("binding");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("tls");
    QTest::addColumn<bool>("allowed");

    QTest::newRow("exact, 443") << u"T=api.example"_s << u"api.example"_s << 443 << true << true;
    QTest::newRow("case and dot") << u"T=api.example"_s << u"API.Example."_s << 443 << true << true;
    QTest::newRow("other host") << u"T=api.example"_s << u"evil.example"_s << 443 << true << false;
    QTest::newRow("suffix is not a subdomain") << u"T=example.com"_s << u"notexample.com"_s << 443 << true << false;
    QTest::newRow("other port") << u"T=api.example"_s << u"api.example"_s << 8443 << true << false;
    QTest::newRow("named port") << u"T=api.example:8443"_s << u"api.example"_s << 8443 << true << true;
    QTest::newRow("clear text, no port named") << u"T=api.example"_s << u"api.example"_s << 80 << false << false;
    QTest::newRow("clear text, port named") << u"T=api.example:8080"_s << u"api.example"_s << 8080 << false << true;
    QTest::newRow("subdomains") << u"T=*.example.org"_s << u"a.b.example.org"_s << 443 << true << true;
    QTest::newRow("subdomains not apex") << u"T=*.example.org"_s << u"example.org"_s << 443 << true << false;
    QTest::newRow("ip literal") << u"T=127.0.0.1:9000"_s << u"127.0.0.1"_s << 9000 << true << true;
    QTest::newRow("ip in block") << u"T=10.0.0.0/8:443"_s << u"10.1.2.3"_s << 443 << true << true;
    QTest::newRow("name is not an address rule") << u"T=10.0.0.1"_s << u"ten.example"_s << 443 << true << false;
    QTest::newRow("github preset, raw") << u"T=@github"_s << u"raw.githubusercontent.com"_s << 443 << true << true;
    QTest::newRow("github preset, pages") << u"T=@github"_s << u"someone.github.io"_s << 443 << true << false;
    QTest::newRow("github preset, port 80") << u"T=@github"_s << u"github.com"_s << 80 << false << false;
    QTest::newRow("not a host") << u"T=api.example"_s << u"api example"_s << 443 << true << false;
}

void TestSecretBinding::allows() {
    QFETCH(QString, binding);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(bool, tls);
    QFETCH(bool, allowed);
    const std::optional<SecretBinding> b = SecretBinding::parse(binding);
    QVERIFY(b.has_value());
    QCOMPARE(b->allows(host, port, tls), allowed);
}

void TestSecretBinding::presetsParse() {
    QCOMPARE(SecretBinding::presetNames(), (QStringList{u"github"_s, u"npm"_s, u"pypi"_s}));
    for (const QString& preset : SecretBinding::presetNames()) {
        QVERIFY(!SecretBinding::presetRules(preset).isEmpty());
        for (const QString& rule : SecretBinding::presetRules(preset)) {
            QString error;
            QVERIFY2(HostRule::parse(rule, &error).has_value(), qPrintable(error));
        }
    }
    QVERIFY(SecretBinding::presetRules(QStringLiteral("dev")).isEmpty());
}

void TestSecretBinding::placeholderForm() {
    static const QRegularExpression form(QStringLiteral("^zeus-secret-GITHUB_TOKEN-[0-9a-f]{32}$"));
    QSet<QByteArray> seen;
    for (int i = 0; i < 200; ++i) {
        const QByteArray p = SecretPlaceholders::makePlaceholder(QStringLiteral("GITHUB_TOKEN"));
        QVERIFY2(form.match(QString::fromLatin1(p)).hasMatch(), p.constData());
        seen.insert(p);
    }
    QCOMPARE(seen.size(), 200);
    const QByteArray longest = SecretPlaceholders::makePlaceholder(QString(128, QLatin1Char('A')));
    QCOMPARE(longest.size(), qsizetype(SecretPlaceholders::kMaxLength));
}

void TestSecretBinding::placeholderStablePerSessionAndName() {
    const SecretBinding binding = *SecretBinding::parse(QStringLiteral("GITHUB_TOKEN=@github"));
    SecretPlaceholders session;
    const QByteArray first = session.bind(binding, "value-one-123");
    QCOMPARE(session.bind(binding, "value-two-456"), first);  // a replaced value keeps the placeholder
    QVERIFY(session.entry(QStringLiteral("GITHUB_TOKEN"))->value == "value-two-456");
    QCOMPARE(session.placeholderFor(QStringLiteral("GITHUB_TOKEN")), first);

    SecretPlaceholders other;
    QVERIFY(other.bind(binding, "value-one-123") != first);  // another session, another placeholder

    session.remove(QStringLiteral("GITHUB_TOKEN"));
    QVERIFY(session.isEmpty());
    QVERIFY(session.placeholderFor(QStringLiteral("GITHUB_TOKEN")).isEmpty());
}

void TestSecretBinding::find() {
    SecretPlaceholders session;
    const QByteArray a = session.bind(*SecretBinding::parse(QStringLiteral("A_TOKEN=a.example")), "aaaaaaaa-value");
    const QByteArray b = session.bind(*SecretBinding::parse(QStringLiteral("B=b.example")), "bbbbbbbb-value");
    const QByteArray text = "x=" + a + "&y=" + b + b + "; " + a + "suffix";
    const QList<SecretPlaceholders::Match> matches = session.find(text);
    QCOMPARE(matches.size(), 4);
    QCOMPARE(matches.at(0).offset, qsizetype(2));
    QCOMPARE(matches.at(0).entry->binding.name, QStringLiteral("A_TOKEN"));
    QCOMPARE(matches.at(1).entry->binding.name, QStringLiteral("B"));
    QCOMPARE(matches.at(2).offset, matches.at(1).offset + b.size());
    QCOMPARE(matches.at(3).length, a.size());
    for (const SecretPlaceholders::Match& m : matches) {
        QCOMPARE(text.mid(m.offset, m.length), m.entry->placeholder);
    }
}

void TestSecretBinding::findIgnoresLookalikes() {
    SecretPlaceholders session;
    const QByteArray a = session.bind(*SecretBinding::parse(QStringLiteral("A_TOKEN=a.example")), "aaaaaaaa-value");
    QByteArray wrongRandom = a;
    wrongRandom[wrongRandom.size() - 1] = wrongRandom.back() == '0' ? '1' : '0';
    const QByteArray otherName = SecretPlaceholders::makePlaceholder(QStringLiteral("OTHER"));
    QVERIFY(session.find(wrongRandom).isEmpty());
    QVERIFY(session.find(otherName).isEmpty());
    QVERIFY(session.find(a.left(a.size() - 1)).isEmpty());  // cut short
    QVERIFY(session.find("zeus-secret-").isEmpty());
    QVERIFY(session.find("zeus-secret-A_TOKEN-").isEmpty());
    QCOMPARE(session.find(QByteArray("zeus-secret-zeus-secret-" + a)).size(), 1);
    QVERIFY(SecretPlaceholders().find(a).isEmpty());
}

QTEST_GUILESS_MAIN(TestSecretBinding)
#include "tst_secretbinding.moc"
