// The settings dialog: shows and writes every setting, refuses a bad URL without
// closing, hands the token to the keychain store only (clear messages when the keychain
// is missing or locked, never a plaintext fallback), and switches start at login.
#include "appsettings.h"
#include "autostartentry.h"
#include "autostartloginitem.h"
#include "settings/settingsdialog.h"
#include "settings/tokenstore.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>

using zeus::AppSettings;
using zeus::AutostartEntry;
using zeus::AutostartLoginItem;
using zeus::SettingsDialog;
using zeus::TokenStore;

namespace {

const QString kCanary = QStringLiteral("zeus-canary-token-5f1e2d");

// A keychain that answers from the event loop, like QtKeychain does.
class FakeTokenStore : public TokenStore {
public:
    Status availability = Status::NotStored;  // Unavailable / Locked make writes fail
    QString stored;
    int stores = 0;

    void refresh() override {
        setBusy(true);
        QTimer::singleShot(0, this, [this] {
            setBusy(false);
            report(true);
        });
    }
    void store(const QString& token) override {
        ++stores;
        setBusy(true);
        QTimer::singleShot(0, this, [this, token] {
            setBusy(false);
            const bool ok = availability == Status::NotStored || availability == Status::Stored;
            if (ok) {
                stored = token;
            }
            report(ok);
        });
    }
    void remove() override {
        setBusy(true);
        QTimer::singleShot(0, this, [this] {
            setBusy(false);
            stored.clear();
            report(true);
        });
    }

private:
    void report(bool ok) {
        if (availability == Status::Unavailable) {
            setStatus(Status::Unavailable, QStringLiteral("No keychain: the Secret Service is not running."));
        } else if (availability == Status::Locked) {
            setStatus(Status::Locked, QStringLiteral("The keychain is locked."));
        } else {
            setStatus(stored.isEmpty() ? Status::NotStored : Status::Stored, QString());
        }
        Q_EMIT finished(ok);
    }
};

template <typename T>
T* field(const QWidget& dialog, const char* name) {
    auto* widget = dialog.findChild<T*>(QString::fromLatin1(name));
    if (!widget) {
        qFatal("no field %s", name);
    }
    return widget;
}

}  // namespace

class TestSettingsDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void showsSettings();
    void writesSettingsOnOk();
    void badUrlKeepsDialogOpen();
    void savesTokenToKeychainOnly();
    void okWithTypedTokenClosesWhenStored();
    void lockedKeychainIsExplained();
    void missingKeychainDisablesTokenField();
    void noTokenStoreAtAll();
    void startAtLoginWritesAndRemovesEntry();
    void revokesApprovedFolder();
    void gitWritesPerFolder();
    void exposedHostPortsPerFolder();
    void screenshot();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<AutostartLoginItem> m_loginItem;
    QString autostartPath() const { return m_dir->filePath(QStringLiteral("autostart/zeus-desktop.desktop")); }
    QString settingsFile() const { return m_dir->filePath(QStringLiteral("settings.ini")); }
};

// The settings object first: it writes its file when destroyed, which would bring the
// temporary folder back after the folder removed itself.
void TestSettingsDialog::cleanup() {
    m_loginItem.reset();
    m_settings.reset();
    m_dir.reset();
}

void TestSettingsDialog::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_settings = std::make_unique<AppSettings>(settingsFile());
    m_loginItem = std::make_unique<AutostartLoginItem>(autostartPath());
}

void TestSettingsDialog::showsSettings() {
    QVERIFY(m_settings->setBackendUrl(QStringLiteral("wss://b.example.com/desktop")));
    QVERIFY(m_settings->setRuntimePreference(QStringLiteral("podman")));
    QVERIFY(m_settings->setHardeningProfile(QStringLiteral("hardened")));
    QVERIFY(m_settings->setMemoryMiB(4096));
    QVERIFY(m_settings->setIdleTimeoutMinutes(12));
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    QCOMPARE(field<QLineEdit>(dialog, "backendUrl")->text(), QStringLiteral("wss://b.example.com/desktop"));
    QCOMPARE(field<QComboBox>(dialog, "runtimePreference")->currentData().toString(), QStringLiteral("podman"));
    QCOMPARE(field<QComboBox>(dialog, "profile")->currentData().toString(), QStringLiteral("hardened"));
    QVERIFY(field<QLabel>(dialog, "profileDescription")->text().contains(QStringLiteral("no network")));
    QCOMPARE(field<QSpinBox>(dialog, "memoryMiB")->value(), 4096);
    QCOMPARE(field<QSpinBox>(dialog, "idleTimeout")->value(), 12);
    QCOMPARE(field<QSpinBox>(dialog, "pidsLimit")->value(), AppSettings::kDefaultPidsLimit);
    QVERIFY(field<QLineEdit>(dialog, "image")->text().isEmpty());  // the default shows as placeholder
    QCOMPARE(field<QCheckBox>(dialog, "startAtLogin")->isChecked(), false);
    QCOMPARE(field<QLineEdit>(dialog, "token")->echoMode(), QLineEdit::Password);
}

