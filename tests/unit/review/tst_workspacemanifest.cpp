// WorkspaceManifest: the scan of a real folder (symlinks recorded, never followed; exclusions; the size cap that
// names the biggest folders), its JSON round trip, the container listing parser on hostile input, and the listing
// script run by busybox and by the host's sh giving the same manifest as the scan.
#include "review/workspacemanifest.h"
#include "testenvironment.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using zeus::ManifestEntry;
using zeus::WorkspaceManifest;

namespace {

const QString kOddName = QStringLiteral("项目 a,b:c \"q\"");

bool writeFile(const QString& path, const QByteArray& content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

QByteArray sha(const QByteArray& data) {
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

// A folder with every kind of entry the copy must handle.
void makeSampleFolder(const QString& root) {
    writeFile(root + QStringLiteral("/README.md"), "hello\n");
    writeFile(root + QStringLiteral("/bin/blob.bin"), QByteArray("\x00\x01\x02\xff", 4));
    writeFile(root + QStringLiteral("/run.sh"), "#!/bin/sh\necho hi\n");
    QFile::setPermissions(root + QStringLiteral("/run.sh"), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner
                                                                | QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther
                                                                | QFile::ExeOther);
    QFile::link(QStringLiteral("README.md"), root + QStringLiteral("/inside-link"));
    QFile::link(QStringLiteral("/etc/passwd"), root + QStringLiteral("/outside-link"));
    QFile::link(QStringLiteral("no such file"), root + QStringLiteral("/broken-link"));
    QDir().mkpath(root + QStringLiteral("/empty"));
    writeFile(root + QStringLiteral("/.env"), "TOKEN=secret\n");
    writeFile(root + QStringLiteral("/sub/.zeusignore"), "*.tmp\n");
    writeFile(root + QStringLiteral("/sub/keep.txt"), "keep\n");
    writeFile(root + QStringLiteral("/sub/scratch.tmp"), "scratch\n");
    writeFile(root + QStringLiteral("/.git/config"), "[core]\n");
    writeFile(root + QLatin1Char('/') + kOddName, "odd\n");
    writeFile(root + QStringLiteral("/.ssh/id_rsa"), "key\n");
}

QStringList pathsOf(const WorkspaceManifest& manifest) {
    QStringList paths;
    for (const ManifestEntry& entry : manifest.entries) {
        paths.append(entry.path);
    }
    return paths;
}

QByteArray record(const QByteArray& type, const QByteArray& mode, const QByteArray& size, const QByteArray& hash,
                  const QByteArray& path, const QByteArray& target = {}) {
    QByteArray out;
    for (const QByteArray& field : {type, mode, size, hash, path, target}) {
        out += field;
        out += '\0';
    }
    return out;
}

}  // namespace

class TestWorkspaceManifest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void scanRecordsEveryKindOfEntry();
    void scanNeverFollowsASymlinkedRoot();
    void sizeCapFailsNamingTheLargest();
    void cancelledScanFails();
    void jsonRoundTrip();
    void jsonRefusesMalformed_data();
    void jsonRefusesMalformed();
    void parsesContainerListing();
    void containerListingRefuses_data();
    void containerListingRefuses();
    void containerListingHasCaps();
    void listingScriptAgreesWithScan_data();
    void listingScriptAgreesWithScan();
};

void TestWorkspaceManifest::scanRecordsEveryKindOfEntry() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    makeSampleFolder(dir.path());

    WorkspaceManifest manifest;
    const WorkspaceManifest::ScanResult result = WorkspaceManifest::scan(dir.path(), manifest);
    QVERIFY2(result.ok, qPrintable(result.error));

