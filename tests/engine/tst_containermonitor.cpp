// ContainerMonitor on real Docker and Podman (rows): events of this owner's containers
// (start, die with the exit code, destroy/remove), the state of containers that existed
// before it started, stats only while polling is enabled, nothing of another owner; and,
// with a fake CLI, the events stream's restart backoff and terminate-then-kill on stop(); and
// the stream surviving a crash of the test's OWN private dockerd (never the shared one).
#include "engine/containerruntime.h"
#include "engine/containerstats.h"
#include "monitor/containermonitor.h"
#include "privatedockerd.h"
#include "sessionfixture.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QUuid>

#include <csignal>
#include <cstdlib>
#include <unistd.h>

using namespace zeus;
using namespace zeus::test;
using State = ContainerEvent::State;

namespace {

struct Seen {
    QString id;
    QString session;
    State state;
    int exitCode;
    QDateTime time;
};

// Everything a monitor reports, in order.
class MonitorLog {
public:
    explicit MonitorLog(ContainerMonitor& monitor) {
        QObject::connect(
            &monitor, &ContainerMonitor::containerEvent,
            [this](const QString& id, const QString& session, State state, int exitCode, const QDateTime& time) {
                events.append({id, session, state, exitCode, time});
            });
        QObject::connect(&monitor, &ContainerMonitor::statsUpdated,
                         [this](const QString& id, double cpu, qint64 memory, qint64 limit) {
                             stats.append({id, cpu, memory, limit});
                         });
    }
    const Seen* find(const QString& id, State state) const {
        for (const Seen& seen : events) {
            if (seen.id == id && seen.state == state) {
                return &seen;
            }
        }
        return nullptr;
    }
    bool waitFor(const QString& id, State state, int timeoutMs = 20000) const {
        return QTest::qWaitFor([&] { return find(id, state) != nullptr; }, timeoutMs);
    }
    bool mentions(const QString& id) const {
        return std::any_of(events.cbegin(), events.cend(), [&](const Seen& s) { return s.id == id; })
               || std::any_of(stats.cbegin(), stats.cend(),
                              [&](const ContainerStats& s) { return s.containerId == id; });
    }
    QList<Seen> events;
    QList<ContainerStats> stats;
};

RuntimeKind kindOf(const QString& engine) {
    return engine == QLatin1String("podman") ? RuntimeKind::Podman : RuntimeKind::Docker;
}

// `run -d` of a labelled container (with --init, as the app runs them, so `rm -f` ends it at
// once); its full id, or empty.
QString runContainer(const QString& engine, const QString& owner, const QString& session, const QStringList& command) {
    const ProcessOutput out =
        runProgram(engine, QStringList{QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--init"),
                                       QStringLiteral("--network"), QStringLiteral("none"), QStringLiteral("--label"),
                                       QStringLiteral("zeus.desktop=1"), QStringLiteral("--label"),
                                       QStringLiteral("zeus.desktop.owner=") + owner, QStringLiteral("--label"),
                                       QStringLiteral("zeus.desktop.session=") + session, testImage()}
                               + command);
    return out.exitCode == 0 ? QString::fromUtf8(out.out.trimmed()) : QString();
}

bool processAlive(qint64 pid) {
    return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0;
}

}  // namespace

class TestContainerMonitor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void engines_data();
    void lifecycleEvents_data() { engines_data(); }
    void lifecycleEvents();
    void existingContainersAtStart_data() { engines_data(); }
    void existingContainersAtStart();
    void statsOnlyWhileEnabled_data() { engines_data(); }
    void statsOnlyWhileEnabled();
    void refreshReportsVanishedContainer_data() { engines_data(); }
    void refreshReportsVanishedContainer();
    void streamRestartsWithBackoff();
    void stopTerminatesThenKills();
    void streamSurvivesEngineCrash();
    void appleWithoutEventsOrStats();

