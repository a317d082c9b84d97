// WorkspaceGuard: every rule of SPEC §3, against real folders in a temporary tree whose
// "home" is injected, so the real home folder is never involved.
#include "sandbox/workspaceguard.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using zeus::WorkspaceGuard;
using Rule = WorkspaceGuard::Rule;

Q_DECLARE_METATYPE(WorkspaceGuard::Rule)

class TestWorkspaceGuard : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void rules_data();
    void rules();
    void acceptsUnusualNames_data();
    void acceptsUnusualNames();
    void missingFolderIsNotCreated();
    void symlinkIntoHomeIsRefused();
    void symlinkIntoSecretStoreIsRefused();
    void caseInsensitiveComparison();
    void windowsPaths_data();  // and macOS: location rules on resolved paths
    void windowsPaths();
    void everyRuleHasAName();

private:
    QTemporaryDir m_root;
    QString m_home;
    WorkspaceGuard::Environment m_env;
};

void TestWorkspaceGuard::initTestCase() {
    QVERIFY(m_root.isValid());
    m_home = QFileInfo(m_root.path()).canonicalFilePath() + QStringLiteral("/home/alice");
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/projects/app")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.ssh/keys")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.config/gh")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.local/share/keyrings")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/Library/Keychains")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.local/bin")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/bin")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.mozilla/firefox")));
    QFile file(m_home + QStringLiteral("/projects/notes.txt"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("x");
    m_env.homePath = m_home;
    m_env.caseInsensitive = false;
}

void TestWorkspaceGuard::rules_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<Rule>("rule");
    const QString h = QFileInfo(m_root.path()).canonicalFilePath() + QStringLiteral("/home/alice");
    QTest::newRow("project") << h + QStringLiteral("/projects/app") << Rule::Accepted;
    QTest::newRow("project trailing slash") << h + QStringLiteral("/projects/app/") << Rule::Accepted;
    QTest::newRow("empty") << QString() << Rule::Empty;
    QTest::newRow("blank") << QStringLiteral("  ") << Rule::Empty;
    QTest::newRow("relative") << QStringLiteral("projects/app") << Rule::NotAbsolute;
    QTest::newRow("newline") << h + QStringLiteral("/projects/app\n") << Rule::ControlCharacter;
    QTest::newRow("tab") << h + QStringLiteral("/pro\tjects") << Rule::ControlCharacter;
    QTest::newRow("escape") << h + QStringLiteral("/x\x1b[2J") << Rule::ControlCharacter;
    QTest::newRow("missing") << h + QStringLiteral("/projects/missing") << Rule::NotFound;
    QTest::newRow("file") << h + QStringLiteral("/projects/notes.txt") << Rule::NotADirectory;
    QTest::newRow("root") << QStringLiteral("/") << Rule::FileSystemRoot;
    QTest::newRow("root dotted") << QStringLiteral("/tmp/..") << Rule::FileSystemRoot;
    QTest::newRow("home") << h << Rule::HomeOrAncestor;
    QTest::newRow("home dotted") << h + QStringLiteral("/projects/..") << Rule::HomeOrAncestor;
    QTest::newRow("home parent") << QFileInfo(h).path() << Rule::HomeOrAncestor;
    QTest::newRow("home grandparent") << QFileInfo(m_root.path()).canonicalFilePath() << Rule::HomeOrAncestor;
    QTest::newRow("ssh") << h + QStringLiteral("/.ssh") << Rule::SecretStore;
    QTest::newRow("inside ssh") << h + QStringLiteral("/.ssh/keys") << Rule::SecretStore;
    QTest::newRow("config") << h + QStringLiteral("/.config/gh") << Rule::SecretStore;
    QTest::newRow("keyrings") << h + QStringLiteral("/.local/share/keyrings") << Rule::SecretStore;
    QTest::newRow("keychains") << h + QStringLiteral("/Library/Keychains") << Rule::SecretStore;
    QTest::newRow("etc") << QStringLiteral("/etc") << Rule::SystemTree;
    QTest::newRow("usr") << QStringLiteral("/usr") << Rule::SystemTree;
    QTest::newRow("usr/share") << QStringLiteral("/usr/share") << Rule::SystemTree;
    QTest::newRow("bin") << QStringLiteral("/bin") << Rule::SystemTree;  // a symlink to usr/bin on Debian 12
    QTest::newRow("proc") << QStringLiteral("/proc") << Rule::SystemTree;
    QTest::newRow("dev") << QStringLiteral("/dev") << Rule::SystemTree;
    QTest::newRow("var") << QStringLiteral("/var") << Rule::SystemTree;
    QTest::newRow("boot") << QStringLiteral("/boot") << Rule::SystemTree;
    // /tmp itself (the X11 socket lives there), programs the host runs, browser profiles.
    QTest::newRow("tmp itself") << QStringLiteral("/tmp") << Rule::SystemTree;
    QTest::newRow("tmp dotted") << QStringLiteral("/tmp/.") << Rule::SystemTree;
    QTest::newRow("local bin") << h + QStringLiteral("/.local/bin") << Rule::SecretStore;
    QTest::newRow("home bin") << h + QStringLiteral("/bin") << Rule::SecretStore;
    QTest::newRow("firefox profile") << h + QStringLiteral("/.mozilla/firefox") << Rule::SecretStore;
}