    const QStringList expected = {
        QStringLiteral(".git"),         QStringLiteral(".git/config"),
        QStringLiteral("README.md"),    QStringLiteral("bin"),
        QStringLiteral("bin/blob.bin"), QStringLiteral("broken-link"),
        QStringLiteral("empty"),        QStringLiteral("inside-link"),
        QStringLiteral("outside-link"), QStringLiteral("run.sh"),
        QStringLiteral("sub"),          QStringLiteral("sub/.zeusignore"),
        QStringLiteral("sub/keep.txt"), kOddName,
    };
    QStringList sortedExpected = expected;
    std::sort(sortedExpected.begin(), sortedExpected.end());
    QCOMPARE(pathsOf(manifest), sortedExpected);

    const ManifestEntry* readme = manifest.find(QStringLiteral("README.md"));
    QVERIFY(readme);
    QCOMPARE(readme->type, ManifestEntry::Type::File);
    QCOMPARE(readme->size, qint64(6));
    QCOMPARE(readme->sha256, sha("hello\n"));
    QVERIFY(!readme->isExecutable());

    const ManifestEntry* blob = manifest.find(QStringLiteral("bin/blob.bin"));
    QVERIFY(blob);
    QCOMPARE(blob->sha256, sha(QByteArray("\x00\x01\x02\xff", 4)));

    const ManifestEntry* script = manifest.find(QStringLiteral("run.sh"));
    QVERIFY(script);
    QCOMPARE(script->mode, quint32(0755));
    QVERIFY(script->isExecutable());

    const ManifestEntry* outside = manifest.find(QStringLiteral("outside-link"));
    QVERIFY(outside);
    QCOMPARE(outside->type, ManifestEntry::Type::Symlink);
    QCOMPARE(outside->linkTarget, QStringLiteral("/etc/passwd"));
    QCOMPARE(outside->sha256, sha("/etc/passwd"));
    QCOMPARE(outside->size, qint64(11));

    const ManifestEntry* inside = manifest.find(QStringLiteral("inside-link"));
    QVERIFY(inside);
    QCOMPARE(inside->type, ManifestEntry::Type::Symlink);
    QCOMPARE(inside->linkTarget, QStringLiteral("README.md"));

    const ManifestEntry* empty = manifest.find(QStringLiteral("empty"));
    QVERIFY(empty);
    QCOMPARE(empty->type, ManifestEntry::Type::Directory);
    QVERIFY(empty->sha256.isEmpty());

    QVERIFY(manifest.find(kOddName));
    const ManifestEntry* broken = manifest.find(QStringLiteral("broken-link"));
    QVERIFY(broken);
    QCOMPARE(broken->type, ManifestEntry::Type::Symlink);
    QCOMPARE(broken->linkTarget, QStringLiteral("no such file"));

    QVERIFY(!manifest.find(QStringLiteral(".env")));
    QVERIFY(!manifest.find(QStringLiteral("sub/scratch.tmp")));
    QVERIFY(!manifest.find(QStringLiteral(".ssh")));
    QCOMPARE(manifest.ignoreFiles.value(QStringLiteral("sub")), QByteArray("*.tmp\n"));
    QCOMPARE(result.totalFileBytes, manifest.totalFileBytes());
}

void TestWorkspaceManifest::scanNeverFollowsASymlinkedRoot() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QDir().mkpath(dir.filePath(QStringLiteral("real")));
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("real")), dir.filePath(QStringLiteral("link"))));
    WorkspaceManifest manifest;
    const WorkspaceManifest::ScanResult result =
        WorkspaceManifest::scan(dir.filePath(QStringLiteral("link")), manifest);
    QVERIFY(!result.ok);
    QVERIFY(!result.error.isEmpty());
}

