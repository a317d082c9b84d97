// TarWriter: the stream of a real folder (odd names, long paths, an empty folder, symlinks, an executable, a 100 MB
// file) extracted by GNU tar and by busybox tar gives back exactly the scanned manifest; chunks stay bounded; a file
// that changes or turns into a symlink after the scan stops the stream; the pax headers are right.
#include "review/tarwriter.h"
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using zeus::ManifestEntry;
using zeus::TarWriter;
using zeus::WorkspaceManifest;

namespace {

constexpr qint64 kBigSize = 100 * 1024 * 1024;
const QString kOddName = QStringLiteral("项目 a,b:c \"q\"");

bool writeFile(const QString& path, const QByteArray& content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

QString longPath() {
    return QString(120, QLatin1Char('d')) + QLatin1Char('/') + QStringLiteral("目录") + QString(90, QLatin1Char('e'))
           + QLatin1Char('/') + QString(150, QLatin1Char('f')) + QStringLiteral(".txt");
}

bool makeSampleFolder(const QString& root) {
    bool ok = writeFile(root + QLatin1Char('/') + kOddName, "odd\n");
    ok = ok && writeFile(root + QStringLiteral("/run.sh"), "#!/bin/sh\necho hi\n");
    ok = ok
         && QFile::setPermissions(root + QStringLiteral("/run.sh"),
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup
                                      | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
    ok = ok && writeFile(root + QStringLiteral("/empty.txt"), {});
    ok = ok && QDir().mkpath(root + QStringLiteral("/empty dir"));
    ok = ok && QFile::link(QStringLiteral("run.sh"), root + QStringLiteral("/link"));
    ok = ok && QFile::link(QStringLiteral("/etc/passwd"), root + QStringLiteral("/outside"));
    ok = ok
         && QFile::link(QStringLiteral("../") + QString(110, QLatin1Char('t')) + QStringLiteral("/目标"),
                        root + QStringLiteral("/long-link"));
    ok = ok && writeFile(root + QLatin1Char('/') + longPath(), "deep\n");
    ok = ok && writeFile(root + QStringLiteral("/.git/HEAD"), "ref: refs/heads/main\n");
    // 100 MB, mostly a hole, with data at a few offsets (the copy must not care).
    QFile big(root + QStringLiteral("/big.bin"));
    ok = ok && big.open(QIODevice::WriteOnly) && big.resize(kBigSize);
    for (const qint64 offset : {qint64(0), qint64(4096), kBigSize / 2 + 7, kBigSize - 3}) {
        ok = ok && big.seek(offset) && big.write("zeus") == 4;
    }
    big.close();
    return ok;
}

// Streams the folder into a file, checking every chunk's bound.
bool streamToFile(const QString& root, const WorkspaceManifest& manifest, const QString& tarPath, qint64 chunkSize,
                  QString& problem) {
    TarWriter writer(root, manifest.entries, chunkSize);
    QFile out(tarPath);
    if (!out.open(QIODevice::WriteOnly)) {
        problem = out.errorString();
        return false;
    }
    while (!writer.atEnd()) {
        const QByteArray chunk = writer.nextChunk();
        if (writer.hasError()) {
            problem = writer.errorString();
            return false;
        }
        if (chunk.isEmpty() || chunk.size() > chunkSize) {
            problem = QStringLiteral("chunk of %1 bytes").arg(chunk.size());
            return false;
        }
        out.write(chunk);
    }
    if (out.size() % TarWriter::kBlock != 0 || writer.bytesWritten() != out.size()) {
        problem = QStringLiteral("stream of %1 bytes").arg(out.size());
        return false;
    }
    return true;
}

}  // namespace

class TestTarWriter : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void extractsToTheSameManifest_data();
    void extractsToTheSameManifest();
    void changedFileStopsTheStream();
    void fileSwappedForASymlinkStopsTheStream();
    void headers_data();
    void headers();
};

void TestTarWriter::extractsToTheSameManifest_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QStringList>("extract");
    QTest::newRow("GNU tar") << QStringLiteral("tar") << QStringList{QStringLiteral("-xpf")};
    QTest::newRow("busybox tar") << QStringLiteral("busybox")
                                 << QStringList{QStringLiteral("tar"), QStringLiteral("-xf")};
}

