// ChangeSet: what changed between a baseline and the copy, which changes make the host run code, and what is never
// applied as files; on tables.
#include "manifestentries.h"
#include "review/changeset.h"

#include <QFile>
#include <QTest>

using zeus::Change;
using zeus::ChangeSet;
using zeus::ManifestEntry;
using zeus::WorkspaceManifest;
using zeus::test::dirEntry;
using zeus::test::fileEntry;
using zeus::test::linkEntry;

Q_DECLARE_METATYPE(zeus::ManifestEntry)

namespace {

QString kindName(Change::Kind kind) {
    switch (kind) {
        case Change::Kind::Added:
            return QStringLiteral("added");
        case Change::Kind::Modified:
            return QStringLiteral("modified");
        case Change::Kind::Deleted:
            return QStringLiteral("deleted");
        case Change::Kind::ModeChanged:
            return QStringLiteral("mode");
        case Change::Kind::TypeChanged:
            return QStringLiteral("type");
    }
    return {};
}

// "kind path", then " flagged" and " git" (never applied as files: inside .git) or " refused" (never applied: a
// name Windows reads as another) when they hold.
QString describe(const Change& change) {
    QString text = kindName(change.kind) + QLatin1Char(' ') + change.path;
    if (change.flagged) {
        text += QStringLiteral(" flagged");
    }
    if (!change.applicable) {
        text += ChangeSet::isGitInternal(change.path) ? QStringLiteral(" git") : QStringLiteral(" refused");
    }
    return text;
}

using Entries = QList<ManifestEntry>;

}  // namespace

class TestChangeSet : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void compute_data();
    void compute();
    void keepsBothSidesAndReasons();
    void hostRunsCode_data();
    void hostRunsCode();
    void linkLeavesFolder_data();
    void linkLeavesFolder();
    void windowsNames_data();
    void windowsNames();
    void windowsNamesRefusedBeforeGitAndRiskyRules();
    void everyRiskyPatternIsDocumented();
};

