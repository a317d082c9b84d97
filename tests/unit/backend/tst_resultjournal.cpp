// ResultJournal (SPEC §5 "Results survive the app"): what is recorded comes back after a restart, running calls
// come back as interrupted, a damaged file is read as far as it can be (and says where it was damaged), the file
// is 0600 in a 0700 folder, and compaction keeps it bounded.
#include "backend/resultjournal.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

namespace {

ToolResultMessage okResult(const QString& callId, const QString& output) {
    ToolResultMessage result;
    result.callId = callId;
    result.status = ExecStatus::Ok;
    result.exitCode = 3;
    result.output = output;
    result.truncated = true;
    result.durationMs = 1234;
    return result;
}

}  // namespace

class TestResultJournal : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_next = 0;
    QString freshPath() { return m_dir.filePath(QStringLiteral("data%1/journal/results.jsonl").arg(++m_next)); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void missingFileIsEmpty() {
        ResultJournal journal(freshPath());
        const ResultJournal::Loaded loaded = journal.load();
        QVERIFY(loaded.results.isEmpty());
        QVERIFY(loaded.interrupted.isEmpty());
        QVERIFY(loaded.problems.isEmpty());
    }

    void recordsSurviveARestart() {
        const QString path = freshPath();
        {
            ResultJournal journal(path);
            journal.load();
            QVERIFY(journal.recordStarted(QStringLiteral("a")));
            QVERIFY(journal.recordStarted(QStringLiteral("b")));
            QVERIFY(journal.recordStarted(QStringLiteral("c")));
            QVERIFY(journal.recordResult(okResult(QStringLiteral("a"), QStringLiteral("out \u00e9\x01\n\"q\""))));
            ToolResultMessage refused;
            refused.callId = QStringLiteral("r");
            refused.status = ExecStatus::Error;
            refused.errorCode = ProtocolErrorCode::WorkspaceNotApproved;
            refused.errorMessage = QStringLiteral("not approved");
            QVERIFY(journal.recordResult(refused));
            QVERIFY(journal.recordResult(okResult(QStringLiteral("b"), QStringLiteral("bee"))));
            QVERIFY(journal.recordForgotten(QStringLiteral("b")));  // acknowledged
        }                                                           // the app dies here: nothing more is written
        ResultJournal journal(path);
        const ResultJournal::Loaded loaded = journal.load();
        QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join(QLatin1Char('\n'))));
        QCOMPARE(loaded.results.size(), 2);
        const ToolResultMessage& a = loaded.results.at(0);
        QCOMPARE(a.callId, QStringLiteral("a"));
        QCOMPARE(a.status, ExecStatus::Ok);
        QCOMPARE(a.exitCode, std::optional<int>(3));
        QCOMPARE(a.output, QStringLiteral("out \u00e9\x01\n\"q\""));
        QCOMPARE(a.truncated, true);
        QCOMPARE(a.durationMs, qint64(1234));
        const ToolResultMessage& r = loaded.results.at(1);
        QCOMPARE(r.callId, QStringLiteral("r"));
        QCOMPARE(r.status, ExecStatus::Error);
        QCOMPARE(r.exitCode, std::nullopt);
        QCOMPARE(r.errorCode, ProtocolErrorCode::WorkspaceNotApproved);
        QCOMPARE(r.errorMessage, QStringLiteral("not approved"));
        QCOMPARE(loaded.interrupted, QStringList{QStringLiteral("c")});
    }

    void interruptedResultIsTheSpecText() {
        const ToolResultMessage result = ResultJournal::interruptedResult(QStringLiteral("x"));
        QCOMPARE(result.status, ExecStatus::Error);
        QCOMPARE(result.errorCode, ProtocolErrorCode::ContainerFailed);
        QCOMPARE(result.errorMessage, QStringLiteral("interrupted: the app stopped while this ran"));
        QCOMPARE(result.exitCode, std::nullopt);
    }

    void privateToItsUser() {
        const QString path = freshPath();
        ResultJournal journal(path);
        journal.load();
        QVERIFY(journal.recordResult(okResult(QStringLiteral("a"), QStringLiteral("secret output"))));
        QCOMPARE(QFileInfo(path).permissions(),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
        QCOMPARE(QFile::permissions(QFileInfo(path).absolutePath()),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner | QFileDevice::ReadUser
                     | QFileDevice::WriteUser | QFileDevice::ExeUser);
        QVERIFY(journal.rewrite({}, {okResult(QStringLiteral("a"), QStringLiteral("secret output"))}));
        QCOMPARE(QFileInfo(path).permissions(),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser);
    }

    void damagedFileIsReadAsFarAsItCanBe_data() {
        QTest::addColumn<QByteArray>("damage");
        QTest::addColumn<QString>("problem");
        QTest::newRow("write cut short by a crash")
            << QByteArray("{\"op\":\"result\",\"call_id\":\"z\",\"sta") << QStringLiteral("line 4 is incomplete");
        QTest::newRow("garbage line") << QByteArray("\x00\xff garbage\n", 11) << QStringLiteral("line 4 is unreadable");
        QTest::newRow("bad call id") << QByteArray("{\"op\":\"started\",\"call_id\":\"has space\"}\n")
                                     << QStringLiteral("line 4 is unreadable");
        QTest::newRow("unknown record") << QByteArray("{\"op\":\"launch\",\"call_id\":\"z\"}\n")
                                        << QStringLiteral("line 4 has an unknown record");
        QTest::newRow("result without status")
            << QByteArray("{\"op\":\"result\",\"call_id\":\"z\"}\n") << QStringLiteral("line 4 is not a valid result");
    }

    void damagedFileIsReadAsFarAsItCanBe() {
        QFETCH(QByteArray, damage);
        QFETCH(QString, problem);
        const QString path = freshPath();
        {
            ResultJournal journal(path);
            journal.load();
            journal.recordStarted(QStringLiteral("a"));
            journal.recordResult(okResult(QStringLiteral("a"), QStringLiteral("one")));
            journal.recordStarted(QStringLiteral("b"));
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::Append));
        file.write(damage);
        file.close();
        if (damage.endsWith('\n')) {
            ResultJournal more(path);
            more.load();
            more.recordResult(okResult(QStringLiteral("b"), QStringLiteral("two")));
        }
        ResultJournal journal(path);
        const ResultJournal::Loaded loaded = journal.load();
        QCOMPARE(loaded.problems.size(), 1);
        QVERIFY2(loaded.problems.first().startsWith(problem), qPrintable(loaded.problems.first()));
        QVERIFY(!loaded.results.isEmpty());
        QCOMPARE(loaded.results.first().output, QStringLiteral("one"));
        if (damage.endsWith('\n')) {
            QCOMPARE(loaded.results.size(), 2);  // what came after the damage is read too
            QVERIFY(loaded.interrupted.isEmpty());
        } else {
            QCOMPARE(loaded.interrupted, QStringList{QStringLiteral("b")});
        }
        // A rewrite leaves only what is live: the damage is gone.
        QVERIFY(journal.rewrite(loaded.interrupted, loaded.results));
        ResultJournal again(path);
        QVERIFY(again.load().problems.isEmpty());
    }

    void compactionKeepsTheFileBounded() {
        const QString path = freshPath();
        ResultJournal journal(path);
        journal.load();
        const QString output(100 * 1024, QLatin1Char('x'));
        qint64 largest = 0;
        for (int i = 0; i < 200; ++i) {
            const QString id = QStringLiteral("c%1").arg(i);
            QVERIFY(journal.recordStarted(id));
            QVERIFY(journal.recordResult(okResult(id, output)));
            QVERIFY(journal.recordForgotten(id));  // acknowledged at once
            if (journal.needsCompaction()) {
                QVERIFY(journal.rewrite({}, {}));
            }
            largest = qMax(largest, QFileInfo(path).size());
        }
        // 20 MB went through; the file never held much more than the compaction threshold.
        QVERIFY2(largest <= ResultJournal::kMinCompactBytes + 2 * 110 * 1024, qPrintable(QString::number(largest)));
        QVERIFY(journal.load().results.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestResultJournal)
#include "tst_resultjournal.moc"