void TestSettingsDialog::writesSettingsOnOk() {
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    dialog.show();
    QSignalSpy hardening(m_settings.get(), &AppSettings::hardeningChanged);
    field<QLineEdit>(dialog, "backendUrl")->setText(QStringLiteral("ws://127.0.0.1:9000/ws"));
    field<QComboBox>(dialog, "runtimePreference")->setCurrentIndex(2);
    field<QLineEdit>(dialog, "image")->setText(QStringLiteral("my/sandbox:1"));
    field<QComboBox>(dialog, "profile")->setCurrentIndex(1);
    QCOMPARE(field<QComboBox>(dialog, "execMode")->currentData().toString(), QStringLiteral("agent"));  // the default
    field<QComboBox>(dialog, "execMode")->setCurrentIndex(1);
    field<QSpinBox>(dialog, "pidsLimit")->setValue(300);
    field<QDoubleSpinBox>(dialog, "cpus")->setValue(3.5);
    field<QSpinBox>(dialog, "idleTimeout")->setValue(5);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    AppSettings reread(settingsFile());
    QCOMPARE(reread.backendUrl(), QStringLiteral("ws://127.0.0.1:9000/ws"));
    QCOMPARE(reread.runtimePreference(), QStringLiteral("docker"));
    QCOMPARE(reread.image(), QStringLiteral("my/sandbox:1"));
    QCOMPARE(reread.hardeningProfile(), QStringLiteral("hardened"));
    QCOMPARE(reread.execMode(), QStringLiteral("exec"));
    QCOMPARE(reread.pidsLimit(), 300);
    QCOMPARE(reread.cpus(), 3.5);
    QCOMPARE(reread.idleTimeoutMinutes(), 5);
    QVERIFY(hardening.count() >= 1);
}

void TestSettingsDialog::badUrlKeepsDialogOpen() {
    QVERIFY(m_settings->setBackendUrl(QStringLiteral("wss://good.example.com/")));
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* url = field<QLineEdit>(dialog, "backendUrl");
    auto* problem = field<QLabel>(dialog, "urlProblem");
    QVERIFY(!problem->isVisible());
    url->setText(QStringLiteral("ws://remote.example.com/"));
    QVERIFY(problem->isVisible());
    QVERIFY2(problem->text().contains(QStringLiteral("only to this computer")), qPrintable(problem->text()));
    dialog.accept();
    QVERIFY(dialog.isVisible());
    QCOMPARE(m_settings->backendUrl(), QStringLiteral("wss://good.example.com/"));
    url->setText(QStringLiteral("wss://remote.example.com/"));
    QVERIFY(!problem->isVisible());
    dialog.accept();
    QVERIFY(!dialog.isVisible());
    QCOMPARE(m_settings->backendUrl(), QStringLiteral("wss://remote.example.com/"));
}

void TestSettingsDialog::savesTokenToKeychainOnly() {
    QVERIFY(m_settings->setBackendUrl(QStringLiteral("wss://b.example.com/")));  // so there is a file to read
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    auto* status = field<QLabel>(dialog, "tokenStatus");
    QTRY_VERIFY(status->text().contains(QStringLiteral("No sign-in token")));
    auto* save = field<QPushButton>(dialog, "saveToken");
    auto* remove = field<QPushButton>(dialog, "removeToken");
    QVERIFY(!save->isEnabled());
    QVERIFY(!remove->isEnabled());
    auto* token = field<QLineEdit>(dialog, "token");
    token->setText(kCanary);
    QVERIFY(save->isEnabled());
    save->click();
    QTRY_COMPARE(tokens.stored, kCanary);
    QTRY_VERIFY(token->text().isEmpty());  // not kept in the widget once the keychain has it
    QTRY_VERIFY(status->text().contains(QStringLiteral("stored in the keychain")));
    QVERIFY(remove->isEnabled());

    dialog.accept();
    m_settings->sync();
    QFile file(settingsFile());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains(kCanary.toUtf8()));

    remove->click();
    QTRY_VERIFY(tokens.stored.isEmpty());
    QTRY_VERIFY(status->text().contains(QStringLiteral("No sign-in token")));
}

