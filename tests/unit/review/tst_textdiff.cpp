// TextDiff: every diff is applied back to the text it came from by an independent patcher (unifiedpatch.h) and must
// give the other text; hunks are shaped as diff shapes them (context, merging); a few outputs are GNU `diff -u`'s
// own, byte for byte; line counts are the least possible (checked against a plain LCS table); a 200 000-line file
// diffs without a quadratic table; and which data counts as binary.
#include "review/textdiff.h"
#include "unifiedpatch.h"

#include <QRandomGenerator>
#include <QTest>

#include <utility>
#include <vector>

using zeus::TextDiff;
using zeus::test::applyUnified;
using zeus::test::parseUnified;
using zeus::test::UnifiedPatch;

namespace {

const QString kPath = QStringLiteral("src/file.txt");

QList<QByteArray> linesOf(const QByteArray& data) {
    QList<QByteArray> lines;
    for (qsizetype start = 0; start < data.size();) {
        const qsizetype newline = data.indexOf('\n', start);
        const qsizetype end = newline < 0 ? data.size() : newline + 1;
        lines.append(data.mid(start, end - start));
        start = end;
    }
    return lines;
}

// The fewest removed + added lines that turn one text into the other: n + m - 2·LCS, by the textbook table.
int editDistance(const QByteArray& before, const QByteArray& after) {
    const QList<QByteArray> a = linesOf(before);
    const QList<QByteArray> b = linesOf(after);
    std::vector<std::vector<int>> lcs(size_t(a.size()) + 1, std::vector<int>(size_t(b.size()) + 1, 0));
    for (qsizetype i = a.size() - 1; i >= 0; --i) {
        for (qsizetype j = b.size() - 1; j >= 0; --j) {
            lcs[size_t(i)][size_t(j)] = a.at(i) == b.at(j)
                                            ? lcs[size_t(i) + 1][size_t(j) + 1] + 1
                                            : std::max(lcs[size_t(i) + 1][size_t(j)], lcs[size_t(i)][size_t(j) + 1]);
        }
    }
    return int(a.size() + b.size()) - 2 * lcs[0][0];
}

// What must hold for any pair: the patch applies back exactly, the counts are those of its lines, the names are
// those of the sides, no change means no text, and each hunk has diff's shape for `context`.
void checkDiff(const QByteArray& before, const QByteArray& after, const TextDiff::Result& result, int context) {
    QVERIFY(!result.tooLarge);
    const std::optional<UnifiedPatch> patch = parseUnified(result.text);
    QVERIFY2(patch, qPrintable(result.text));
    const std::optional<QByteArray> applied = applyUnified(before, result.text);
    QVERIFY2(applied, qPrintable(result.text));
    QCOMPARE(*applied, after);
    if (before == after) {
        QVERIFY(result.text.isEmpty());
        QCOMPARE(result.added, 0);
        QCOMPARE(result.removed, 0);
        return;
    }
    QVERIFY(!patch->hunks.isEmpty());
    QCOMPARE(patch->oldName, before.isNull() ? QByteArray("/dev/null") : QByteArray("a/" + kPath.toUtf8()));
    QCOMPARE(patch->newName, after.isNull() ? QByteArray("/dev/null") : QByteArray("b/" + kPath.toUtf8()));
    const qsizetype oldLines = linesOf(before).size();
    int added = 0;
    int removed = 0;
    qsizetype previousChangeEnd = -1;  // old line index just after the previous hunk's last change
    for (const zeus::test::UnifiedHunk& hunk : patch->hunks) {
        const qsizetype first = hunk.oldCount == 0 ? hunk.oldStart : hunk.oldStart - 1;
        qsizetype leading = 0;
        while (leading < hunk.lines.size() && hunk.lines.at(leading).startsWith(' ')) {
            ++leading;
        }
        qsizetype trailing = 0;
        while (trailing < hunk.lines.size() && hunk.lines.at(hunk.lines.size() - 1 - trailing).startsWith(' ')) {
            ++trailing;
        }
        QVERIFY2(leading < hunk.lines.size(), "a hunk without a change");
        QCOMPARE(leading, std::min<qsizetype>(context, first + leading));  // lines before the first change
        QCOMPARE(trailing, std::min<qsizetype>(context, oldLines - (first + hunk.oldCount - trailing)));
        qsizetype run = 0;
        for (const QByteArray& line : hunk.lines) {
            added += line.startsWith('+') ? 1 : 0;
            removed += line.startsWith('-') ? 1 : 0;
            run = line.startsWith(' ') ? run + 1 : 0;
            QVERIFY2(run <= 2 * context, "unchanged lines inside a hunk beyond twice the context");
        }
        if (previousChangeEnd >= 0) {
            QVERIFY2(first + leading - previousChangeEnd > 2 * context, "hunks that would share context are apart");
        }
        previousChangeEnd = first + hunk.oldCount - trailing;
    }
    QCOMPARE(result.added, added);
    QCOMPARE(result.removed, removed);
    QCOMPARE(linesOf(before).size() - removed + added, linesOf(after).size());
}

}  // namespace