private:
    QString newOwner(const QString& engine);
    QString writeFakeCli(const QString& body);
    QList<QPair<QString, QString>> m_owners;  // engine, owner: cleaned up after each test
    QTemporaryDir m_dir;
};

void TestContainerMonitor::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestContainerMonitor::cleanup() {
    for (const auto& [engine, owner] : std::as_const(m_owners)) {
        removeContainersOf(engine, owner);
    }
    m_owners.clear();
}

void TestContainerMonitor::engines_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

QString TestContainerMonitor::newOwner(const QString& engine) {
    const QString owner = uniqueOwner();
    m_owners.append({engine, owner});
    return owner;
}

void TestContainerMonitor::lifecycleEvents() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString owner = newOwner(engine);
    const QString stranger = newOwner(engine);

    ContainerMonitor monitor(ContainerRuntime::create(kindOf(engine)), owner);
    MonitorLog log(monitor);
    QSignalSpy stream(&monitor, &ContainerMonitor::eventsStreamChanged);
    monitor.start();
    QVERIFY(stream.wait(10000));
    QCOMPARE(stream.first().first().toBool(), true);
    QVERIFY(monitor.isEventsStreamRunning());

    const QString theirs =
        runContainer(engine, stranger, QStringLiteral("s9"), {QStringLiteral("sleep"), QStringLiteral("1000")});
    const QString ours =
        runContainer(engine, owner, QStringLiteral("s1"), {QStringLiteral("sleep"), QStringLiteral("1000")});
    QVERIFY(!theirs.isEmpty());
    QVERIFY(!ours.isEmpty());

    QVERIFY2(log.waitFor(ours, State::Running), "no start event");
    const Seen* started = log.find(ours, State::Running);
    QCOMPARE(started->session, QStringLiteral("s1"));
    QVERIFY(started->time.isValid());
    QVERIFY(qAbs(started->time.secsTo(QDateTime::currentDateTimeUtc())) < 60);
    QVERIFY(monitor.trackedContainers().contains(ours));

    QCOMPARE(runProgram(engine, {QStringLiteral("kill"), ours}).exitCode, 0);
    QVERIFY2(log.waitFor(ours, State::Exited), "no die/died event");
    QCOMPARE(log.find(ours, State::Exited)->exitCode, 137);  // SIGKILL
    QCOMPARE(log.find(ours, State::Exited)->session, QStringLiteral("s1"));

    QCOMPARE(runProgram(engine, {QStringLiteral("rm"), QStringLiteral("-f"), ours}).exitCode, 0);
    QVERIFY2(log.waitFor(ours, State::Removed), "no destroy/remove event");
    QVERIFY(!monitor.trackedContainers().contains(ours));

    // The other owner's container, its kill and its removal: never reported.
    runProgram(engine, {QStringLiteral("rm"), QStringLiteral("-f"), theirs});
    QTest::qWait(1500);
    QVERIFY(!log.mentions(theirs));
    // Order: running, exited, removed; each once.
    QStringList order;
    for (const Seen& seen : std::as_const(log.events)) {
        QCOMPARE(seen.id, ours);
        order << ContainerEvent::stateName(seen.state);
    }
    QCOMPARE(order.mid(order.indexOf(QStringLiteral("running"))),
             (QStringList{QStringLiteral("running"), QStringLiteral("exited"), QStringLiteral("removed")}));

    monitor.stop();
    QVERIFY(!monitor.isEventsStreamRunning());
    QVERIFY(QTest::qWaitFor([&] { return monitor.runningProcessCount() == 0; }, 5000));
}

