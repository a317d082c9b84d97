// AppSettings: values survive a round trip through the store, bad values are refused,
// the backend URL rule (wss://, ws:// only to loopback), recent folders, approvals, ids.
#include "appsettings.h"
#include "settings/settingsmigration.h"

#include <zeus/buildinfo.h>

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <memory>

using zeus::AppSettings;

class TestAppSettings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void defaults();
    void roundTrip();
    void setBackendUrlRefusesInvalid();
    void refusesBadValues();
    void recentFolderRule_data();
    void recentFolderRule();
    void recentFoldersBoundedAndSignalled();
    void approvedWorkspacesAreCanonicalAndExplicit();
    void nestedApprovalsAreRefused();
    void nestedApprovalsStoredEarlierAreInactive();
    void idsAreGeneratedOnceAndKept();
    void neverStoresToken();
    void handEditedStoreIsSanitised();
    void defaultConstructorHonoursTestMode();
    void approvalPoliciesPerFolder();
    void damagedApprovalStoreIsSanitised();
    void workspaceModesPerFolder_data();
    void workspaceModesPerFolder();
    void version1FileReadsBack();
    void version1FileIsMigratedOnce();
    void newerFormatIsLeftAlone();

private:
    QString settingsPath() const { return m_dir->filePath(QStringLiteral("settings.ini")); }
    // A file of tests/data/settings/ copied to settingsPath(), writable, as the app would find it.
    void copyDataFile(const QString& name) const;
    // The values tests/data/settings/v1.conf holds (its README), checked one by one.
    void checkVersion1Values(AppSettings& settings) const;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestAppSettings::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestAppSettings::defaults() {
    AppSettings settings(settingsPath());
    QCOMPARE(settings.backendUrl(), QString());
    QCOMPARE(settings.runtimePreference(), QStringLiteral("auto"));
    QCOMPARE(settings.image(), QStringLiteral(ZEUS_DEFAULT_IMAGE));
    QCOMPARE(settings.hardeningProfile(), QStringLiteral("standard"));
    QCOMPARE(settings.idleTimeoutMinutes(), 30);
    QCOMPARE(settings.pidsLimit(), AppSettings::kDefaultPidsLimit);
    QCOMPARE(settings.memoryMiB(), zeus::SandboxSettings::kDefaultMemoryMiB);
    QCOMPARE(settings.cpus(), zeus::SandboxSettings::kDefaultCpus);
    QCOMPARE(settings.startAtLogin(), false);
    QVERIFY(settings.recentFolders().isEmpty());
    QVERIFY(settings.approvedWorkspaces().isEmpty());
}

void TestAppSettings::roundTrip() {
    const QString folder = m_dir->filePath(QStringLiteral("project one"));
    QVERIFY(QDir().mkpath(folder));
    {
        AppSettings settings(settingsPath());
        QVERIFY(settings.setBackendUrl(QStringLiteral("wss://backend.example.com/desktop")));
        QVERIFY(settings.setRuntimePreference(QStringLiteral("podman")));
        QVERIFY(settings.setImage(QStringLiteral("registry.example.com/sandbox:2")));
        QVERIFY(settings.setHardeningProfile(QStringLiteral("hardened")));
        QVERIFY(settings.setPidsLimit(256));
        QVERIFY(settings.setMemoryMiB(1024));
        QVERIFY(settings.setCpus(1.5));
        QVERIFY(settings.setIdleTimeoutMinutes(45));
        settings.setStartAtLogin(true);
        settings.addRecentFolder(folder);
        QVERIFY(settings.approveWorkspace(folder));
        settings.sync();
    }
    AppSettings reread(settingsPath());
    QCOMPARE(reread.backendUrl(), QStringLiteral("wss://backend.example.com/desktop"));
    QCOMPARE(reread.runtimePreference(), QStringLiteral("podman"));
    QCOMPARE(reread.image(), QStringLiteral("registry.example.com/sandbox:2"));
    QCOMPARE(reread.hardeningProfile(), QStringLiteral("hardened"));
    QCOMPARE(reread.pidsLimit(), 256);
    QCOMPARE(reread.memoryMiB(), 1024);
    QCOMPARE(reread.cpus(), 1.5);
    QCOMPARE(reread.idleTimeoutMinutes(), 45);
    QCOMPARE(reread.startAtLogin(), true);
    QCOMPARE(reread.recentFolders(), QStringList{folder});
    QCOMPARE(reread.approvedWorkspaces(), QStringList{QFileInfo(folder).canonicalFilePath()});

    // Emptying the image restores the default.
    QSignalSpy imageSpy(&reread, &AppSettings::imageChanged);
    QVERIFY(reread.setImage(QString()));
    QCOMPARE(reread.image(), QStringLiteral(ZEUS_DEFAULT_IMAGE));
    QCOMPARE(imageSpy.count(), 1);
}