class TestTextDiff : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void matchesGnuDiff_data();
    void matchesGnuDiff();
    void minimal_data();
    void minimal();
    void randomPairs();
    void largeFileWithFewEdits();
    void reorderedFileStaysCorrect();
    void tooLarge();
    void looksBinary_data();
    void looksBinary();
};

void TestTextDiff::roundTrip_data() {
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<int>("context");
    const QByteArray ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    QTest::newRow("identical") << ten << ten << 3;
    QTest::newRow("both empty") << QByteArray("") << QByteArray("") << 3;
    QTest::newRow("empty to text") << QByteArray("") << QByteArray("a\nb\n") << 3;
    QTest::newRow("text to empty") << QByteArray("a\nb\n") << QByteArray("") << 3;
    QTest::newRow("missing before") << QByteArray() << QByteArray("a\nb\n") << 3;
    QTest::newRow("missing after") << QByteArray("a\nb\n") << QByteArray() << 3;
    QTest::newRow("missing before, empty after") << QByteArray() << QByteArray("") << 3;
    QTest::newRow("missing before, no final newline") << QByteArray() << QByteArray("a\nb") << 3;
    QTest::newRow("no final newline before") << QByteArray("a\nb") << QByteArray("a\nb\n") << 3;
    QTest::newRow("no final newline after") << QByteArray("a\nb\n") << QByteArray("a\nb") << 3;
    QTest::newRow("no final newline on either, last changed") << QByteArray("a\nb") << QByteArray("a\nc") << 3;
    QTest::newRow("no final newline on either, first changed") << QByteArray("a\nb") << QByteArray("c\nb") << 3;
    QTest::newRow("single line without newline") << QByteArray("x") << QByteArray("y") << 3;
    QTest::newRow("only newlines") << QByteArray("\n\n\n") << QByteArray("\n\n") << 3;
    QTest::newRow("crlf kept") << QByteArray("a\r\nb\r\nc\r\n") << QByteArray("a\r\nB\r\nc\r\n") << 3;
    QTest::newRow("crlf to lf") << QByteArray("a\r\nb\r\n") << QByteArray("a\nb\n") << 3;
    QTest::newRow("lone cr inside a line") << QByteArray("a\rb\nc\n") << QByteArray("a\rb\nd\n") << 3;
    QTest::newRow("repeated lines") << QByteArray("a\na\na\nb\na\na\n") << QByteArray("a\nb\na\na\na\na\nb\n") << 3;
    QTest::newRow("all replaced") << QByteArray("a\nb\nc\n") << QByteArray("x\ny\nz\n") << 3;
    QTest::newRow("edits far apart") << QByteArray(ten + ten + ten)
                                     << QByteArray(ten + ten + ten).replace("5\n6\n", "five\n") << 3;
    QTest::newRow("context 0") << ten << QByteArray(ten).replace("3\n", "").replace("8\n", "8\neight\n") << 0;
    QTest::newRow("context 1") << ten << QByteArray(ten).replace("3\n", "").replace("8\n", "8\neight\n") << 1;
    QTest::newRow("context 10") << ten << QByteArray(ten).replace("3\n", "") << 10;
    QTest::newRow("utf-8 lines") << QByteArray("héllo\n€\n") << QByteArray("héllo\n😀\n") << 3;
    QTest::newRow("line that looks like a marker") << QByteArray("\\ x\n") << QByteArray("\\ y\n") << 3;
}

