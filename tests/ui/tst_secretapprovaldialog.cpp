// SecretApprovalDialog and Settings -> Secrets: the dialog names the secret, the command and the folder, each button
// gives its decision exactly once and closing it is a denial; the secrets page lists names only and refuses a short
// value before the keychain is asked, and binds a secret to hosts ("Use only with…") only with rules that parse.
#include "appsettings.h"
#include "settings/secretspage.h"
#include "tray/secretapprovaldialog.h"

#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace zeus;

class TestSecretApprovalDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void namesSecretCommandAndFolder();
    void eachButtonDecides_data();
    void eachButtonDecides();
    void closingDenies();
    void pageListsNamesOnly();
    void pageBindsToHosts();
    void screenshot();

private:
    static SecretBroker::Request request() {
        return SecretBroker::Request{QStringLiteral("c1"),
                                     QStringLiteral("s1"),
                                     QStringLiteral("/home/me/project"),
                                     QStringLiteral("git push origin main"),
                                     {QStringLiteral("GITHUB_TOKEN")}};
    }
};

void TestSecretApprovalDialog::namesSecretCommandAndFolder() {
    SecretApprovalDialog dialog(request());
    QString labels;
    for (const QLabel* label : dialog.findChildren<QLabel*>()) {
        labels += label->text() + u'\n';
    }
    QVERIFY2(labels.contains(QLatin1String("GITHUB_TOKEN")), qPrintable(labels));
    QVERIFY(labels.contains(QLatin1String("/home/me/project")));
    QCOMPARE(dialog.findChild<QPlainTextEdit*>()->toPlainText(), QStringLiteral("git push origin main"));
}

void TestSecretApprovalDialog::eachButtonDecides_data() {
    QTest::addColumn<QString>("button");
    QTest::addColumn<int>("decision");
    QTest::newRow("once") << QStringLiteral("Allow &once") << int(SecretBroker::Decision::Once);
    QTest::newRow("session") << QStringLiteral("Allow for this &session") << int(SecretBroker::Decision::Session);
    QTest::newRow("always") << QStringLiteral("&Always in this folder") << int(SecretBroker::Decision::AlwaysForFolder);
    QTest::newRow("deny") << QStringLiteral("&Deny") << int(SecretBroker::Decision::Deny);
}

void TestSecretApprovalDialog::eachButtonDecides() {
    QFETCH(QString, button);
    QFETCH(int, decision);
    SecretApprovalDialog dialog(request());
    QSignalSpy spy(&dialog, &SecretApprovalDialog::decided);
    QPushButton* found = nullptr;
    for (QPushButton* candidate : dialog.findChildren<QPushButton*>()) {
        if (candidate->text() == button) {
            found = candidate;
        }
    }
    QVERIFY(found);
    found->click();
    dialog.reject();  // a later close changes nothing
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.first().at(0).toString(), QStringLiteral("c1"));
    QCOMPARE(int(spy.first().at(1).value<SecretBroker::Decision>()), decision);
}

void TestSecretApprovalDialog::closingDenies() {
    SecretApprovalDialog dialog(request());
    QSignalSpy spy(&dialog, &SecretApprovalDialog::decided);
    dialog.show();
    dialog.close();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.first().at(1).value<SecretBroker::Decision>(), SecretBroker::Decision::Deny);
}

void TestSecretApprovalDialog::pageListsNamesOnly() {
    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
    settings.addSecretName(QStringLiteral("NPM_TOKEN"));
    settings.addSecretName(QStringLiteral("GITHUB_TOKEN"));
    settings.addSecretName(QStringLiteral("bad name"));
    SecretStore store(QStringLiteral("io.zeusdesktop.test.unused"));
    SecretsPage page(&settings, &store);
    auto* table = page.findChild<QTableWidget*>();
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("GITHUB_TOKEN"));
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("never"));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("any command you allow (environment)"));
    page.storeSecret(QStringLiteral("SHORT_ONE"), "1234567");
    QVERIFY(!page.isBusy());  // refused before the keychain was asked
    QVERIFY(page.statusText().contains(QLatin1String("at least 8 bytes")));
    QCOMPARE(settings.secretNames().size(), 2);
}