void TestWorkspaceGuard::rules() {
    QFETCH(QString, path);
    QFETCH(Rule, rule);
    if (!path.isEmpty() && path.startsWith(QLatin1Char('/')) && !path.contains(QLatin1Char('\n'))
        && !path.contains(QLatin1Char('\t')) && !path.contains(QChar(0x1b)) && rule != Rule::NotFound
        && !QFileInfo::exists(path)) {
        QSKIP("this system folder does not exist here");
    }
    const WorkspaceGuard::Result result = WorkspaceGuard::check(path, m_env);
    QCOMPARE(WorkspaceGuard::ruleName(result.rule), WorkspaceGuard::ruleName(rule));
    QCOMPARE(result.accepted(), rule == Rule::Accepted);
    if (rule == Rule::Accepted) {
        QCOMPARE(result.canonicalPath, m_home + QStringLiteral("/projects/app"));
        QVERIFY(result.message.isEmpty());
    } else {
        QVERIFY2(!result.message.isEmpty(), "a refusal must say why");
    }
}

void TestWorkspaceGuard::acceptsUnusualNames_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("spaces") << QStringLiteral("my project");
    QTest::newRow("comma colon") << QStringLiteral("a,b:c");
    QTest::newRow("quotes") << QStringLiteral("say \"hi\" it's");
    QTest::newRow("non-ascii") << QStringLiteral("项目 a,b:c");
    QTest::newRow("dollar backtick") << QStringLiteral("$(rm -rf) `x`");
    QTest::newRow("leading dash") << QStringLiteral("-rf");
    QTest::newRow("equals") << QStringLiteral("source=x,target=y");
}

void TestWorkspaceGuard::acceptsUnusualNames() {
    QFETCH(QString, name);
    const QString path = m_home + QStringLiteral("/projects/") + name;
    QVERIFY(QDir().mkpath(path));
    const WorkspaceGuard::Result result = WorkspaceGuard::check(path, m_env);
    QVERIFY2(result.accepted(), qPrintable(result.message));
    QCOMPARE(result.canonicalPath, path);
}

void TestWorkspaceGuard::missingFolderIsNotCreated() {
    const QString path = m_home + QStringLiteral("/projects/never/created");
    QCOMPARE(WorkspaceGuard::check(path, m_env).rule, Rule::NotFound);
    QVERIFY(!QFileInfo::exists(path));
    QVERIFY(!QFileInfo::exists(m_home + QStringLiteral("/projects/never")));
}

void TestWorkspaceGuard::symlinkIntoHomeIsRefused() {
    const QString link = m_home + QStringLiteral("/projects/link-to-home");
    QVERIFY(QFile::link(m_home, link));
    const WorkspaceGuard::Result result = WorkspaceGuard::check(link, m_env);
    QCOMPARE(result.rule, Rule::HomeOrAncestor);
    QCOMPARE(result.canonicalPath, m_home);
    const QString rootLink = m_home + QStringLiteral("/projects/link-to-root");
    QVERIFY(QFile::link(QStringLiteral("/"), rootLink));
    QCOMPARE(WorkspaceGuard::check(rootLink, m_env).rule, Rule::FileSystemRoot);
    const QString etcLink = m_home + QStringLiteral("/projects/link-to-etc");
    QVERIFY(QFile::link(QStringLiteral("/etc"), etcLink));
    QCOMPARE(WorkspaceGuard::check(etcLink, m_env).rule, Rule::SystemTree);
}

