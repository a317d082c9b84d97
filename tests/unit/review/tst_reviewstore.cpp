// The review copies' records (docs/review-mode.md "Records"): what is written is read back, the session id (the
// backend's text) is never a file name, a record that does not parse or names another session is skipped, a
// container id that could be a flag is refused, Apply moves changes into the baseline, and the folders are private.
#include "manifestentries.h"
#include "review/reviewstore.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace zeus;
using namespace zeus::test;

namespace {

ReviewRecord recordFor(const QString& session, const QString& container = QStringLiteral("0123456789abcdef")) {
    ReviewRecord record;
    record.sessionId = session;
    record.workspace = QStringLiteral("/home/u/proj");
    record.containerId = container;
    record.containerName = QStringLiteral("zeus-abc");
    record.engine = QStringLiteral("docker");
    record.engineProgram = QStringLiteral("docker");
    record.created = QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);
    return record;
}

WorkspaceManifest baselineOf(const QList<ManifestEntry>& entries) {
    WorkspaceManifest manifest;
    manifest.entries = entries;
    manifest.sort();
    return manifest;
}

}  // namespace

class TestReviewStore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void hostileSessionIds_data();
    void hostileSessionIds();
    void brokenRecordsAreSkipped();
    void markAppliedMovesTheBaseline();
    void findByContainer();
};

void TestReviewStore::roundTrip() {
    QTemporaryDir dir;
    ReviewStore store(dir.path() + QStringLiteral("/review"));
    const WorkspaceManifest baseline =
        baselineOf({fileEntry(QStringLiteral("a.txt"), "a"), dirEntry(QStringLiteral("d"))});
    QString error;
    QVERIFY2(store.save(recordFor(QStringLiteral("s1")), baseline, &error), qPrintable(error));
    const auto record = store.record(QStringLiteral("s1"));
    QVERIFY(record);
    QCOMPARE(record->workspace, QStringLiteral("/home/u/proj"));
    QCOMPARE(record->containerId, QStringLiteral("0123456789abcdef"));
    QCOMPARE(record->created, recordFor(QStringLiteral("s1")).created);
    WorkspaceManifest loaded;
    QVERIFY(store.loadBaseline(QStringLiteral("s1"), loaded, &error));
    QCOMPARE(loaded.entries, baseline.entries);
    QCOMPARE(store.records().size(), 1);
    // Private: the baseline names every file of the user's folder.
    QCOMPARE(QFileInfo(store.sessionDirectory(QStringLiteral("s1"))).permissions() & 0x0077,
             QFileDevice::Permissions());
    QCOMPARE(QFile(store.sessionDirectory(QStringLiteral("s1")) + QStringLiteral("/baseline.json")).permissions()
                 & (QFileDevice::ReadOther | QFileDevice::ReadGroup),
             QFileDevice::Permissions());
    QVERIFY(store.remove(QStringLiteral("s1"), &error));
    QVERIFY(!store.record(QStringLiteral("s1")));
    QVERIFY(!QFileInfo::exists(store.sessionDirectory(QStringLiteral("s1"))));
    QVERIFY(store.records().isEmpty());
}

void TestReviewStore::hostileSessionIds_data() {
    QTest::addColumn<QString>("session");
    QTest::newRow("climbs") << QStringLiteral("../../../../tmp/x");
    QTest::newRow("absolute") << QStringLiteral("/etc/passwd");
    QTest::newRow("dots") << QStringLiteral("..");
    QTest::newRow("nul and newline") << QStringLiteral("a\nb") + QChar(0) + QStringLiteral("c");
    QTest::newRow("long") << QString(5000, QLatin1Char('x'));
}

void TestReviewStore::hostileSessionIds() {
    QFETCH(QString, session);
    QTemporaryDir dir;
    const QString root = dir.path() + QStringLiteral("/review");
    ReviewStore store(root);
    QVERIFY(store.save(recordFor(session), baselineOf({}), nullptr));
    QCOMPARE(QFileInfo(store.sessionDirectory(session)).dir().absolutePath(), QDir(root).absolutePath());
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("review")});
    const auto record = store.record(session);
    QVERIFY(record);
    QCOMPARE(record->sessionId, session);
}

