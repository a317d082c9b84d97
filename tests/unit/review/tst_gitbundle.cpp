// Bringing a review copy's commits home (docs/review-mode.md "Commits": GitBundle's ref names, HostGit's fetch), with
// the host's real git and bundles a hostile agent could write: only refs/zeus/<session>/heads|tags are written, the
// user's branches, HEAD and files are not touched, no hook of the repository runs, malformed objects are refused, a
// folder that is not a repository of its own (or whose parent is one) gets nothing, and an inherited GIT_DIR does not
// steer the fetch elsewhere.
#include "review/gitbundle.h"
#include "sandbox/review/hostgit.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace zeus;

namespace {

struct Git {
    int code = -1;
    QByteArray out;
    QByteArray err;
};

// The test's own git, as a user would run it (hooks and all): the rig, never the code under test.
Git git(const QString& dir, const QStringList& arguments, const QByteArray& input = {}) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("GIT_AUTHOR_NAME"), QStringLiteral("Test"));
    environment.insert(QStringLiteral("GIT_AUTHOR_EMAIL"), QStringLiteral("test@example.org"));
    environment.insert(QStringLiteral("GIT_COMMITTER_NAME"), QStringLiteral("Test"));
    environment.insert(QStringLiteral("GIT_COMMITTER_EMAIL"), QStringLiteral("test@example.org"));
    environment.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    environment.insert(QStringLiteral("HOME"), dir);
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(dir);
    process.start(QStringLiteral("git"), arguments);
    process.write(input);
    process.closeWriteChannel();
    process.waitForFinished(60000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAllStandardOutput(),
            process.readAllStandardError()};
}

QString rev(const QString& dir, const QString& what) {
    return QString::fromLatin1(
        git(dir, {QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"), what}).out.trimmed());
}

QStringList refsUnder(const QString& dir, const QString& prefix) {
    const QByteArray out =
        git(dir, {QStringLiteral("for-each-ref"), QStringLiteral("--format=%(refname)"), prefix}).out.trimmed();
    return out.isEmpty() ? QStringList() : QString::fromUtf8(out).split(QLatin1Char('\n'));
}

void writeFile(const QString& path, const QByteArray& data) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(data);
}

// A repository with one commit on main.
bool makeRepository(const QString& dir) {
    QDir().mkpath(dir);
    if (git(dir, {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")}).code
        != 0) {
        return false;
    }
    QFile file(dir + QStringLiteral("/README"));
    if (!file.open(QIODevice::WriteOnly)) {
        return false;
    }
    file.write("hello\n");
    file.close();
    return git(dir, {QStringLiteral("add"), QStringLiteral("README")}).code == 0
           && git(dir, {QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("one")})
                      .code
                  == 0;
}

// The agent's copy: a clone that then commits on its own.
bool makeCopy(const QString& host, const QString& copy) {
    return git(QFileInfo(copy).absolutePath(),
               {QStringLiteral("clone"), QStringLiteral("-q"), host, QFileInfo(copy).fileName()})
               .code
           == 0;
}

bool commitIn(const QString& dir, const QString& file, const QString& message) {
    QFile out(dir + QLatin1Char('/') + file);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Append)) {
        return false;
    }
    out.write(message.toUtf8() + '\n');
    out.close();
    return git(dir, {QStringLiteral("add"), file}).code == 0
           && git(dir, {QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), message}).code == 0;
}

bool bundle(const QString& dir, const QString& file, const QStringList& revisions) {
    const Git made = git(dir, QStringList{QStringLiteral("bundle"), QStringLiteral("create"), file} + revisions);
    if (made.code != 0) {
        qWarning() << made.err;
    }
    return made.code == 0;
}

}  // namespace

class TestGitBundle : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void refComponent_data();
    void refComponent();
    void refComponentsNeverCollide();
    void fetchesIntoTheSessionsRefsOnly();
    void noHookOfTheRepositoryRuns();
    void malformedObjectsAreRefused();
    void notARepositoryOfItsOwn();
    void corruptBundleIsAClearError();
    void missingPrerequisitesAreAClearError();
    void inheritedGitDirDoesNotSteerTheFetch();
    void noGitOnThisComputer();