void TestTextDiff::roundTrip() {
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(int, context);
    checkDiff(before, after, TextDiff::unified(before, after, kPath, context), context);
}

// Expected hunks are GNU diff 3.8's output (`diff -U<context> old new`) for the same files, pasted below its two
// header lines (which carry the files' names and times).
void TestTextDiff::matchesGnuDiff_data() {
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<int>("context");
    QTest::addColumn<QByteArray>("hunks");
    const QByteArray letters = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n";
    QTest::newRow("two hunks") << letters << QByteArray("a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\nM\nn\nnew\n") << 3
                               << QByteArray(
                                      "@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n"
                                      "@@ -10,5 +10,6 @@\n j\n k\n l\n-m\n+M\n n\n+new\n");
    QTest::newRow("two hunks, context 1")
        << letters << QByteArray("a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\nM\nn\nnew\n") << 1
        << QByteArray("@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n@@ -12,3 +12,4 @@\n l\n-m\n+M\n n\n+new\n");
    QTest::newRow("six lines apart: one hunk")
        << letters << QByteArray("a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nK\nl\nm\nn\n") << 3
        << QByteArray("@@ -1,14 +1,14 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n h\n i\n j\n-k\n+K\n l\n m\n n\n");
    QTest::newRow("crlf and no final newline")
        << QByteArray("one\r\ntwo\r\nthree") << QByteArray("one\r\n2\r\nthree\r\n") << 3
        << QByteArray("@@ -1,3 +1,3 @@\n one\r\n-two\r\n-three\n\\ No newline at end of file\n+2\r\n+three\r\n");
    QTest::newRow("empty to one line") << QByteArray("") << QByteArray("x\n") << 3 << QByteArray("@@ -0,0 +1 @@\n+x\n");
    QTest::newRow("one line to empty") << QByteArray("x\n") << QByteArray("") << 3 << QByteArray("@@ -1 +0,0 @@\n-x\n");
    QTest::newRow("newline dropped") << QByteArray("x\n") << QByteArray("x") << 3
                                     << QByteArray("@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n");
    QTest::newRow("newline added") << QByteArray("x") << QByteArray("x\n") << 3
                                   << QByteArray("@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n");
    QTest::newRow("insertion, context 0") << letters << QByteArray("a\nb\nc\nd\ne\nins\nf\ng\nh\ni\nj\nk\nl\nm\nn\n")
                                          << 0 << QByteArray("@@ -5,0 +6 @@\n+ins\n");
    QTest::newRow("deletion, context 0") << QByteArray("a\nb\nc\nd\ne\nins\nf\ng\nh\ni\nj\nk\nl\nm\nn\n") << letters
                                         << 0 << QByteArray("@@ -6 +5,0 @@\n-ins\n");
    QTest::newRow("repeated block appended")
        << QByteArray("a\nb\n") << QByteArray("a\nb\na\nb\n") << 3 << QByteArray("@@ -1,2 +1,4 @@\n a\n b\n+a\n+b\n");
    QTest::newRow("repeated block removed") << QByteArray("x\na\nb\na\nb\ny\n") << QByteArray("x\na\nb\ny\n") << 3
                                            << QByteArray("@@ -1,6 +1,4 @@\n x\n a\n b\n-a\n-b\n y\n");
    QTest::newRow("function removed after")
        << QByteArray("int f() {\n    return 1;\n}\n\nint g() {\n    return 2;\n}\n")
        << QByteArray("int f() {\n    return 1;\n}\n") << 3
        << QByteArray("@@ -1,7 +1,3 @@\n int f() {\n     return 1;\n }\n-\n-int g() {\n-    return 2;\n-}\n");
    QTest::newRow("function added after")
        << QByteArray("int f() {\n    return 1;\n}\n")
        << QByteArray("int f() {\n    return 1;\n}\n\nint g() {\n    return 2;\n}\n") << 3
        << QByteArray("@@ -1,3 +1,7 @@\n int f() {\n     return 1;\n }\n+\n+int g() {\n+    return 2;\n+}\n");
    QTest::newRow("function added before")
        << QByteArray("int f() {\n    return 1;\n}\n")
        << QByteArray("int g() {\n    return 2;\n}\n\nint f() {\n    return 1;\n}\n") << 3
        << QByteArray("@@ -1,3 +1,7 @@\n+int g() {\n+    return 2;\n+}\n+\n int f() {\n     return 1;\n }\n");
}