void TestWorkspaceManifest::sizeCapFailsNamingTheLargest() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeFile(dir.filePath(QStringLiteral("big/a.bin")), QByteArray(3000, 'a'));
    writeFile(dir.filePath(QStringLiteral("big/deep/b.bin")), QByteArray(3000, 'b'));
    writeFile(dir.filePath(QStringLiteral("medium/c.bin")), QByteArray(2000, 'c'));
    writeFile(dir.filePath(QStringLiteral("small.txt")), QByteArray(10, 'd'));
    writeFile(dir.filePath(QStringLiteral(".env")), QByteArray(100000, 'e'));  // excluded: not counted

    WorkspaceManifest manifest;
    manifest.skipped = {QStringLiteral("untouched")};
    const WorkspaceManifest::ScanResult result = WorkspaceManifest::scan(dir.path(), manifest, 5000);
    QVERIFY(!result.ok);
    QCOMPARE(result.totalFileBytes, qint64(8010));
    QCOMPARE(result.largest.size(), 3);
    QCOMPARE(result.largest.at(0).first, QStringLiteral("big"));
    QCOMPARE(result.largest.at(0).second, qint64(6000));
    QCOMPARE(result.largest.at(1).first, QStringLiteral("medium"));
    QCOMPARE(result.largest.at(2).first, QStringLiteral("small.txt"));
    QVERIFY2(result.error.contains(QStringLiteral("big (")), qPrintable(result.error));
    QVERIFY2(result.error.contains(QStringLiteral(".zeusignore")), qPrintable(result.error));
    // Never a partial manifest: the output is left as it was.
    QCOMPARE(manifest.skipped, QStringList{QStringLiteral("untouched")});
    QVERIFY(manifest.entries.isEmpty());

    const WorkspaceManifest::ScanResult fits = WorkspaceManifest::scan(dir.path(), manifest, 8010);
    QVERIFY2(fits.ok, qPrintable(fits.error));
}

void TestWorkspaceManifest::cancelledScanFails() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeFile(dir.filePath(QStringLiteral("a.txt")), "a");
    std::atomic<bool> cancel{true};
    WorkspaceManifest manifest;
    const WorkspaceManifest::ScanResult result =
        WorkspaceManifest::scan(dir.path(), manifest, WorkspaceManifest::kDefaultSizeCap, &cancel);
    QVERIFY(!result.ok);
    QVERIFY(manifest.entries.isEmpty());
}

void TestWorkspaceManifest::jsonRoundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    makeSampleFolder(dir.path());
    WorkspaceManifest manifest;
    QVERIFY(WorkspaceManifest::scan(dir.path(), manifest).ok);

    WorkspaceManifest loaded;
    QString error;
    QVERIFY2(WorkspaceManifest::fromJson(manifest.toJson(), loaded, &error), qPrintable(error));
    QCOMPARE(loaded.entries, manifest.entries);
    QCOMPARE(loaded.ignoreFiles, manifest.ignoreFiles);
    QCOMPARE(loaded.skipped, manifest.skipped);
    // The rules come back with it: the stored baseline still knows what the copy left out.
    QVERIFY(loaded.ignoreMatcher().isIgnored(QStringLiteral("sub/x.tmp"), false));
    QVERIFY(!loaded.ignoreMatcher().isIgnored(QStringLiteral("x.tmp"), false));
}