private:
    // A user's repository (one commit on main) and the agent's copy of it.
    struct Pair {
        QString host;
        QString copy;
        QString base;  // main of both, before the agent's work
    };
    bool makePair(Pair& pair);
    // The agent commits once on main; `file` gets the bundle of that commit.
    bool agentCommitsOnce(const Pair& pair, const QString& file);

    QTemporaryDir m_dir;
    QString m_base;  // one commit on main, shared by the copies of each test
    int m_count = 0;
    QString fresh(const QString& name) { return m_dir.filePath(name + QString::number(++m_count)); }
};

bool TestGitBundle::makePair(Pair& pair) {
    pair.host = fresh(QStringLiteral("host"));
    pair.copy = fresh(QStringLiteral("copy"));
    if (!makeRepository(pair.host) || !makeCopy(pair.host, pair.copy)) {
        return false;
    }
    pair.base = rev(pair.host, QStringLiteral("main"));
    return !pair.base.isEmpty();
}

bool TestGitBundle::agentCommitsOnce(const Pair& pair, const QString& file) {
    return commitIn(pair.copy, QStringLiteral("README"), QStringLiteral("two"))
           && bundle(pair.copy, file, {QStringLiteral("main"), QStringLiteral("--not"), pair.base});
}

void TestGitBundle::initTestCase() {
    if (QStandardPaths::findExecutable(QStringLiteral("git")).isEmpty()) {
        QFAIL("git is not installed (cmake/install-deps.sh installs it)");
    }
    QVERIFY(m_dir.isValid());
}

void TestGitBundle::refComponent_data() {
    QTest::addColumn<QString>("session");
    QTest::addColumn<bool>("kept");
    QTest::newRow("uuid") << QStringLiteral("3f2b9c1e-7d4a-4e8b-9a61-0c5d2e8f1b7a") << true;
    QTest::newRow("name") << QStringLiteral("build_42.x") << true;
    QTest::newRow("dot-dot") << QStringLiteral("../../heads/main") << false;
    QTest::newRow("leading dot") << QStringLiteral(".hidden") << false;
    QTest::newRow("lock") << QStringLiteral("a.lock") << false;
    QTest::newRow("space") << QStringLiteral("a b") << false;
    QTest::newRow("reflog") << QStringLiteral("a@{1}") << false;
    QTest::newRow("newline") << QStringLiteral("a\nb") << false;
    QTest::newRow("glob") << QStringLiteral("a*") << false;
    QTest::newRow("flag") << QStringLiteral("-x") << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("hash-like") << QStringLiteral("s-0123456789abcdef0123") << false;
    QTest::newRow("too long") << QString(65, QLatin1Char('a')) << false;
    QTest::newRow("unicode") << QStringLiteral("项目") << false;
}

void TestGitBundle::refComponent() {
    QFETCH(QString, session);
    QFETCH(bool, kept);
    const QString component = GitBundle::refComponent(session);
    QCOMPARE(component == session, kept);
    // Whatever the session id, the refs under it are valid ref names git accepts as they are.
    const Git check = git(m_dir.path(), {QStringLiteral("check-ref-format"),
                                         GitBundle::refPrefix(session) + QStringLiteral("heads/main")});
    QVERIFY2(check.code == 0, qPrintable(GitBundle::refPrefix(session)));
    QVERIFY(GitBundle::refPrefix(session).startsWith(QStringLiteral("refs/zeus/")));
    QCOMPARE(GitBundle::refPrefix(session).count(QLatin1Char('/')), 3);
}

void TestGitBundle::refComponentsNeverCollide() {
    const QStringList sessions = {QStringLiteral("a b"), QStringLiteral("a_b"), QStringLiteral("a/b"),
                                  QStringLiteral("a.b"),
                                  QStringLiteral("s-") + GitBundle::refComponent(QStringLiteral("a b")).mid(2)};
    QSet<QString> seen;
    for (const QString& session : sessions) {
        seen.insert(GitBundle::refComponent(session));
    }
    QCOMPARE(seen.size(), sessions.size());
}

