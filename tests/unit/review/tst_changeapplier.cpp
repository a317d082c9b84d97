// ChangeApplier on real temporary folders: applied, skipped, conflict and refused, with a hostile symlink out of the
// folder, a file the user edited meanwhile, a planted git hook and an agent's link to /etc/passwd.
#include "manifestentries.h"
#include "review/changeapplier.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <sys/stat.h>

using zeus::ApplyOutcome;
using zeus::Change;
using zeus::ChangeApplier;
using zeus::ChangeSet;
using zeus::ManifestEntry;
using zeus::WorkspaceManifest;
using zeus::test::dirEntry;
using zeus::test::fileEntry;
using zeus::test::linkEntry;

namespace {

bool writeFile(const QString& path, const QByteArray& content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

// The one change between two lists of entries, as the change list would give it.
Change changeOf(const QList<ManifestEntry>& before, const QList<ManifestEntry>& after) {
    WorkspaceManifest baseline;
    baseline.entries = before;
    WorkspaceManifest current;
    current.entries = after;
    const QList<Change> changes = ChangeSet::compute(baseline, current);
    return changes.size() == 1 ? changes.first() : Change{};
}

// Lists every name in a folder tree (to see that no temporary file is left behind).
QStringList namesIn(const QString& root) {
    QStringList names;
    const QDir dir(root);
    for (const QFileInfo& info :
         dir.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name)) {
        names.append(info.fileName());
        if (info.isDir() && !info.isSymbolicLink()) {
            for (const QString& child : namesIn(info.filePath())) {
                names.append(info.fileName() + QLatin1Char('/') + child);
            }
        }
    }
    return names;
}

}  // namespace

class TestChangeApplier : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();

    void addsAFileWithItsFolders();
    void modifiesAFileTheUserLeftAlone();
    void fileEditedByTheUserIsAConflict();
    void takeTheirsOverwritesAConflict();
    void fileCreatedOnTheHostIsAConflict();
    void deletesOnlyWhatStillMatches();
    void alreadyAppliedIsSkipped();
    void execBitOnly();
    void neverWritesThroughASymlinkedFolder();
    void neverWritesThroughASymlinkedTarget();
    void agentsLinkToEtcPasswdIsALinkNeverFollowed();
    void gitInternalsAreRefused();
    void windowsNamesAreRefused_data();
    void windowsNamesAreRefused();
    void unsafePathsAreRefused_data();
    void unsafePathsAreRefused();
    void contentThatDoesNotMatchIsRefused();
    void typeChangesInOrder();
    void oddName();

private:
    std::unique_ptr<QTemporaryDir> m_root;     // the host folder
    std::unique_ptr<QTemporaryDir> m_outside;  // a folder outside it, that must stay untouched
    std::unique_ptr<QTemporaryDir> m_staging;  // where the copy's versions are staged

    QString root(const QString& path = {}) const { return path.isEmpty() ? m_root->path() : m_root->filePath(path); }
    // The copy's version of a file, as the caller would have streamed it from the container.
    QString staged(const QByteArray& content) const {
        const QString path = m_staging->filePath(QString::number(qHash(content)));
        writeFile(path, content);
        return path;
    }
};

void TestChangeApplier::init() {
    m_root = std::make_unique<QTemporaryDir>();
    m_outside = std::make_unique<QTemporaryDir>();
    m_staging = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid() && m_outside->isValid() && m_staging->isValid());
}

void TestChangeApplier::addsAFileWithItsFolders() {
    const Change change = changeOf({}, {fileEntry(QStringLiteral("src/new/a.txt"), "new\n")});
    const ApplyOutcome result = ChangeApplier::apply(root(), change, staged("new\n"));
    QCOMPARE(result.result, ApplyOutcome::Result::Applied);
    QCOMPARE(readFile(root(QStringLiteral("src/new/a.txt"))), QByteArray("new\n"));
    QCOMPARE(namesIn(root()),
             (QStringList{QStringLiteral("src"), QStringLiteral("src/new"), QStringLiteral("src/new/a.txt")}));
}