void TestSettingsDialog::okWithTypedTokenClosesWhenStored() {
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    dialog.show();
    QTRY_VERIFY(!tokens.isBusy());
    field<QLineEdit>(dialog, "token")->setText(kCanary);
    dialog.accept();
    QVERIFY(dialog.isVisible());  // waits for the keychain
    QTRY_VERIFY(!dialog.isVisible());
    QCOMPARE(tokens.stored, kCanary);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
}

void TestSettingsDialog::lockedKeychainIsExplained() {
    FakeTokenStore tokens;
    tokens.availability = TokenStore::Status::Locked;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    dialog.show();
    auto* status = field<QLabel>(dialog, "tokenStatus");
    QTRY_VERIFY(status->text().contains(QStringLiteral("locked")));
    auto* token = field<QLineEdit>(dialog, "token");
    QVERIFY(token->isEnabled());  // unlocking and retrying must be possible
    token->setText(kCanary);
    dialog.accept();
    QTRY_COMPARE(tokens.stores, 1);
    QTRY_VERIFY(!tokens.isBusy());
    QTest::qWait(10);
    QVERIFY(dialog.isVisible());  // not saved: the dialog stays, with the keychain's message
    QVERIFY(status->text().contains(QStringLiteral("locked")));
    QVERIFY(tokens.stored.isEmpty());
    QCOMPARE(token->text(), kCanary);  // the user can retry after unlocking
    m_settings->sync();
    QFile file(settingsFile());
    if (file.open(QIODevice::ReadOnly)) {
        QVERIFY(!file.readAll().contains(kCanary.toUtf8()));
    }
}

void TestSettingsDialog::missingKeychainDisablesTokenField() {
    FakeTokenStore tokens;
    tokens.availability = TokenStore::Status::Unavailable;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    auto* status = field<QLabel>(dialog, "tokenStatus");
    QTRY_VERIFY(status->text().contains(QStringLiteral("Secret Service")));
    QVERIFY(!field<QLineEdit>(dialog, "token")->isEnabled());
    QVERIFY(!field<QPushButton>(dialog, "saveToken")->isEnabled());
}

void TestSettingsDialog::noTokenStoreAtAll() {
    SettingsDialog dialog(m_settings.get(), nullptr);
    dialog.setStartAtLogin(m_loginItem.get());
    QVERIFY(!field<QLineEdit>(dialog, "token")->isEnabled());
    QVERIFY(field<QLabel>(dialog, "tokenStatus")->text().contains(QStringLiteral("cannot be stored")));
}

void TestSettingsDialog::startAtLoginWritesAndRemovesEntry() {
    if (!AutostartEntry::isSupported()) {
        QSKIP("start at login is managed by the system here");
    }
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    auto* box = field<QCheckBox>(dialog, "startAtLogin");
    box->setChecked(true);
    QVERIFY(dialog.apply());
    QVERIFY(QFile::exists(autostartPath()));
    QVERIFY(m_settings->startAtLogin());
    box->setChecked(false);
    QVERIFY(dialog.apply());
    QVERIFY(!QFile::exists(autostartPath()));
    QVERIFY(!m_settings->startAtLogin());
}

void TestSettingsDialog::revokesApprovedFolder() {
    const QString folder = m_dir->filePath(QStringLiteral("project"));
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(m_settings->approveWorkspace(folder));
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    auto* list = field<QListWidget>(dialog, "approvedWorkspaces");
    QCOMPARE(list->count(), 1);
    list->item(0)->setSelected(true);
    auto* revoke = field<QPushButton>(dialog, "revokeWorkspace");
    QVERIFY(revoke->isEnabled());
    revoke->click();
    QVERIFY(m_settings->approvedWorkspaces().isEmpty());
    QCOMPARE(list->count(), 1);  // the "none approved" hint
    QVERIFY(!(list->item(0)->flags() & Qt::ItemIsSelectable));
}

// SPEC §3: the folder's "let the sandbox write .git" is off by default, says what it allows, and is stored per
// folder; the description says .git is read-only and points at review mode until it is on.
void TestSettingsDialog::gitWritesPerFolder() {
    QTemporaryDir repository;
    QVERIFY(QDir().mkpath(repository.path() + QStringLiteral("/.git")));
    QVERIFY(m_settings->approveWorkspace(repository.path()));
    const QString folder = m_settings->approvedWorkspaces().value(0);
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    auto* box = field<QCheckBox>(dialog, "gitWrites");
    auto* description = field<QLabel>(dialog, "workspaceModeDescription");
    QVERIFY(!box->isChecked());
    QVERIFY(box->toolTip().contains(QLatin1String("run code")));
    QVERIFY2(description->text().contains(QLatin1String("read-only")), qPrintable(description->text()));
    QVERIFY(description->text().contains(QLatin1String("review mode")));
    box->click();
    QVERIFY(m_settings->gitWrites(folder));
    QVERIFY(description->text().contains(QLatin1String("may run code")));
    box->click();
    QVERIFY(!m_settings->gitWrites(folder));
    box->click();
    m_settings->revokeWorkspace(folder);  // does not come back by itself with a new approval
    QVERIFY(!m_settings->gitWrites(folder));
}

