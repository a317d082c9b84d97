// The session log: line splitting across chunks, stdout/stderr kept apart, coalesced
// updates, following the tail, and staying responsive with 100,000 lines and 64 MiB.
// Stalls are measured and printed, never asserted (speed is for benchmarks).
#include "sessions/sessionlogmodel.h"
#include "sessions/sessionlogview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

#include <functional>

using zeus::SessionLogModel;
using zeus::SessionLogView;
using Kind = zeus::SessionLogModel::Kind;

Q_DECLARE_METATYPE(QList<int>)

namespace {

// Measures the longest gap between ticks of a 5 ms timer while `work` runs the event loop.
class StallMeter : public QObject {
public:
    StallMeter() {
        m_timer.setInterval(5);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 gap = m_clock.restart();
            m_longest = std::max(m_longest, gap);
        });
    }
    void start() {
        m_longest = 0;
        m_clock.start();
        m_timer.start();
    }
    qint64 stop() {
        m_timer.stop();
        return m_longest;
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_longest = 0;
};

// Feeds `chunks` chunks, one per event-loop turn, as a socket would.
void stream(int chunks, const std::function<void(int)>& feed) {
    int sent = 0;
    QTimer producer;
    producer.setInterval(0);
    QObject::connect(&producer, &QTimer::timeout, [&] {
        if (sent < chunks) {
            feed(sent++);
        } else {
            producer.stop();
        }
    });
    producer.start();
    while (producer.isActive()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    }
}

bool scrolledToBottom(const SessionLogView& view) {
    const QScrollBar* bar = view.listView()->verticalScrollBar();
    return bar->value() == bar->maximum();
}

}  // namespace

class TestSessionLogView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsLines_data();
    void splitsLines();
    void longLinesAreCut();
    void boundedByMaximumLines();
    void coalescesUpdates();
    void keepsOrderOfCommandsAndOutput();
    void followsTailUnlessScrolledUp();
    void copiesSelectedLines();
    void hundredThousandLines();
    void sixtyFourMebibytes();
};