void TestChangeSet::compute_data() {
    QTest::addColumn<Entries>("before");
    QTest::addColumn<Entries>("after");
    QTest::addColumn<QByteArray>("zeusignore");
    QTest::addColumn<QStringList>("expected");

    const ManifestEntry readme = fileEntry(QStringLiteral("README.md"), "hello\n");
    QTest::newRow("nothing changed") << Entries{readme, dirEntry(QStringLiteral("src"))}
                                     << Entries{readme, dirEntry(QStringLiteral("src"))} << QByteArray()
                                     << QStringList{};
    QTest::newRow("added") << Entries{readme} << Entries{readme, fileEntry(QStringLiteral("new.txt"), "n")}
                           << QByteArray() << QStringList{QStringLiteral("added new.txt")};
    QTest::newRow("deleted") << Entries{readme, fileEntry(QStringLiteral("old.txt"), "o")} << Entries{readme}
                             << QByteArray() << QStringList{QStringLiteral("deleted old.txt")};
    QTest::newRow("modified") << Entries{readme} << Entries{fileEntry(QStringLiteral("README.md"), "changed\n")}
                              << QByteArray() << QStringList{QStringLiteral("modified README.md")};
    QTest::newRow("same size, other bytes")
        << Entries{fileEntry(QStringLiteral("a"), "abc")} << Entries{fileEntry(QStringLiteral("a"), "abd")}
        << QByteArray() << QStringList{QStringLiteral("modified a")};
    QTest::newRow("exec bit set is flagged")
        << Entries{fileEntry(QStringLiteral("run.sh"), "x")} << Entries{fileEntry(QStringLiteral("run.sh"), "x", 0755)}
        << QByteArray() << QStringList{QStringLiteral("mode run.sh flagged")};
    QTest::newRow("exec bit cleared") << Entries{fileEntry(QStringLiteral("run.sh"), "x", 0755)}
                                      << Entries{fileEntry(QStringLiteral("run.sh"), "x")} << QByteArray()
                                      << QStringList{QStringLiteral("mode run.sh")};
    QTest::newRow("other mode bits are not a change")
        << Entries{fileEntry(QStringLiteral("a"), "x", 0644)} << Entries{fileEntry(QStringLiteral("a"), "x", 0600)}
        << QByteArray() << QStringList{};
    QTest::newRow("content and exec bit")
        << Entries{fileEntry(QStringLiteral("run"), "x")} << Entries{fileEntry(QStringLiteral("run"), "y", 0700)}
        << QByteArray() << QStringList{QStringLiteral("modified run flagged")};
    QTest::newRow("added executable") << Entries{} << Entries{fileEntry(QStringLiteral("tool"), "#!", 0755)}
                                      << QByteArray() << QStringList{QStringLiteral("added tool flagged")};
    QTest::newRow("file became a folder")
        << Entries{fileEntry(QStringLiteral("x"), "x")}
        << Entries{dirEntry(QStringLiteral("x")), fileEntry(QStringLiteral("x/y"), "y")} << QByteArray()
        << QStringList{QStringLiteral("type x"), QStringLiteral("added x/y")};
    QTest::newRow("file became a link") << Entries{fileEntry(QStringLiteral("x"), "x")}
                                        << Entries{linkEntry(QStringLiteral("x"), QStringLiteral("y"))} << QByteArray()
                                        << QStringList{QStringLiteral("type x")};
    QTest::newRow("link retargeted") << Entries{linkEntry(QStringLiteral("l"), QStringLiteral("a"))}
                                     << Entries{linkEntry(QStringLiteral("l"), QStringLiteral("b"))} << QByteArray()
                                     << QStringList{QStringLiteral("modified l")};
    QTest::newRow("link to /etc/passwd") << Entries{}
                                         << Entries{linkEntry(QStringLiteral("p"), QStringLiteral("/etc/passwd"))}
                                         << QByteArray() << QStringList{QStringLiteral("added p flagged")};
    QTest::newRow("link climbing out") << Entries{}
                                       << Entries{linkEntry(QStringLiteral("a/p"), QStringLiteral("../../x"))}
                                       << QByteArray() << QStringList{QStringLiteral("added a/p flagged")};
    QTest::newRow("link inside") << Entries{}
                                 << Entries{linkEntry(QStringLiteral("a/p"), QStringLiteral("../README.md"))}
                                 << QByteArray() << QStringList{QStringLiteral("added a/p")};
    // A link that climbs out through another link (SPEC §10): `d/b` is the folder itself, so `d/b/../..` is its
    // parent, whatever the text of `a` looks like on its own. Both links are flagged: `d/b` is the way out.
    QTest::newRow("link chain out of the folder")
        << Entries{dirEntry(QStringLiteral("d"))}
        << Entries{dirEntry(QStringLiteral("d")), linkEntry(QStringLiteral("d/b"), QStringLiteral("..")),
                   linkEntry(QStringLiteral("a"), QStringLiteral("d/b/../../.ssh"))}
        << QByteArray() << QStringList{QStringLiteral("added a flagged"), QStringLiteral("added d/b flagged")};
    QTest::newRow("link chain through a baseline link")
        << Entries{dirEntry(QStringLiteral("d")), linkEntry(QStringLiteral("d/b"), QStringLiteral(".."))}
        << Entries{dirEntry(QStringLiteral("d")), linkEntry(QStringLiteral("d/b"), QStringLiteral("..")),
                   linkEntry(QStringLiteral("a"), QStringLiteral("d/b/../../.ssh"))}
        << QByteArray() << QStringList{QStringLiteral("added a flagged")};
    QTest::newRow("link to a baseline link that leaves")
        << Entries{linkEntry(QStringLiteral("out"), QStringLiteral("/etc"))}
        << Entries{linkEntry(QStringLiteral("out"), QStringLiteral("/etc")),
                   linkEntry(QStringLiteral("a"), QStringLiteral("out"))}
        << QByteArray() << QStringList{QStringLiteral("added a flagged")};
    QTest::newRow("a folder made a link lets an old link out")
        << Entries{dirEntry(QStringLiteral("d")), dirEntry(QStringLiteral("d/b")),
                   linkEntry(QStringLiteral("a"), QStringLiteral("d/b/../../x"))}
        << Entries{dirEntry(QStringLiteral("d")), linkEntry(QStringLiteral("d/b"), QStringLiteral("..")),
                   linkEntry(QStringLiteral("a"), QStringLiteral("d/b/../../x"))}
        << QByteArray() << QStringList{QStringLiteral("type d/b flagged")};
    QTest::newRow("link loop") << Entries{}
                               << Entries{linkEntry(QStringLiteral("a"), QStringLiteral("b")),
                                          linkEntry(QStringLiteral("b"), QStringLiteral("a"))}
                               << QByteArray()
                               << QStringList{QStringLiteral("added a flagged"), QStringLiteral("added b flagged")};
    QTest::newRow("link chain that stays inside")
        << Entries{}
        << Entries{dirEntry(QStringLiteral("d")), linkEntry(QStringLiteral("d/b"), QStringLiteral(".")),
                   linkEntry(QStringLiteral("a"), QStringLiteral("d/b/../x")),
                   linkEntry(QStringLiteral("c"), QStringLiteral("a"))}
        << QByteArray()
        << QStringList{QStringLiteral("added a"), QStringLiteral("added c"), QStringLiteral("added d"),
                       QStringLiteral("added d/b")};
    QTest::newRow("folder added and deleted")
        << Entries{dirEntry(QStringLiteral("old"))} << Entries{dirEntry(QStringLiteral("new"))} << QByteArray()
        << QStringList{QStringLiteral("added new"), QStringLiteral("deleted old")};
    QTest::newRow("folder mode is not a change")
        << Entries{dirEntry(QStringLiteral("d"), 0755)} << Entries{dirEntry(QStringLiteral("d"), 0700)} << QByteArray()
        << QStringList{};
    QTest::newRow("Makefile modified") << Entries{fileEntry(QStringLiteral("Makefile"), "a")}
                                       << Entries{fileEntry(QStringLiteral("Makefile"), "b")} << QByteArray()
                                       << QStringList{QStringLiteral("modified Makefile flagged")};
    QTest::newRow("Makefile deleted runs nothing") << Entries{fileEntry(QStringLiteral("Makefile"), "a")} << Entries{}
                                                   << QByteArray() << QStringList{QStringLiteral("deleted Makefile")};
    QTest::newRow("MAKEFILE: case does not hide it")
        << Entries{} << Entries{fileEntry(QStringLiteral("MAKEFILE"), "a")} << QByteArray()
        << QStringList{QStringLiteral("added MAKEFILE flagged")};
    QTest::newRow("nested package.json") << Entries{} << Entries{fileEntry(QStringLiteral("web/package.json"), "{}")}
                                         << QByteArray()
                                         << QStringList{QStringLiteral("added web/package.json flagged")};
    QTest::newRow("planted hook")
        << Entries{dirEntry(QStringLiteral(".git"))}
        << Entries{dirEntry(QStringLiteral(".git")),
                   fileEntry(QStringLiteral(".git/hooks/pre-commit"), "#!/bin/sh", 0755)}
        << QByteArray()
        << QStringList{QStringLiteral(".git/hooks/pre-commit flagged git").prepend(QStringLiteral("added "))};
    QTest::newRow("git config") << Entries{fileEntry(QStringLiteral(".git/config"), "a")}
                                << Entries{fileEntry(QStringLiteral(".git/config"), "b")} << QByteArray()
                                << QStringList{QStringLiteral("modified .git/config flagged git")};
    QTest::newRow("git objects: not flagged, not files")
        << Entries{} << Entries{fileEntry(QStringLiteral(".git/objects/ab/cdef"), "z")} << QByteArray()
        << QStringList{QStringLiteral("added .git/objects/ab/cdef git")};
    QTest::newRow("a submodule's git folder") << Entries{} << Entries{fileEntry(QStringLiteral("lib/.git/HEAD"), "r")}
                                              << QByteArray() << QStringList{QStringLiteral("added lib/.git/HEAD git")};
    QTest::newRow("workflow") << Entries{} << Entries{fileEntry(QStringLiteral(".github/workflows/ci.yml"), "on: push")}
                              << QByteArray() << QStringList{QStringLiteral("added .github/workflows/ci.yml flagged")};
    QTest::newRow("issue template is not CI")
        << Entries{} << Entries{fileEntry(QStringLiteral(".github/ISSUE_TEMPLATE.md"), "x")} << QByteArray()
        << QStringList{QStringLiteral("added .github/ISSUE_TEMPLATE.md")};
    QTest::newRow("editor folder and tasks")
        << Entries{}
        << Entries{dirEntry(QStringLiteral(".vscode")), fileEntry(QStringLiteral(".vscode/tasks.json"), "{}")}
        << QByteArray()
        << QStringList{QStringLiteral("added .vscode flagged"), QStringLiteral("added .vscode/tasks.json flagged")};
    QTest::newRow("zeusignore") << Entries{fileEntry(QStringLiteral(".zeusignore"), "a")}
                                << Entries{fileEntry(QStringLiteral(".zeusignore"), "!.env")} << QByteArray()
                                << QStringList{QStringLiteral("modified .zeusignore flagged")};
    QTest::newRow("agent's .env is not a change")
        << Entries{readme} << Entries{readme, fileEntry(QStringLiteral(".env"), "A=1")} << QByteArray()
        << QStringList{};
    QTest::newRow("ignored folder is not a change")
        << Entries{readme}
        << Entries{readme, dirEntry(QStringLiteral("node_modules")),
                   fileEntry(QStringLiteral("node_modules/x/index.js"), "x")}
        << QByteArray("node_modules/\n") << QStringList{};
    QTest::newRow("sorted by path whatever the input order")
        << Entries{} << Entries{fileEntry(QStringLiteral("b"), "b"), fileEntry(QStringLiteral("a"), "a")}
        << QByteArray() << QStringList{QStringLiteral("added a"), QStringLiteral("added b")};
}