void TestChangeApplier::modifiesAFileTheUserLeftAlone() {
    QVERIFY(writeFile(root(QStringLiteral("a.txt")), "old\n"));
    QFile::setPermissions(root(QStringLiteral("a.txt")), QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser
                                                             | QFile::WriteUser);  // 0600: the user's choice
    const Change change =
        changeOf({fileEntry(QStringLiteral("a.txt"), "old\n")}, {fileEntry(QStringLiteral("a.txt"), "new\n")});
    const ApplyOutcome result = ChangeApplier::apply(root(), change, staged("new\n"));
    QCOMPARE(result.result, ApplyOutcome::Result::Applied);
    QCOMPARE(readFile(root(QStringLiteral("a.txt"))), QByteArray("new\n"));
    QCOMPARE(QFileInfo(root(QStringLiteral("a.txt"))).permissions() & (QFile::ReadOther | QFile::ReadGroup),
             QFile::Permissions());
    QCOMPARE(namesIn(root()), QStringList{QStringLiteral("a.txt")});
}

void TestChangeApplier::fileEditedByTheUserIsAConflict() {
    QVERIFY(writeFile(root(QStringLiteral("a.txt")), "the user's edit\n"));
    const Change change =
        changeOf({fileEntry(QStringLiteral("a.txt"), "old\n")}, {fileEntry(QStringLiteral("a.txt"), "new\n")});
    const ApplyOutcome result = ChangeApplier::apply(root(), change, staged("new\n"));
    QCOMPARE(result.result, ApplyOutcome::Result::Conflict);
    QVERIFY(!result.reason.isEmpty());
    QCOMPARE(readFile(root(QStringLiteral("a.txt"))), QByteArray("the user's edit\n"));
}

void TestChangeApplier::takeTheirsOverwritesAConflict() {
    QVERIFY(writeFile(root(QStringLiteral("a.txt")), "the user's edit\n"));
    const Change change =
        changeOf({fileEntry(QStringLiteral("a.txt"), "old\n")}, {fileEntry(QStringLiteral("a.txt"), "new\n")});
    ChangeApplier::Options options;
    options.takeTheirs = true;
    const ApplyOutcome result = ChangeApplier::apply(root(), change, staged("new\n"), options);
    QCOMPARE(result.result, ApplyOutcome::Result::Applied);
    QCOMPARE(readFile(root(QStringLiteral("a.txt"))), QByteArray("new\n"));
}

void TestChangeApplier::fileCreatedOnTheHostIsAConflict() {
    QVERIFY(writeFile(root(QStringLiteral("a.txt")), "mine\n"));
    const Change change = changeOf({}, {fileEntry(QStringLiteral("a.txt"), "theirs\n")});
    QCOMPARE(ChangeApplier::apply(root(), change, staged("theirs\n")).result, ApplyOutcome::Result::Conflict);
    QCOMPARE(readFile(root(QStringLiteral("a.txt"))), QByteArray("mine\n"));
}

void TestChangeApplier::deletesOnlyWhatStillMatches() {
    QVERIFY(writeFile(root(QStringLiteral("same.txt")), "same\n"));
    QVERIFY(writeFile(root(QStringLiteral("edited.txt")), "edited by the user\n"));
    const Change same = changeOf({fileEntry(QStringLiteral("same.txt"), "same\n")}, {});
    const Change edited = changeOf({fileEntry(QStringLiteral("edited.txt"), "before\n")}, {});
    const Change gone = changeOf({fileEntry(QStringLiteral("gone.txt"), "x")}, {});
    QCOMPARE(ChangeApplier::apply(root(), same, {}).result, ApplyOutcome::Result::Applied);
    QCOMPARE(ChangeApplier::apply(root(), edited, {}).result, ApplyOutcome::Result::Conflict);
    QCOMPARE(ChangeApplier::apply(root(), gone, {}).result, ApplyOutcome::Result::Skipped);
    QVERIFY(!QFileInfo::exists(root(QStringLiteral("same.txt"))));
    QCOMPARE(readFile(root(QStringLiteral("edited.txt"))), QByteArray("edited by the user\n"));

    // A folder goes only when empty: the user's new file in it keeps it.
    QVERIFY(writeFile(root(QStringLiteral("dir/users-file")), "u"));
    const Change folder = changeOf({dirEntry(QStringLiteral("dir"))}, {});
    QCOMPARE(ChangeApplier::apply(root(), folder, {}).result, ApplyOutcome::Result::Skipped);
    QVERIFY(QFileInfo::exists(root(QStringLiteral("dir/users-file"))));
}

