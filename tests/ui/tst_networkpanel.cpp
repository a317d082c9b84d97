// The network UI (SPEC §8): Settings > Network writes the mode, preset and rules, refuses a rule that does not
// parse, and its "check a host" box names the rule that decides; the dashboard's policy log counts repeats and
// offers Allow once / for this session / always for this folder on denied rows only.
#include "appsettings.h"
#include "dashboard/networkpanel.h"
#include "settings/networkpage.h"
#include "settings/networksettings.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace zeus;

class TestNetworkPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() {
        QVERIFY(m_dir.isValid());
        m_settings = std::make_unique<AppSettings>(m_dir.filePath(QStringLiteral("settings-%1.ini").arg(++m_count)));
    }

    void pageWritesTheSettings() {
        NetworkPage page(m_settings.get());
        QCOMPARE(page.findChild<QComboBox*>(QStringLiteral("networkPreset"))->currentData().toString(),
                 QStringLiteral("dev"));
        QVERIFY(page.findChild<QLabel*>(QStringLiteral("presetHosts"))->text().contains(QStringLiteral("pypi.org")));
        page.findChild<QComboBox*>(QStringLiteral("networkMode"))->setCurrentIndex(1);  // allowlist
        page.findChild<QPlainTextEdit*>(QStringLiteral("allowHosts"))
            ->setPlainText(QStringLiteral("intranet.test\n\n  *.corp.test:8443  "));
        page.findChild<QPlainTextEdit*>(QStringLiteral("denyHosts"))->setPlainText(QStringLiteral("github.com"));
        page.findChild<QPlainTextEdit*>(QStringLiteral("resolveOverrides"))
            ->setPlainText(QStringLiteral("intranet.test:443:10.0.0.5"));
        QSignalSpy changed(m_settings.get(), &AppSettings::networkPolicyChanged);
        QVERIFY(page.apply());
        QCOMPARE(m_settings->networkMode(), QStringLiteral("allowlist"));
        QCOMPARE(m_settings->allowedHosts(),
                 (QStringList{QStringLiteral("intranet.test"), QStringLiteral("*.corp.test:8443")}));
        QCOMPARE(m_settings->deniedHosts(), QStringList{QStringLiteral("github.com")});
        QCOMPARE(m_settings->resolveOverrides(), QStringList{QStringLiteral("intranet.test:443:10.0.0.5")});
        QVERIFY(changed.count() >= 1);
    }

    void pageWritesTheUpstreamProxy() {
        NetworkPage page(m_settings.get());
        auto* upstream = page.findChild<QLineEdit*>(QStringLiteral("upstreamProxy"));
        QVERIFY(upstream);
        auto* problem = page.findChild<QLabel*>(QStringLiteral("networkProblem"));
        // Credentials would sit in the settings file in the clear: refused, and nothing written.
        upstream->setText(QStringLiteral("http://alice:hunter2@proxy.corp:3128"));
        QVERIFY(!problem->isHidden());
        QVERIFY2(problem->text().contains(QStringLiteral("fields below")), qPrintable(problem->text()));
        QVERIFY(!page.apply());
        upstream->setText(QStringLiteral("socks5://proxy.corp:1080"));
        QVERIFY2(problem->text().contains(QStringLiteral("only http://")), qPrintable(problem->text()));
        QVERIFY(!page.apply());
        QVERIFY(m_settings->network().upstreamProxy().isEmpty());
        upstream->setText(QStringLiteral("http://proxy.corp:3128"));
        QVERIFY(problem->isHidden());
        QSignalSpy changed(m_settings.get(), &AppSettings::networkPolicyChanged);
        QVERIFY(page.apply());
        QCOMPARE(m_settings->network().upstreamProxy(), QStringLiteral("http://proxy.corp:3128"));
        QCOMPARE(changed.count(), 1);  // live sessions take it at once
        NetworkPage again(m_settings.get());
        QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("upstreamProxy"))->text(),
                 QStringLiteral("http://proxy.corp:3128"));
    }

    // The user name goes into the settings, the password to the keychain; the password is never shown back.
    void pageWritesTheProxyCredentials() {
        m_settings->network().setKeychainService(
            QStringLiteral("io.zeusdesktop.test.networkpanel.%1").arg(QCoreApplication::applicationPid()), 5000);
        NetworkPage page(m_settings.get());
        auto* user = page.findChild<QLineEdit*>(QStringLiteral("upstreamProxyUser"));
        auto* password = page.findChild<QLineEdit*>(QStringLiteral("upstreamProxyPassword"));
        auto* status = page.findChild<QLabel*>(QStringLiteral("upstreamProxyStatus"));
        QVERIFY(user && password && status);
        QCOMPARE(password->echoMode(), QLineEdit::Password);
        user->setText(QStringLiteral("alice"));
        password->setText(QStringLiteral("hunter2"));
        QSignalSpy stored(&m_settings->network(), &NetworkSettings::upstreamProxyPasswordStored);
        QVERIFY(page.apply());
        QCOMPARE(m_settings->network().upstreamProxyUser(), QStringLiteral("alice"));
        QVERIFY(password->text().isEmpty());
        QVERIFY(stored.wait(10000));
        // With a keychain it is stored; without one the page says why. Either way the value is not in the words.
        QVERIFY2(!status->text().isEmpty() && !status->text().contains(QStringLiteral("hunter2")),
                 qPrintable(status->text()));
        NetworkPage again(m_settings.get());
        QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("upstreamProxyUser"))->text(), QStringLiteral("alice"));
        QVERIFY(again.findChild<QLineEdit*>(QStringLiteral("upstreamProxyPassword"))->text().isEmpty());
        // No user name: the keychain entry goes too.
        again.findChild<QLineEdit*>(QStringLiteral("upstreamProxyUser"))->clear();
        QSignalSpy removed(&m_settings->network(), &NetworkSettings::upstreamProxyPasswordStored);
        QVERIFY(again.apply());
        QVERIFY(m_settings->network().upstreamProxyUser().isEmpty());
        QVERIFY(removed.wait(10000));
    }

    void pageRefusesBadRules() {
        NetworkPage page(m_settings.get());
        page.findChild<QPlainTextEdit*>(QStringLiteral("allowHosts"))->setPlainText(QStringLiteral("ok.test\n*.com"));
        auto* problem = page.findChild<QLabel*>(QStringLiteral("networkProblem"));
        QVERIFY(!problem->isHidden());
        QVERIFY2(problem->text().contains(QStringLiteral("whole top-level domain")), qPrintable(problem->text()));
        QVERIFY(!page.apply());
        QVERIFY(m_settings->allowedHosts().isEmpty());  // nothing written
    }

    void checkAHostNamesTheRule_data() {
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("says");
        QTest::newRow("preset") << QStringLiteral("github.com")
                                << QStringLiteral("is allowed (preset dev: github.com)");
        QTest::newRow("own rule") << QStringLiteral("a.corp.test") << QStringLiteral("is allowed (*.corp.test)");
        QTest::newRow("deny wins") << QStringLiteral("pypi.org") << QStringLiteral("is denied (deny pypi.org)");
        QTest::newRow("nothing") << QStringLiteral("example.com:8080") << QStringLiteral("is denied (no rule)");
    }

    void checkAHostNamesTheRule() {
        QFETCH(QString, host);
        QFETCH(QString, says);
        NetworkPage page(m_settings.get());
        page.findChild<QPlainTextEdit*>(QStringLiteral("allowHosts"))->setPlainText(QStringLiteral("*.corp.test"));
        page.findChild<QPlainTextEdit*>(QStringLiteral("denyHosts"))->setPlainText(QStringLiteral("pypi.org"));
        page.findChild<QLineEdit*>(QStringLiteral("checkHost"))->setText(host);
        const QString result = page.findChild<QLabel*>(QStringLiteral("checkResult"))->text();
        QVERIFY2(result.contains(says), qPrintable(result));
    }

    void policyLogCountsAndOffersAllow() {
        NetworkPanel panel;
        auto* table = panel.findChild<QTableWidget*>(QStringLiteral("policyLog"));
        auto* once = panel.findChild<QPushButton*>(QStringLiteral("allowOnce"));
        auto* session = panel.findChild<QPushButton*>(QStringLiteral("allowForSession"));
        auto* folder = panel.findChild<QPushButton*>(QStringLiteral("allowForFolder"));
        EgressEvent denied;
        denied.sessionId = QStringLiteral("s1");
        denied.host = QStringLiteral("evil.test");
        denied.port = 8080;
        denied.rule = QStringLiteral("no rule");
        denied.when = QDateTime::currentDateTimeUtc();
        panel.addEvent(denied);
        panel.addEvent(denied);
        EgressEvent allowed = denied;
        allowed.allowed = true;
        allowed.host = QStringLiteral("github.com");
        allowed.port = 443;
        allowed.rule = QStringLiteral("preset dev: github.com");
        panel.addEvent(allowed);
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, 6)->text(), QStringLiteral("2"));  // count
        QCOMPARE(table->item(0, 3)->text(), QStringLiteral("denied"));
        QVERIFY(!once->isEnabled());
        table->selectRow(1);  // allowed: nothing to allow
        QVERIFY(!once->isEnabled() && !session->isEnabled() && !folder->isEnabled());
        table->selectRow(0);
        QVERIFY(once->isEnabled() && session->isEnabled() && folder->isEnabled());
        QSignalSpy onceSpy(&panel, &NetworkPanel::allowOnceRequested);
        QSignalSpy sessionSpy(&panel, &NetworkPanel::allowForSessionRequested);
        QSignalSpy folderSpy(&panel, &NetworkPanel::allowForFolderRequested);
        once->click();
        session->click();
        folder->click();
        QCOMPARE(onceSpy.count(), 1);
        QCOMPARE(onceSpy.first().value(1).toString(), QStringLiteral("evil.test"));
        QCOMPARE(onceSpy.first().value(2).toInt(), 8080);
        QCOMPARE(sessionSpy.first().value(1).toString(), QStringLiteral("evil.test:8080"));
        QCOMPARE(folderSpy.first().value(0).toString(), QStringLiteral("s1"));
        QCOMPARE(NetworkPanel::ruleFor(QStringLiteral("a.test"), 443), QStringLiteral("a.test"));
        QCOMPARE(NetworkPanel::ruleFor(QStringLiteral("::1"), 8080), QStringLiteral("[::1]:8080"));
    }

    // SPEC §8 tls_untrusted: a connection allowed, then refused by its client for the certificate, is a row of its
    // own beside the allowed one, and no rule is offered (the fix is a CA on the host).
    void certificateRefusalHasItsOwnRow() {
        NetworkPanel panel;
        auto* table = panel.findChild<QTableWidget*>(QStringLiteral("policyLog"));
        EgressEvent allowed;
        allowed.sessionId = QStringLiteral("s1");
        allowed.host = QStringLiteral("inspected.test");
        allowed.port = 443;
        allowed.allowed = true;
        allowed.rule = QStringLiteral("inspected.test");
        allowed.detail = QStringLiteral("connected to 127.0.0.1");
        allowed.when = QDateTime::currentDateTimeUtc();
        panel.addEvent(allowed);
        EgressEvent untrusted = allowed;
        untrusted.tlsUntrusted = true;
        untrusted.detail = QStringLiteral("the client refused the server's certificate (TLS alert unknown_ca)");
        panel.addEvent(untrusted);
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, 3)->text(), QStringLiteral("allowed"));
        QCOMPARE(table->item(1, 3)->text(), QStringLiteral("certificate not trusted"));
        QVERIFY(table->item(1, 4)->text().contains(QStringLiteral("unknown_ca")));
        table->selectRow(1);
        QVERIFY(!panel.findChild<QPushButton*>(QStringLiteral("allowOnce"))->isEnabled());
    }

    // SPEC §9: the substitutions of host-bound secrets add up in the row of their host, by name and count, and
    // never count as connections or replace the rule that allowed the host.
    void substitutionsAddUpInTheirColumn() {
        NetworkPanel panel;
        auto* table = panel.findChild<QTableWidget*>(QStringLiteral("policyLog"));
        QCOMPARE(table->horizontalHeaderItem(5)->text(), QStringLiteral("Secrets sent"));
        EgressEvent allowed;
        allowed.sessionId = QStringLiteral("s1");
        allowed.host = QStringLiteral("api.github.com");
        allowed.port = 443;
        allowed.allowed = true;
        allowed.rule = QStringLiteral("api.github.com");
        allowed.when = QDateTime::currentDateTimeUtc();
        panel.addEvent(allowed);
        QCOMPARE(table->item(0, 5)->text(), QString());
        EgressEvent first = EgressEvent::substituted(allowed.host, 443, {{QStringLiteral("GH_TOKEN"), 2}});
        first.sessionId = allowed.sessionId;
        first.when = allowed.when;
        panel.addEvent(first);
        panel.addEvent(allowed);
        EgressEvent second = EgressEvent::substituted(
            allowed.host, 443, {{QStringLiteral("GH_TOKEN"), 1}, {QStringLiteral("NPM_TOKEN"), 3}});
        second.sessionId = allowed.sessionId;
        second.when = allowed.when;
        panel.addEvent(second);
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 5)->text(), QStringLiteral("GH_TOKEN ×3, NPM_TOKEN ×3"));
        QCOMPARE(table->item(0, 6)->text(), QStringLiteral("2"));  // two connections
        QCOMPARE(table->item(0, 4)->text(), QStringLiteral("api.github.com"));
    }

    void screenshot() {
        const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
        if (shots.isEmpty()) {
            QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
        }
        QVERIFY(
            m_settings->setAllowedHosts({QStringLiteral("intranet.example"), QStringLiteral("*.corp.example:8443")}));
        QVERIFY(m_settings->setDeniedHosts({QStringLiteral("raw.githubusercontent.com")}));
        QVERIFY(m_settings->network().setUpstreamProxy(QStringLiteral("http://proxy.corp.example:3128")));
        m_settings->network().setUpstreamProxyUser(QStringLiteral("alice"));
        NetworkPage page(m_settings.get());
        page.findChild<QLineEdit*>(QStringLiteral("checkHost"))->setText(QStringLiteral("pypi.org"));
        page.resize(740, 760);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(page.grab().save(shots + QStringLiteral("/settings-network.png")));
        NetworkPanel panel;
        const QDateTime now = QDateTime::currentDateTimeUtc();
        panel.addEvent({QStringLiteral("sess_41"), QStringLiteral("registry.npmjs.org"), 443, true,
                        QStringLiteral("preset dev: registry.npmjs.org"), QStringLiteral("connected to 104.16.1.34"),
                        now});
        panel.addEvent({QStringLiteral("sess_41"), QStringLiteral("evil.example"), 443, false,
                        QStringLiteral("no rule"), QString(), now});
        panel.addEvent({QStringLiteral("sess_41"), QStringLiteral("evil.example"), 443, false,
                        QStringLiteral("no rule"), QString(), now});
        panel.addEvent({QStringLiteral("sess_41"), QStringLiteral("metadata.internal"), 80, false,
                        QStringLiteral("cloud metadata address 169.254.169.254"), QString(), now});
        panel.addEvent({QStringLiteral("sess_41"), QStringLiteral("api.github.com"), 443, true,
                        QStringLiteral("preset dev: api.github.com"), QStringLiteral("connected to 140.82.121.6"),
                        now});
        EgressEvent substituted =
            EgressEvent::substituted(QStringLiteral("api.github.com"), 443, {{QStringLiteral("GITHUB_TOKEN"), 3}});
        substituted.sessionId = QStringLiteral("sess_41");
        substituted.when = now;
        panel.addEvent(substituted);
        panel.findChild<QTableWidget*>(QStringLiteral("policyLog"))->selectRow(1);
        panel.resize(900, 360);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(panel.grab().save(shots + QStringLiteral("/dashboard-network.png")));
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<AppSettings> m_settings;
    int m_count = 0;
};

QTEST_MAIN(TestNetworkPanel)
#include "tst_networkpanel.moc"