void TestContainerMonitor::existingContainersAtStart() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString owner = newOwner(engine);
    const QString running =
        runContainer(engine, owner, QStringLiteral("a"), {QStringLiteral("sleep"), QStringLiteral("1000")});
    const QString exited = runContainer(engine, owner, QStringLiteral("b"),
                                        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 5")});
    QVERIFY(!running.isEmpty());
    QVERIFY(!exited.isEmpty());
    QVERIFY(QTest::qWaitFor(
        [&] {
            return runProgram(engine, {QStringLiteral("inspect"), QStringLiteral("-f"),
                                       QStringLiteral("{{.State.Status}}"), exited})
                       .out.trimmed()
                   == "exited";
        },
        10000));

    ContainerMonitor monitor(ContainerRuntime::create(kindOf(engine)), owner);
    MonitorLog log(monitor);
    monitor.start();
    QVERIFY(log.waitFor(running, State::Running, 15000));
    QVERIFY(log.waitFor(exited, State::Exited, 15000));
    QCOMPARE(log.find(exited, State::Exited)->exitCode, 5);
    QCOMPARE(log.find(exited, State::Exited)->session, QStringLiteral("b"));
    QCOMPARE(log.find(running, State::Running)->session, QStringLiteral("a"));
    // The stream replays the last seconds (--since); a replay is not reported twice.
    QTest::qWait(1500);
    int runningReports = 0;
    for (const Seen& seen : std::as_const(log.events)) {
        runningReports += seen.id == running && seen.state == State::Running ? 1 : 0;
    }
    QCOMPARE(runningReports, 1);
}

void TestContainerMonitor::statsOnlyWhileEnabled() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString owner = newOwner(engine);
    const QString stranger = newOwner(engine);
    const QString theirs =
        runContainer(engine, stranger, QStringLiteral("x"), {QStringLiteral("sleep"), QStringLiteral("1000")});
    // A little work so the CPU figure has something to show; memory is the shell's.
    const QString ours =
        runContainer(engine, owner, QStringLiteral("s1"),
                     {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("while :; do :; done")});
    QVERIFY(!ours.isEmpty());
    QVERIFY(!theirs.isEmpty());

    ContainerMonitor monitor(ContainerRuntime::create(kindOf(engine)), owner);
    monitor.setStatsIntervalMs(500);
    MonitorLog log(monitor);
    monitor.start();
    QVERIFY(log.waitFor(ours, State::Running, 15000));

    // Disabled (the default): no stats process, ever.
    QVERIFY(!monitor.isStatsPollingEnabled());
    for (int i = 0; i < 10; ++i) {
        QVERIFY(!monitor.isStatsProcessRunning());
        QTest::qWait(100);
    }
    QVERIFY(log.stats.isEmpty());

    monitor.setStatsPollingEnabled(true);
    QVERIFY(monitor.isStatsProcessRunning());
    QVERIFY(QTest::qWaitFor([&] { return log.stats.size() >= 2; }, 30000));
    for (const ContainerStats& stats : std::as_const(log.stats)) {
        QCOMPARE(stats.containerId, ours);
        QVERIFY2(stats.memoryBytes > 0, qPrintable(QString::number(stats.memoryBytes)));
        QVERIFY(stats.memoryLimitBytes >= stats.memoryBytes);
        QVERIFY(stats.cpuPercent >= 0);
        QVERIFY(stats.cpuPercent <= 100.0 * QThread::idealThreadCount() + 5);
    }
    // The busy loop shows: at least one sample well above idle.
    QVERIFY(
        std::any_of(log.stats.cbegin(), log.stats.cend(), [](const ContainerStats& s) { return s.cpuPercent > 10; }));
    qInfo("%s: %lld stats samples, last cpu %.2f%%, memory %lld of %lld bytes", qPrintable(engine),
          static_cast<long long>(log.stats.size()), log.stats.last().cpuPercent,
          static_cast<long long>(log.stats.last().memoryBytes),
          static_cast<long long>(log.stats.last().memoryLimitBytes));

    // stop() pauses the polling, start() resumes it.
    monitor.stop();
    QVERIFY(!monitor.isStatsProcessRunning());
    const qsizetype beforeRestart = log.stats.size();
    monitor.start();
    QVERIFY(monitor.isStatsProcessRunning());
    QVERIFY(QTest::qWaitFor([&] { return log.stats.size() > beforeRestart; }, 30000));

    monitor.setStatsPollingEnabled(false);
    QVERIFY(!monitor.isStatsProcessRunning());
    const qsizetype samples = log.stats.size();
    for (int i = 0; i < 20; ++i) {
        QVERIFY(!monitor.isStatsProcessRunning());
        QTest::qWait(100);
    }
    QCOMPARE(log.stats.size(), samples);
    QVERIFY(!log.mentions(theirs));
    monitor.stop();
    QVERIFY(QTest::qWaitFor([&] { return monitor.runningProcessCount() == 0; }, 5000));
}