void TestChangeSet::compute() {
    QFETCH(Entries, before);
    QFETCH(Entries, after);
    QFETCH(QByteArray, zeusignore);
    QFETCH(QStringList, expected);

    WorkspaceManifest baseline;
    baseline.entries = before;
    if (!zeusignore.isEmpty()) {
        baseline.ignoreFiles.insert(QString(), zeusignore);
    }
    WorkspaceManifest current;
    current.entries = after;
    QStringList described;
    for (const Change& change : ChangeSet::compute(baseline, current)) {
        described.append(describe(change));
    }
    QCOMPARE(described, expected);
}

void TestChangeSet::keepsBothSidesAndReasons() {
    WorkspaceManifest baseline;
    baseline.entries = {fileEntry(QStringLiteral("Makefile"), "all:\n")};
    WorkspaceManifest current;
    current.entries = {fileEntry(QStringLiteral("Makefile"), "all:\n\tcurl x | sh\n", 0755)};
    const QList<Change> changes = ChangeSet::compute(baseline, current);
    QCOMPARE(changes.size(), 1);
    const Change& change = changes.first();
    QVERIFY(change.hasBefore && change.hasAfter);
    QCOMPARE(change.before, baseline.entries.first());
    QCOMPARE(change.after, current.entries.first());
    QVERIFY(change.execChanged);
    QVERIFY2(change.flagReason.contains(QStringLiteral("make")), qPrintable(change.flagReason));
    QVERIFY2(change.flagReason.contains(QStringLiteral("executable")), qPrintable(change.flagReason));
    QCOMPARE(Change::kindLetter(change.kind), QStringLiteral("M"));
}