void TestSessionLogView::splitsLines_data() {
    QTest::addColumn<QStringList>("chunks");  // "o:" stdout, "e:" stderr
    QTest::addColumn<QStringList>("lines");
    QTest::addColumn<QString>("kinds");  // one letter per line: o e

    QTest::newRow("one line") << QStringList{QStringLiteral("o:hello\n")} << QStringList{QStringLiteral("hello")}
                              << QStringLiteral("o");
    QTest::newRow("line across chunks") << QStringList{QStringLiteral("o:hel"), QStringLiteral("o:lo\nwor"),
                                                       QStringLiteral("o:ld\n")}
                                        << QStringList{QStringLiteral("hello"), QStringLiteral("world")}
                                        << QStringLiteral("oo");
    QTest::newRow("open line shows") << QStringList{QStringLiteral("o:prompt> ")}
                                     << QStringList{QStringLiteral("prompt> ")} << QStringLiteral("o");
    QTest::newRow("crlf") << QStringList{QStringLiteral("o:a\r\nb\r"), QStringLiteral("o:\n")}
                          << QStringList{QStringLiteral("a"), QStringLiteral("b")} << QStringLiteral("oo");
    QTest::newRow("stderr interrupts open stdout")
        << QStringList{QStringLiteral("o:half"), QStringLiteral("e:oops\n"), QStringLiteral("o:rest\n")}
        << QStringList{QStringLiteral("half"), QStringLiteral("oops"), QStringLiteral("rest")} << QStringLiteral("oeo");
    QTest::newRow("empty lines kept") << QStringList{QStringLiteral("o:\n\nx\n")}
                                      << QStringList{QString(), QString(), QStringLiteral("x")}
                                      << QStringLiteral("ooo");
    QTest::newRow("interleaved whole lines")
        << QStringList{QStringLiteral("o:1\n"), QStringLiteral("e:2\n"), QStringLiteral("o:3\n"),
                       QStringLiteral("e:4\n")}
        << QStringList{QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3"), QStringLiteral("4")}
        << QStringLiteral("oeoe");
    QTest::newRow("invalid text kept as replacement") << QStringList{QStringLiteral("o:a\uFFFDb\n")}
                                                      << QStringList{QStringLiteral("a\uFFFDb")} << QStringLiteral("o");
}

void TestSessionLogView::splitsLines() {
    QFETCH(QStringList, chunks);
    QFETCH(QStringList, lines);
    QFETCH(QString, kinds);
    SessionLogModel model;
    for (const QString& chunk : chunks) {
        model.appendText(chunk.startsWith(QLatin1String("e:")) ? Kind::Stderr : Kind::Stdout,
                         QStringView(chunk).mid(2));
    }
    QCOMPARE(model.rowCount(), lines.size());
    for (int row = 0; row < lines.size(); ++row) {
        QCOMPARE(model.lineText(row), lines.at(row));
        QCOMPARE(model.lineKind(row), kinds.at(row) == QLatin1Char('e') ? Kind::Stderr : Kind::Stdout);
    }
}

void TestSessionLogView::longLinesAreCut() {
    SessionLogModel model;
    const QString huge(SessionLogModel::kMaxLineLength * 3, QLatin1Char('x'));
    model.appendText(Kind::Stdout, huge);
    model.appendText(Kind::Stdout, QStringLiteral("yyy\nnext\n"));
    QCOMPARE(model.rowCount(), 2);
    const QString first = model.lineText(0);
    QVERIFY(first.startsWith(QString(SessionLogModel::kMaxLineLength, QLatin1Char('x'))));
    QVERIFY2(first.contains(QString::number(SessionLogModel::kMaxLineLength * 2 + 3)), qPrintable(first.right(60)));
    QCOMPARE(model.lineText(1), QStringLiteral("next"));
    QCOMPARE(model.widestLine(), SessionLogModel::kMaxLineLength);
}

void TestSessionLogView::boundedByMaximumLines() {
    SessionLogModel model;
    model.setMaximumLines(100);
    QString text;
    for (int i = 0; i < 250; ++i) {
        text += QString::number(i) + QLatin1Char('\n');
    }
    model.appendText(Kind::Stdout, text);
    QCOMPARE(model.rowCount(), 100);
    QCOMPARE(model.lineText(0), QStringLiteral("150"));
    QCOMPARE(model.lineText(99), QStringLiteral("249"));
    QCOMPARE(model.droppedLines(), 150);
    model.appendLine(Kind::Notice, QStringLiteral("done"));
    QCOMPARE(model.rowCount(), 100);
    QCOMPARE(model.lineText(0), QStringLiteral("151"));
    QCOMPARE(model.lineText(99), QStringLiteral("done"));
}

void TestSessionLogView::coalescesUpdates() {
    SessionLogView view;
    view.resize(600, 300);
    view.show();
    QSignalSpy inserted(view.model(), &QAbstractItemModel::rowsInserted);
    for (int i = 0; i < 1000; ++i) {
        view.appendStdout(QStringLiteral("line %1\n").arg(i));
    }
    // Nothing is applied synchronously: a burst of chunks costs one model update.
    QCOMPARE(view.model()->rowCount(), 0);
    QTRY_COMPARE(view.model()->rowCount(), 1000);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(view.pendingChars(), 0);
}

void TestSessionLogView::keepsOrderOfCommandsAndOutput() {
    SessionLogView view;
    view.appendCommand(QStringLiteral("ls -l"));
    view.appendStdout(QStringLiteral("total 0\npartial"));
    view.appendStderr(QStringLiteral("warning\n"));
    view.appendResult(QStringLiteral("exit 0 · 12 ms"));
    view.flushAll();
    const SessionLogModel* model = view.model();
    QCOMPARE(model->rowCount(), 5);
    QCOMPARE(model->lineText(0), QStringLiteral("$ ls -l"));
    QCOMPARE(model->lineKind(0), Kind::Command);
    QCOMPARE(model->lineText(2), QStringLiteral("partial"));
    QCOMPARE(model->lineKind(3), Kind::Stderr);
    QCOMPARE(model->lineText(4), QStringLiteral("exit 0 · 12 ms"));
    QCOMPARE(model->lineKind(4), Kind::Result);
    // Stderr is distinguishable without colour too (accessible text).
    QVERIFY(model->data(model->index(3), Qt::AccessibleTextRole).toString().contains(QStringLiteral("error")));

    // For a look at it: ZEUS_SCREENSHOT_DIR=dir (tests/ui/screenshots.sh).
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (!shots.isEmpty()) {
        view.appendStdout(QStringLiteral("drwxr-xr-x 2 user user 4096 Nov 29 13:41 src\n"));
        view.appendCommand(QStringLiteral("cat missing.txt"));
        view.appendStderr(QStringLiteral("cat: missing.txt: No such file or directory\n"));
        view.appendResult(QStringLiteral("exit 1 · 8 ms"));
        view.flushAll();
        view.resize(640, 220);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.grab().save(shots + QStringLiteral("/sessionlog.png")));
    }
}

