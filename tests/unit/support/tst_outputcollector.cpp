// OutputCollector: the cap (kept vs live output), arrival order, per-stream counts and stateful UTF-8 decoding.
#include "support/outputcollector.h"

#include <QTest>

using zeus::OutputCollector;
using zeus::OutputStream;

class TestOutputCollector : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void arrivalOrderAndCounts();
    void capTruncates_data();
    void capTruncates();
    void splitCharacters_data();
    void splitCharacters();
    void invalidBytesBecomeReplacement_data();
    void invalidBytesBecomeReplacement();
    void incompleteAtEndIsFlushed();
    void streamsKeepTheirOwnState();
    void binarySafe();
    void tailLength_data();
    void tailLength();
    void sanitizedUtf8_data();
    void sanitizedUtf8();
    void capCutsACharacter_data();
    void capCutsACharacter();
};

void TestOutputCollector::arrivalOrderAndCounts() {
    OutputCollector c(100);
    QCOMPARE(c.append(OutputStream::Stdout, "out1 ").kept, QByteArray("out1 "));
    QCOMPARE(c.append(OutputStream::Stderr, "err1 ").kept, QByteArray("err1 "));
    QCOMPARE(c.append(OutputStream::Stdout, "out2").live, QByteArray("out2"));
    c.finish();
    QCOMPARE(c.text(), QStringLiteral("out1 err1 out2"));
    QCOMPARE(c.utf8(), QByteArray("out1 err1 out2"));
    QCOMPARE(c.bytes(OutputStream::Stdout), qint64(9));
    QCOMPARE(c.bytes(OutputStream::Stderr), qint64(5));
    QCOMPARE(c.totalBytes(), qint64(14));
    QVERIFY(!c.truncated());
}

void TestOutputCollector::capTruncates_data() {
    QTest::addColumn<int>("cap");
    QTest::addColumn<int>("chunkSize");
    QTest::addColumn<int>("chunks");
    QTest::newRow("exact") << 1000 << 100 << 10;
    QTest::newRow("over by one") << 1000 << 1001 << 1;
    QTest::newRow("many small") << 1024 << 7 << 1000;
    QTest::newRow("one MiB") << 1024 * 1024 << 65536 << 40;
    QTest::newRow("zero cap") << 0 << 10 << 3;
}

void TestOutputCollector::capTruncates() {
    QFETCH(int, cap);
    QFETCH(int, chunkSize);
    QFETCH(int, chunks);
    OutputCollector c(cap);
    const QByteArray chunk(chunkSize, 'x');
    qint64 streamed = 0;
    qint64 keptStreamed = 0;
    for (int i = 0; i < chunks; ++i) {
        const OutputCollector::Added added = c.append(i % 2 ? OutputStream::Stderr : OutputStream::Stdout, chunk);
        QVERIFY(added.live.startsWith(added.kept));
        streamed += added.live.size();
        keptStreamed += added.kept.size();
    }
    c.finish();
    const qint64 total = qint64(chunkSize) * chunks;
    QCOMPARE(c.totalBytes(), total);
    QCOMPARE(c.keptBytes(), qMin<qint64>(cap, total));
    QCOMPARE(c.droppedBytes(), total - c.keptBytes());
    QCOMPARE(c.truncated(), total > cap);
    QCOMPARE(qint64(c.text().size()), c.keptBytes());
    QCOMPARE(keptStreamed, c.keptBytes());
    QCOMPARE(streamed, total);  // live output goes on past the cap
}

void TestOutputCollector::splitCharacters_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("2-byte é") << QByteArray("caf\xc3\xa9!");
    QTest::newRow("3-byte 项目") << QStringLiteral("项目 a,b:c").toUtf8();
    QTest::newRow("4-byte emoji") << QByteArray("a\xf0\x9f\x98\x80z");
    QTest::newRow("mixed") << QStringLiteral("ü项😀ß").toUtf8();
}

void TestOutputCollector::splitCharacters() {
    // Every split point, and also byte by byte: the text is always decoded whole.
    QFETCH(QByteArray, bytes);
    const QString expected = QString::fromUtf8(bytes);
    for (int split = 0; split <= bytes.size(); ++split) {
        OutputCollector c;
        c.append(OutputStream::Stdout, bytes.left(split));
        c.append(OutputStream::Stdout, bytes.mid(split));
        c.finish();
        QCOMPARE(c.text(), expected);
    }
    OutputCollector single;
    for (const char byte : bytes) {
        single.append(OutputStream::Stdout, QByteArray(1, byte));
    }
    single.finish();
    QCOMPARE(single.text(), expected);
    QVERIFY(!single.text().contains(QChar::ReplacementCharacter));
}

void TestOutputCollector::invalidBytesBecomeReplacement_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::newRow("lone continuation") << QByteArray("a\x80z") << QStringLiteral("a\uFFFDz");
    QTest::newRow("ff byte") << QByteArray("\xffok") << QStringLiteral("\uFFFDok");
    QTest::newRow("truncated lead then ascii")
        << QByteArray("x\xe4\xb8y") << QStringLiteral("x\uFFFD\uFFFDy");  // one U+FFFD per stray byte
    QTest::newRow("overlong") << QByteArray("\xc0\xaf") << QStringLiteral("\uFFFD\uFFFD");
}

void TestOutputCollector::invalidBytesBecomeReplacement() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    OutputCollector c;
    QByteArray streamed;
    for (const char byte : bytes) {
        const OutputCollector::Added added = c.append(OutputStream::Stdout, QByteArray(1, byte));
        QCOMPARE(added.live, added.kept);
        streamed += added.kept;
    }
    streamed += c.finish(OutputStream::Stdout).kept;
    QCOMPARE(c.text(), expected);
    // What is streamed is exactly the kept output, always valid UTF-8 (it goes into JSON as is).
    QVERIFY(streamed.isValidUtf8());
    QCOMPARE(streamed, c.utf8());
    // The same in one chunk.
    OutputCollector whole;
    QVERIFY(whole.append(OutputStream::Stdout, bytes).live.isValidUtf8());
    whole.finish();
    QCOMPARE(whole.text(), expected);
}