// SPEC §9 "Use only with…": the dialog's presets and rules become the setting every mode's sandbox reads; a rule
// that does not parse is said in the dialog and changes nothing; no rule at all unbinds.
void TestSecretApprovalDialog::pageBindsToHosts() {
    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
    settings.addSecretName(QStringLiteral("GITHUB_TOKEN"));
    SecretStore store(QStringLiteral("io.zeusdesktop.test.unused"));
    SecretsPage page(&settings, &store);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    auto* table = page.findChild<QTableWidget*>(QStringLiteral("secrets"));
    auto* bind = page.findChild<QPushButton*>(QStringLiteral("useOnlyWith"));
    QVERIFY(!bind->isEnabled());  // nothing selected
    table->selectRow(0);
    QVERIFY(bind->isEnabled());

    const auto openDialog = [&]() -> QDialog* {
        bind->click();
        auto* dialog = page.findChild<QDialog*>(QStringLiteral("useOnlyWithDialog"));
        return dialog != nullptr && dialog->isVisible() ? dialog : nullptr;
    };
    const auto ok = [](QDialog* dialog) {
        dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
    };
    QDialog* dialog = openDialog();
    QVERIFY(dialog);
    dialog->findChild<QCheckBox*>(QStringLiteral("preset_github"))->setChecked(true);
    dialog->findChild<QLineEdit*>(QStringLiteral("otherHosts"))
        ->setText(QStringLiteral("git.corp.example, not a host"));
    ok(dialog);
    QVERIFY(dialog->isVisible());  // refused: the dialog stays with the user's text
    QVERIFY(dialog->findChild<QLabel*>(QStringLiteral("bindingError"))->isVisibleTo(dialog));
    QVERIFY(settings.secrets().bindings().isEmpty());
    dialog->findChild<QLineEdit*>(QStringLiteral("otherHosts"))->setText(QStringLiteral(" git.corp.example "));
    ok(dialog);
    QTRY_VERIFY(page.findChild<QDialog*>(QStringLiteral("useOnlyWithDialog")) == nullptr);  // closed and deleted
    QCOMPARE(settings.secrets().bindings().value(QStringLiteral("GITHUB_TOKEN")),
             QStringList({QStringLiteral("@github"), QStringLiteral("git.corp.example")}));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("GitHub, git.corp.example"));
    QVERIFY(table->selectedItems().size() > 0);  // the selection survives the refresh

    dialog = openDialog();  // shows what is set, and unchecking everything unbinds
    QVERIFY(dialog);
    auto* github = dialog->findChild<QCheckBox*>(QStringLiteral("preset_github"));
    QVERIFY(github->isChecked());
    QCOMPARE(dialog->findChild<QLineEdit*>(QStringLiteral("otherHosts"))->text(), QStringLiteral("git.corp.example"));
    github->setChecked(false);
    dialog->findChild<QLineEdit*>(QStringLiteral("otherHosts"))->clear();
    ok(dialog);
    QVERIFY(settings.secrets().bindings().isEmpty());
    QVERIFY(page.statusText().contains(QLatin1String("environment")));
    settings.secrets().setBinding(QStringLiteral("GITHUB_TOKEN"), {QStringLiteral("@npm")});
    settings.removeSecretName(QStringLiteral("GITHUB_TOKEN"));  // a deleted secret takes its binding with it
    settings.addSecretName(QStringLiteral("GITHUB_TOKEN"));
    QVERIFY(settings.secrets().bindings().isEmpty());
}

void TestSecretApprovalDialog::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    SecretApprovalDialog dialog(request());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(dialog.grab().save(shots + QStringLiteral("/secret-approval.png")));

    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
    settings.addSecretName(QStringLiteral("GITHUB_TOKEN"));
    settings.addSecretName(QStringLiteral("NPM_TOKEN"));
    settings.addSecretName(QStringLiteral("OPENAI_API_KEY"));
    settings.setSecretLastUsed(QStringLiteral("GITHUB_TOKEN"), QDateTime(QDate(2026, 11, 30), QTime(14, 5)));
    settings.secrets().setBinding(QStringLiteral("GITHUB_TOKEN"), {QStringLiteral("@github")});
    settings.secrets().setBinding(QStringLiteral("OPENAI_API_KEY"), {QStringLiteral("api.openai.com")});
    SecretStore store(QStringLiteral("io.zeusdesktop.test.unused"));
    SecretsPage page(&settings, &store);
    page.resize(640, 400);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(page.grab().save(shots + QStringLiteral("/settings-secrets.png")));
    page.findChild<QTableWidget*>(QStringLiteral("secrets"))->selectRow(0);
    page.findChild<QPushButton*>(QStringLiteral("useOnlyWith"))->click();
    auto* hosts = page.findChild<QDialog*>(QStringLiteral("useOnlyWithDialog"));
    QVERIFY(hosts);
    QVERIFY(QTest::qWaitForWindowExposed(hosts));
    QVERIFY(hosts->grab().save(shots + QStringLiteral("/settings-secrets-use-only-with.png")));
}

QTEST_MAIN(TestSecretApprovalDialog)
#include "tst_secretapprovaldialog.moc"