void TestGitBundle::fetchesIntoTheSessionsRefsOnly() {
    Pair pair;
    QVERIFY(makePair(pair));
    const QString& host = pair.host;
    const QString& copy = pair.copy;
    const QString& base = pair.base;
    QVERIFY(commitIn(copy, QStringLiteral("README"), QStringLiteral("two")));
    QVERIFY(
        git(copy, {QStringLiteral("checkout"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("feature")})
            .code
        == 0);
    QVERIFY(commitIn(copy, QStringLiteral("new.txt"), QStringLiteral("three")));
    QVERIFY(git(copy, {QStringLiteral("tag"), QStringLiteral("v1")}).code == 0);
    // Refs a hostile agent adds to reach outside its namespace: the user's remote-tracking ref, another session's.
    QVERIFY(
        git(copy, {QStringLiteral("update-ref"), QStringLiteral("refs/remotes/origin/main"), QStringLiteral("HEAD")})
            .code
        == 0);
    QVERIFY(
        git(copy, {QStringLiteral("update-ref"), QStringLiteral("refs/zeus/other/heads/main"), QStringLiteral("HEAD")})
            .code
        == 0);
    const QString file = m_dir.filePath(QStringLiteral("a.bundle"));
    QVERIFY(bundle(copy, file, {QStringLiteral("--all"), QStringLiteral("--not"), base}));

    const HostGit::FetchResult result = HostGit::fetch(host, file, QStringLiteral("s1"));
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(result.prefix, QStringLiteral("refs/zeus/s1/"));
    QStringList names;
    for (const FetchedRef& ref : result.refs) {
        names << ref.name;
        QCOMPARE(ref.objectId, rev(host, ref.name));
    }
    names.sort();
    QCOMPARE(names, QStringList({QStringLiteral("refs/zeus/s1/heads/feature"),
                                 QStringLiteral("refs/zeus/s1/heads/main"), QStringLiteral("refs/zeus/s1/tags/v1")}));
    QCOMPARE(rev(host, QStringLiteral("refs/zeus/s1/heads/feature")), rev(copy, QStringLiteral("feature")));
    QCOMPARE(rev(host, QStringLiteral("refs/zeus/s1/heads/main")), rev(copy, QStringLiteral("main")));
    // Nothing else: the user's branch, HEAD, remotes, tags, other sessions and files are as they were.
    QCOMPARE(rev(host, QStringLiteral("main")), base);
    QCOMPARE(rev(host, QStringLiteral("HEAD")), base);
    QCOMPARE(refsUnder(host, QStringLiteral("refs/remotes/")), QStringList());
    QCOMPARE(refsUnder(host, QStringLiteral("refs/tags/")), QStringList());
    QCOMPARE(refsUnder(host, QStringLiteral("refs/zeus/other/")), QStringList());
    QCOMPARE(git(host, {QStringLiteral("status"), QStringLiteral("--porcelain")}).out, QByteArray());
    QVERIFY(!QFile::exists(host + QStringLiteral("/new.txt")));
    QVERIFY(!QFile::exists(host + QStringLiteral("/.git/FETCH_HEAD")));

    // The agent rewrites its branch: the next fetch follows it (forced, inside the session's refs only).
    QVERIFY(git(copy, {QStringLiteral("reset"), QStringLiteral("-q"), QStringLiteral("--hard"), base}).code == 0);
    QVERIFY(commitIn(copy, QStringLiteral("other.txt"), QStringLiteral("rewritten")));
    QVERIFY(bundle(copy, file, {QStringLiteral("feature"), QStringLiteral("--not"), base}));
    const HostGit::FetchResult again = HostGit::fetch(host, file, QStringLiteral("s1"));
    QVERIFY2(again.ok, qPrintable(again.error));
    QCOMPARE(rev(host, QStringLiteral("refs/zeus/s1/heads/feature")), rev(copy, QStringLiteral("feature")));
}

void TestGitBundle::noHookOfTheRepositoryRuns() {
    Pair pair;
    QVERIFY(makePair(pair));
    const QString& host = pair.host;
    const QString file = m_dir.filePath(QStringLiteral("hooks.bundle"));
    QVERIFY(agentCommitsOnce(pair, file));
    const QString& base = pair.base;

    // Hooks a fetch would run, in the default folder and in a configured one.
    const QString marker = m_dir.filePath(QStringLiteral("hook-ran-") + QString::number(m_count));
    const QByteArray hook = "#!/bin/sh\necho ran >> '" + marker.toUtf8() + "'\n";
    QDir(host).mkpath(QStringLiteral("custom-hooks"));
    const QStringList hookDirs = {host + QStringLiteral("/.git/hooks"), host + QStringLiteral("/custom-hooks")};
    for (const QString& dir : hookDirs) {
        for (const QString& name : {QStringLiteral("reference-transaction"), QStringLiteral("post-checkout"),
                                    QStringLiteral("pre-auto-gc"), QStringLiteral("post-merge")}) {
            writeFile(dir + QLatin1Char('/') + name, hook);
            QFile::setPermissions(dir + QLatin1Char('/') + name,
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
    }
    QVERIFY(git(host, {QStringLiteral("config"), QStringLiteral("core.hooksPath"), QStringLiteral("custom-hooks")}).code
            == 0);
    // The rig can see a hook run: a ref update by a plain git runs reference-transaction.
    QVERIFY(git(host, {QStringLiteral("update-ref"), QStringLiteral("refs/rig/probe"), base}).code == 0);
    QVERIFY2(QFile::exists(marker), "the rig's hook did not run: this test could not see one");
    QFile::remove(marker);

    const HostGit::FetchResult result = HostGit::fetch(host, file, QStringLiteral("s2"));
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(result.refs.size(), 1);
    QVERIFY2(!QFile::exists(marker), "a hook of the repository ran during the fetch");
}

void TestGitBundle::malformedObjectsAreRefused() {
    Pair pair;
    QVERIFY(makePair(pair));
    const QString& host = pair.host;
    const QString& copy = pair.copy;
    const QString& base = pair.base;
    // A commit git's fsck rejects (a committer with no e-mail), written the way only a hand-made object can be.
    const QString tree = rev(copy, QStringLiteral("HEAD^{tree}"));
    const QByteArray bad = "tree " + tree.toLatin1() + "\nparent " + base.toLatin1()
                           + "\nauthor A <a@example.org> 1700000000 +0000\ncommitter nobody 1700000000 +0000\n\nbad\n";
    const Git written = git(copy,
                            {QStringLiteral("hash-object"), QStringLiteral("-t"), QStringLiteral("commit"),
                             QStringLiteral("-w"), QStringLiteral("--literally"), QStringLiteral("--stdin")},
                            bad);
    QCOMPARE(written.code, 0);
    const QString badCommit = QString::fromLatin1(written.out.trimmed());
    QVERIFY(git(copy, {QStringLiteral("update-ref"), QStringLiteral("refs/heads/evil"), badCommit}).code == 0);
    const QString file = m_dir.filePath(QStringLiteral("bad.bundle"));
    QVERIFY(bundle(copy, file, {QStringLiteral("evil"), QStringLiteral("--not"), base}));

    // The rig: a plain fetch without object checks takes it, so only the checks keep it out.
    const QString scratch = fresh(QStringLiteral("scratch"));
    QVERIFY(makeCopy(host, scratch));
    QCOMPARE(git(scratch, {QStringLiteral("-c"), QStringLiteral("transfer.fsckObjects=false"), QStringLiteral("fetch"),
                           QStringLiteral("-q"), file, QStringLiteral("refs/heads/evil:refs/heads/evil")})
                 .code,
             0);

    const HostGit::FetchResult result = HostGit::fetch(host, file, QStringLiteral("s3"));
    QVERIFY(!result.ok);
    QVERIFY2(result.error.contains(QStringLiteral("could not be fetched")), qPrintable(result.error));
    QCOMPARE(refsUnder(host, QStringLiteral("refs/zeus/")), QStringList());
    QVERIFY(git(host, {QStringLiteral("cat-file"), QStringLiteral("-e"), badCommit}).code != 0);
}

void TestGitBundle::notARepositoryOfItsOwn() {
    Pair pair;
    QVERIFY(makePair(pair));
    const QString& host = pair.host;
    const QString file = m_dir.filePath(QStringLiteral("sub.bundle"));
    QVERIFY(agentCommitsOnce(pair, file));

    // The approved folder is a subfolder of a repository: the repository above is not the folder's.
    const QString sub = host + QStringLiteral("/sub");
    QVERIFY(QDir().mkpath(sub));
    QVERIFY(!HostGit::isRepository(sub));
    HostGit::FetchResult result = HostGit::fetch(sub, file, QStringLiteral("s4"));
    QVERIFY(!result.ok);
    QVERIFY2(result.error.contains(QStringLiteral("not a git repository")), qPrintable(result.error));
    QCOMPARE(refsUnder(host, QStringLiteral("refs/zeus/")), QStringList());

    // A plain folder with nothing above.
    const QString plain = fresh(QStringLiteral("plain"));
    QVERIFY(QDir().mkpath(plain));
    result = HostGit::fetch(plain, file, QStringLiteral("s4"));
    QVERIFY(!result.ok);
    QVERIFY(result.error.contains(QStringLiteral("not a git repository")));
    QVERIFY(HostGit::isRepository(host));
}

void TestGitBundle::corruptBundleIsAClearError() {
    const QString host = fresh(QStringLiteral("host"));
    QVERIFY(makeRepository(host));
    const QString file = m_dir.filePath(QStringLiteral("corrupt.bundle"));
    writeFile(file, "# v2 git bundle\nnot an id refs/heads/main\n\n\x01\x02garbage");
    const HostGit::FetchResult result = HostGit::fetch(host, file, QStringLiteral("s5"));
    QVERIFY(!result.ok);
    QVERIFY2(result.error.startsWith(QStringLiteral("The copy's commits could not be")), qPrintable(result.error));
    QCOMPARE(refsUnder(host, QStringLiteral("refs/zeus/")), QStringList());
}

void TestGitBundle::missingPrerequisitesAreAClearError() {
    Pair pair;
    QVERIFY(makePair(pair));
    const QString& host = pair.host;
    const QString& copy = pair.copy;
    QVERIFY(commitIn(copy, QStringLiteral("README"), QStringLiteral("two")));
    const QString middle = rev(copy, QStringLiteral("main"));
    QVERIFY(commitIn(copy, QStringLiteral("README"), QStringLiteral("three")));
    const QString file = m_dir.filePath(QStringLiteral("prereq.bundle"));
    // The bundle needs a commit the host never had.
    QVERIFY(bundle(copy, file, {QStringLiteral("main"), QStringLiteral("--not"), middle}));
    const HostGit::FetchResult result = HostGit::fetch(host, file, QStringLiteral("s6"));
    QVERIFY(!result.ok);
    QVERIFY2(result.error.contains(QStringLiteral("prerequisite")), qPrintable(result.error));
    QCOMPARE(refsUnder(host, QStringLiteral("refs/zeus/")), QStringList());
}

void TestGitBundle::inheritedGitDirDoesNotSteerTheFetch() {
    Pair pair;
    QVERIFY(makePair(pair));
    const QString& host = pair.host;
    const QString other = fresh(QStringLiteral("other"));
    QVERIFY(makeRepository(other));
    const QString file = m_dir.filePath(QStringLiteral("env.bundle"));
    QVERIFY(agentCommitsOnce(pair, file));

    qputenv("GIT_DIR", (other + QStringLiteral("/.git")).toUtf8());
    qputenv("GIT_CONFIG_PARAMETERS", "'core.hooksPath'='/tmp'");
    const HostGit::FetchResult result = HostGit::fetch(host, file, QStringLiteral("s7"));
    qunsetenv("GIT_DIR");
    qunsetenv("GIT_CONFIG_PARAMETERS");
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(refsUnder(host, QStringLiteral("refs/zeus/s7/")),
             QStringList({QStringLiteral("refs/zeus/s7/heads/main")}));
    QCOMPARE(refsUnder(other, QStringLiteral("refs/zeus/")), QStringList());
}

void TestGitBundle::noGitOnThisComputer() {
    const QString host = fresh(QStringLiteral("host"));
    QVERIFY(makeRepository(host));
    HostGit::setGitProgram(m_dir.filePath(QStringLiteral("no-such-git")));
    const HostGit::FetchResult result = HostGit::fetch(host, m_dir.filePath(QStringLiteral("x")), QStringLiteral("s8"));
    HostGit::setGitProgram(QString());
    QVERIFY(!result.ok);
    QVERIFY2(result.error.contains(QStringLiteral("git could not be started")), qPrintable(result.error));
}

QTEST_GUILESS_MAIN(TestGitBundle)
#include "tst_gitbundle.moc"