void TestWorkspaceGuard::symlinkIntoSecretStoreIsRefused() {
    const QString link = m_home + QStringLiteral("/projects/keys");
    QVERIFY(QFile::link(m_home + QStringLiteral("/.ssh/keys"), link));
    QCOMPARE(WorkspaceGuard::check(link, m_env).rule, Rule::SecretStore);
    // A symlinked home: the guard compares resolved paths on both sides.
    const QString homeLink = QFileInfo(m_root.path()).canonicalFilePath() + QStringLiteral("/home-link");
    QVERIFY(QFile::link(m_home, homeLink));
    WorkspaceGuard::Environment env = m_env;
    env.homePath = homeLink;
    QCOMPARE(WorkspaceGuard::check(m_home + QStringLiteral("/.ssh"), env).rule, Rule::SecretStore);
    QCOMPARE(WorkspaceGuard::check(m_home, env).rule, Rule::HomeOrAncestor);
    QCOMPARE(WorkspaceGuard::check(m_home + QStringLiteral("/projects/app"), env).rule, Rule::Accepted);
}

void TestWorkspaceGuard::caseInsensitiveComparison() {
    // On a case-insensitive file system ~/.SSH is ~/.ssh. Simulate it with an upper-case
    // folder and an environment that says names compare without case.
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.SSH")));
    WorkspaceGuard::Environment env = m_env;
    QCOMPARE(WorkspaceGuard::check(m_home + QStringLiteral("/.SSH"), env).rule, Rule::Accepted);
    env.caseInsensitive = true;
    QCOMPARE(WorkspaceGuard::check(m_home + QStringLiteral("/.SSH"), env).rule, Rule::SecretStore);
    env.homePath = m_home.toUpper();  // a home spelled in another case (no such folder on Linux)
    QCOMPARE(WorkspaceGuard::check(m_home, env).rule, Rule::HomeOrAncestor);
}

