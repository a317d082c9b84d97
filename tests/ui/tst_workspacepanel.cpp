// The working-directory picker: the guard's verdict inline (rule and canonical path),
// approval only by the explicit button, recent folders.
#include "appsettings.h"
#include "dashboard/workspacepanel.h"

#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using zeus::AppSettings;
using zeus::WorkspaceGuard;
using zeus::WorkspacePanel;

class TestWorkspacePanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void refusals_data();
    void refusals();
    void acceptedNeedsExplicitApproval();
    void symlinkShowsCanonicalPath();
    void approvedForThisRunOnly();
    void refusedForThisRunIsNotApproved();
    void recentFoldersChooseAgain();
    void deletedApprovedFolder();
    void nestedFolderCannotBeApproved();
    void changedApprovalIsShown();
    void screenshot();

private:
    std::unique_ptr<WorkspacePanel> makePanel();
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<AppSettings> m_settings;
    QString m_home;
};

// The settings object first: it writes its file when destroyed, which would bring the
// temporary folder back after the folder removed itself.
void TestWorkspacePanel::cleanup() {
    m_settings.reset();
    m_dir.reset();
}

void TestWorkspacePanel::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_home = QFileInfo(m_dir->filePath(QStringLiteral("home"))).absoluteFilePath();
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/projects/site")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.ssh")));
    m_settings = std::make_unique<AppSettings>(m_dir->filePath(QStringLiteral("settings.ini")));
}

std::unique_ptr<WorkspacePanel> TestWorkspacePanel::makePanel() {
    auto panel = std::make_unique<WorkspacePanel>(m_settings.get());
    WorkspaceGuard::Environment environment;
    environment.homePath = QFileInfo(m_home).canonicalFilePath();
    panel->setGuardEnvironment(environment);
    return panel;
}

void TestWorkspacePanel::refusals_data() {
    QTest::addColumn<QString>("relative");  // to the fake home; "/" prefixed: absolute
    QTest::addColumn<QString>("rule");
    QTest::newRow("home itself") << QString() << QStringLiteral("home_or_ancestor");
    QTest::newRow("ancestor of home") << QStringLiteral("..") << QStringLiteral("home_or_ancestor");
    QTest::newRow("secret store") << QStringLiteral(".ssh") << QStringLiteral("secret_store");
    QTest::newRow("missing") << QStringLiteral("projects/nope") << QStringLiteral("not_found");
    QTest::newRow("root") << QStringLiteral("/") << QStringLiteral("file_system_root");
    QTest::newRow("system tree") << QStringLiteral("/etc") << QStringLiteral("system_tree");
}

void TestWorkspacePanel::refusals() {
    QFETCH(QString, relative);
    QFETCH(QString, rule);
    auto panel = makePanel();
    QSignalSpy changed(panel.get(), &WorkspacePanel::currentWorkspaceChanged);
    const QString path = relative.startsWith(QLatin1Char('/'))
                             ? relative
                             : (relative.isEmpty() ? m_home : m_home + QLatin1Char('/') + relative);
    panel->chooseFolder(path);
    QVERIFY(!panel->verdict().accepted());
    auto* verdict = panel->findChild<QLabel*>(QStringLiteral("verdict"));
    QVERIFY2(verdict->text().contains(QStringLiteral("Refused (%1)").arg(rule)), qPrintable(verdict->text()));
    QVERIFY2(verdict->text().contains(panel->verdict().message), qPrintable(verdict->text()));
    QVERIFY(!panel->findChild<QPushButton*>(QStringLiteral("approveFolder"))->isEnabled());
    QVERIFY(!panel->approveChosen());
    QVERIFY(m_settings->approvedWorkspaces().isEmpty());
    QVERIFY(m_settings->recentFolders().isEmpty());
    QCOMPARE(changed.count(), 0);
    QVERIFY(panel->currentWorkspace().isEmpty());
}

void TestWorkspacePanel::acceptedNeedsExplicitApproval() {
    auto panel = makePanel();
    QSignalSpy changed(panel.get(), &WorkspacePanel::currentWorkspaceChanged);
    const QString folder = QFileInfo(m_home + QStringLiteral("/projects/site")).canonicalFilePath();
    panel->chooseFolder(m_home + QStringLiteral("/projects/site"));
    QVERIFY(panel->verdict().accepted());
    auto* verdict = panel->findChild<QLabel*>(QStringLiteral("verdict"));
    QVERIFY2(verdict->text().contains(QStringLiteral("can be used: ") + folder), qPrintable(verdict->text()));
    // Choosing is not approving.
    QVERIFY(m_settings->approvedWorkspaces().isEmpty());
    QVERIFY(panel->currentWorkspace().isEmpty());
    QCOMPARE(changed.count(), 0);
    QCOMPARE(m_settings->recentFolders(), QStringList{folder});

    auto* approve = panel->findChild<QPushButton*>(QStringLiteral("approveFolder"));
    QVERIFY(approve->isEnabled());
    approve->click();
    QCOMPARE(m_settings->approvedWorkspaces(), QStringList{folder});
    QCOMPARE(panel->currentWorkspace(), folder);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toString(), folder);
    QVERIFY(!approve->isEnabled());
    QVERIFY(verdict->text().startsWith(QStringLiteral("Approved.")));

    // Revoked elsewhere (settings dialog): the panel shows it at once.
    m_settings->revokeWorkspace(folder);
    QVERIFY(approve->isEnabled());
    QVERIFY(panel->currentWorkspace().isEmpty());
}