void TestTextDiff::matchesGnuDiff() {
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(int, context);
    QFETCH(QByteArray, hunks);
    const TextDiff::Result result = TextDiff::unified(before, after, kPath, context);
    QCOMPARE(result.text,
             QString::fromUtf8(QByteArray("--- a/" + kPath.toUtf8() + "\n+++ b/" + kPath.toUtf8() + '\n' + hunks)));
    checkDiff(before, after, result, context);
}

void TestTextDiff::minimal_data() {
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<int>("distance");
    QTest::newRow("one line changed") << QByteArray("a\nb\nc\n") << QByteArray("a\nx\nc\n") << 2;
    QTest::newRow("one line inserted") << QByteArray("a\nb\nc\n") << QByteArray("a\nb\nx\nc\n") << 1;
    QTest::newRow("one line removed") << QByteArray("a\nb\nc\n") << QByteArray("a\nc\n") << 1;
    // Myers' paper: ABCABBA → CBABAC takes five edits.
    QTest::newRow("myers example") << QByteArray("A\nB\nC\nA\nB\nB\nA\n") << QByteArray("C\nB\nA\nB\nA\nC\n") << 5;
    QTest::newRow("reversed") << QByteArray("1\n2\n3\n4\n") << QByteArray("4\n3\n2\n1\n") << 6;
    QTest::newRow("rotated") << QByteArray("1\n2\n3\n4\n5\n") << QByteArray("2\n3\n4\n5\n1\n") << 2;
    QTest::newRow("interleaved") << QByteArray("a\nb\na\nb\na\nb\n") << QByteArray("b\na\nb\na\nb\na\n") << 2;
    QTest::newRow("disjoint") << QByteArray("a\nb\n") << QByteArray("c\nd\ne\n") << 5;
}

void TestTextDiff::minimal() {
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(int, distance);
    QCOMPARE(editDistance(before, after), distance);  // the oracle agrees with the known figure
    const TextDiff::Result result = TextDiff::unified(before, after, kPath);
    checkDiff(before, after, result, 3);
    QCOMPARE(result.added + result.removed, distance);
}

// Hundreds of pairs drawn from a few lines (repeats make many equally short scripts), some without a final
// newline, some missing: each applies back, has diff's shape and is minimal.
void TestTextDiff::randomPairs() {
    const QList<QByteArray> alphabet = {"a\n", "b\n", "c\n", "\n", "a\r\n", "}\n", "dé\n"};
    QRandomGenerator random(20240517);
    const auto draw = [&random, &alphabet]() {
        const int kinds = 2 + int(random.bounded(quint32(alphabet.size() - 1)));
        const int count = int(random.bounded(25));
        QByteArray text;
        for (int i = 0; i < count; ++i) {
            text += alphabet.at(random.bounded(kinds));
        }
        if (!text.isEmpty() && random.bounded(5) == 0) {
            text.chop(1);
            if (text.endsWith('\r')) {
                text.chop(1);
            }
        }
        if (text.isEmpty() && random.bounded(2) == 0) {
            return QByteArray();  // missing
        }
        return text;
    };
    for (int round = 0; round < 600; ++round) {
        const QByteArray before = draw();
        QByteArray after = draw();
        if (round % 10 == 0) {
            after = before;
        } else if (round % 3 == 0 && !before.isEmpty()) {
            // A few edits to the same text, the common case.
            QList<QByteArray> lines = linesOf(before);
            for (int edit = 0; edit < 3; ++edit) {
                const qsizetype at = random.bounded(int(lines.size()) + 1);
                if (random.bounded(2) == 0 && at < lines.size()) {
                    lines.removeAt(at);
                } else {
                    lines.insert(at, alphabet.at(random.bounded(int(alphabet.size()))));
                }
            }
            after = lines.join();
        }
        const int context = int(random.bounded(5));
        const TextDiff::Result result = TextDiff::unified(before, after, kPath, context);
        checkDiff(before, after, result, context);
        if (QTest::currentTestFailed()) {
            qWarning("round %d: %s -> %s", round, before.toPercentEncoding().constData(),
                     after.toPercentEncoding().constData());
            return;
        }
        QCOMPARE(result.added + result.removed, editDistance(before, after));
    }
}