void TestContainerMonitor::refreshReportsVanishedContainer() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString owner = newOwner(engine);
    const QString ours =
        runContainer(engine, owner, QStringLiteral("s1"), {QStringLiteral("sleep"), QStringLiteral("1000")});
    QVERIFY(!ours.isEmpty());
    // Not started: no events stream, only what refresh() reads.
    ContainerMonitor monitor(ContainerRuntime::create(kindOf(engine)), owner);
    MonitorLog log(monitor);
    monitor.trackContainer(ours, QStringLiteral("s1"));
    monitor.refresh({ours});
    QVERIFY(log.waitFor(ours, State::Running, 15000));
    QVERIFY(!monitor.isEventsStreamRunning());
    QCOMPARE(runProgram(engine, {QStringLiteral("rm"), QStringLiteral("-f"), ours}).exitCode, 0);
    monitor.refresh({ours});
    QVERIFY(log.waitFor(ours, State::Removed, 15000));
    QCOMPARE(log.find(ours, State::Removed)->session, QStringLiteral("s1"));
    QVERIFY(monitor.trackedContainers().isEmpty());
}

QString TestContainerMonitor::writeFakeCli(const QString& body) {
    const QString path =
        m_dir.filePath(QStringLiteral("fake-engine-%1").arg(QUuid::createUuid().toString(QUuid::Id128).left(8)));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return {};
    }
    file.write("#!/bin/sh\n" + body.toUtf8() + "\n");
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

void TestContainerMonitor::streamRestartsWithBackoff() {
    // An engine whose events stream dies at once (daemon restarting): one event, then exit.
    const QString fake = writeFakeCli(
        QStringLiteral("case \"$1\" in\n"
                       "events) echo '{\"ID\":\"0123456789abcdef0123\",\"Status\":\"start\",\"Type\":\"container\","
                       "\"Attributes\":{\"zeus.desktop.owner\":\"own\",\"zeus.desktop.session\":\"s1\"}}'; exit 1;;\n"
                       "*) exit 1;;\n"
                       "esac"));
    QVERIFY(!fake.isEmpty());
    ContainerMonitor monitor(ContainerRuntime::create(RuntimeKind::Podman), QStringLiteral("own"));
    monitor.setProgram(fake);
    MonitorLog log(monitor);
    QSignalSpy stream(&monitor, &ContainerMonitor::eventsStreamChanged);
    QElapsedTimer clock;
    clock.start();
    QList<qint64> startedAt;
    connect(&monitor, &ContainerMonitor::eventsStreamChanged, this, [&](bool running) {
        if (running) {
            startedAt << clock.elapsed();
        }
    });
    monitor.start();
    // Starts at 0, then after 1 s, then after 2 s more.
    QVERIFY(QTest::qWaitFor([&] { return startedAt.size() >= 3; }, 10000));
    QVERIFY(log.find(QStringLiteral("0123456789abcdef0123"), State::Running) != nullptr);
    int reported = 0;
    for (const Seen& seen : std::as_const(log.events)) {
        reported += seen.state == State::Running ? 1 : 0;
    }
    QCOMPARE(reported, 1);  // the same start replayed by each new stream: reported once
    const qint64 firstGap = startedAt.at(1) - startedAt.at(0);
    const qint64 secondGap = startedAt.at(2) - startedAt.at(1);
    QVERIFY2(firstGap >= 900 && firstGap < 2500, qPrintable(QString::number(firstGap)));
    QVERIFY2(secondGap >= 1900 && secondGap < 4000, qPrintable(QString::number(secondGap)));
    monitor.stop();
    const int afterStop = static_cast<int>(startedAt.size());
    QTest::qWait(2500);
    QCOMPARE(startedAt.size(), afterStop);  // stop() also ends the restarts
}