void TestTarWriter::extractsToTheSameManifest() {
    QFETCH(QString, program);
    QFETCH(QStringList, extract);
    if (QStandardPaths::findExecutable(program).isEmpty()) {
        if (zeus::test::isCi()) {
            QFAIL(qPrintable(program + QStringLiteral(" is not installed")));
        }
        QSKIP("not installed");
    }
    QTemporaryDir source;
    QTemporaryDir target;
    QTemporaryDir work;
    QVERIFY(source.isValid() && target.isValid() && work.isValid());
    QVERIFY(makeSampleFolder(source.path()));

    WorkspaceManifest manifest;
    const WorkspaceManifest::ScanResult scanned = WorkspaceManifest::scan(source.path(), manifest);
    QVERIFY2(scanned.ok, qPrintable(scanned.error));
    QVERIFY(manifest.find(longPath()));
    QVERIFY(manifest.find(QStringLiteral("big.bin")));

    const QString tarPath = work.filePath(QStringLiteral("copy.tar"));
    QString problem;
    QVERIFY2(streamToFile(source.path(), manifest, tarPath, TarWriter::kDefaultChunkSize, problem),
             qPrintable(problem));

    const zeus::test::ProcessOutput result =
        zeus::test::runProgram(program, extract + QStringList{tarPath, QStringLiteral("-C"), target.path()}, 120000);
    QVERIFY2(result.exitCode == 0, result.err.constData());

    WorkspaceManifest extracted;
    const WorkspaceManifest::ScanResult again = WorkspaceManifest::scan(target.path(), extracted);
    QVERIFY2(again.ok, qPrintable(again.error));
    QCOMPARE(extracted.entries.size(), manifest.entries.size());
    for (qsizetype i = 0; i < manifest.entries.size(); ++i) {
        QCOMPARE(extracted.entries.at(i).path, manifest.entries.at(i).path);
        QCOMPARE(extracted.entries.at(i), manifest.entries.at(i));
    }
}

void TestTarWriter::changedFileStopsTheStream() {
    QTemporaryDir source;
    QTemporaryDir work;
    QVERIFY(source.isValid() && work.isValid());
    QVERIFY(writeFile(source.filePath(QStringLiteral("a.txt")), "first\n"));
    QVERIFY(writeFile(source.filePath(QStringLiteral("b.txt")), "second\n"));
    WorkspaceManifest manifest;
    QVERIFY(WorkspaceManifest::scan(source.path(), manifest).ok);

    QVERIFY(writeFile(source.filePath(QStringLiteral("b.txt")), "SECOND\n"));  // same size, other bytes
    QString problem;
    QVERIFY(!streamToFile(source.path(), manifest, work.filePath(QStringLiteral("x.tar")), 4096, problem));
    QVERIFY2(problem.contains(QStringLiteral("b.txt")), qPrintable(problem));

    QVERIFY(writeFile(source.filePath(QStringLiteral("b.txt")), "second\nand more\n"));  // grew
    QVERIFY(!streamToFile(source.path(), manifest, work.filePath(QStringLiteral("y.tar")), 4096, problem));
    QVERIFY(writeFile(source.filePath(QStringLiteral("b.txt")), "sec"));  // shrank
    QVERIFY(!streamToFile(source.path(), manifest, work.filePath(QStringLiteral("z.tar")), 4096, problem));
    QVERIFY(writeFile(source.filePath(QStringLiteral("b.txt")), "second\n"));  // back as scanned
    QVERIFY2(streamToFile(source.path(), manifest, work.filePath(QStringLiteral("ok.tar")), 4096, problem),
             qPrintable(problem));
}

void TestTarWriter::fileSwappedForASymlinkStopsTheStream() {
    QTemporaryDir source;
    QTemporaryDir outside;
    QTemporaryDir work;
    QVERIFY(source.isValid() && outside.isValid() && work.isValid());
    QVERIFY(writeFile(source.filePath(QStringLiteral("notes.txt")), "same\n"));
    QVERIFY(writeFile(outside.filePath(QStringLiteral("secret.txt")), "same\n"));
    WorkspaceManifest manifest;
    QVERIFY(WorkspaceManifest::scan(source.path(), manifest).ok);

    // The same bytes behind a link: only the no-follow open can tell.
    QVERIFY(QFile::remove(source.filePath(QStringLiteral("notes.txt"))));
    QVERIFY(QFile::link(outside.filePath(QStringLiteral("secret.txt")), source.filePath(QStringLiteral("notes.txt"))));
    QString problem;
    QVERIFY(!streamToFile(source.path(), manifest, work.filePath(QStringLiteral("x.tar")), 4096, problem));
    QVERIFY2(problem.contains(QStringLiteral("notes.txt")), qPrintable(problem));
}