void TestTextDiff::largeFileWithFewEdits() {
    QList<QByteArray> lines;
    for (int i = 0; i < 200000; ++i) {
        lines.append("line " + QByteArray::number(i) + " of a long generated file\n");
    }
    const QByteArray before = lines.join();
    for (int k = 0; k < 25; ++k) {
        lines[(k * 7919 + 13) % 200000] = "changed " + QByteArray::number(k) + '\n';
    }
    lines.insert(100, QByteArray("inserted\n"));
    lines.removeAt(150000);
    const QByteArray after = lines.join();
    const TextDiff::Result result = TextDiff::unified(before, after, kPath);
    checkDiff(before, after, result, 3);
    QCOMPARE(result.added, 26);
    QCOMPARE(result.removed, 26);
}

// A file whose lines are all kept but shuffled: the script is long, so the search is cut short by its cost cap;
// the diff must still be exact.
void TestTextDiff::reorderedFileStaysCorrect() {
    QList<QByteArray> lines;
    for (int i = 0; i < 20000; ++i) {
        lines.append("row " + QByteArray::number(i % 500) + '\n');
    }
    const QByteArray before = lines.join();
    QRandomGenerator random(7);
    for (qsizetype i = lines.size() - 1; i > 0; --i) {
        lines.swapItemsAt(i, random.bounded(int(i) + 1));
    }
    const QByteArray after = lines.join();
    const TextDiff::Result result = TextDiff::unified(before, after, kPath);
    checkDiff(before, after, result, 3);
    QCOMPARE(result.added, result.removed);
}

void TestTextDiff::tooLarge() {
    const QByteArray four = "a\nb\nc\nd\n";
    const TextDiff::Result atLimit = TextDiff::unified(four, "a\nb\n", kPath, 3, 4);
    QVERIFY(!atLimit.tooLarge);
    QCOMPARE(atLimit.removed, 2);
    for (const auto& [before, after] : {std::pair<QByteArray, QByteArray>{QByteArray(four + "e"), "a\n"},
                                        std::pair<QByteArray, QByteArray>{QByteArray(), QByteArray(four + "e\n")}}) {
        const TextDiff::Result result = TextDiff::unified(before, after, kPath, 3, 4);
        QVERIFY(result.tooLarge);
        QVERIFY(!result.text.isEmpty());
        QVERIFY(result.text.contains(QLatin1String("4")));
        QVERIFY(!result.text.contains(QLatin1String("@@")));
        QCOMPARE(result.added, 0);
        QCOMPARE(result.removed, 0);
    }
}

void TestTextDiff::looksBinary_data() {
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<bool>("binary");
    QTest::newRow("empty") << QByteArray("") << false;
    QTest::newRow("null") << QByteArray() << false;
    QTest::newRow("ascii") << QByteArray("int main() {}\n") << false;
    QTest::newRow("utf-8") << QByteArray("héllo € 😀\n") << false;
    QTest::newRow("crlf") << QByteArray("a\r\nb\r\n") << false;
    QTest::newRow("nul first") << QByteArray("\0abc", 4) << true;
    QTest::newRow("nul at 7999") << QByteArray(QByteArray(7999, 'a') + '\0') << true;
    QTest::newRow("nul at 8000") << QByteArray(QByteArray(8000, 'a') + '\0') << false;
    QTest::newRow("latin-1 byte") << QByteArray("caf\xe9\n") << true;
    QTest::newRow("lone continuation byte") << QByteArray("a\x80") << true;
    QTest::newRow("truncated sequence") << QByteArray("\xe2\x82") << true;
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << true;
    QTest::newRow("invalid after 8000 bytes") << QByteArray(QByteArray(9000, 'a') + "\xff") << true;
    QTest::newRow("png signature") << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << true;
}

void TestTextDiff::looksBinary() {
    QFETCH(QByteArray, data);
    QFETCH(bool, binary);
    QCOMPARE(TextDiff::looksBinary(data), binary);
}

QTEST_GUILESS_MAIN(TestTextDiff)
#include "tst_textdiff.moc"