void TestContainerMonitor::stopTerminatesThenKills() {
    // A stream that ignores SIGTERM: stop() must not block, and the process must still end.
    // Only the events call says it is ready (start() also runs `ps` with the same CLI).
    const QString ready = m_dir.filePath(QStringLiteral("ready"));
    const QString fake = writeFakeCli(QStringLiteral("trap '' TERM\n[ \"$1\" = events ] && : > '") + ready
                                      + QStringLiteral("'\nwhile :; do sleep 0.2; done"));
    QVERIFY(!fake.isEmpty());
    ContainerMonitor monitor(ContainerRuntime::create(RuntimeKind::Docker), QStringLiteral("own"));
    monitor.setProgram(fake);
    QSignalSpy stream(&monitor, &ContainerMonitor::eventsStreamChanged);
    monitor.start();
    QVERIFY(stream.wait(5000));
    QVERIFY(QTest::qWaitFor([&] { return QFile::exists(ready); }, 5000));  // its trap is set
    const qint64 pid = monitor.eventsProcessId();
    QVERIFY(processAlive(pid));
    QElapsedTimer clock;
    clock.start();
    monitor.stop();
    QVERIFY(clock.elapsed() < 200);  // never blocks
    QTest::qWait(300);
    QVERIFY(processAlive(pid));  // TERM ignored: still there inside the grace
    QVERIFY(QTest::qWaitFor([&] { return !processAlive(pid); }, ProcessTerminator::kGraceMs + 3000));
}

void TestContainerMonitor::streamSurvivesEngineCrash() {
    ZEUS_REQUIRE_PRIVATE_DOCKERD();
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));  // the shared engine holds the test image
    PrivateDockerd dockerd;
    QVERIFY2(dockerd.start(), "the private dockerd answers");
    QVERIFY(dockerd.loadImageFromSharedEngine(testImage()));

    const QString owner = uniqueOwner();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("DOCKER_HOST"), dockerd.host());
    ContainerMonitor monitor(ContainerRuntime::create(RuntimeKind::Docker), owner);
    monitor.setEnvironment(environment);
    MonitorLog log(monitor);
    QList<bool> streamStates;
    connect(&monitor, &ContainerMonitor::eventsStreamChanged, this, [&](bool running) { streamStates << running; });
    monitor.start();
    QVERIFY(QTest::qWaitFor([&] { return streamStates.contains(true); }, 10000));

    const auto docker = [&](const QStringList& arguments) {
        return runProgram(QStringLiteral("docker"), QStringList{QStringLiteral("-H"), dockerd.host()} + arguments);
    };
    const ProcessOutput run =
        docker({QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--init"), QStringLiteral("--network"),
                QStringLiteral("none"), QStringLiteral("--label"), QStringLiteral("zeus.desktop.owner=") + owner,
                QStringLiteral("--label"), QStringLiteral("zeus.desktop.session=s1"), testImage(),
                QStringLiteral("sleep"), QStringLiteral("1000")});
    QCOMPARE(run.exitCode, 0);
    const QString id = QString::fromUtf8(run.out.trimmed());
    QVERIFY(log.waitFor(id, State::Running));

    // The engine crashes: the stream ends and is restarted with backoff until it answers.
    dockerd.crash();
    QVERIFY(QTest::qWaitFor([&] { return streamStates.endsWith(false); }, 10000));
    QTest::qWait(2500);  // a couple of failed restarts
    QVERIFY2(streamStates.count(false) >= 2, "no restart attempt while the engine was down");
    QVERIFY2(dockerd.start(), "the private dockerd restarts");

    // Back: the stream runs again, and what happened to the container across the crash
    // (the engine stops it on restart, or it survived) is known without any new event.
    QVERIFY(QTest::qWaitFor([&] { return monitor.isEventsStreamRunning() && streamStates.count(true) >= 2; },
                            ContainerMonitor::kMaxRestartDelayMs + 10000));
    const QByteArray status =
        docker({QStringLiteral("inspect"), QStringLiteral("-f"), QStringLiteral("{{.State.Status}}"), id})
            .out.trimmed();
    qInfo("after the engine's restart the container is %s", status.constData());
    if (status == "running") {
        QCOMPARE(log.events.last().state, State::Running);
    } else {
        QVERIFY(log.waitFor(id, State::Exited));
    }
    // And new events flow again.
    QTest::qWait(1000);
    QCOMPARE(docker({QStringLiteral("rm"), QStringLiteral("-f"), id}).exitCode, 0);
    QVERIFY2(log.waitFor(id, State::Removed), "no destroy event after the restart");
    monitor.stop();
}