void TestWorkspacePanel::approvedForThisRunOnly() {
    // --workspace: approved at once, for this run only; Approve still offers to keep it.
    auto panel = makePanel();
    QSignalSpy changed(panel.get(), &WorkspacePanel::currentWorkspaceChanged);
    const QString folder = QFileInfo(m_home + QStringLiteral("/projects/site")).canonicalFilePath();
    QVERIFY(panel->approveForThisRun(m_home + QStringLiteral("/projects/site/")));
    QCOMPARE(panel->runApprovedWorkspace(), folder);
    QCOMPARE(panel->currentWorkspace(), folder);
    QCOMPARE(changed.count(), 1);
    QVERIFY(m_settings->approvedWorkspaces().isEmpty());
    QCOMPARE(m_settings->recentFolders(), QStringList{folder});
    auto* verdict = panel->findChild<QLabel*>(QStringLiteral("verdict"));
    QVERIFY2(verdict->text().startsWith(QStringLiteral("Approved for this run")), qPrintable(verdict->text()));
    auto* approve = panel->findChild<QPushButton*>(QStringLiteral("approveFolder"));
    QVERIFY(approve->isEnabled());

    approve->click();
    QCOMPARE(m_settings->approvedWorkspaces(), QStringList{folder});
    QVERIFY(verdict->text().startsWith(QStringLiteral("Approved.")));
    QVERIFY(!approve->isEnabled());

    // Another folder chosen by hand is not approved by the command line's.
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/projects/other")));
    panel->chooseFolder(m_home + QStringLiteral("/projects/other"));
    QVERIFY(panel->currentWorkspace().isEmpty());
}

// SPEC §3: a folder inside (or around) an approved one cannot be approved as well; the panel says why.
void TestWorkspacePanel::nestedFolderCannotBeApproved() {
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/projects/site/app")));
    const QString site = QFileInfo(m_home + QStringLiteral("/projects/site")).canonicalFilePath();
    QVERIFY(m_settings->approveWorkspace(site));
    auto panel = makePanel();
    panel->chooseFolder(site + QStringLiteral("/app"));
    auto* verdict = panel->findChild<QLabel*>(QStringLiteral("verdict"));
    QVERIFY2(verdict->text().contains(QLatin1String("inside the approved folder")), qPrintable(verdict->text()));
    QVERIFY(!panel->findChild<QPushButton*>(QStringLiteral("approveFolder"))->isEnabled());
    QVERIFY(!panel->approveChosen());
    QCOMPARE(m_settings->approvedWorkspaces(), QStringList{site});
    // What direct mode leaves open is said where the user approves.
    QVERIFY(panel->findChild<QLabel*>(QStringLiteral("directModeCaveat"))->text().contains(QLatin1String("build")));
}

// An approved folder swapped for a symlink: "changed since approval", not approved, nothing to approve here.
void TestWorkspacePanel::changedApprovalIsShown() {
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/projects/swapped")));
    const QString folder = QFileInfo(m_home + QStringLiteral("/projects/swapped")).canonicalFilePath();
    QVERIFY(m_settings->approveWorkspace(folder));
    QVERIFY(QDir().rename(folder, folder + QStringLiteral(".o")));
    QVERIFY(QFile::link(QFileInfo(m_home + QStringLiteral("/projects/site")).canonicalFilePath(), folder));
    auto panel = makePanel();
    panel->chooseFolder(folder);
    QVERIFY(panel->currentWorkspace().isEmpty());
    QCOMPARE(panel->changedApprovedWorkspace(), folder);
    auto* verdict = panel->findChild<QLabel*>(QStringLiteral("verdict"));
    QVERIFY2(verdict->text().contains(QLatin1String("Changed since approval")), qPrintable(verdict->text()));
    QCOMPARE(m_settings->approvalState(folder), zeus::WorkspaceApproval::State::Changed);
}