void TestSessionLogView::followsTailUnlessScrolledUp() {
    SessionLogView view;
    view.resize(600, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QString text;
    for (int i = 0; i < 500; ++i) {
        text += QStringLiteral("row %1\n").arg(i);
    }
    view.appendStdout(text);
    view.flushAll();
    QVERIFY(view.isFollowingTail());
    QVERIFY(scrolledToBottom(view));

    // The user scrolls up: new output does not move the view.
    QSignalSpy following(&view, &SessionLogView::followingTailChanged);
    view.listView()->verticalScrollBar()->setValue(10);
    QVERIFY(!view.isFollowingTail());
    QCOMPARE(following.count(), 1);
    view.appendStdout(QStringLiteral("more\nand more\n"));
    view.flushAll();
    QCOMPARE(view.listView()->verticalScrollBar()->value(), 10);
    auto* bar = view.findChild<QPushButton*>();
    QVERIFY(bar && bar->isVisible());
    auto* label = bar->parentWidget()->findChild<QLabel*>();
    QVERIFY2(label->text().contains(QLatin1String("2 new line")), qPrintable(label->text()));

    // Following again jumps to the end and stays there.
    bar->click();
    QVERIFY(view.isFollowingTail());
    QVERIFY(!bar->isVisible());
    view.appendStdout(QStringLiteral("last\n"));
    view.flushAll();
    QVERIFY(scrolledToBottom(view));
    QCOMPARE(view.model()->lineText(view.model()->rowCount() - 1), QStringLiteral("last"));

    // Scrolling back to the bottom by hand also resumes following.
    view.listView()->verticalScrollBar()->setValue(0);
    QVERIFY(!view.isFollowingTail());
    view.listView()->verticalScrollBar()->setValue(view.listView()->verticalScrollBar()->maximum());
    QVERIFY(view.isFollowingTail());
}

void TestSessionLogView::copiesSelectedLines() {
    SessionLogView view;
    view.appendStdout(QStringLiteral("a\nb\nc\n"));
    view.flushAll();
    auto* selection = view.listView()->selectionModel();
    selection->select(view.model()->index(2), QItemSelectionModel::Select);
    selection->select(view.model()->index(0), QItemSelectionModel::Select);
    QCOMPARE(view.selectedText(), QStringLiteral("a\nc"));
}

void TestSessionLogView::hundredThousandLines() {
    SessionLogView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    constexpr int kLines = 100000;
    constexpr int kPerChunk = 500;
    StallMeter meter;
    QElapsedTimer clock;
    clock.start();
    meter.start();
    stream(kLines / kPerChunk, [&view](int chunk) {
        QString text;
        for (int i = 0; i < kPerChunk; ++i) {
            const int n = chunk * kPerChunk + i;
            text += QStringLiteral("line %1: the quick brown fox jumps over the lazy dog\n").arg(n);
        }
        if (chunk % 10 == 9) {
            view.appendStderr(QStringLiteral("stderr after chunk %1\n").arg(chunk));
        }
        view.appendStdout(text);
    });
    QTRY_VERIFY_WITH_TIMEOUT(view.pendingChars() == 0, 60000);
    QTest::qWait(2 * SessionLogView::kFlushIntervalMs);
    const qint64 stall = meter.stop();
    qInfo("100,000 lines: %lld ms in all, longest event-loop stall %lld ms", static_cast<long long>(clock.elapsed()),
          static_cast<long long>(stall));

    const SessionLogModel* model = view.model();
    QCOMPARE(model->rowCount(), kLines + kLines / kPerChunk / 10);
    QCOMPARE(model->lineText(model->rowCount() - 1),
             QStringLiteral("line %1: the quick brown fox jumps over the lazy dog").arg(kLines - 1));
    QCOMPARE(model->lineKind(model->rowCount() - kPerChunk - 1), Kind::Stderr);
    QVERIFY(view.isFollowingTail());
    QVERIFY(scrolledToBottom(view));
}

void TestSessionLogView::sixtyFourMebibytes() {
    SessionLogView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // 64 KiB chunks of 128-character lines (127 + newline): 512 lines per chunk.
    constexpr int kChunkBytes = 64 * 1024;
    constexpr int kChunks = 64 * 1024 * 1024 / kChunkBytes;
    constexpr int kLineChars = 128;
    constexpr int kLinesPerChunk = kChunkBytes / kLineChars;
    StallMeter meter;
    QElapsedTimer clock;
    clock.start();
    meter.start();
    stream(kChunks, [&view](int chunk) {
        QString text;
        text.reserve(kChunkBytes);
        for (int i = 0; i < kLinesPerChunk; ++i) {
            QString line = QStringLiteral("%1 ").arg(chunk * kLinesPerChunk + i, 9, 10, QLatin1Char('0'));
            line = line.leftJustified(kLineChars - 1, QLatin1Char('.'));
            text += line + QLatin1Char('\n');
        }
        view.appendStdout(text);
    });
    QTRY_VERIFY_WITH_TIMEOUT(view.pendingChars() == 0, 120000);
    QTest::qWait(2 * SessionLogView::kFlushIntervalMs);
    const qint64 stall = meter.stop();
    const qint64 elapsed = clock.elapsed();
    qInfo("64 MiB: %lld ms in all (%.1f MiB/s), longest event-loop stall %lld ms", static_cast<long long>(elapsed),
          64.0 * 1000.0 / static_cast<double>(std::max<qint64>(elapsed, 1)), static_cast<long long>(stall));

    const SessionLogModel* model = view.model();
    constexpr qint64 kTotalLines = static_cast<qint64>(kChunks) * kLinesPerChunk;
    QCOMPARE(model->rowCount(), std::min<int>(static_cast<int>(kTotalLines), model->maximumLines()));
    QCOMPARE(model->droppedLines(), kTotalLines - model->rowCount());
    const QString last = model->lineText(model->rowCount() - 1);
    QVERIFY2(last.startsWith(QStringLiteral("%1 ").arg(kTotalLines - 1, 9, 10, QLatin1Char('0'))), qPrintable(last));
    QCOMPARE(last.size(), kLineChars - 1);
    const QString first = model->lineText(0);
    QVERIFY2(first.startsWith(QStringLiteral("%1 ").arg(kTotalLines - model->rowCount(), 9, 10, QLatin1Char('0'))),
             qPrintable(first));
    QVERIFY(view.isFollowingTail());
    QVERIFY(scrolledToBottom(view));
}

QTEST_MAIN(TestSessionLogView)
#include "tst_sessionlogview.moc"