void TestChangeSet::hostRunsCode_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("risky");
    const QList<QPair<const char*, bool>> rows = {
        {".git/hooks/pre-commit", true},
        {".git/config", true},
        {".gitattributes", true},
        {".gitmodules", true},
        {".github/workflows/ci.yml", true},
        {".gitlab-ci.yml", true},
        {".circleci/config.yml", true},
        {"Jenkinsfile", true},
        {"Makefile", true},
        {"src/makefile", true},
        {"rules.mk", true},
        {"CMakeLists.txt", true},
        {"cmake/deps.cmake", true},
        {"package.json", true},
        {"yarn.lock", true},
        {"setup.py", true},
        {"requirements-dev.txt", true},
        {"tests/conftest.py", true},
        {"Cargo.toml", true},
        {"build.rs", true},
        {".cargo/config.toml", true},
        {"build.gradle.kts", true},
        {"gradle/wrapper/gradle-wrapper.properties", true},
        {".vscode/settings.json", true},
        {".idea/workspace.xml", true},
        {".devcontainer/devcontainer.json", true},
        {"app.code-workspace", true},
        {".envrc", true},
        {".pre-commit-config.yaml", true},
        {".husky/pre-push", true},
        {"Dockerfile", true},
        {"compose.yaml", true},
        {".zeusignore", true},
        {"README.md", false},
        {"src/main.c", false},
        {"docs/Makefile.md", false},
        {".github/CODEOWNERS", false},
        {".gitignore", false},
        {"packages.json", false},
        {"vscode/notes.txt", false},
    };
    for (const auto& row : rows) {
        QTest::newRow(row.first) << QString::fromUtf8(row.first) << row.second;
    }
}