void TestWorkspaceManifest::jsonRefusesMalformed_data() {
    QTest::addColumn<QByteArray>("json");
    const QByteArray hash(64, 'a');
    auto doc = [](const QJsonArray& entries, int version = 1) {
        return QJsonDocument(QJsonObject{{QStringLiteral("version"), version}, {QStringLiteral("entries"), entries}})
            .toJson();
    };
    auto entry = [&hash](const QString& path, const QString& type = QStringLiteral("file"),
                         const QString& mode = QStringLiteral("644"), double size = 1) {
        return QJsonObject{{QStringLiteral("path"), path},
                           {QStringLiteral("type"), type},
                           {QStringLiteral("mode"), mode},
                           {QStringLiteral("size"), size},
                           {QStringLiteral("sha256"), QString::fromLatin1(hash)}};
    };
    QTest::newRow("not JSON") << QByteArray("{");
    QTest::newRow("an array") << QByteArray("[]");
    QTest::newRow("unknown version") << doc({entry(QStringLiteral("a"))}, 2);
    QTest::newRow("parent path") << doc({entry(QStringLiteral("../a"))});
    QTest::newRow("inner parent") << doc({entry(QStringLiteral("a/../../b"))});
    QTest::newRow("absolute") << doc({entry(QStringLiteral("/etc/passwd"))});
    QTest::newRow("empty component") << doc({entry(QStringLiteral("a//b"))});
    QTest::newRow("dot component") << doc({entry(QStringLiteral("./a"))});
    QTest::newRow("empty path") << doc({entry(QString())});
    QTest::newRow("unknown type") << doc({entry(QStringLiteral("a"), QStringLiteral("fifo"))});
    QTest::newRow("mode not octal") << doc({entry(QStringLiteral("a"), QStringLiteral("file"), QStringLiteral("9"))});
    QTest::newRow("negative size") << doc(
        {entry(QStringLiteral("a"), QStringLiteral("file"), QStringLiteral("644"), -1)});
    QJsonObject badHash = entry(QStringLiteral("a"));
    badHash.insert(QStringLiteral("sha256"), QStringLiteral("xyz"));
    QTest::newRow("bad hash") << doc({badHash});
    QTest::newRow("duplicate") << doc({entry(QStringLiteral("a")), entry(QStringLiteral("a"))});
}