void TestWorkspaceGuard::windowsPaths_data() {
    // Paths of other platforms cannot exist here: the location rules are checked on them
    // as already-resolved paths.
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("home");
    QTest::addColumn<bool>("caseInsensitive");
    QTest::addColumn<Rule>("rule");
    const QString winHome = QStringLiteral("C:/Users/bob");
    const QString macHome = QStringLiteral("/Users/bob");
    QTest::newRow("C root") << QStringLiteral("C:/") << winHome << true << Rule::DriveRoot;
    QTest::newRow("d root no slash") << QStringLiteral("d:") << winHome << true << Rule::DriveRoot;
    QTest::newRow("unc share") << QStringLiteral("//server/share") << winHome << true << Rule::DriveRoot;
    QTest::newRow("windows") << QStringLiteral("C:/Windows") << winHome << true << Rule::SystemTree;
    QTest::newRow("system32 lower") << QStringLiteral("c:/windows/system32") << winHome << true << Rule::SystemTree;
    QTest::newRow("program files on D") << QStringLiteral("D:/Program Files/App") << winHome << true
                                        << Rule::SystemTree;
    QTest::newRow("programdata") << QStringLiteral("C:/ProgramData") << winHome << true << Rule::SystemTree;
    QTest::newRow("users") << QStringLiteral("C:/Users") << winHome << true << Rule::HomeOrAncestor;
    QTest::newRow("win home other case") << QStringLiteral("c:/users/BOB") << winHome << true << Rule::HomeOrAncestor;
    QTest::newRow("win ssh") << QStringLiteral("C:/Users/Bob/.SSH/keys") << winHome << true << Rule::SecretStore;
    QTest::newRow("appdata") << QStringLiteral("C:/Users/bob/AppData/Roaming") << winHome << true << Rule::SecretStore;
    QTest::newRow("win project") << QStringLiteral("C:/Users/bob/src/app") << winHome << true << Rule::Accepted;
    QTest::newRow("win backslashes") << QStringLiteral("C:\\Users\\bob\\src") << winHome << true << Rule::Accepted;
    QTest::newRow("win backslash system")
        << QStringLiteral("C:\\Windows\\System32") << winHome << true << Rule::SystemTree;
    QTest::newRow("unc backslashes") << QStringLiteral("\\\\server\\share") << winHome << true << Rule::DriveRoot;
    QTest::newRow("mac launch agents") << QStringLiteral("/Users/bob/Library/LaunchAgents") << macHome << true
                                       << Rule::SecretStore;
    QTest::newRow("mac safari") << QStringLiteral("/Users/bob/Library/Safari") << macHome << true << Rule::SecretStore;
    // Root's home is /root, a system tree: a folder inside the home folder is accepted like anywhere else.
    const QString rootHome = QStringLiteral("/root");
    QTest::newRow("root home project") << QStringLiteral("/root/ZeusWorkspace") << rootHome << false << Rule::Accepted;
    QTest::newRow("root home itself") << QStringLiteral("/root") << rootHome << false << Rule::HomeOrAncestor;
    QTest::newRow("root home ssh") << QStringLiteral("/root/.ssh") << rootHome << false << Rule::SecretStore;
    QTest::newRow("root home local bin") << QStringLiteral("/root/.local/bin") << rootHome << false
                                         << Rule::SecretStore;
    QTest::newRow("root home etc") << QStringLiteral("/etc/ssl") << rootHome << false << Rule::SystemTree;
    QTest::newRow("other user's root") << QStringLiteral("/root/ZeusWorkspace") << QStringLiteral("/home/alice")
                                       << false << Rule::SystemTree;
    QTest::newRow("service home project")
        << QStringLiteral("/var/lib/svc/project") << QStringLiteral("/var/lib/svc") << false << Rule::Accepted;
    QTest::newRow("service home sibling")
        << QStringLiteral("/var/lib/other") << QStringLiteral("/var/lib/svc") << false << Rule::SystemTree;
    QTest::newRow("mac private tmp") << QStringLiteral("/private/tmp") << macHome << true << Rule::SystemTree;
    QTest::newRow("mac folder in tmp") << QStringLiteral("/private/tmp/project") << macHome << true << Rule::Accepted;
    QTest::newRow("folder in tmp") << QStringLiteral("/tmp/project") << macHome << false << Rule::Accepted;
    QTest::newRow("mac keychains") << QStringLiteral("/Users/bob/Library/Keychains") << macHome << true
                                   << Rule::SecretStore;
    QTest::newRow("mac system") << QStringLiteral("/System/Library") << macHome << true << Rule::SystemTree;
    QTest::newRow("mac private etc") << QStringLiteral("/private/etc/ssh") << macHome << true << Rule::SystemTree;
    QTest::newRow("mac library other case") << QStringLiteral("/library/Caches") << macHome << true << Rule::SystemTree;
    QTest::newRow("mac library case-sensitive")
        << QStringLiteral("/library/Caches") << macHome << false << Rule::Accepted;
    QTest::newRow("mac project") << QStringLiteral("/Users/bob/Projects/x") << macHome << true << Rule::Accepted;
}

void TestWorkspaceGuard::windowsPaths() {
    QFETCH(QString, path);
    QFETCH(QString, home);
    QFETCH(bool, caseInsensitive);
    QFETCH(Rule, rule);
    WorkspaceGuard::Environment env;
    env.homePath = home;
    env.caseInsensitive = caseInsensitive;
    const WorkspaceGuard::Result result = WorkspaceGuard::checkResolved(path, env);
    QCOMPARE(WorkspaceGuard::ruleName(result.rule), WorkspaceGuard::ruleName(rule));
}

void TestWorkspaceGuard::everyRuleHasAName() {
    QSet<QString> names;
    for (int r = int(Rule::Accepted); r <= int(Rule::SecretStore); ++r) {
        names.insert(WorkspaceGuard::ruleName(static_cast<Rule>(r)));
    }
    QCOMPARE(names.size(), int(Rule::SecretStore) + 1);
    QVERIFY(!names.contains(QStringLiteral("unknown")));
}

QTEST_GUILESS_MAIN(TestWorkspaceGuard)
#include "tst_workspaceguard.moc"