void TestOutputCollector::incompleteAtEndIsFlushed() {
    OutputCollector c;
    QCOMPARE(c.append(OutputStream::Stdout, "ab\xe4\xb8").kept, QByteArray("ab"));
    QCOMPARE(c.finish(OutputStream::Stderr).live, QByteArray());
    const OutputCollector::Added tail = c.finish(OutputStream::Stdout);
    QCOMPARE(tail.kept, QStringLiteral("\uFFFD\uFFFD").toUtf8());
    QCOMPARE(tail.live, tail.kept);
    QCOMPARE(c.text(), QStringLiteral("ab\uFFFD\uFFFD"));
}

void TestOutputCollector::streamsKeepTheirOwnState() {
    // Half a character on stdout, then stderr output, then the rest on stdout.
    OutputCollector c;
    c.append(OutputStream::Stdout, "\xe9\xa1");
    c.append(OutputStream::Stderr, "E");
    c.append(OutputStream::Stdout, "\xb9");
    c.finish();
    QCOMPARE(c.text(), QStringLiteral("E项").replace(QStringLiteral("项"), QString::fromUtf8("\xe9\xa1\xb9")));
    QVERIFY(!c.text().contains(QChar::ReplacementCharacter));
}

void TestOutputCollector::binarySafe() {
    OutputCollector c;
    const QByteArray binary("a\0b\0\xfe", 5);
    c.append(OutputStream::Stdout, binary);
    c.finish();
    QCOMPARE(c.totalBytes(), qint64(5));
    QCOMPARE(c.text().size(), 5);
    QCOMPARE(c.text().at(1), QChar(0));
}

void TestOutputCollector::tailLength_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("tail");
    QTest::newRow("ascii") << QByteArray("abc") << 0;
    QTest::newRow("complete 3") << QByteArray("\xe4\xb8\xad") << 0;
    QTest::newRow("1 of 3") << QByteArray("a\xe4") << 1;
    QTest::newRow("2 of 3") << QByteArray("a\xe4\xb8") << 2;
    QTest::newRow("3 of 4") << QByteArray("\xf0\x9f\x98") << 3;
    QTest::newRow("invalid lead") << QByteArray("a\xff") << 0;
    QTest::newRow("empty") << QByteArray() << 0;
}

void TestOutputCollector::tailLength() {
    QFETCH(QByteArray, bytes);
    QFETCH(int, tail);
    QCOMPARE(OutputCollector::incompleteUtf8Tail(bytes), tail);
}

void TestOutputCollector::sanitizedUtf8_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("ascii") << QByteArray("plain text\n");
    QTest::newRow("valid multibyte") << QStringLiteral("ü项😀").toUtf8();
    QTest::newRow("NUL") << QByteArray("a\0b", 3);
    QTest::newRow("lone continuation") << QByteArray("a\x80z");
    QTest::newRow("overlong") << QByteArray("\xc0\xaf");
    QTest::newRow("surrogate encoded") << QByteArray("\xed\xa0\x80x");
    QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80");
    QTest::newRow("truncated at end") << QByteArray("ok\xe4\xb8");
}

void TestOutputCollector::sanitizedUtf8() {
    // Always what Qt's own decoder makes of the bytes, and always valid UTF-8.
    QFETCH(QByteArray, bytes);
    const QByteArray clean = OutputCollector::sanitizedUtf8(bytes);
    QVERIFY(clean.isValidUtf8());
    QCOMPARE(QString::fromUtf8(clean), QString::fromUtf8(bytes));
    if (bytes.isValidUtf8()) {
        QCOMPARE(clean, bytes);
    }
}

void TestOutputCollector::capCutsACharacter_data() {
    QTest::addColumn<int>("cap");
    QTest::addColumn<int>("chunkSize");
    // 10 x "a项" (4 bytes each): caps that cut inside a character, at its end, with chunks that straddle the cap.
    for (int cap : {0, 1, 2, 3, 4, 5, 17, 39, 40, 41}) {
        for (int chunkSize : {1, 3, 7, 40}) {
            QTest::addRow("cap %d, chunks of %d", cap, chunkSize) << cap << chunkSize;
        }
    }
}

void TestOutputCollector::capCutsACharacter() {
    // The kept text is what the first `cap` bytes alone decode to; the live text is all of the output, whole.
    QFETCH(int, cap);
    QFETCH(int, chunkSize);
    const QByteArray bytes = QStringLiteral("a项").repeated(10).toUtf8();
    OutputCollector c(cap);
    QByteArray live;
    QByteArray kept;
    for (int at = 0; at < bytes.size(); at += chunkSize) {
        const OutputCollector::Added added = c.append(OutputStream::Stdout, bytes.mid(at, chunkSize));
        live += added.live;
        kept += added.kept;
    }
    const OutputCollector::Added tail = c.finish(OutputStream::Stdout);
    live += tail.live;
    kept += tail.kept;
    QCOMPARE(QString::fromUtf8(live), QString::fromUtf8(bytes));
    QCOMPARE(c.text(), QString::fromUtf8(bytes.left(cap)));
    QCOMPARE(kept, c.utf8());
    QCOMPARE(c.truncated(), cap < bytes.size());
}

QTEST_GUILESS_MAIN(TestOutputCollector)
#include "tst_outputcollector.moc"
