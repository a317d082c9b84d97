// IgnoreMatcher: gitignore syntax on a table, and the same table through git's own `git check-ignore`, so the two
// agree; then the default exclusions and how a user's `.zeusignore` can and cannot take them back.
#include "review/ignorematcher.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using zeus::IgnoreMatcher;

namespace {

const QString kNested = QStringLiteral("sub");

bool writeFile(const QString& path, const QByteArray& content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return false;
    }
    return file.write(content) == content.size();
}

}  // namespace

class TestIgnoreMatcher : public QObject {
    Q_OBJECT

private:
    static void patternTable();

private Q_SLOTS:
    void matchesTable_data() { patternTable(); }
    void matchesTable();
    void agreesWithGit_data() { patternTable(); }
    void agreesWithGit();
    void defaults_data();
    void defaults();
    void userCanTakeBackADefaultFile();
    void userCannotReachIntoADefaultFolder();
    void reportsTheDecidingLine();
    void everyDefaultHasAReason();
};

// root: the root ignore file; nested: the ignore file of "sub/"; path and isDir: the entry; ignored: git's answer.
void TestIgnoreMatcher::patternTable() {
    QTest::addColumn<QByteArray>("root");
    QTest::addColumn<QByteArray>("nested");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("isDir");
    QTest::addColumn<bool>("ignored");

    auto row = [](const char* name, const QByteArray& root, const QByteArray& nested, const QString& path, bool isDir,
                  bool ignored) { QTest::newRow(name) << root << nested << path << isDir << ignored; };

    row("name", "foo", {}, QStringLiteral("foo"), false, true);
    row("name at depth", "foo", {}, QStringLiteral("a/b/foo"), false, true);
    row("name is not a prefix", "foo", {}, QStringLiteral("foobar"), false, false);
    row("name matches a folder", "foo", {}, QStringLiteral("foo"), true, true);
    row("leading slash anchors", "/foo", {}, QStringLiteral("foo"), false, true);
    row("leading slash not deeper", "/foo", {}, QStringLiteral("a/foo"), false, false);
    row("middle slash anchors", "a/foo", {}, QStringLiteral("a/foo"), false, true);
    row("middle slash not deeper", "a/foo", {}, QStringLiteral("x/a/foo"), false, false);
    row("trailing slash: a folder", "build/", {}, QStringLiteral("build"), true, true);
    row("trailing slash: not a file", "build/", {}, QStringLiteral("build"), false, false);
    row("trailing slash: inside the folder", "build/", {}, QStringLiteral("build/x.o"), false, true);
    row("trailing slash: folder at depth", "frotz/", {}, QStringLiteral("a/frotz"), true, true);
    row("anchored folder not deeper", "doc/frotz/", {}, QStringLiteral("a/doc/frotz"), true, false);
    row("anchored folder", "doc/frotz/", {}, QStringLiteral("doc/frotz"), true, true);
    row("star", "*.o", {}, QStringLiteral("x.o"), false, true);
    row("star at depth", "*.o", {}, QStringLiteral("a/b/x.o"), false, true);
    row("star needs the suffix", "*.o", {}, QStringLiteral("x.oo"), false, false);
    row("star matches a dot file", "*", {}, QStringLiteral(".hidden"), false, true);
    row("star does not cross a slash", "a/*.o", {}, QStringLiteral("a/b/x.o"), false, false);
    row("star in an anchored pattern", "a/*.o", {}, QStringLiteral("a/x.o"), false, true);
    row("star as a folder", "a/*/c", {}, QStringLiteral("a/b/c"), false, true);
    row("star as one folder only", "a/*/c", {}, QStringLiteral("a/b/x/c"), false, false);
    row("star slash: folders only", "*/", {}, QStringLiteral("x"), true, true);
    row("star slash: not files", "*/", {}, QStringLiteral("x"), false, false);
    row("question mark", "?.txt", {}, QStringLiteral("a.txt"), false, true);
    row("question mark is one", "?.txt", {}, QStringLiteral("ab.txt"), false, false);
    row("question mark not a slash", "x/a?b", {}, QStringLiteral("x/a/b"), false, false);
    row("question mark is one byte", "?.txt", {}, QStringLiteral("项.txt"), false, false);
    row("three question marks: one CJK", "???.txt", {}, QStringLiteral("项.txt"), false, true);
    row("bracket", "[abc].txt", {}, QStringLiteral("b.txt"), false, true);
    row("bracket miss", "[abc].txt", {}, QStringLiteral("d.txt"), false, false);
    row("bracket range", "[a-c]x", {}, QStringLiteral("bx"), false, true);
    row("bracket range miss", "[a-c]x", {}, QStringLiteral("dx"), false, false);
    row("bracket negated with !", "[!a]x", {}, QStringLiteral("bx"), false, true);
    row("bracket negated with ! miss", "[!a]x", {}, QStringLiteral("ax"), false, false);
    row("bracket negated with ^", "[^a]x", {}, QStringLiteral("ax"), false, false);
    row("bracket with ] first", "[]]x", {}, QStringLiteral("]x"), false, true);
    row("bracket with - last", "[a-]x", {}, QStringLiteral("-x"), false, true);
    row("bracket class digit", "[[:digit:]]x", {}, QStringLiteral("5x"), false, true);
    row("bracket class digit miss", "[[:digit:]]x", {}, QStringLiteral("ax"), false, false);
    row("bracket class upper", "[[:upper:]]*", {}, QStringLiteral("Readme"), false, true);
    row("bracket never a slash", "a[/]b", {}, QStringLiteral("a/b"), false, false);
    row("open bracket matches nothing", "[abc", {}, QStringLiteral("[abc"), false, false);
    row("comment", "#notes", {}, QStringLiteral("#notes"), false, false);
    row("escaped hash", "\\#notes", {}, QStringLiteral("#notes"), false, true);
    row("escaped bang", "\\!important", {}, QStringLiteral("!important"), false, true);
    row("escaped star", "\\*.txt", {}, QStringLiteral("*.txt"), false, true);
    row("escaped star is literal", "\\*.txt", {}, QStringLiteral("a.txt"), false, false);
    row("escaped question mark", "a\\?", {}, QStringLiteral("ab"), false, false);
    row("negation", "*.log\n!keep.log", {}, QStringLiteral("keep.log"), false, false);
    row("negation leaves others", "*.log\n!keep.log", {}, QStringLiteral("other.log"), false, true);
    row("last line wins", "!keep.log\n*.log", {}, QStringLiteral("keep.log"), false, true);
    row("no re-include inside an excluded folder", "logs/\n!logs/keep.log", {}, QStringLiteral("logs/keep.log"), false,
        true);
    row("re-include a folder", "/*\n!/src", {}, QStringLiteral("src/main.c"), false, false);
    row("re-include a folder, others stay out", "/*\n!/src", {}, QStringLiteral("docs"), true, true);
    row("negated folder only pattern", "build/\n!build/", {}, QStringLiteral("build"), true, false);
    row("leading double star", "**/foo", {}, QStringLiteral("foo"), false, true);
    row("leading double star at depth", "**/foo", {}, QStringLiteral("a/b/foo"), false, true);
    row("leading double star with a folder", "**/foo/bar", {}, QStringLiteral("a/foo/bar"), false, true);
    row("trailing double star: inside", "abc/**", {}, QStringLiteral("abc/x/y"), false, true);
    row("trailing double star: not the folder", "abc/**", {}, QStringLiteral("abc"), true, false);
    row("middle double star: zero folders", "a/**/b", {}, QStringLiteral("a/b"), false, true);
    row("middle double star: many folders", "a/**/b", {}, QStringLiteral("a/x/y/b"), false, true);
    row("middle double star: not a name part", "a/**/b", {}, QStringLiteral("a/xb"), false, false);
    row("double star inside a name is a star", "a**b", {}, QStringLiteral("axxb"), false, true);
    row("double star inside a path is a star", "x/a**b", {}, QStringLiteral("x/a/q/b"), false, false);
    row("double star alone", "**", {}, QStringLiteral("a/b"), false, true);
    row("trailing spaces are dropped", "foo   ", {}, QStringLiteral("foo"), false, true);
    row("escaped trailing space kept", "foo\\ ", {}, QStringLiteral("foo "), false, true);
    row("escaped trailing space: not without", "foo\\ ", {}, QStringLiteral("foo"), false, false);
    row("CRLF lines", "foo\r\nbar\r\n", {}, QStringLiteral("bar"), false, true);
    row("blank lines", "\n\nfoo\n\n", {}, QStringLiteral("foo"), false, true);
    row("case sensitive", "Foo", {}, QStringLiteral("foo"), false, false);
    row("spaces in a name", "my file.txt", {}, QStringLiteral("my file.txt"), false, true);
    row("non-ASCII name", "项目*", {}, QStringLiteral("项目 a,b:c \"q\""), false, true);
    row("non-ASCII bracket", "[项]", {}, QStringLiteral("项"), false, false);
    row("nested file", {}, "*.tmp", QStringLiteral("sub/x.tmp"), false, true);
    row("nested file does not reach up", {}, "*.tmp", QStringLiteral("x.tmp"), false, false);
    row("nested anchored", {}, "/only", QStringLiteral("sub/only"), false, true);
    row("nested anchored not deeper", {}, "/only", QStringLiteral("sub/deeper/only"), false, false);
    row("nested middle slash", {}, "a/b", QStringLiteral("sub/a/b"), false, true);
    row("nested overrides root", "*.tmp", "!keep.tmp", QStringLiteral("sub/keep.tmp"), false, false);
    row("nested override stays nested", "*.tmp", "!keep.tmp", QStringLiteral("keep.tmp"), false, true);
    row("root pattern naming the nested path", "sub/x", {}, QStringLiteral("sub/x"), false, true);
    row("root excludes the nested folder", "sub/", "!x", QStringLiteral("sub/x"), false, true);
}

