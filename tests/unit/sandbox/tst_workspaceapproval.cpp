// WorkspaceApproval (SPEC §3 "Approvals are exact strings"): the lexical match against approval strings, the
// network paths refused outright, the state of an approval through an injected resolver (and that nothing but a
// matched approval is ever resolved), overlapping approvals, and the device/inode parser.
#include "sandbox/workspaceapproval.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

class TestWorkspaceApproval : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void lexicalForm_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("windows");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << QStringLiteral("/home/u/work") << false << QStringLiteral("/home/u/work");
        QTest::newRow("trailing slash") << QStringLiteral("/home/u/work/") << false << QStringLiteral("/home/u/work");
        QTest::newRow("dot segments") << QStringLiteral("/home/u/./work/app/..") << false
                                      << QStringLiteral("/home/u/work");
        QTest::newRow("double slash inside")
            << QStringLiteral("/home/u//work") << false << QStringLiteral("/home/u/work");
        QTest::newRow("dotdot out of it")
            << QStringLiteral("/home/u/work/../.ssh") << false << QStringLiteral("/home/u/.ssh");
        QTest::newRow("relative") << QStringLiteral("work") << false << QStringLiteral("");
        QTest::newRow("empty") << QStringLiteral("") << false << QStringLiteral("");
        QTest::newRow("newline") << QStringLiteral("/home/u/work\n") << false << QStringLiteral("");
        QTest::newRow("posix network //host") << QStringLiteral("//host/share/work") << false << QStringLiteral("");
        QTest::newRow("unc on linux") << QStringLiteral("\\\\server\\share") << false << QStringLiteral("");
        QTest::newRow("mixed //") << QStringLiteral("/\\server/share") << false << QStringLiteral("");
        QTest::newRow("windows drive") << QStringLiteral("C:\\Users\\u\\work\\") << true
                                       << QStringLiteral("C:/Users/u/work");
        QTest::newRow("windows forward") << QStringLiteral("C:/Users/u/work") << true
                                         << QStringLiteral("C:/Users/u/work");
        QTest::newRow("windows unc") << QStringLiteral("\\\\server\\share\\work") << true << QStringLiteral("");
        QTest::newRow("windows device path") << QStringLiteral("\\\\?\\C:\\work") << true << QStringLiteral("");
        QTest::newRow("windows //host") << QStringLiteral("//host/share") << true << QStringLiteral("");
        QTest::newRow("windows relative") << QStringLiteral("Users\\u") << true << QStringLiteral("");
        QTest::newRow("windows rooted, no drive") << QStringLiteral("\\Users\\u") << true << QStringLiteral("");
        // Above the root, or a second drive inside the path: refused, never cleaned into an approval's spelling
        // (found by the fuzz target: "C:/../C:/Users/bob/src" cleaned to "C:/Users/bob/src").
        QTest::newRow("above the root") << QStringLiteral("/../home/u/work") << false << QStringLiteral("");
        QTest::newRow("above the root later")
            << QStringLiteral("/home/../../home/u/work") << false << QStringLiteral("");
        QTest::newRow("windows above the drive")
            << QStringLiteral("C:/../C:/Users/u/work") << true << QStringLiteral("");
        QTest::newRow("windows second drive") << QStringLiteral("C:/x/../D:/work") << true << QStringLiteral("");
        QTest::newRow("windows stream") << QStringLiteral("C:/Users/u/work:evil") << true << QStringLiteral("");
        QTest::newRow("posix colon is a name") << QStringLiteral("/srv/a:b") << false << QStringLiteral("/srv/a:b");
    }
    void lexicalForm() {
        QFETCH(QString, path);
        QFETCH(bool, windows);
        QFETCH(QString, expected);
        QCOMPARE(WorkspaceApproval::lexicalForm(path, windows), expected);
    }

    void match_data() {
        QTest::addColumn<QString>("workingDirectory");
        QTest::addColumn<bool>("caseInsensitive");
        QTest::addColumn<QString>("expected");
        QTest::newRow("exact") << QStringLiteral("/home/u/work") << false << QStringLiteral("/home/u/work");
        QTest::newRow("trailing slash") << QStringLiteral("/home/u/work/") << false << QStringLiteral("/home/u/work");
        QTest::newRow("dot") << QStringLiteral("/home/u/work/.") << false << QStringLiteral("/home/u/work");
        QTest::newRow("other") << QStringLiteral("/home/u/other") << false << QStringLiteral("");
        QTest::newRow("inside") << QStringLiteral("/home/u/work/sub") << false << QStringLiteral("");
        QTest::newRow("parent") << QStringLiteral("/home/u") << false << QStringLiteral("");
        QTest::newRow("prefix, not inside") << QStringLiteral("/home/u/workshop") << false << QStringLiteral("");
        QTest::newRow("case differs, sensitive fs") << QStringLiteral("/home/u/Work") << false << QStringLiteral("");
        // Case-insensitive: matched, and the approval's own spelling is what comes back (it is what is mounted).
        QTest::newRow("case differs, insensitive fs")
            << QStringLiteral("/HOME/U/WORK") << true << QStringLiteral("/home/u/work");
        QTest::newRow("network spelling") << QStringLiteral("//home/u/work") << false << QStringLiteral("");
        QTest::newRow("backslash network spelling")
            << QStringLiteral("\\\\home\\u\\work") << false << QStringLiteral("");
    }
    void match() {
        QFETCH(QString, workingDirectory);
        QFETCH(bool, caseInsensitive);
        QFETCH(QString, expected);
        const QStringList approved = {QStringLiteral("/home/u/work"), QStringLiteral("/srv/data")};
        QCOMPARE(WorkspaceApproval::match(workingDirectory, approved,
                                          caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive, false),
                 expected);
    }

    // The state of an approval comes from the resolver alone, and only the approval itself is asked about.
    void stateOf_data() {
        QTest::addColumn<QString>("resolvesTo");
        QTest::addColumn<int>("state");
        QTest::newRow("itself") << QStringLiteral("/home/u/work") << int(WorkspaceApproval::State::Active);
        QTest::newRow("gone") << QStringLiteral("") << int(WorkspaceApproval::State::Missing);
        QTest::newRow("a symlink now") << QStringLiteral("/home/u/.local/bin")
                                       << int(WorkspaceApproval::State::Changed);
    }
    void stateOf() {
        QFETCH(QString, resolvesTo);
        QFETCH(int, state);
        QStringList asked;
        WorkspaceApproval::Resolver resolver;
        resolver.canonicalDirectory = [&](const QString& path) {
            asked << path;
            return resolvesTo;
        };
        QCOMPARE(int(WorkspaceApproval::stateOf(QStringLiteral("/home/u/work"), resolver, Qt::CaseSensitive)), state);
        QCOMPARE(asked, QStringList{QStringLiteral("/home/u/work")});
    }

    // Among the stored approvals: one inside or around another (settings from before nesting was refused) is
    // inactive, both of them, whatever the file system says; the same string twice or a prefix sibling is not.
    void stateAmong_data() {
        QTest::addColumn<QStringList>("all");
        QTest::addColumn<int>("state");
        const QString work = QStringLiteral("/home/u/work");
        QTest::newRow("alone") << QStringList{work} << int(WorkspaceApproval::State::Active);
        QTest::newRow("one inside") << QStringList{work, work + QStringLiteral("/app")}
                                    << int(WorkspaceApproval::State::Nested);
        QTest::newRow("one around") << QStringList{QStringLiteral("/home/u"), work}
                                    << int(WorkspaceApproval::State::Nested);
        QTest::newRow("spelled with a dot")
            << QStringList{work, QStringLiteral("/home/u/./work/app/")} << int(WorkspaceApproval::State::Nested);
        QTest::newRow("prefix sibling") << QStringList{work, QStringLiteral("/home/u/workshop")}
                                        << int(WorkspaceApproval::State::Active);
        QTest::newRow("itself twice") << QStringList{work, work + QStringLiteral("/")}
                                      << int(WorkspaceApproval::State::Active);
    }
    void stateAmong() {
        QFETCH(QStringList, all);
        QFETCH(int, state);
        WorkspaceApproval::Resolver resolver;
        resolver.canonicalDirectory = [](const QString& path) { return QDir::cleanPath(path); };
        QCOMPARE(int(WorkspaceApproval::stateAmong(QStringLiteral("/home/u/work"), all, resolver, Qt::CaseSensitive)),
                 state);
    }

    // The real file system: the swap attack. ~/work/app approved; a command in ~/work renames it and puts a
    // symlink to ~/.local/bin in its place: the approval is changed, never an approval of ~/.local/bin.
    void symlinkSwapMakesTheApprovalChanged() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString root = QDir(dir.path()).canonicalPath();
        QVERIFY(QDir(root).mkpath(QStringLiteral("work/app")));
        QVERIFY(QDir(root).mkpath(QStringLiteral(".local/bin")));
        const QString app = root + QStringLiteral("/work/app");
        const auto host = WorkspaceApproval::hostResolver();
        QCOMPARE(WorkspaceApproval::stateOf(app, host, Qt::CaseSensitive), WorkspaceApproval::State::Active);
        QVERIFY(QDir(root).rename(QStringLiteral("work/app"), QStringLiteral("work/app.o")));
        QVERIFY(QFile::link(root + QStringLiteral("/.local/bin"), app));
        QCOMPARE(WorkspaceApproval::stateOf(app, host, Qt::CaseSensitive), WorkspaceApproval::State::Changed);
        QVERIFY(QFile::remove(app));
        QCOMPARE(WorkspaceApproval::stateOf(app, host, Qt::CaseSensitive), WorkspaceApproval::State::Missing);
    }

    void overlapping_data() {
        QTest::addColumn<QString>("candidate");
        QTest::addColumn<QString>("expected");
        QTest::newRow("inside") << QStringLiteral("/home/u/work/app") << QStringLiteral("/home/u/work");
        QTest::newRow("deep inside") << QStringLiteral("/home/u/work/a/b/c") << QStringLiteral("/home/u/work");
        QTest::newRow("contains") << QStringLiteral("/home/u") << QStringLiteral("/home/u/work");
        QTest::newRow("same") << QStringLiteral("/home/u/work") << QStringLiteral("/home/u/work");
        QTest::newRow("sibling with prefix") << QStringLiteral("/home/u/workshop") << QStringLiteral("");
        QTest::newRow("unrelated") << QStringLiteral("/srv/other") << QStringLiteral("");
    }
    void overlapping() {
        QFETCH(QString, candidate);
        QFETCH(QString, expected);
        QCOMPARE(WorkspaceApproval::overlapping(candidate, {QStringLiteral("/home/u/work")}, Qt::CaseSensitive),
                 expected);
    }

    void parseIdentity_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<quint64>("device");
        QTest::addColumn<quint64>("inode");
        QTest::newRow("stat output") << QStringLiteral("65024 247066\n") << true << quint64(65024) << quint64(247066);
        QTest::newRow("one number") << QStringLiteral("65024") << false << quint64(0) << quint64(0);
        QTest::newRow("words") << QStringLiteral("stat: cannot stat") << false << quint64(0) << quint64(0);
        QTest::newRow("three") << QStringLiteral("1 2 3") << false << quint64(0) << quint64(0);
        QTest::newRow("empty") << QStringLiteral("") << false << quint64(0) << quint64(0);
    }
    void parseIdentity() {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(quint64, device);
        QFETCH(quint64, inode);
        const auto identity = WorkspaceApproval::parseIdentity(text);
        QCOMPARE(identity.has_value(), valid);
        if (valid) {
            QCOMPARE(identity->device, device);
            QCOMPARE(identity->inode, inode);
        }
    }

#ifdef Q_OS_UNIX
    void hostIdentityFollowsTheFolder() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("a")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("b")));
        const auto a = WorkspaceApproval::hostIdentity(dir.filePath(QStringLiteral("a")));
        const auto b = WorkspaceApproval::hostIdentity(dir.filePath(QStringLiteral("b")));
        QVERIFY(a && b);
        QVERIFY(*a != *b);
        QVERIFY(!WorkspaceApproval::hostIdentity(dir.filePath(QStringLiteral("missing"))));
    }
#endif
};

QTEST_GUILESS_MAIN(TestWorkspaceApproval)
#include "tst_workspaceapproval.moc"