void TestContainerMonitor::appleWithoutEventsOrStats() {
    // Apple's CLI (the fake that answers as reference/apple-container-cli.md documents):
    // no events stream, no stats; list and inspect give the state.
    const QString fake = QStringLiteral(ZEUS_TEST_FAKES_DIR "/apple/container");
    QVERIFY(QFileInfo(fake).isExecutable());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("ZEUS_FAKE_APPLE_STATE"), m_dir.filePath(QStringLiteral("apple-state")));
    const auto fakeRun = [&](const QStringList& arguments) {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.start(fake, arguments);
        process.waitForFinished(10000);
        return QString::fromUtf8(process.readAllStandardOutput().trimmed());
    };
    fakeRun({QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--name"), QStringLiteral("ours"),
             QStringLiteral("-l"), QStringLiteral("zeus.desktop.owner=own"), QStringLiteral("-l"),
             QStringLiteral("zeus.desktop.session=s1"), QStringLiteral("zeus-desktop-sandbox:latest"),
             QStringLiteral("sleep"), QStringLiteral("1000")});
    fakeRun({QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--name"), QStringLiteral("theirs"),
             QStringLiteral("-l"), QStringLiteral("zeus.desktop.owner=other"),
             QStringLiteral("zeus-desktop-sandbox:latest"), QStringLiteral("sleep"), QStringLiteral("1000")});
    fakeRun({QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--name"), QStringLiteral("unlabelled"),
             QStringLiteral("zeus-desktop-sandbox:latest"), QStringLiteral("sleep"), QStringLiteral("1000")});

    ContainerMonitor monitor(ContainerRuntime::create(RuntimeKind::Apple), QStringLiteral("own"));
    monitor.setProgram(fake);
    monitor.setEnvironment(environment);
    monitor.setStatsIntervalMs(200);
    MonitorLog log(monitor);
    monitor.start();
    QVERIFY(log.waitFor(QStringLiteral("ours"), State::Running, 10000));
    QCOMPARE(log.find(QStringLiteral("ours"), State::Running)->session, QStringLiteral("s1"));
    QCOMPARE(monitor.trackedContainers(), QStringList{QStringLiteral("ours")});
    QVERIFY(!monitor.isEventsStreamRunning());
    monitor.setStatsPollingEnabled(true);
    for (int i = 0; i < 5; ++i) {
        QVERIFY(!monitor.isStatsProcessRunning());
        QTest::qWait(100);
    }
    QVERIFY(log.stats.isEmpty());
    fakeRun({QStringLiteral("rm"), QStringLiteral("-f"), QStringLiteral("ours")});
    monitor.refresh({QStringLiteral("ours")});
    QVERIFY(log.waitFor(QStringLiteral("ours"), State::Removed, 10000));
    QVERIFY(!log.mentions(QStringLiteral("theirs")));
    QVERIFY(!log.mentions(QStringLiteral("unlabelled")));
}

QTEST_GUILESS_MAIN(TestContainerMonitor)
#include "tst_containermonitor.moc"