void TestWorkspaceManifest::jsonRefusesMalformed() {
    QFETCH(QByteArray, json);
    WorkspaceManifest manifest;
    manifest.skipped = {QStringLiteral("untouched")};
    QString error;
    QVERIFY(!WorkspaceManifest::fromJson(json, manifest, &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(manifest.skipped, QStringList{QStringLiteral("untouched")});
}

void TestWorkspaceManifest::parsesContainerListing() {
    const QByteArray hash = sha("x");
    QByteArray listing = record("f", "755", "1", hash, "run.sh") + record("d", "700", "0", "-", "dir")
                         + record("l", "777", "0", "-", "dir/link", "../run.sh\n")
                         + record("f", "644", "3", sha("odd"), kOddName.toUtf8())
                         + record("f", "644", "3", "-", "unreadable") + record("f", "644", "1", hash, "bad\xff");
    WorkspaceManifest manifest;
    QString error;
    QVERIFY2(WorkspaceManifest::parseContainerListing(listing, manifest, &error), qPrintable(error));
    QCOMPARE(pathsOf(manifest),
             (QStringList{QStringLiteral("dir"), QStringLiteral("dir/link"), QStringLiteral("run.sh"), kOddName}));
    const ManifestEntry* run = manifest.find(QStringLiteral("run.sh"));
    QVERIFY(run);
    QCOMPARE(run->mode, quint32(0755));
    QCOMPARE(run->sha256, hash);
    const ManifestEntry* link = manifest.find(QStringLiteral("dir/link"));
    QVERIFY(link);
    QCOMPARE(link->linkTarget, QStringLiteral("../run.sh\n"));
    QCOMPARE(link->size, qint64(10));
    QCOMPARE(link->sha256, sha("../run.sh\n"));
    QCOMPARE(manifest.skipped, (QStringList{QStringLiteral("unreadable"), QStringLiteral("bad%FF")}));

    WorkspaceManifest empty;
    QVERIFY(WorkspaceManifest::parseContainerListing({}, empty, &error));
    QVERIFY(empty.entries.isEmpty());
}

void TestWorkspaceManifest::containerListingRefuses_data() {
    QTest::addColumn<QByteArray>("listing");
    const QByteArray hash = sha("x");
    QTest::newRow("no final NUL") << record("f", "644", "1", hash, "a").chopped(1);
    QTest::newRow("too few fields") << QByteArray(
        "f\0"
        "644\0"
        "1\0",
        6);
    QTest::newRow("parent path") << record("f", "644", "1", hash, "../etc/passwd");
    QTest::newRow("absolute path") << record("f", "644", "1", hash, "/etc/passwd");
    QTest::newRow("inner parent") << record("d", "755", "0", "-", "a/../..");
    QTest::newRow("empty path") << record("f", "644", "1", hash, "");
    QTest::newRow("unknown type") << record("p", "644", "0", "-", "fifo");
    QTest::newRow("bad mode") << record("f", "rwx", "1", hash, "a");
    QTest::newRow("mode too big") << record("f", "77777", "1", hash, "a");
    QTest::newRow("bad size") << record("f", "644", "-1", hash, "a");
    QTest::newRow("bad hash") << record("f", "644", "1", "abc", "a");
    QTest::newRow("duplicate") << record("f", "644", "1", hash, "a") + record("d", "755", "0", "-", "a");
}

void TestWorkspaceManifest::containerListingRefuses() {
    QFETCH(QByteArray, listing);
    WorkspaceManifest manifest;
    QString error;
    QVERIFY(!WorkspaceManifest::parseContainerListing(listing, manifest, &error));
    QVERIFY(!error.isEmpty());
}

// The listing is the copy's output, and the agent decides how long it is: it has a byte and an entry cap, each a
// clear error (SPEC §10 "The copy is hostile input").
void TestWorkspaceManifest::containerListingHasCaps() {
    QCOMPARE(zeus::ListingLimits::kDefaultBytes, qint64(256) * 1024 * 1024);
    QCOMPARE(zeus::ListingLimits::kDefaultEntries, qsizetype(1000000));
    const zeus::ListingLimits defaults;
    QCOMPARE(defaults.bytes, zeus::ListingLimits::kDefaultBytes);
    QCOMPARE(defaults.entries, zeus::ListingLimits::kDefaultEntries);

    QByteArray listing;
    for (int i = 0; i < 5; ++i) {
        listing += record("f", "644", "1", sha("x"), "f" + QByteArray::number(i));
    }
    WorkspaceManifest manifest;
    QString error;
    QVERIFY2(WorkspaceManifest::parseContainerListing(listing, manifest, &error, {listing.size(), 5}),
             qPrintable(error));
    QCOMPARE(manifest.entries.size(), 5);

    WorkspaceManifest untouched;
    QVERIFY(!WorkspaceManifest::parseContainerListing(listing, untouched, &error, {listing.size(), 4}));
    QVERIFY2(error.contains(QStringLiteral("more than 4 entries")), qPrintable(error));
    QVERIFY(untouched.entries.isEmpty());
    QVERIFY(!WorkspaceManifest::parseContainerListing(listing, untouched, &error, {listing.size() - 1, 5}));
    QVERIFY2(error.contains(QStringLiteral("more than %1 bytes").arg(listing.size() - 1)), qPrintable(error));
    QVERIFY(untouched.entries.isEmpty());
    // Empty records count too: a flood of them is refused before anything is split.
    const QByteArray flood(6 * 100, '\0');
    QVERIFY(!WorkspaceManifest::parseContainerListing(flood, untouched, &error, {flood.size(), 10}));
    QVERIFY2(error.contains(QStringLiteral("more than 10 entries")), qPrintable(error));

    QFile doc(QStringLiteral(ZEUS_SOURCE_DIR "/docs/review-mode.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QByteArray text = doc.readAll();
    QVERIFY2(text.contains("1,000,000 entries") && text.contains("256 MiB"), "docs/review-mode.md names the caps");
}

void TestWorkspaceManifest::listingScriptAgreesWithScan_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QStringList>("prefix");
    QTest::addColumn<bool>("appletsOnly");
    QTest::newRow("busybox applets only") << QStringLiteral("busybox") << QStringList{QStringLiteral("sh")} << true;
    QTest::newRow("host sh and tools") << QStringLiteral("sh") << QStringList{} << false;
}

// The script the container will run, run here on the same folder: parsed and filtered by the baseline's own rules,
// it must give exactly the scan's entries (modes, sizes, hashes, link targets, odd names).
void TestWorkspaceManifest::listingScriptAgreesWithScan() {
    QFETCH(QString, program);
    QFETCH(QStringList, prefix);
    QFETCH(bool, appletsOnly);
    const QString executable = QStandardPaths::findExecutable(program);
    if (executable.isEmpty()) {
        if (zeus::test::isCi()) {
            QFAIL(qPrintable(program + QStringLiteral(" is not installed")));
        }
        QSKIP("not installed");
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    makeSampleFolder(dir.path());
    writeFile(dir.filePath(QStringLiteral("line\nbreak")), "nl\n");
    QFile::link(QStringLiteral("target with trailing newline\n"), dir.filePath(QStringLiteral("nl-link")));
    // Names the batched hashing must keep straight: GNU sha256sum escapes a backslash (its line then starts with
    // one), a newline in a folder's name breaks busybox's lines, a leading dash, a glob; and enough files for more
    // than one line per batch, executable or not.
    writeFile(dir.filePath(QStringLiteral("back\\slash.txt")), "backslash\n");
    writeFile(dir.filePath(QStringLiteral("folder\nwith newline/inner.txt")), "inner\n");
    writeFile(dir.filePath(QStringLiteral("-dash.txt")), "dash\n");
    writeFile(dir.filePath(QStringLiteral("star * and ? [x].txt")), "glob\n");
    for (int i = 0; i < 300; ++i) {
        const QString path = dir.filePath(QStringLiteral("many/f%1.txt").arg(i));
        writeFile(path, QByteArray::number(i) + '\n');
        if (i % 7 == 0) {
            QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
    }

    WorkspaceManifest scanned;
    const WorkspaceManifest::ScanResult result = WorkspaceManifest::scan(dir.path(), scanned);
    QVERIFY2(result.ok, qPrintable(result.error));

    // busybox sh runs the host's find and stat when they are on the PATH: give it a PATH of its own applets only,
    // as in a busybox image, so a GNU-only option in the script fails here.
    QTemporaryDir applets;
    QVERIFY(applets.isValid());
    const QByteArray savedPath = qgetenv("PATH");
    if (appletsOnly) {
        for (const char* applet : {"sh", "find", "stat", "sha256sum", "readlink"}) {
            QVERIFY(QFile::link(executable, applets.filePath(QString::fromLatin1(applet))));
        }
        qputenv("PATH", QFile::encodeName(applets.path()));
    }
    const QStringList arguments = (appletsOnly ? QStringList{} : prefix)
                                  + QStringList{QStringLiteral("-c"), WorkspaceManifest::containerListingScript(),
                                                QStringLiteral("sh"), dir.path()};
    const zeus::test::ProcessOutput listing =
        zeus::test::runProgram(appletsOnly ? applets.filePath(QStringLiteral("sh")) : executable, arguments);
    qputenv("PATH", savedPath);
    QVERIFY2(listing.exitCode == 0, listing.err.constData());
    WorkspaceManifest container;
    QString error;
    QVERIFY2(WorkspaceManifest::parseContainerListing(listing.out, container, &error), qPrintable(error));
    QVERIFY(container.skipped.isEmpty());
    const WorkspaceManifest filtered = container.withoutIgnored(scanned.ignoreMatcher());
    QCOMPARE(pathsOf(filtered), pathsOf(scanned));
    for (const ManifestEntry& entry : scanned.entries) {
        const ManifestEntry* other = filtered.find(entry.path);
        QVERIFY(other);
        if (entry.type == ManifestEntry::Type::Directory) {
            QCOMPARE(other->type, entry.type);
            QCOMPARE(other->mode, entry.mode);
            continue;
        }
        QCOMPARE(*other, entry);
    }
}

QTEST_GUILESS_MAIN(TestWorkspaceManifest)
#include "tst_workspacemanifest.moc"