// An approved folder deleted on the host: the panel says that the approved folder no longer exists (not that it
// was refused), and it is no working directory.
void TestWorkspacePanel::deletedApprovedFolder() {
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/projects/gone")));
    const QString folder = QFileInfo(m_home + QStringLiteral("/projects/gone")).canonicalFilePath();
    QVERIFY(m_settings->approveWorkspace(folder));
    auto panel = makePanel();
    panel->chooseFolder(folder);
    QCOMPARE(panel->currentWorkspace(), folder);
    QVERIFY(QDir(folder).removeRecursively());

    // The next start (or a look again) finds the approved folder gone.
    auto again = makePanel();
    QVERIFY(again->currentWorkspace().isEmpty());
    auto* verdict = again->findChild<QLabel*>(QStringLiteral("verdict"));
    QVERIFY2(verdict->text().contains(QLatin1String("no longer exists")), qPrintable(verdict->text()));
    QVERIFY2(verdict->text().contains(QDir::toNativeSeparators(folder)), qPrintable(verdict->text()));
    QVERIFY2(!verdict->text().contains(QLatin1String("Refused")), qPrintable(verdict->text()));
    QVERIFY(!again->findChild<QPushButton*>(QStringLiteral("approveFolder"))->isEnabled());
    QCOMPARE(again->missingApprovedWorkspace(), folder);

    // The panel that was open looks again (after a workspace_invalid call): the same words; and once the folder is
    // back, it is the working directory again.
    panel->recheck();
    QCOMPARE(panel->missingApprovedWorkspace(), folder);
    QVERIFY(panel->currentWorkspace().isEmpty());
    QVERIFY(QDir().mkpath(folder));
    panel->recheck();
    QCOMPARE(panel->currentWorkspace(), folder);
    QVERIFY(panel->missingApprovedWorkspace().isEmpty());

    // A folder that never existed and was never approved is still refused as such.
    panel->chooseFolder(m_home + QStringLiteral("/projects/never"));
    QVERIFY(panel->missingApprovedWorkspace().isEmpty());
}

void TestWorkspacePanel::refusedForThisRunIsNotApproved() {
    auto panel = makePanel();
    QSignalSpy changed(panel.get(), &WorkspacePanel::currentWorkspaceChanged);
    QVERIFY(!panel->approveForThisRun(m_home + QStringLiteral("/.ssh")));
    QVERIFY(panel->runApprovedWorkspace().isEmpty());
    QVERIFY(panel->currentWorkspace().isEmpty());
    QCOMPARE(changed.count(), 0);
    auto* verdict = panel->findChild<QLabel*>(QStringLiteral("verdict"));
    QVERIFY2(verdict->text().contains(QStringLiteral("Refused (secret_store)")), qPrintable(verdict->text()));
    QVERIFY(!panel->findChild<QPushButton*>(QStringLiteral("approveFolder"))->isEnabled());
    QVERIFY(m_settings->approvedWorkspaces().isEmpty());
    QVERIFY(m_settings->recentFolders().isEmpty());
}

void TestWorkspacePanel::symlinkShowsCanonicalPath() {
    const QString link = m_dir->filePath(QStringLiteral("shortcut"));
    QVERIFY(QFile::link(m_home + QStringLiteral("/projects/site"), link));
    auto panel = makePanel();
    panel->chooseFolder(link);
    const QString canonical = QFileInfo(m_home + QStringLiteral("/projects/site")).canonicalFilePath();
    QCOMPARE(panel->verdict().canonicalPath, canonical);
    QCOMPARE(panel->findChild<QLabel*>(QStringLiteral("chosenPath"))->text(), QDir::toNativeSeparators(canonical));
    // A link to a refused place is refused by what it points to.
    const QString sshLink = m_dir->filePath(QStringLiteral("keys"));
    QVERIFY(QFile::link(m_home + QStringLiteral("/.ssh"), sshLink));
    panel->chooseFolder(sshLink);
    QCOMPARE(panel->verdict().rule, WorkspaceGuard::Rule::SecretStore);
}

void TestWorkspacePanel::recentFoldersChooseAgain() {
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/projects/other")));
    auto panel = makePanel();
    panel->chooseFolder(m_home + QStringLiteral("/projects/site"));
    panel->approveChosen();
    panel->chooseFolder(m_home + QStringLiteral("/projects/other"));
    auto* recent = panel->findChild<QListWidget*>(QStringLiteral("recentFolders"));
    QCOMPARE(recent->count(), 2);
    QVERIFY(recent->item(0)->text().endsWith(QStringLiteral("other")));
    QVERIFY(panel->currentWorkspace().isEmpty());  // "other" is not approved
    QSignalSpy changed(panel.get(), &WorkspacePanel::currentWorkspaceChanged);
    Q_EMIT recent->itemClicked(recent->item(1));
    QVERIFY(panel->currentWorkspace().endsWith(QStringLiteral("/projects/site")));
    QCOMPARE(changed.count(), 1);
    // A new panel starts on the most recent folder.
    auto second = makePanel();
    QVERIFY(second->verdict().canonicalPath.endsWith(QStringLiteral("/projects/site")));
}

void TestWorkspacePanel::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    auto panel = makePanel();
    panel->resize(640, 260);
    panel->chooseFolder(m_home + QStringLiteral("/.ssh"));
    panel->chooseFolder(m_home + QStringLiteral("/projects/site"));
    panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(panel.get()));
    QVERIFY(panel->grab().save(shots + QStringLiteral("/workspace-accepted.png")));
    panel->chooseFolder(m_home + QStringLiteral("/.ssh"));
    QVERIFY(panel->grab().save(shots + QStringLiteral("/workspace-refused.png")));
}

QTEST_MAIN(TestWorkspacePanel)
#include "tst_workspacepanel.moc"