void TestIgnoreMatcher::matchesTable() {
    QFETCH(QByteArray, root);
    QFETCH(QByteArray, nested);
    QFETCH(QString, path);
    QFETCH(bool, isDir);
    QFETCH(bool, ignored);

    IgnoreMatcher matcher(false);
    matcher.addPatterns(QString(), root);
    matcher.addPatterns(kNested, nested);
    QCOMPARE(matcher.isIgnored(path, isDir), ignored);
}

// The same table through git itself: creates the entry and both ignore files in a fresh repository and asks
// `git check-ignore`. A wrong row in the table or a disagreement of the matcher fails here.
void TestIgnoreMatcher::agreesWithGit() {
    QFETCH(QByteArray, root);
    QFETCH(QByteArray, nested);
    QFETCH(QString, path);
    QFETCH(bool, isDir);
    QFETCH(bool, ignored);

    if (QStandardPaths::findExecutable(QStringLiteral("git")).isEmpty()) {
        if (zeus::test::isCi()) {
            QFAIL("git is not installed: the matcher cannot be checked against git check-ignore");
        }
        QSKIP("git is not installed");
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const zeus::test::ProcessOutput init =
        zeus::test::runProgram(QStringLiteral("git"), {QStringLiteral("init"), QStringLiteral("-q"), dir.path()});
    QVERIFY2(init.exitCode == 0, init.err.constData());
    QVERIFY(writeFile(dir.filePath(QStringLiteral(".gitignore")), root));
    QVERIFY(writeFile(dir.filePath(kNested + QStringLiteral("/.gitignore")), nested));
    if (isDir) {
        QVERIFY(QDir().mkpath(dir.filePath(path)));
    } else {
        QVERIFY(writeFile(dir.filePath(path), "x"));
    }

    // The user's own excludes file and case folding must not change git's answer.
    const QString noExcludes = dir.filePath(QStringLiteral("no-such-excludes-file"));
    const zeus::test::ProcessOutput check = zeus::test::runProgram(
        QStringLiteral("git"),
        {QStringLiteral("-C"), dir.path(), QStringLiteral("-c"), QStringLiteral("core.excludesFile=") + noExcludes,
         QStringLiteral("-c"), QStringLiteral("core.ignoreCase=false"), QStringLiteral("check-ignore"),
         QStringLiteral("-q"), QStringLiteral("--no-index"), QStringLiteral("--"), path});
    QVERIFY2(check.exitCode == 0 || check.exitCode == 1, check.err.constData());
    const bool gitSays = check.exitCode == 0;
    QCOMPARE(gitSays, ignored);

    IgnoreMatcher matcher(false);
    matcher.addPatterns(QString(), root);
    matcher.addPatterns(kNested, nested);
    QCOMPARE(matcher.isIgnored(path, isDir), gitSays);
}

void TestIgnoreMatcher::defaults_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("isDir");
    QTest::addColumn<bool>("ignored");

    auto row = [](const QString& path, bool isDir, bool ignored) {
        QTest::newRow(qPrintable(path + (isDir ? QStringLiteral("/") : QString()))) << path << isDir << ignored;
    };
    row(QStringLiteral(".env"), false, true);
    row(QStringLiteral("app/.env"), false, true);
    row(QStringLiteral(".env.local"), false, true);
    row(QStringLiteral(".env.production"), false, true);
    row(QStringLiteral(".ENV"), false, true);
    row(QStringLiteral(".envrc"), false, true);
    row(QStringLiteral("env"), false, false);
    row(QStringLiteral(".environment"), false, false);
    row(QStringLiteral("src/env.ts"), false, false);
    row(QStringLiteral("server.pem"), false, true);
    row(QStringLiteral("certs/server.key"), false, true);
    row(QStringLiteral("keys.key.txt"), false, false);
    row(QStringLiteral("id_rsa"), false, true);
    row(QStringLiteral("deploy/id_rsa.pub"), false, true);
    row(QStringLiteral("id_ed25519"), false, true);
    row(QStringLiteral("id_ecdsa"), false, true);
    row(QStringLiteral("store.p12"), false, true);
    row(QStringLiteral("store.PFX"), false, true);
    row(QStringLiteral("release.keystore"), false, true);
    row(QStringLiteral(".npmrc"), false, true);
    row(QStringLiteral("web/.npmrc"), false, true);
    row(QStringLiteral(".netrc"), false, true);
    row(QStringLiteral(".pypirc"), false, true);
    row(QStringLiteral(".git-credentials"), false, true);
    row(QStringLiteral(".aws"), true, true);
    row(QStringLiteral(".aws/credentials"), false, true);
    row(QStringLiteral(".ssh"), true, true);
    row(QStringLiteral("home/.ssh/config"), false, true);
    row(QStringLiteral(".ssh"), false, false);
    row(QStringLiteral(".docker/config.json"), false, true);
    row(QStringLiteral("ci/.docker/config.json"), false, true);
    row(QStringLiteral(".docker/daemon.json"), false, false);
    row(QStringLiteral(".config/gcloud"), true, true);
    row(QStringLiteral("infra/terraform.tfstate"), false, true);
    row(QStringLiteral("infra/terraform.tfstate.backup"), false, true);
    row(QStringLiteral("src/main.c"), false, false);
    row(QStringLiteral("README.md"), false, false);
    row(QStringLiteral(".gitignore"), false, false);
    row(QStringLiteral(".zeusignore"), false, false);
    row(QStringLiteral(".git"), true, false);
    row(QStringLiteral(".git/config"), false, false);
    row(QStringLiteral("package.json"), false, false);
    row(QStringLiteral("项目 a,b:c \"q\""), false, false);
}