void TestChangeApplier::alreadyAppliedIsSkipped() {
    QVERIFY(writeFile(root(QStringLiteral("a.txt")), "new\n"));
    const Change change =
        changeOf({fileEntry(QStringLiteral("a.txt"), "old\n")}, {fileEntry(QStringLiteral("a.txt"), "new\n")});
    QCOMPARE(ChangeApplier::apply(root(), change, staged("new\n")).result, ApplyOutcome::Result::Skipped);
}

void TestChangeApplier::execBitOnly() {
    QVERIFY(writeFile(root(QStringLiteral("run.sh")), "#!/bin/sh\n"));
    QFile::setPermissions(root(QStringLiteral("run.sh")),
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser | QFile::ReadGroup);
    const Change change = changeOf({fileEntry(QStringLiteral("run.sh"), "#!/bin/sh\n", 0644)},
                                   {fileEntry(QStringLiteral("run.sh"), "#!/bin/sh\n", 06755)});
    QCOMPARE(change.kind, Change::Kind::ModeChanged);
    QCOMPARE(ChangeApplier::apply(root(), change, {}).result, ApplyOutcome::Result::Applied);
    const QFile::Permissions permissions = QFileInfo(root(QStringLiteral("run.sh"))).permissions();
    QVERIFY(permissions.testFlag(QFile::ExeOwner));
    QVERIFY(permissions.testFlag(QFile::ExeGroup));
    QVERIFY(!permissions.testFlag(QFile::ReadOther));  // the user's other bits stay
    // Never setuid or setgid, though the copy had them (QFileInfo cannot show them: ask stat).
    struct stat status {};
    QCOMPARE(::stat(QFile::encodeName(root(QStringLiteral("run.sh"))).constData(), &status), 0);
    QCOMPARE(status.st_mode & 07000, 0u);
}

void TestChangeApplier::neverWritesThroughASymlinkedFolder() {
    QVERIFY(QFile::link(m_outside->path(), root(QStringLiteral("out"))));
    const Change change = changeOf({}, {fileEntry(QStringLiteral("out/evil.txt"), "evil\n")});
    const ApplyOutcome result = ChangeApplier::apply(root(), change, staged("evil\n"));
    QCOMPARE(result.result, ApplyOutcome::Result::Refused);
    QVERIFY2(result.reason.contains(QStringLiteral("out")), qPrintable(result.reason));
    QVERIFY(namesIn(m_outside->path()).isEmpty());

    // Also when the link sits deeper, and for a deletion of what is behind it.
    QVERIFY(writeFile(m_outside->filePath(QStringLiteral("keep.txt")), "keep\n"));
    QVERIFY(QDir().mkpath(root(QStringLiteral("a/b"))));
    QVERIFY(QFile::link(m_outside->path(), root(QStringLiteral("a/b/c"))));
    const Change deletion = changeOf({fileEntry(QStringLiteral("a/b/c/keep.txt"), "keep\n")}, {});
    QCOMPARE(ChangeApplier::apply(root(), deletion, {}).result, ApplyOutcome::Result::Refused);
    QCOMPARE(readFile(m_outside->filePath(QStringLiteral("keep.txt"))), QByteArray("keep\n"));
}

void TestChangeApplier::neverWritesThroughASymlinkedTarget() {
    const QString secret = m_outside->filePath(QStringLiteral("secret.txt"));
    QVERIFY(writeFile(secret, "old\n"));
    QVERIFY(QFile::link(secret, root(QStringLiteral("config.txt"))));
    const Change change = changeOf({fileEntry(QStringLiteral("config.txt"), "old\n")},
                                   {fileEntry(QStringLiteral("config.txt"), "new\n")});
    // The host holds a link where the baseline had a file: a conflict, the file behind it untouched.
    QCOMPARE(ChangeApplier::apply(root(), change, staged("new\n")).result, ApplyOutcome::Result::Conflict);
    QCOMPARE(readFile(secret), QByteArray("old\n"));

    // Taking theirs replaces the link itself, never what it points to.
    ChangeApplier::Options options;
    options.takeTheirs = true;
    QCOMPARE(ChangeApplier::apply(root(), change, staged("new\n"), options).result, ApplyOutcome::Result::Applied);
    QCOMPARE(readFile(secret), QByteArray("old\n"));
    QVERIFY(!QFileInfo(root(QStringLiteral("config.txt"))).isSymbolicLink());
    QCOMPARE(readFile(root(QStringLiteral("config.txt"))), QByteArray("new\n"));
}

