// Settings > Agents (MCP): the HTTP server is off by default and its port is written only on apply; a port out of
// range is refused by the settings; "Make a new token…" stores a new token in the real keychain (the test keyring)
// and shows it once with the client's config line, and the old token is gone; the stdio line names this app.
#include "appsettings.h"
#include "mcp/mcphttptoken.h"
#include "settings/mcppage.h"
#include "settings/settingsdialog.h"
#include "testenvironment.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

using namespace zeus;

class TestMcpPage : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir;

    // The token the keychain holds for `service` now (empty when it has none or cannot answer).
    static QString storedToken(const QString& service) {
        McpHttpToken store(service, nullptr);
        QSignalSpy ready(&store, &McpHttpToken::ready);
        store.obtain(false);
        if (!ready.wait(10000)) {
            return {};
        }
        return ready.at(0).at(1).toString();
    }

private Q_SLOTS:
    void offByDefaultAndWrittenOnApply() {
        AppSettings settings(dir.filePath(QStringLiteral("a.ini")));
        QCOMPARE(settings.mcpHttpPort(), 0);
        McpPage page(&settings);
        auto* on = page.findChild<QCheckBox*>(QStringLiteral("mcpHttpOn"));
        auto* port = page.findChild<QSpinBox*>(QStringLiteral("mcpHttpPort"));
        QVERIFY(on && port);
        QVERIFY(!on->isChecked());
        QVERIFY(!port->isEnabled());
        on->setChecked(true);
        port->setValue(18765);
        QCOMPARE(settings.mcpHttpPort(), 0);  // nothing before apply
        QSignalSpy changed(&settings, &AppSettings::mcpHttpPortChanged);
        page.apply();
        QCOMPARE(settings.mcpHttpPort(), 18765);
        QCOMPARE(changed.size(), 1);
        on->setChecked(false);
        page.apply();
        QCOMPARE(settings.mcpHttpPort(), 0);
    }

    void settingsRefuseAPortOutOfRange_data() {
        QTest::addColumn<int>("port");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("off") << 0 << true;
        QTest::newRow("privileged") << 80 << false;
        QTest::newRow("lowest") << 1024 << true;
        QTest::newRow("highest") << 65535 << true;
        QTest::newRow("too high") << 65536 << false;
        QTest::newRow("negative") << -1 << false;
    }

    void settingsRefuseAPortOutOfRange() {
        QFETCH(int, port);
        QFETCH(bool, accepted);
        AppSettings settings(dir.filePath(QStringLiteral("b.ini")));
        QVERIFY(settings.setMcpHttpPort(4321));
        QCOMPARE(settings.setMcpHttpPort(port), accepted);
        QCOMPARE(settings.mcpHttpPort(), accepted ? port : 4321);
    }

    void theDialogHasThePage() {
        AppSettings settings(dir.filePath(QStringLiteral("c.ini")));
        QVERIFY(settings.setMcpHttpPort(23456));
        SettingsDialog dialog(&settings, nullptr);
        QVERIFY(dialog.mcpPage());
        auto* port = dialog.mcpPage()->findChild<QSpinBox*>(QStringLiteral("mcpHttpPort"));
        QCOMPARE(port->value(), 23456);
        port->setValue(23457);
        QVERIFY(dialog.apply());
        QCOMPARE(settings.mcpHttpPort(), 23457);
    }

    void stdioLineNamesThisApp() {
        QCOMPARE(McpPage::stdioCommand(QStringLiteral("/opt/Zeus Desktop/zeus-desktop")),
                 QStringLiteral("claude mcp add zeus -- \"/opt/Zeus Desktop/zeus-desktop\" --mcp"));
        AppSettings settings(dir.filePath(QStringLiteral("d.ini")));
        McpPage page(&settings);
        QVERIFY(page.findChild<QLineEdit*>(QStringLiteral("mcpStdioCommand"))
                    ->text()
                    .contains(QCoreApplication::applicationFilePath()));
    }

    void newTokenIsStoredShownOnceAndReplacesTheOld() {
        if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
            if (zeus::test::isCi()) {
                QFAIL("no test keyring (run inside tests/harness/keyring-session.sh)");
            }
            QSKIP("no test keyring");
        }
        const QString service = QStringLiteral("zeus-desktop-test-") + QUuid::createUuid().toString(QUuid::Id128);
        AppSettings settings(dir.filePath(QStringLiteral("e.ini")));
        McpPage page(&settings, nullptr, service);
        auto* on = page.findChild<QCheckBox*>(QStringLiteral("mcpHttpOn"));
        auto* port = page.findChild<QSpinBox*>(QStringLiteral("mcpHttpPort"));
        auto* newToken = page.findChild<QPushButton*>(QStringLiteral("mcpNewToken"));
        auto* token = page.findChild<QLineEdit*>(QStringLiteral("mcpToken"));
        auto* command = page.findChild<QLineEdit*>(QStringLiteral("mcpHttpCommand"));
        QVERIFY(!newToken->isEnabled());  // off: nothing to make a token for
        on->setChecked(true);
        port->setValue(18766);
        QVERIFY(token->text().isEmpty());  // never read back from the keychain

        QSignalSpy renewed(&page, &McpPage::tokenRenewed);
        newToken->click();
        QVERIFY(renewed.wait(10000));
        const QString first = token->text();
        QVERIFY(QRegularExpression(QStringLiteral("^[A-Za-z0-9_-]{43}$")).match(first).hasMatch());
        QCOMPARE(command->text(), McpPage::httpCommand(18766, first));
        QVERIFY(command->text().contains(QLatin1String("http://127.0.0.1:18766/mcp")));
        QCOMPARE(storedToken(service), first);

        newToken->click();
        QVERIFY(renewed.wait(10000));
        const QString second = token->text();
        QVERIFY(second != first);
        QCOMPARE(storedToken(service), second);  // the old one is gone
        port->setValue(18767);
        QVERIFY(command->text().contains(QLatin1String(":18767/mcp")));
    }

    // Settings > Agents (MCP) with the HTTP server on and a token just made (needs the test keyring for the token).
    void screenshot() {
        const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
        if (shots.isEmpty()) {
            QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
        }
        AppSettings settings(dir.filePath(QStringLiteral("shot.ini")));
        QVERIFY(settings.setMcpHttpPort(AppSettings::kDefaultMcpHttpPort));
        SettingsDialog dialog(&settings, nullptr);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.findChild<QTabWidget*>()->setCurrentWidget(dialog.mcpPage());
        // As an installed app shows it (this test's own path would stand there otherwise).
        auto* stdio = dialog.mcpPage()->findChild<QLineEdit*>(QStringLiteral("mcpStdioCommand"));
        stdio->setText(McpPage::stdioCommand(QStringLiteral("/usr/bin/zeus-desktop")));
        stdio->setCursorPosition(0);
        if (qEnvironmentVariable("ZEUS_TEST_KEYRING") == QLatin1String("1")) {
            QSignalSpy renewed(dialog.mcpPage(), &McpPage::tokenRenewed);
            dialog.mcpPage()->findChild<QPushButton*>(QStringLiteral("mcpNewToken"))->click();
            QVERIFY(renewed.wait(10000));
        }
        QVERIFY(dialog.grab().save(shots + QStringLiteral("/settings-agents-mcp.png")));
    }
};

QTEST_MAIN(TestMcpPage)
#include "tst_mcppage.moc"