void TestAppSettings::setBackendUrlRefusesInvalid() {
    AppSettings settings(settingsPath());
    QSignalSpy spy(&settings, &AppSettings::backendUrlChanged);
    QVERIFY(settings.setBackendUrl(QStringLiteral("wss://a.example.com/")));
    QCOMPARE(spy.count(), 1);
    QVERIFY(!settings.setBackendUrl(QStringLiteral("ws://a.example.com/")));
    QCOMPARE(settings.backendUrl(), QStringLiteral("wss://a.example.com/"));
    QCOMPARE(spy.count(), 1);
    // Setting the same value again is not a change.
    QVERIFY(settings.setBackendUrl(QStringLiteral("wss://a.example.com/")));
    QCOMPARE(spy.count(), 1);
    // Empty clears.
    QVERIFY(settings.setBackendUrl(QString()));
    QCOMPARE(settings.backendUrl(), QString());
    QCOMPARE(spy.count(), 2);
}

void TestAppSettings::refusesBadValues() {
    AppSettings settings(settingsPath());
    QSignalSpy hardening(&settings, &AppSettings::hardeningChanged);
    QVERIFY(!settings.setRuntimePreference(QStringLiteral("lxc")));
    QVERIFY(!settings.setRuntimePreference(QStringLiteral("Docker")));
    QCOMPARE(settings.runtimePreference(), QStringLiteral("auto"));
    QVERIFY(!settings.setHardeningProfile(QStringLiteral("privileged")));
    QVERIFY(!settings.setPidsLimit(0));
    QVERIFY(!settings.setPidsLimit(AppSettings::kMaxPidsLimit + 1));
    QVERIFY(!settings.setMemoryMiB(1));
    QVERIFY(!settings.setCpus(0.0));
    QVERIFY(!settings.setCpus(-1.0));
    QVERIFY(!settings.setCpus(std::numeric_limits<double>::quiet_NaN()));
    QVERIFY(!settings.setCpus(std::numeric_limits<double>::infinity()));
    QCOMPARE(hardening.count(), 0);
    QVERIFY(!settings.setIdleTimeoutMinutes(0));
    QVERIFY(!settings.setIdleTimeoutMinutes(-5));
    QVERIFY(!settings.setImage(QStringLiteral("image with spaces")));
    QVERIFY(!settings.setImage(QStringLiteral("--privileged")));
    QVERIFY(!settings.setImage(QStringLiteral("img\nx")));
    QCOMPARE(settings.image(), QStringLiteral(ZEUS_DEFAULT_IMAGE));

    QSignalSpy runtime(&settings, &AppSettings::runtimePreferenceChanged);
    QVERIFY(settings.setRuntimePreference(QStringLiteral("docker")));
    QCOMPARE(runtime.count(), 1);
    QCOMPARE(runtime.at(0).at(0).toString(), QStringLiteral("docker"));
    QVERIFY(settings.setHardeningProfile(QStringLiteral("hardened")));
    QVERIFY(settings.setPidsLimit(100));
    QCOMPARE(hardening.count(), 2);
}

void TestAppSettings::recentFolderRule_data() {
    QTest::addColumn<QStringList>("recent");
    QTest::addColumn<QString>("folder");
    QTest::addColumn<int>("limit");
    QTest::addColumn<QStringList>("expected");
    const QString a = QStringLiteral("/p/a"), b = QStringLiteral("/p/b"), c = QStringLiteral("/p/c");
    QTest::newRow("first") << QStringList{} << a << 3 << QStringList{a};
    QTest::newRow("most recent first") << QStringList{a} << b << 3 << QStringList{b, a};
    QTest::newRow("moved to front, not duplicated") << QStringList{a, b, c} << c << 3 << QStringList{c, a, b};
    QTest::newRow("bounded") << QStringList{a, b, c} << QStringLiteral("/p/d") << 3
                             << QStringList{QStringLiteral("/p/d"), a, b};
    QTest::newRow("stored duplicates collapse") << QStringList{a, a, b} << c << 3 << QStringList{c, a, b};
    QTest::newRow("empty entries dropped") << QStringList{QString(), a} << b << 3 << QStringList{b, a};
    QTest::newRow("zero limit") << QStringList{a} << b << 0 << QStringList{};
}