// SPEC §8 "Ports": the host services a folder's sandbox may reach are none by default, typed per folder as
// --expose-host spells them (what the user types is the approval), stored only when every entry is valid, and
// gone with the folder's approval.
void TestSettingsDialog::exposedHostPortsPerFolder() {
    QTemporaryDir project;
    QVERIFY(m_settings->approveWorkspace(project.path()));
    const QString folder = m_settings->approvedWorkspaces().value(0);
    FakeTokenStore tokens;
    SettingsDialog dialog(m_settings.get(), &tokens);
    auto* ports = field<QLineEdit>(dialog, "exposedHostPorts");
    auto* problem = field<QLabel>(dialog, "exposedHostPortsProblem");
    QVERIFY(ports->text().isEmpty());
    QVERIFY(ports->toolTip().contains(QLatin1String("127.0.0.1")));
    QSignalSpy changed(m_settings.get(), &AppSettings::exposedHostPortsChanged);

    ports->setText(QStringLiteral("5432, 18080:8080"));
    Q_EMIT ports->editingFinished();
    QCOMPARE(m_settings->exposedHostPorts(folder), (QStringList{QStringLiteral("5432"), QStringLiteral("18080:8080")}));
    QCOMPARE(changed.size(), 1);
    QVERIFY(problem->isHidden());

    // Nothing is stored unless every entry is valid: a bad port, the agent's own proxy port, a port given twice.
    for (const QString& bad : {QStringLiteral("5432, 70000"), QStringLiteral("3128"), QStringLiteral("8080 9090:8080"),
                               QStringLiteral("127.0.0.1:5432")}) {
        ports->setText(bad);
        Q_EMIT ports->editingFinished();
        QVERIFY2(!problem->isHidden(), qPrintable(bad));
        QCOMPARE(m_settings->exposedHostPorts(folder),
                 (QStringList{QStringLiteral("5432"), QStringLiteral("18080:8080")}));
    }
    QCOMPARE(changed.size(), 1);

    // A second dialog shows what is stored; emptying the field exposes nothing.
    SettingsDialog again(m_settings.get(), &tokens);
    auto* shown = field<QLineEdit>(again, "exposedHostPorts");
    QCOMPARE(shown->text(), QStringLiteral("5432, 18080:8080"));
    shown->clear();
    Q_EMIT shown->editingFinished();
    QVERIFY(m_settings->exposedHostPorts(folder).isEmpty());

    shown->setText(QStringLiteral("6379"));
    Q_EMIT shown->editingFinished();
    QCOMPARE(m_settings->exposedHostPorts(folder), QStringList{QStringLiteral("6379")});
    m_settings->revokeWorkspace(folder);  // does not come back by itself with a new approval
    QVERIFY(m_settings->exposedHostPorts(folder).isEmpty());
}

void TestSettingsDialog::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    QVERIFY(m_settings->setBackendUrl(QStringLiteral("wss://backend.example.com/desktop")));
    FakeTokenStore tokens;
    tokens.stored = QStringLiteral("x");
    SettingsDialog dialog(m_settings.get(), &tokens);
    dialog.setStartAtLogin(m_loginItem.get());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTRY_VERIFY(!tokens.isBusy());
    QVERIFY(dialog.grab().save(shots + QStringLiteral("/settings-connection.png")));
    auto* tabs = dialog.findChild<QTabWidget*>();
    tabs->setCurrentIndex(1);
    QVERIFY(dialog.grab().save(shots + QStringLiteral("/settings-sandbox.png")));
    // Command Approval with a git repository approved: the read-only .git said, and its setting.
    QTemporaryDir repository;
    QVERIFY(QDir().mkpath(repository.path() + QStringLiteral("/.git")));
    QVERIFY(m_settings->approveWorkspace(repository.path()));
    auto* approvals = dialog.findChild<QWidget*>(QStringLiteral("approvalSettings"));
    QVERIFY(approvals);
    tabs->setCurrentWidget(approvals);
    QVERIFY(dialog.grab().save(shots + QStringLiteral("/settings-approvals-git.png")));
}

QTEST_MAIN(TestSettingsDialog)
#include "tst_settingsdialog.moc"