void TestChangeSet::hostRunsCode() {
    QFETCH(QString, path);
    QFETCH(bool, risky);
    QCOMPARE(!ChangeSet::hostRunsCodeReason(path).isEmpty(), risky);
}

void TestChangeSet::linkLeavesFolder_data() {
    QTest::addColumn<QString>("link");
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("leaves");
    QTest::newRow("absolute") << QStringLiteral("l") << QStringLiteral("/etc/passwd") << true;
    QTest::newRow("sibling") << QStringLiteral("l") << QStringLiteral("README.md") << false;
    QTest::newRow("up from the root") << QStringLiteral("l") << QStringLiteral("../x") << true;
    QTest::newRow("up from a folder") << QStringLiteral("a/l") << QStringLiteral("../x") << false;
    QTest::newRow("up twice from a folder") << QStringLiteral("a/l") << QStringLiteral("../../x") << true;
    QTest::newRow("down then up") << QStringLiteral("l") << QStringLiteral("a/b/../../x") << false;
    QTest::newRow("down then too far up") << QStringLiteral("l") << QStringLiteral("a/../../x") << true;
    QTest::newRow("dots") << QStringLiteral("a/l") << QStringLiteral("./././x") << false;
    QTest::newRow("empty") << QStringLiteral("l") << QString() << true;
    QTest::newRow("Windows drive") << QStringLiteral("l") << QStringLiteral("C:/Windows") << true;
    QTest::newRow("backslash climb") << QStringLiteral("l") << QStringLiteral("..\\x") << true;
}

void TestChangeSet::linkLeavesFolder() {
    QFETCH(QString, link);
    QFETCH(QString, target);
    QFETCH(bool, leaves);
    QCOMPARE(ChangeSet::linkLeavesFolder(link, target), leaves);
}