void TestAppSettings::recentFolderRule() {
    QFETCH(QStringList, recent);
    QFETCH(QString, folder);
    QFETCH(int, limit);
    QFETCH(QStringList, expected);
    QCOMPARE(zeus::WorkspaceFolders::withRecentFolder(recent, folder, limit), expected);
}

void TestAppSettings::recentFoldersBoundedAndSignalled() {
    AppSettings settings(settingsPath());
    QSignalSpy spy(&settings, &AppSettings::recentFoldersChanged);
    for (int i = 0; i < zeus::WorkspaceFolders::kMaxRecent + 5; ++i) {
        settings.addRecentFolder(QStringLiteral("/folders/%1").arg(i));
    }
    QCOMPARE(spy.count(), zeus::WorkspaceFolders::kMaxRecent + 5);
    const QStringList recent = settings.recentFolders();
    QCOMPARE(recent.size(), zeus::WorkspaceFolders::kMaxRecent);
    QCOMPARE(recent.first(), QStringLiteral("/folders/%1").arg(zeus::WorkspaceFolders::kMaxRecent + 4));
    // Re-adding the newest is no change.
    settings.addRecentFolder(recent.first());
    QCOMPARE(spy.count(), zeus::WorkspaceFolders::kMaxRecent + 5);
    settings.workspaceFolders().removeRecent(recent.at(1));
    QCOMPARE(settings.recentFolders().size(), zeus::WorkspaceFolders::kMaxRecent - 1);
    QVERIFY(!settings.recentFolders().contains(recent.at(1)));
    settings.workspaceFolders().clearRecent();
    QVERIFY(settings.recentFolders().isEmpty());
}