void TestChangeApplier::agentsLinkToEtcPasswdIsALinkNeverFollowed() {
    const QByteArray passwd = readFile(QStringLiteral("/etc/passwd"));
    const Change change = changeOf({}, {linkEntry(QStringLiteral("passwd"), QStringLiteral("/etc/passwd"))});
    QVERIFY(change.flagged);
    QCOMPARE(ChangeApplier::apply(root(), change, {}).result, ApplyOutcome::Result::Applied);
    const QFileInfo info(root(QStringLiteral("passwd")));
    QVERIFY(info.isSymbolicLink());
    QCOMPARE(info.symLinkTarget(), QStringLiteral("/etc/passwd"));
    QCOMPARE(readFile(QStringLiteral("/etc/passwd")), passwd);

    // A file the agent then writes "at" that path is a type conflict, never a write into /etc/passwd.
    const Change write =
        changeOf({fileEntry(QStringLiteral("passwd"), "x")}, {fileEntry(QStringLiteral("passwd"), "y")});
    QCOMPARE(ChangeApplier::apply(root(), write, staged("y")).result, ApplyOutcome::Result::Conflict);
    QCOMPARE(readFile(QStringLiteral("/etc/passwd")), passwd);
}

void TestChangeApplier::gitInternalsAreRefused() {
    QVERIFY(QDir().mkpath(root(QStringLiteral(".git/hooks"))));
    const Change hook = changeOf({}, {fileEntry(QStringLiteral(".git/hooks/pre-commit"), "#!/bin/sh\n", 0755)});
    const ApplyOutcome result = ChangeApplier::apply(root(), hook, staged("#!/bin/sh\n"));
    QCOMPARE(result.result, ApplyOutcome::Result::Refused);
    QVERIFY(!QFileInfo::exists(root(QStringLiteral(".git/hooks/pre-commit"))));

    // Even when a caller builds the change by hand and marks it applicable.
    Change forged = hook;
    forged.applicable = true;
    forged.path = QStringLiteral("sub/.GIT/config");
    forged.after.path = forged.path;
    QCOMPARE(ChangeApplier::apply(root(), forged, staged("#!/bin/sh\n")).result, ApplyOutcome::Result::Refused);
    QVERIFY(!QFileInfo::exists(root(QStringLiteral("sub"))));
}

// Names Windows reads as another (GIT~1 is .git, ".git." is .git, NUL a device): refused on every host, before the
// .git rule, even in a change forged as applicable; nothing is created.
void TestChangeApplier::windowsNamesAreRefused_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("8.3 alias of .git") << QStringLiteral("GIT~1/hooks/pre-commit");
    QTest::newRow("trailing dot") << QStringLiteral(".git./config");
    QTest::newRow("trailing space") << QStringLiteral("Makefile ");
    QTest::newRow("device") << QStringLiteral("sub/NUL.txt");
}

void TestChangeApplier::windowsNamesAreRefused() {
    QFETCH(QString, path);
    QVERIFY(QDir().mkpath(root(QStringLiteral(".git/hooks"))));
    Change change;
    change.kind = Change::Kind::Added;
    change.path = path;
    change.hasAfter = true;
    change.after = fileEntry(path, "#!/bin/sh\n");
    change.applicable = true;
    const ApplyOutcome result = ChangeApplier::apply(root(), change, staged("#!/bin/sh\n"));
    QCOMPARE(result.result, ApplyOutcome::Result::Refused);
    QVERIFY2(result.reason.contains(QStringLiteral("Windows")), qPrintable(result.reason));
    QCOMPARE(namesIn(root()), (QStringList{QStringLiteral(".git"), QStringLiteral(".git/hooks")}));
}

void TestChangeApplier::unsafePathsAreRefused_data() {
    QTest::addColumn<QString>("path");
    QTest::newRow("parent") << QStringLiteral("../escape.txt");
    QTest::newRow("inner parent") << QStringLiteral("a/../../escape.txt");
    QTest::newRow("absolute") << QStringLiteral("/tmp/escape.txt");
    QTest::newRow("empty component") << QStringLiteral("a//b");
    QTest::newRow("empty") << QString();
}