void TestReviewStore::brokenRecordsAreSkipped() {
    QTemporaryDir dir;
    ReviewStore store(dir.path() + QStringLiteral("/review"));
    QVERIFY(store.save(recordFor(QStringLiteral("good")), baselineOf({}), nullptr));
    // A container id that the engine's CLI would read as a flag is never used.
    QVERIFY(store.save(recordFor(QStringLiteral("flag"), QStringLiteral("--privileged")), baselineOf({}), nullptr));
    QVERIFY(store.save(recordFor(QStringLiteral("garbage")), baselineOf({}), nullptr));
    QFile garbage(store.sessionDirectory(QStringLiteral("garbage")) + QStringLiteral("/record.json"));
    QVERIFY(garbage.open(QIODevice::WriteOnly | QIODevice::Truncate));
    garbage.write("{not json");
    garbage.close();
    // A record copied into another session's folder names a session that folder is not for.
    QVERIFY(QDir().mkpath(store.sessionDirectory(QStringLiteral("other"))));
    QVERIFY(QFile::copy(store.sessionDirectory(QStringLiteral("good")) + QStringLiteral("/record.json"),
                        store.sessionDirectory(QStringLiteral("other")) + QStringLiteral("/record.json")));
    QStringList errors;
    const QList<ReviewRecord> records = store.records(&errors);
    QCOMPARE(records.size(), 1);
    QCOMPARE(records.first().sessionId, QStringLiteral("good"));
    QCOMPARE(errors.size(), 3);
    QVERIFY(!store.record(QStringLiteral("flag")));
    QVERIFY(!store.record(QStringLiteral("garbage")));
    QVERIFY(!store.record(QStringLiteral("other")));
}

void TestReviewStore::markAppliedMovesTheBaseline() {
    QTemporaryDir dir;
    ReviewStore store(dir.path() + QStringLiteral("/review"));
    QVERIFY(
        store.save(recordFor(QStringLiteral("s")),
                   baselineOf({fileEntry(QStringLiteral("keep.txt"), "k"), fileEntry(QStringLiteral("edit.txt"), "old"),
                               fileEntry(QStringLiteral("gone.txt"), "g")}),
                   nullptr));
    Change edit;
    edit.kind = Change::Kind::Modified;
    edit.path = QStringLiteral("edit.txt");
    edit.hasBefore = edit.hasAfter = true;
    edit.before = fileEntry(QStringLiteral("edit.txt"), "old");
    edit.after = fileEntry(QStringLiteral("edit.txt"), "new");
    Change gone;
    gone.kind = Change::Kind::Deleted;
    gone.path = QStringLiteral("gone.txt");
    gone.hasBefore = true;
    gone.before = fileEntry(QStringLiteral("gone.txt"), "g");
    Change added;
    added.kind = Change::Kind::Added;
    added.path = QStringLiteral("new/a.txt");
    added.hasAfter = true;
    added.after = fileEntry(QStringLiteral("new/a.txt"), "a");
    QString error;
    QVERIFY2(store.markApplied(QStringLiteral("s"), {edit, gone, added}, &error), qPrintable(error));
    WorkspaceManifest loaded;
    QVERIFY(store.loadBaseline(QStringLiteral("s"), loaded));
    QCOMPARE(loaded.entries,
             baselineOf({fileEntry(QStringLiteral("keep.txt"), "k"), fileEntry(QStringLiteral("edit.txt"), "new"),
                         fileEntry(QStringLiteral("new/a.txt"), "a")})
                 .entries);
}

void TestReviewStore::findByContainer() {
    QTemporaryDir dir;
    ReviewStore store(dir.path() + QStringLiteral("/review"));
    QVERIFY(store.save(recordFor(QStringLiteral("s1"), QStringLiteral("aaaa1111")), baselineOf({}), nullptr));
    QVERIFY(store.save(recordFor(QStringLiteral("s2"), QStringLiteral("aaaa2222")), baselineOf({}), nullptr));
    QCOMPARE(store.find(QStringLiteral("s2"))->sessionId, QStringLiteral("s2"));
    QCOMPARE(store.find(QStringLiteral("aaaa1"))->sessionId, QStringLiteral("s1"));
    QVERIFY(!store.find(QStringLiteral("aaaa")));  // ambiguous
    QVERIFY(!store.find(QStringLiteral("aa")));    // too short to be a prefix
    QVERIFY(!store.find(QString()));
}

QTEST_GUILESS_MAIN(TestReviewStore)
#include "tst_reviewstore.moc"