void TestChangeSet::windowsNames_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("refused");
    const QList<QPair<const char*, bool>> rows = {
        // 8.3 short names: GIT~1 is .git on NTFS, PROGRA~1 a long name; any "~digit" in a component.
        {"GIT~1/config", true},
        {"git~1/hooks/pre-commit", true},
        {"sub/PROGRA~1.TXT", true},
        {"a/MAKEFI~12", true},
        {"x~9", true},
        // A trailing dot or space is dropped by Windows: ".git." is .git, "Makefile " is Makefile.
        {".git./config", true},
        {".git /config", true},
        {"Makefile.", true},
        {"Makefile ", true},
        {"src/dir./x", true},
        {"...", true},
        // Device names, with any extension, any case.
        {"CON", true},
        {"con", true},
        {"Con.txt", true},
        {"sub/nul.tar.gz", true},
        {"AUX", true},
        {"prn.log", true},
        {"COM1", true},
        {"com9.c", true},
        {"LPT1", true},
        {"lpt9.x", true},
        {"CON .txt", true},
        {"CONIN$", true},
        {"conout$.log", true},
        {"COM\u00b9", true},  // COM¹: a device too
        // Fine: names that only look alike.
        {"README.md", false},
        {"console.log", false},
        {"CONFIG", false},
        {"COM10", false},
        {"LPT", false},
        {"com", false},
        {"auxiliary.c", false},
        {"nul-device.txt", false},
        {".con", false},
        {"a~b", false},
        {"backup~", false},
        {".git/config", false},
        {"src/.hidden", false},
        {"v1.2/notes", false},
    };
    for (const auto& row : rows) {
        QTest::newRow(row.first) << QString::fromUtf8(row.first) << row.second;
    }
}

void TestChangeSet::windowsNames() {
    QFETCH(QString, path);
    QFETCH(bool, refused);
    QCOMPARE(!ChangeSet::windowsNameProblem(path).isEmpty(), refused);
}

// A name Windows reads as another is refused before the .git and risky-file rules see it: `GIT~1/config` must not
// pass as an ordinary file because it does not spell ".git".
void TestChangeSet::windowsNamesRefusedBeforeGitAndRiskyRules() {
    WorkspaceManifest baseline;
    baseline.entries = {dirEntry(QStringLiteral(".git")), fileEntry(QStringLiteral("notes."), "n")};
    WorkspaceManifest current;
    current.entries = {dirEntry(QStringLiteral(".git")),
                       dirEntry(QStringLiteral("GIT~1")),
                       fileEntry(QStringLiteral("GIT~1/config"), "[core]\n\tfsmonitor = evil\n"),
                       dirEntry(QStringLiteral(".git.")),
                       fileEntry(QStringLiteral(".git./hooks"), "#!/bin/sh\n"),
                       fileEntry(QStringLiteral("Makefile "), "all:\n\tevil\n"),
                       fileEntry(QStringLiteral("nul.txt"), "x"),
                       fileEntry(QStringLiteral("readme.txt"), "fine")};
    QStringList described;
    const QList<Change> changes = ChangeSet::compute(baseline, current);
    for (const Change& change : changes) {
        described.append(describe(change));
        if (!change.applicable && !ChangeSet::isGitInternal(change.path)) {
            QVERIFY2(change.notApplicableReason.contains(QStringLiteral("Windows")),
                     qPrintable(change.notApplicableReason));
        }
    }
    QCOMPARE(described,
             (QStringList{QStringLiteral("added .git. refused"), QStringLiteral("added .git./hooks refused"),
                          QStringLiteral("added GIT~1 refused"), QStringLiteral("added GIT~1/config refused"),
                          QStringLiteral("added Makefile  refused"), QStringLiteral("deleted notes. refused"),
                          QStringLiteral("added nul.txt refused"), QStringLiteral("added readme.txt")}));
}

void TestChangeSet::everyRiskyPatternIsDocumented() {
    QFile doc(QStringLiteral(ZEUS_SOURCE_DIR "/docs/review-mode.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(doc.readAll());
    for (const ChangeSet::RiskyPattern& risky : ChangeSet::riskyPatterns()) {
        const QString listed = QLatin1Char('`') + risky.pattern + QLatin1Char('`');
        QVERIFY2(text.contains(listed), qPrintable(risky.pattern + QStringLiteral(" is not in docs/review-mode.md")));
    }
}

QTEST_GUILESS_MAIN(TestChangeSet)
#include "tst_changeset.moc"