void TestChangeApplier::unsafePathsAreRefused() {
    QFETCH(QString, path);
    Change change;
    change.kind = Change::Kind::Added;
    change.path = path;
    change.hasAfter = true;
    change.after = fileEntry(path, "x");
    QCOMPARE(ChangeApplier::apply(root(), change, staged("x")).result, ApplyOutcome::Result::Refused);
    QVERIFY(!QFileInfo::exists(QFileInfo(root()).absolutePath() + QStringLiteral("/escape.txt")));
}

void TestChangeApplier::contentThatDoesNotMatchIsRefused() {
    const Change change = changeOf({}, {fileEntry(QStringLiteral("a.txt"), "listed\n")});
    const ApplyOutcome result = ChangeApplier::apply(root(), change, staged("something else\n"));
    QCOMPARE(result.result, ApplyOutcome::Result::Refused);
    QVERIFY(!QFileInfo::exists(root(QStringLiteral("a.txt"))));
    QVERIFY(namesIn(root()).isEmpty());

    // Checked before anything is touched: no folder is created for it, and a folder it would replace stays.
    const Change nested = changeOf({}, {fileEntry(QStringLiteral("new/dir/a.txt"), "listed\n")});
    QCOMPARE(ChangeApplier::apply(root(), nested, staged("other\n")).result, ApplyOutcome::Result::Refused);
    QVERIFY(namesIn(root()).isEmpty());
    QVERIFY(QDir().mkpath(root(QStringLiteral("folder"))));
    const Change replacing =
        changeOf({dirEntry(QStringLiteral("folder"))}, {fileEntry(QStringLiteral("folder"), "listed\n")});
    QCOMPARE(ChangeApplier::apply(root(), replacing, staged("other\n")).result, ApplyOutcome::Result::Refused);
    QVERIFY(QFileInfo(root(QStringLiteral("folder"))).isDir());
}

void TestChangeApplier::typeChangesInOrder() {
    // x: a folder with a file becomes a file; y: a file becomes a folder with a file.
    QVERIFY(writeFile(root(QStringLiteral("x/inner.txt")), "inner\n"));
    QVERIFY(writeFile(root(QStringLiteral("y")), "y\n"));
    WorkspaceManifest baseline;
    baseline.entries = {dirEntry(QStringLiteral("x")), fileEntry(QStringLiteral("x/inner.txt"), "inner\n"),
                        fileEntry(QStringLiteral("y"), "y\n")};
    WorkspaceManifest current;
    current.entries = {fileEntry(QStringLiteral("x"), "now a file\n"), dirEntry(QStringLiteral("y")),
                       fileEntry(QStringLiteral("y/inner.txt"), "now inside\n")};
    QList<Change> changes = ChangeApplier::inApplyOrder(ChangeSet::compute(baseline, current));
    QStringList order;
    for (const Change& change : changes) {
        order.append(change.path);
    }
    QCOMPARE(order, (QStringList{QStringLiteral("x/inner.txt"), QStringLiteral("x"), QStringLiteral("y"),
                                 QStringLiteral("y/inner.txt")}));
    for (const Change& change : changes) {
        const QByteArray content = change.path == QLatin1String("x") ? "now a file\n" : "now inside\n";
        const ApplyOutcome result = ChangeApplier::apply(root(), change, staged(content));
        QVERIFY2(result.result == ApplyOutcome::Result::Applied,
                 qPrintable(change.path + QLatin1Char(' ') + result.reason));
    }
    QCOMPARE(readFile(root(QStringLiteral("x"))), QByteArray("now a file\n"));
    QCOMPARE(readFile(root(QStringLiteral("y/inner.txt"))), QByteArray("now inside\n"));
}

void TestChangeApplier::oddName() {
    const QString name = QStringLiteral("项目 a,b:c \"q\"/文件 1.txt");
    const Change change = changeOf({}, {fileEntry(name, "odd\n")});
    QCOMPARE(ChangeApplier::apply(root(), change, staged("odd\n")).result, ApplyOutcome::Result::Applied);
    QCOMPARE(readFile(root(name)), QByteArray("odd\n"));
}

QTEST_GUILESS_MAIN(TestChangeApplier)
#include "tst_changeapplier.moc"