void TestIgnoreMatcher::defaults() {
    QFETCH(QString, path);
    QFETCH(bool, isDir);
    QFETCH(bool, ignored);

    const IgnoreMatcher matcher;
    QCOMPARE(matcher.isIgnored(path, isDir), ignored);
}

void TestIgnoreMatcher::userCanTakeBackADefaultFile() {
    IgnoreMatcher matcher;
    matcher.addPatterns(QString(), "!.env.example\n");
    QVERIFY(!matcher.isIgnored(QStringLiteral(".env.example"), false));
    QVERIFY(matcher.isIgnored(QStringLiteral(".env.local"), false));
    QVERIFY(matcher.isIgnored(QStringLiteral(".env"), false));
}

void TestIgnoreMatcher::userCannotReachIntoADefaultFolder() {
    IgnoreMatcher matcher;
    matcher.addPatterns(QString(), "!.ssh/config\n!config\n");
    QVERIFY(matcher.isIgnored(QStringLiteral(".ssh/config"), false));
}

void TestIgnoreMatcher::reportsTheDecidingLine() {
    IgnoreMatcher matcher;
    matcher.addPatterns(QString(), "*.log\n");
    matcher.addPatterns(QStringLiteral("a/b"), "!keep.log\n");

    const IgnoreMatcher::Match fromDefault = matcher.match(QStringLiteral("x/.env"), false);
    QVERIFY(fromDefault.ignored);
    QCOMPARE(fromDefault.pattern, QStringLiteral(".env"));
    QCOMPARE(fromDefault.source, QStringLiteral("(default)"));

    const IgnoreMatcher::Match nested = matcher.match(QStringLiteral("a/b/keep.log"), false);
    QVERIFY(!nested.ignored);
    QCOMPARE(nested.pattern, QStringLiteral("!keep.log"));
    QCOMPARE(nested.source, QStringLiteral("a/b"));

    const IgnoreMatcher::Match folder = matcher.match(QStringLiteral(".aws/config/x"), false);
    QVERIFY(folder.ignored);
    QCOMPARE(folder.pattern, QStringLiteral(".aws/"));

    const IgnoreMatcher::Match none = matcher.match(QStringLiteral("src/a.c"), false);
    QVERIFY(!none.ignored);
    QVERIFY(none.pattern.isEmpty());
}

void TestIgnoreMatcher::everyDefaultHasAReason() {
    QFile doc(QStringLiteral(ZEUS_SOURCE_DIR "/docs/review-mode.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(doc.readAll());
    for (const IgnoreMatcher::DefaultExclusion& exclusion : IgnoreMatcher::defaultExclusions()) {
        QVERIFY2(!exclusion.reason.isEmpty(), qPrintable(exclusion.pattern));
        const QString listed = QLatin1Char('`') + exclusion.pattern + QLatin1Char('`');
        QVERIFY2(text.contains(listed),
                 qPrintable(exclusion.pattern + QStringLiteral(" is not in docs/review-mode.md")));
    }
}

QTEST_GUILESS_MAIN(TestIgnoreMatcher)
#include "tst_ignorematcher.moc"