void TestAppSettings::approvedWorkspacesAreCanonicalAndExplicit() {
    const QString real = m_dir->filePath(QStringLiteral("real, dir: with 'quotes'"));
    QVERIFY(QDir().mkpath(real));
    const QString link = m_dir->filePath(QStringLiteral("link"));
    QVERIFY(QFile::link(real, link));
    const QString canonical = QFileInfo(real).canonicalFilePath();

    AppSettings settings(settingsPath());
    QSignalSpy spy(&settings, &AppSettings::approvedWorkspacesChanged);
    QVERIFY(!settings.isWorkspaceApproved(real));
    QVERIFY(!settings.isWorkspaceApproved(link));

    // A missing folder or a file cannot be approved.
    QVERIFY(!settings.approveWorkspace(m_dir->filePath(QStringLiteral("missing"))));
    QFile file(m_dir->filePath(QStringLiteral("a-file")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QVERIFY(!settings.approveWorkspace(file.fileName()));
    QVERIFY(!settings.approveWorkspace(QString()));
    QCOMPARE(spy.count(), 0);

    // Approving through the symlink stores the canonical path; both spellings match.
    QVERIFY(settings.approveWorkspace(link));
    QCOMPARE(settings.approvedWorkspaces(), QStringList{canonical});
    QVERIFY(settings.isWorkspaceApproved(real));
    QVERIFY(settings.isWorkspaceApproved(link));
    QVERIFY(settings.isWorkspaceApproved(real + QStringLiteral("/.")));
    QCOMPARE(spy.count(), 1);
    QVERIFY(settings.approveWorkspace(real));  // already approved: no change
    QCOMPARE(spy.count(), 1);

    // A sibling or the parent is not approved by approving the child.
    QVERIFY(!settings.isWorkspaceApproved(m_dir->path()));

    settings.revokeWorkspace(link);
    QVERIFY(!settings.isWorkspaceApproved(real));
    QCOMPARE(spy.count(), 2);
}

// SPEC §3: a folder inside or containing an approved folder cannot be approved as well (with nested approvals a
// command in the outer one swaps the inner one for a symlink). The refusal says why; the list is unchanged.
void TestAppSettings::nestedApprovalsAreRefused() {
    const QString work = QFileInfo(m_dir->path()).canonicalFilePath() + QStringLiteral("/work");
    QVERIFY(QDir().mkpath(work + QStringLiteral("/app")));
    QVERIFY(QDir().mkpath(work + QStringLiteral("shop")));
    AppSettings settings(settingsPath());
    QVERIFY(settings.approveWorkspace(work));
    QSignalSpy spy(&settings, &AppSettings::approvedWorkspacesChanged);

    QVERIFY(!settings.approveWorkspace(work + QStringLiteral("/app")));
    const QString inside = settings.workspaceFolders().approvalProblem(work + QStringLiteral("/app"));
    QVERIFY2(inside.contains(QLatin1String("inside the approved folder")) && inside.contains(work), qPrintable(inside));
    QVERIFY(!settings.approveWorkspace(m_dir->path()));
    const QString around = settings.workspaceFolders().approvalProblem(m_dir->path());
    QVERIFY2(around.contains(QLatin1String("contains the approved folder")), qPrintable(around));
    QCOMPARE(spy.count(), 0);
    QCOMPARE(settings.approvedWorkspaces(), QStringList{work});

    // A sibling that only shares a prefix is another folder; the approved one itself is no problem.
    QVERIFY(settings.workspaceFolders().approvalProblem(work).isEmpty());
    QVERIFY(settings.workspaceFolders().approvalProblem(work + QStringLiteral("shop")).isEmpty());
    QVERIFY(settings.approveWorkspace(work + QStringLiteral("shop")));
    QCOMPARE(settings.approvalState(work), zeus::WorkspaceApproval::State::Active);
}

// Settings written before nesting was refused may hold a folder and one inside it: neither is active (either could
// be reached through the other by renaming and symlinking inside it) until the user revokes one.
void TestAppSettings::nestedApprovalsStoredEarlierAreInactive() {
    const QString work = QFileInfo(m_dir->path()).canonicalFilePath() + QStringLiteral("/legacy");
    QVERIFY(QDir().mkpath(work + QStringLiteral("/app")));
    QVERIFY(QDir().mkpath(work + QStringLiteral("-other")));
    {
        QSettings raw(settingsPath(), QSettings::IniFormat);
        raw.setValue(zeus::WorkspaceFolders::kApproved,
                     QStringList{work, work + QStringLiteral("/app"), work + QStringLiteral("-other")});
    }
    AppSettings settings(settingsPath());
    QCOMPARE(settings.approvedWorkspaces().size(), 3);
    QCOMPARE(settings.approvalState(work), zeus::WorkspaceApproval::State::Nested);
    QCOMPARE(settings.approvalState(work + QStringLiteral("/app")), zeus::WorkspaceApproval::State::Nested);
    QCOMPARE(settings.approvalState(work + QStringLiteral("-other")), zeus::WorkspaceApproval::State::Active);
    settings.revokeWorkspace(work + QStringLiteral("/app"));
    QCOMPARE(settings.approvalState(work), zeus::WorkspaceApproval::State::Active);
}

void TestAppSettings::idsAreGeneratedOnceAndKept() {
    QString install;
    QString device;
    {
        AppSettings settings(settingsPath());
        install = settings.installId();
        device = settings.deviceId();
        QVERIFY(!QUuid::fromString(install).isNull());
        QVERIFY(!QUuid::fromString(device).isNull());
        QVERIFY(install != device);
        QCOMPARE(settings.installId(), install);
    }
    AppSettings reread(settingsPath());
    QCOMPARE(reread.installId(), install);
    QCOMPARE(reread.deviceId(), device);

    AppSettings other(m_dir->filePath(QStringLiteral("other.ini")));
    QVERIFY(other.installId() != install);
}

void TestAppSettings::neverStoresToken() {
    {
        AppSettings settings(settingsPath());
        QVERIFY(!settings.setBackendUrl(QStringLiteral("wss://backend.example.com/?token=CANARY-7f3a")));
        QVERIFY(!settings.setBackendUrl(QStringLiteral("wss://me:CANARY-7f3a@backend.example.com/")));
        QVERIFY(settings.setBackendUrl(QStringLiteral("wss://backend.example.com/")));
        settings.installId();
        settings.sync();
    }
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray stored = file.readAll();
    QVERIFY(!stored.isEmpty());
    QVERIFY(!stored.contains("CANARY-7f3a"));
    QVERIFY(!stored.toLower().contains("token"));
}

void TestAppSettings::handEditedStoreIsSanitised() {
    {
        QSettings raw(settingsPath(), QSettings::IniFormat);
        raw.setValue(AppSettings::kBackendUrl, QStringLiteral("ws://remote.example.com/"));
        raw.setValue(zeus::SandboxSettings::kRuntimePreference, QStringLiteral("lxc"));
        raw.setValue(zeus::SandboxSettings::kHardeningProfile, QStringLiteral("none"));
        raw.setValue(zeus::SandboxSettings::kPidsLimit, QStringLiteral("many"));
        raw.setValue(zeus::SandboxSettings::kCpus, -3);
        raw.setValue(zeus::SandboxSettings::kIdleTimeoutMinutes, 0);
        // A stored image "--privileged" became a flag of `run`.
        raw.setValue(zeus::SandboxSettings::kImage, QStringLiteral("--privileged"));
        raw.setValue(zeus::SandboxSettings::kMaxContainers, 1000);
        raw.setValue(zeus::SandboxSettings::kMaxCallsTotal, 0);
        raw.setValue(zeus::SandboxSettings::kMaxQueuedPerSession, 100000);
        raw.setValue(zeus::SandboxSettings::kMaxQueuedTotal, QStringLiteral("lots"));
        raw.setValue(zeus::SandboxSettings::kEngineWaitSeconds, 1);  // below the floor: calls would fail at once
        raw.setValue(AppSettings::kInstallId, QStringLiteral("not-a-uuid"));
        QStringList many;
        for (int i = 0; i < 50; ++i) {
            many << QStringLiteral("/x/%1").arg(i % 20);
        }
        raw.setValue(zeus::WorkspaceFolders::kRecent, many);
    }
    AppSettings settings(settingsPath());
    QCOMPARE(settings.backendUrl(), QString());
    QCOMPARE(settings.runtimePreference(), QStringLiteral("auto"));
    QCOMPARE(settings.hardeningProfile(), QStringLiteral("standard"));
    QCOMPARE(settings.pidsLimit(), AppSettings::kDefaultPidsLimit);
    QCOMPARE(settings.cpus(), zeus::SandboxSettings::kDefaultCpus);
    QCOMPARE(settings.idleTimeoutMinutes(), zeus::SandboxSettings::kDefaultIdleTimeoutMinutes);
    QCOMPARE(settings.image(), QStringLiteral(ZEUS_DEFAULT_IMAGE));
    QCOMPARE(settings.sandbox().maxContainers(), zeus::SandboxSettings::kDefaultMaxContainers);
    QCOMPARE(settings.sandbox().maxCallsTotal(), zeus::SandboxSettings::kDefaultMaxCallsTotal);
    QCOMPARE(settings.sandbox().maxQueuedPerSession(), zeus::SandboxSettings::kDefaultMaxQueuedPerSession);
    QCOMPARE(settings.sandbox().maxQueuedTotal(), zeus::SandboxSettings::kDefaultMaxQueuedTotal);
    QCOMPARE(settings.sandbox().engineWaitSeconds(), zeus::SandboxSettings::kDefaultEngineWaitSeconds);
    QVERIFY(!QUuid::fromString(settings.installId()).isNull());
    QStringList recent = settings.recentFolders();
    QCOMPARE(recent.size(), zeus::WorkspaceFolders::kMaxRecent);
    QCOMPARE(recent.removeDuplicates(), 0);
}

void TestAppSettings::defaultConstructorHonoursTestMode() {
    // The application's own store under QStandardPaths' test mode: never the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ZeusDesktopTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_appsettings"));
    AppSettings settings;
    QVERIFY2(!settings.fileName().isEmpty(), qPrintable(settings.fileName()));
    QVERIFY2(settings.fileName().contains(QStringLiteral(".qttest")), qPrintable(settings.fileName()));
}

void TestAppSettings::approvalPoliciesPerFolder() {
    const QString folder = QStringLiteral("/home/u/project");
    const QString other = QStringLiteral("/home/u/other");
    {
        AppSettings settings(settingsPath());
        QCOMPARE(settings.approvalPolicy(folder).mode, zeus::ApprovalMode::Auto);  // the default
        QSignalSpy changed(&settings, &AppSettings::approvalPoliciesChanged);
        settings.setApprovalMode(folder, zeus::ApprovalMode::AskUnsafe);
        QVERIFY(settings.addApprovalRule(folder, zeus::ApprovalRuleKind::Allow, QStringLiteral("  npm   run test ")));
        QVERIFY(settings.addApprovalRule(folder, zeus::ApprovalRuleKind::Allow, QStringLiteral("npm run test")));
        QVERIFY(settings.addApprovalRule(folder, zeus::ApprovalRuleKind::Deny, QStringLiteral("git push")));
        QVERIFY(!settings.addApprovalRule(folder, zeus::ApprovalRuleKind::Allow, QStringLiteral("ls && id")));
        QVERIFY(!settings.addApprovalRule(folder, zeus::ApprovalRuleKind::Allow, QStringLiteral("$(id)")));
        QVERIFY(!settings.addApprovalRule(QString(), zeus::ApprovalRuleKind::Allow, QStringLiteral("ls")));
        QCOMPARE(changed.size(), 3);
        QSignalSpy matched(&settings, &AppSettings::approvalRuleMatched);
        const QDateTime when = QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
        settings.noteApprovalRulesMatched(folder, {QStringLiteral("npm run test"), QStringLiteral("unknown")}, when);
        settings.noteApprovalRulesMatched(other, {QStringLiteral("npm run test")}, when);
        QCOMPARE(matched.size(), 1);
        QCOMPARE(changed.size(), 3);  // a "last matched" time is not a policy change
    }
    AppSettings settings(settingsPath());
    const zeus::ApprovalPolicy policy = settings.approvalPolicy(folder);
    QCOMPARE(policy.mode, zeus::ApprovalMode::AskUnsafe);
    QCOMPARE(policy.allow, QStringList{QStringLiteral("npm run test")});
    QCOMPARE(policy.deny, QStringList{QStringLiteral("git push")});
    QCOMPARE(settings.approvalRuleLastMatched(folder, QStringLiteral("npm run test")),
             QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC));
    QVERIFY(!settings.approvalRuleLastMatched(folder, QStringLiteral("git push")).isValid());
    QCOMPARE(settings.approvalPolicies().keys(), QStringList{folder});
    QCOMPARE(settings.approvalPolicy(other), zeus::ApprovalPolicy());
    settings.removeApprovalRule(folder, zeus::ApprovalRuleKind::Deny, QStringLiteral("git push"));
    QVERIFY(settings.approvalPolicy(folder).deny.isEmpty());
}

void TestAppSettings::damagedApprovalStoreIsSanitised() {
    {
        QSettings raw(settingsPath(), QSettings::IniFormat);
        raw.setValue(zeus::SettingsMigration::kVersion1ApprovalPolicies,
                     QStringLiteral(R"({"/p":{"mode":"sometimes","allow":[{"prefix":"ls"},{"prefix":"ls; rm x"},)"
                                    R"(7,{"prefix":""}],"deny":"rm"},"/q":[1,2]})"));
    }
    AppSettings settings(settingsPath());
    const zeus::ApprovalPolicy policy = settings.approvalPolicy(QStringLiteral("/p"));
    QCOMPARE(policy.mode, zeus::ApprovalMode::Auto);
    QCOMPARE(policy.allow, QStringList{QStringLiteral("ls")});
    QVERIFY(policy.deny.isEmpty());
    QCOMPARE(settings.approvalPolicy(QStringLiteral("/q")), zeus::ApprovalPolicy());
    QVERIFY(settings.addApprovalRule(QStringLiteral("/p"), zeus::ApprovalRuleKind::Deny, QStringLiteral("rm")));
    QCOMPARE(settings.approvalPolicy(QStringLiteral("/p")).deny, QStringList{QStringLiteral("rm")});
}

void TestAppSettings::workspaceModesPerFolder_data() {
    QTest::addColumn<QString>("stored");  // the raw JSON, as a hand edit or an older version may leave it
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("mode");
    QTest::newRow("nothing stored: direct") << ""
                                            << "/p"
                                            << "direct";
    QTest::newRow("review") << R"({"/p":"review"})"
                            << "/p"
                            << "review";
    QTest::newRow("keyed by the exact string") << R"({"/p":"review"})"
                                               << "/p/"
                                               << "direct";
    QTest::newRow("unknown value is direct") << R"({"/p":"copy"})"
                                             << "/p"
                                             << "direct";
    QTest::newRow("wrong type is direct") << R"({"/p":["review"]})"
                                          << "/p"
                                          << "direct";
    QTest::newRow("not JSON") << "review"
                              << "/p"
                              << "direct";
}

void TestAppSettings::workspaceModesPerFolder() {
    QFETCH(QString, stored);
    QFETCH(QString, folder);
    QFETCH(QString, mode);
    if (!stored.isEmpty()) {
        QSettings raw(settingsPath(), QSettings::IniFormat);
        raw.setValue(zeus::SettingsMigration::kVersion1WorkspaceModes, stored);
    }
    AppSettings settings(settingsPath());
    QCOMPARE(zeus::workspaceModeName(settings.workspaceMode(folder)), mode);

    // Setting and clearing: one signal per change, direct is stored as nothing.
    QSignalSpy changed(&settings, &AppSettings::workspaceModesChanged);
    settings.setWorkspaceMode(QStringLiteral("/other"), zeus::WorkspaceMode::Review);
    settings.setWorkspaceMode(QStringLiteral("/other"), zeus::WorkspaceMode::Review);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(settings.workspaceModes().value(QStringLiteral("/other")), zeus::WorkspaceMode::Review);
    settings.setWorkspaceMode(QStringLiteral(""), zeus::WorkspaceMode::Review);
    QCOMPARE(changed.size(), 1);
    settings.setWorkspaceMode(QStringLiteral("/other"), zeus::WorkspaceMode::Direct);
    QCOMPARE(changed.size(), 2);
    QVERIFY(!settings.workspaceModes().contains(QStringLiteral("/other")));
    QCOMPARE(zeus::workspaceModeName(settings.workspaceMode(folder)), mode);  // the other folder untouched
}

void TestAppSettings::copyDataFile(const QString& name) const {
    const QString source = QStringLiteral(ZEUS_TEST_DATA_DIR "/settings/") + name;
    QVERIFY2(QFile::copy(source, settingsPath()), qPrintable(source));
    QVERIFY(QFile::setPermissions(settingsPath(), QFile::ReadOwner | QFile::WriteOwner));
}

// Every value of a file the version before the settings format version wrote (tests/data/settings/README.md)
// reads back as that version read it.
void TestAppSettings::version1FileReadsBack() {
    copyDataFile(QStringLiteral("v1.conf"));
    AppSettings settings(settingsPath());
    checkVersion1Values(settings);
}

void TestAppSettings::checkVersion1Values(AppSettings& settings) const {
    const QString one = QStringLiteral("/home/user/project one");
    const QString two = QStringLiteral("/srv/Grüße");
    QCOMPARE(settings.backendUrl(), QStringLiteral("wss://backend.example.com/desktop"));
    QCOMPARE(settings.runtimePreference(), QStringLiteral("podman"));
    QCOMPARE(settings.image(), QStringLiteral("registry.example.com/zeus/sandbox:2"));
    QCOMPARE(settings.hardeningProfile(), QStringLiteral("hardened"));
    QCOMPARE(settings.execMode(), QStringLiteral("exec"));
    QCOMPARE(settings.networkMode(), QStringLiteral("allowlist"));
    QCOMPARE(settings.networkPreset(), QStringLiteral("locked"));
    QCOMPARE(settings.allowedHosts(), (QStringList{QStringLiteral("pypi.org"), QStringLiteral("*.example.com:443")}));
    QCOMPARE(settings.deniedHosts(), QStringList{QStringLiteral("evil.example.com")});
    QCOMPARE(settings.resolveOverrides(), QStringList{QStringLiteral("api.example.com:443:10.0.0.5")});
    const QHash<QString, QStringList> folderAllow{
        {one, {QStringLiteral("registry.npmjs.org"), QStringLiteral("github.com:443")}},
        {two, {QStringLiteral("crates.io")}}};
    QCOMPARE(settings.network().allFolderAllowedHosts(), folderAllow);
    QCOMPARE(settings.pidsLimit(), 256);
    QCOMPARE(settings.memoryMiB(), 4096);
    QCOMPARE(settings.cpus(), 1.5);
    QCOMPARE(settings.idleTimeoutMinutes(), 45);
    QCOMPARE(settings.sandbox().maxContainers(), 3);
    QCOMPARE(settings.sandbox().maxCallsPerSession(), 2);
    QCOMPARE(settings.sandbox().maxCallsTotal(), 5);
    QCOMPARE(settings.startAtLogin(), true);
    QCOMPARE(settings.recentFolders(), (QStringList{one, two}));
    QCOMPARE(settings.approvedWorkspaces(), (QStringList{one, two}));
    QCOMPARE(settings.installId(), QStringLiteral("1b1005ac-9645-428f-89bb-6baef394cd0d"));
    QCOMPARE(settings.deviceId(), QStringLiteral("985b61c7-0c2b-42a7-a202-cd42544496de"));

    const QHash<QString, zeus::ApprovalPolicy> policies = settings.approvalPolicies();
    QCOMPARE(policies.size(), 2);
    zeus::ApprovalPolicy first;
    first.mode = zeus::ApprovalMode::AskUnsafe;
    first.allow = QStringList{QStringLiteral("npm run test"), QStringLiteral("ls")};
    first.ask = QStringList{QStringLiteral("git commit")};
    first.deny = QStringList{QStringLiteral("git push")};
    QCOMPARE(policies.value(one), first);
    zeus::ApprovalPolicy second;
    second.mode = zeus::ApprovalMode::AskAll;
    second.deny = QStringList{QStringLiteral("rm")};
    QCOMPARE(policies.value(two), second);
    const QDateTime matched(QDate(2026, 11, 30), QTime(12, 0, 1, 250), Qt::UTC);
    QCOMPARE(settings.approvalRuleLastMatched(one, QStringLiteral("npm run test")), matched);
    QCOMPARE(settings.approvalRuleLastMatched(one, QStringLiteral("git push")), matched);
    QVERIFY(!settings.approvalRuleLastMatched(one, QStringLiteral("ls")).isValid());
    QVERIFY(!settings.approvalRuleLastMatched(two, QStringLiteral("rm")).isValid());

    QCOMPARE(settings.workspaceModes(), (QHash<QString, zeus::WorkspaceMode>{{one, zeus::WorkspaceMode::Review}}));
    QCOMPARE(settings.workspaceMode(two), zeus::WorkspaceMode::Direct);
    QCOMPARE(settings.folderPolicies().gitWriteFolders(), (QSet<QString>{one, two}));
    QCOMPARE(settings.secretNames(), (QStringList{QStringLiteral("GITHUB_TOKEN"), QStringLiteral("NPM_TOKEN")}));
    QCOMPARE(settings.secretLastUsed(QStringLiteral("NPM_TOKEN")),
             QDateTime(QDate(2026, 11, 29), QTime(8, 30), Qt::UTC));
    QVERIFY(!settings.secretLastUsed(QStringLiteral("GITHUB_TOKEN")).isValid());
    QCOMPARE(settings.secretFolderGrants(), (QHash<QString, QStringList>{{one, {QStringLiteral("NPM_TOKEN")}}}));
}

// Opening a version 1 file moves the JSON text and the map stored in one value into settings arrays, removes the
// old keys and records the format; opening it again changes nothing, and every value still reads back.
void TestAppSettings::version1FileIsMigratedOnce() {
    copyDataFile(QStringLiteral("v1.conf"));
    {
        AppSettings settings(settingsPath());
        settings.sync();
    }
    {
        QSettings raw(settingsPath(), QSettings::IniFormat);
        QCOMPARE(raw.value(QStringLiteral("app/settingsFormat")).toInt(), 2);
        for (const char* old : {"approval/folders", "workspaces/modes", "network/folderAllow"}) {
            QVERIFY2(!raw.contains(QLatin1String(old)), old);
        }
        QCOMPARE(raw.beginReadArray(QStringLiteral("approval/policies")), 2);
        raw.endArray();
        QCOMPARE(raw.beginReadArray(QStringLiteral("workspaces/folderModes")), 1);
        raw.endArray();
        QCOMPARE(raw.beginReadArray(QStringLiteral("network/folderRules")), 2);
        raw.endArray();
    }
    QFile file(settingsPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray migrated = file.readAll();
    file.close();
    QVERIFY2(!migrated.contains("{\\\""), "JSON text left in a value");
    QVERIFY2(!migrated.contains("@Variant"), "a map left in one value");

    AppSettings settings(settingsPath());
    checkVersion1Values(settings);
    settings.sync();
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), migrated);
}

// A file a newer version wrote is not migrated "back": what this version does not know stays as it is.
void TestAppSettings::newerFormatIsLeftAlone() {
    const QString modes = QStringLiteral(R"({"/p":"review"})");
    {
        QSettings raw(settingsPath(), QSettings::IniFormat);
        raw.setValue(zeus::SettingsMigration::kFormatVersion, zeus::SettingsMigration::kCurrentFormat + 1);
        raw.setValue(zeus::SettingsMigration::kVersion1WorkspaceModes, modes);
    }
    {
        AppSettings settings(settingsPath());
        QVERIFY(settings.workspaceModes().isEmpty());
    }
    QSettings raw(settingsPath(), QSettings::IniFormat);
    QCOMPARE(raw.value(zeus::SettingsMigration::kFormatVersion).toInt(), zeus::SettingsMigration::kCurrentFormat + 1);
    QCOMPARE(raw.value(zeus::SettingsMigration::kVersion1WorkspaceModes).toString(), modes);
}

QTEST_GUILESS_MAIN(TestAppSettings)
#include "tst_appsettings.moc"