void TestTarWriter::headers_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("type");
    QTest::addColumn<qint64>("size");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QByteArray>("paxRecords");  // empty: a single ustar block

    const int file = static_cast<int>(ManifestEntry::Type::File);
    const int dir = static_cast<int>(ManifestEntry::Type::Directory);
    const int link = static_cast<int>(ManifestEntry::Type::Symlink);
    const QString hundred(100, QLatin1Char('a'));
    QTest::newRow("short ASCII") << QStringLiteral("a.txt") << file << qint64(5) << QString() << QByteArray();
    QTest::newRow("100 bytes") << hundred << file << qint64(0) << QString() << QByteArray();
    QTest::newRow("101 bytes") << hundred + QLatin1Char('b') << file << qint64(0) << QString()
                               << QByteArray("111 path=" + hundred.toUtf8() + "b\n");
    QTest::newRow("folder of 100 bytes gets its slash")
        << hundred << dir << qint64(0) << QString() << QByteArray("111 path=" + hundred.toUtf8() + "/\n");
    QTest::newRow("non-ASCII") << QStringLiteral("项目") << file << qint64(1) << QString()
                               << QByteArray("15 path=项目\n");
    QTest::newRow("8 GiB - 1 fits ustar")
        << QStringLiteral("f") << file << TarWriter::kMaxUstarSize << QString() << QByteArray();
    QTest::newRow("10 GiB needs pax") << QStringLiteral("f") << file << qint64(10) * 1024 * 1024 * 1024 << QString()
                                      << QByteArray("20 size=10737418240\n");
    QTest::newRow("short link") << QStringLiteral("l") << link << qint64(0) << QStringLiteral("/etc/passwd")
                                << QByteArray();
    QTest::newRow("non-ASCII link") << QStringLiteral("l") << link << qint64(0) << QStringLiteral("目标")
                                    << QByteArray("19 linkpath=目标\n");
}

void TestTarWriter::headers() {
    QFETCH(QString, path);
    QFETCH(int, type);
    QFETCH(qint64, size);
    QFETCH(QString, target);
    QFETCH(QByteArray, paxRecords);

    ManifestEntry entry;
    entry.path = path;
    entry.type = static_cast<ManifestEntry::Type>(type);
    entry.mode = 0644;
    entry.size = size;
    entry.linkTarget = target;
    const QByteArray header = TarWriter::headerFor(entry, 1700000000, 1000, 1000);
    QCOMPARE(header.size() % TarWriter::kBlock, 0);

    // Every block's checksum is right and its magic is ustar.
    QByteArray ustar = header.right(TarWriter::kBlock);
    for (qsizetype start = 0; start < header.size(); start += TarWriter::kBlock) {
        const QByteArray block = header.mid(start, TarWriter::kBlock);
        if (block.mid(257, 6) != QByteArray("ustar\0", 6)) {
            continue;  // pax record data
        }
        unsigned int sum = 0;
        for (int i = 0; i < TarWriter::kBlock; ++i) {
            sum += (i >= 148 && i < 156) ? unsigned(' ') : static_cast<unsigned char>(block.at(i));
        }
        QCOMPARE(block.mid(148, 6).toUInt(nullptr, 8), sum);
    }
    if (paxRecords.isEmpty()) {
        QCOMPARE(header.size(), TarWriter::kBlock);
        QVERIFY(ustar.startsWith(path.toUtf8()));
        QCOMPARE(ustar.mid(124, 11).toLongLong(nullptr, 8), size);
    } else {
        QCOMPARE(header.at(156), 'x');
        QCOMPARE(header.mid(TarWriter::kBlock, paxRecords.size()), paxRecords);
        // The pax record lengths count themselves.
        QCOMPARE(paxRecords.left(paxRecords.indexOf(' ')).toInt(), paxRecords.size());
        QCOMPARE(header.mid(124, 11).toLongLong(nullptr, 8), qint64(paxRecords.size()));
    }
    QCOMPARE(ustar.mid(108, 7).toUInt(nullptr, 8), 1000u);
}

QTEST_GUILESS_MAIN(TestTarWriter)
#include "tst_tarwriter.moc"
