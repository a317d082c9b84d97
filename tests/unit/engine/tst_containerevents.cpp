// ContainerEventParser over real captured engine output (tests/data/events) and over
// garbage: events lines of Docker and Podman, stats, inspect, sizes and argument lists.
#include "engine/appleruntime.h"
#include "engine/containereventparser.h"
#include "engine/dockerruntime.h"
#include "engine/podmanruntime.h"

#include <QFile>
#include <QTest>

#include <cmath>

using namespace zeus;
using State = ContainerEvent::State;

namespace {

QByteArray readData(const QString& name) {
    QFile file(QStringLiteral(ZEUS_TEST_DATA_DIR "/events/") + name);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return file.readAll();
}

QList<QByteArray> dataLines(const QString& name) {
    QList<QByteArray> lines = readData(name).split('\n');
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty()) {
        lines.removeLast();
    }
    return lines;
}

bool isFullId(const QString& id) {
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
    return hex.match(id).hasMatch();
}

}  // namespace

class TestContainerEvents : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void capturedLines_data();
    void capturedLines();
    void capturedTimes();
    void garbageLines_data();
    void garbageLines();
    void toleratedShapes_data();
    void toleratedShapes();
    void byteSizes_data();
    void byteSizes();
    void percents_data();
    void percents();
    void capturedStats_data();
    void capturedStats();
    void otherStatsShapes_data();
    void otherStatsShapes();
    void capturedInspect_data();
    void capturedInspect();
    void inspectGarbage_data();
    void inspectGarbage();
    void statusWords_data();
    void statusWords();
    void sameContainer_data();
    void sameContainer();
    void eventsArguments();
    void statsArguments();
};

void TestContainerEvents::capturedLines_data() {
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("action");
    QTest::addColumn<State>("state");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("session");

    struct Expected {
        const char* action;
        State state;
        int exitCode;
        const char* session;
    };
    const auto addFile = [](const QString& file, const QList<Expected>& expected) {
        const QList<QByteArray> lines = dataLines(file);
        QCOMPARE(lines.size(), expected.size());
        for (int i = 0; i < lines.size(); ++i) {
            const Expected& e = expected.at(i);
            QTest::addRow("%s:%d:%s", qPrintable(file), i + 1, e.action)
                << lines.at(i) << QString::fromLatin1(e.action) << e.state << e.exitCode
                << QString::fromLatin1(e.session);
        }
    };
    addFile(QStringLiteral("docker-20.10-client-28.2.events.jsonl"), {{"create", State::Created, -1, "s1"},
                                                                      {"start", State::Running, -1, "s1"},
                                                                      {"kill", State::Unknown, -1, "s1"},
                                                                      {"die", State::Exited, 137, "s1"},
                                                                      {"destroy", State::Removed, -1, "s1"},
                                                                      {"create", State::Created, -1, "s2"},
                                                                      {"start", State::Running, -1, "s2"},
                                                                      {"create", State::Created, -1, "s3"},
                                                                      {"start", State::Running, -1, "s3"},
                                                                      {"die", State::Exited, 3, "s3"},
                                                                      {"die", State::Exited, 0, "s2"},
                                                                      {"destroy", State::Removed, -1, "s2"},
                                                                      {"destroy", State::Removed, -1, "s3"}});
    addFile(QStringLiteral("podman-4.3.events.jsonl"),
            {{"create", State::Created, -1, "s1"},
             {"init", State::Unknown, -1, "s1"},
             {"start", State::Running, -1, "s1"},
             {"kill", State::Unknown, -1, "s1"},
             {"died", State::Exited, 137, "s1"},
             {"cleanup", State::Unknown, -1, "s1"},
             {"remove", State::Removed, -1, "s1"},
             {"create", State::Created, -1, "s2"},
             {"start", State::Running, -1, "s2"},
             {"create", State::Created, -1, "s3"},
             {"start", State::Running, -1, "s3"},
             {"died", State::Exited, 3, "s3"},
             {"cleanup", State::Unknown, -1, "s3"},
             {"died", State::Exited, 0, "s2"},  // podman omits ContainerExitCode when it is 0
             {"cleanup", State::Unknown, -1, "s2"},
             {"remove", State::Removed, -1, "s3"},
             {"remove", State::Removed, -1, "s2"}});
}

void TestContainerEvents::capturedLines() {
    QFETCH(QByteArray, line);
    QFETCH(QString, action);
    QFETCH(State, state);
    QFETCH(int, exitCode);
    QFETCH(QString, session);

    const std::optional<ContainerEvent> event = ContainerEventParser::parseEventLine(line);
    QVERIFY(event.has_value());
    QCOMPARE(event->action, action);
    QCOMPARE(event->state, state);
    QCOMPARE(event->exitCode, exitCode);
    QCOMPARE(event->sessionId, session);
    QVERIFY2(isFullId(event->containerId), qPrintable(event->containerId));
    QVERIFY(!event->ownerId.isEmpty());
    QVERIFY(event->time.isValid());
    QCOMPARE(event->time.timeSpec(), Qt::UTC);
    // The same line with a trailing carriage return or blanks is the same event.
    const std::optional<ContainerEvent> padded = ContainerEventParser::parseEventLine("  " + line + "\r\n");
    QVERIFY(padded.has_value());
    QCOMPARE(padded->state, state);
}

void TestContainerEvents::capturedTimes() {
    const QList<QByteArray> docker = dataLines(QStringLiteral("docker-20.10-client-28.2.events.jsonl"));
    QVERIFY(!docker.isEmpty());
    // timeNano 1795962410035143473
    QCOMPARE(ContainerEventParser::parseEventLine(docker.first())->time,
             QDateTime::fromMSecsSinceEpoch(Q_INT64_C(1795962410035), Qt::UTC));
    const QList<QByteArray> podman = dataLines(QStringLiteral("podman-4.3.events.jsonl"));
    QVERIFY(!podman.isEmpty());
    // "Time":"2026-11-29T14:26:56.043586624Z"
    QCOMPARE(ContainerEventParser::parseEventLine(podman.first())->time,
             QDateTime(QDate(2026, 11, 29), QTime(14, 26, 56, 43), Qt::UTC));
    QCOMPARE(ContainerEventParser::parseEventLine(podman.first())->ownerId, QStringLiteral("capture3641"));
}

void TestContainerEvents::garbageLines_data() {
    QTest::addColumn<QByteArray>("line");
    const QByteArray real = dataLines(QStringLiteral("docker-20.10-client-28.2.events.jsonl")).value(3);
    const QByteArray realPodman = dataLines(QStringLiteral("podman-4.3.events.jsonl")).value(4);
    QVERIFY(!real.isEmpty() && !realPodman.isEmpty());
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("blanks") << QByteArray("  \t ");
    QTest::newRow("text") << QByteArray("Error response from daemon: Cannot connect");
    QTest::newRow("truncated docker") << real.left(real.size() / 2);
    QTest::newRow("truncated podman") << realPodman.left(realPodman.size() - 3);
    QTest::newRow("docker without its first byte") << real.mid(1);
    QTest::newRow("empty object") << QByteArray("{}");
    QTest::newRow("array") << QByteArray("[{\"ID\":\"abc\",\"Status\":\"start\"}]");
    QTest::newRow("network event") << QByteArray(
        R"({"Type":"network","Action":"connect","Actor":{"ID":"0123456789abcdef","Attributes":{}}})");
    QTest::newRow("image event podman") << QByteArray(R"({"ID":"abc","Status":"pull","Type":"image"})");
    QTest::newRow("no id") << QByteArray(R"({"status":"start","Type":"container"})");
    QTest::newRow("no action") << QByteArray(R"({"ID":"0123456789abcdef","Type":"container"})");
    QTest::newRow("wrong types") << QByteArray(R"({"ID":["x"],"Status":{"a":1}})");
    QTest::newRow("nul bytes") << QByteArray("{\"ID\":\"a\0b\",\"Status\":\"start\"", 30);
    QTest::newRow("two objects") << real + real;
}

void TestContainerEvents::garbageLines() {
    QFETCH(QByteArray, line);
    QVERIFY(!ContainerEventParser::parseEventLine(line).has_value());
}

void TestContainerEvents::toleratedShapes_data() {
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("id");
    QTest::addColumn<State>("state");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QDateTime>("time");

    const QDateTime t(QDate(2026, 1, 2), QTime(3, 4, 5), Qt::UTC);
    QTest::newRow("old docker: lowercase only") << QByteArray(R"({"status":"die","id":"abc123","time":1767323045})")
                                                << QStringLiteral("abc123") << State::Exited << -1 << t;
    QTest::newRow("new docker: no status, no id") << QByteArray(
        R"({"Type":"container","Action":"oom","Actor":{"ID":"abc123","Attributes":{}},"time":1767323045})")
                                                  << QStringLiteral("abc123") << State::OutOfMemory << -1 << t;
    QTest::newRow("docker exit code not a number")
        << QByteArray(R"({"Action":"die","Actor":{"ID":"abc","Attributes":{"exitCode":"x"}}})") << QStringLiteral("abc")
        << State::Exited << -1 << QDateTime();
    QTest::newRow("docker exit code out of range")
        << QByteArray(R"({"Action":"die","Actor":{"ID":"abc","Attributes":{"exitCode":"99999"}}})")
        << QStringLiteral("abc") << State::Exited << -1 << QDateTime();
    QTest::newRow("podman local offset") << QByteArray(
        R"({"ID":"abc","Status":"start","Time":"2026-01-02T11:04:05.123456789+08:00"})")
                                         << QStringLiteral("abc") << State::Running << -1 << t.addMSecs(123);
    QTest::newRow("podman exit code as string") << QByteArray(R"({"ID":"abc","Status":"died","ContainerExitCode":"2"})")
                                                << QStringLiteral("abc") << State::Exited << 2 << QDateTime();
    QTest::newRow("case of keys") << QByteArray(R"({"id":"abc","STATUS":"Unpause"})") << QStringLiteral("abc")
                                  << State::Running << -1 << QDateTime();
    QTest::newRow("unknown action") << QByteArray(R"({"ID":"abc","Status":"health_status"})") << QStringLiteral("abc")
                                    << State::Unknown << -1 << QDateTime();
    QTest::newRow("bad time") << QByteArray(R"({"ID":"abc","Status":"pause","Time":"yesterday"})")
                              << QStringLiteral("abc") << State::Paused << -1 << QDateTime();
}

void TestContainerEvents::toleratedShapes() {
    QFETCH(QByteArray, line);
    QFETCH(QString, id);
    QFETCH(State, state);
    QFETCH(int, exitCode);
    QFETCH(QDateTime, time);
    const std::optional<ContainerEvent> event = ContainerEventParser::parseEventLine(line);
    QVERIFY(event.has_value());
    QCOMPARE(event->containerId, id);
    QCOMPARE(event->state, state);
    QCOMPARE(event->exitCode, exitCode);
    QCOMPARE(event->time, time);
    QVERIFY(event->sessionId.isEmpty());
}

void TestContainerEvents::byteSizes_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes");
    QTest::newRow("0B") << QStringLiteral("0B") << Q_INT64_C(0);
    QTest::newRow("bare number") << QStringLiteral("512") << Q_INT64_C(512);
    QTest::newRow("KiB") << QStringLiteral("544KiB") << Q_INT64_C(557056);
    QTest::newRow("kB") << QStringLiteral("573.4kB") << Q_INT64_C(573400);
    QTest::newRow("MiB with blank") << QStringLiteral(" 1.5 MiB ") << Q_INT64_C(1572864);
    QTest::newRow("MB") << QStringLiteral("64MB") << Q_INT64_C(64000000);
    QTest::newRow("GiB") << QStringLiteral("23.54GiB") << static_cast<qint64>(std::llround(23.54 * 1073741824.0));
    QTest::newRow("GB") << QStringLiteral("25.28GB") << Q_INT64_C(25280000000);
    QTest::newRow("TiB") << QStringLiteral("1TiB") << Q_INT64_C(1099511627776);
    QTest::newRow("lowercase mib") << QStringLiteral("2mib") << Q_INT64_C(2097152);
    QTest::newRow("dashes") << QStringLiteral("--") << Q_INT64_C(-1);
    QTest::newRow("empty") << QString() << Q_INT64_C(-1);
    QTest::newRow("unknown unit") << QStringLiteral("12XB") << Q_INT64_C(-1);
    QTest::newRow("negative") << QStringLiteral("-5MB") << Q_INT64_C(-1);
    QTest::newRow("exponent") << QStringLiteral("1e3") << Q_INT64_C(-1);
    QTest::newRow("two numbers") << QStringLiteral("1 2") << Q_INT64_C(-1);
    QTest::newRow("overflow") << QStringLiteral("99999999EiB") << Q_INT64_C(-1);
    QTest::newRow("non-latin unit") << QStringLiteral("5\u00e9B") << Q_INT64_C(-1);
}

void TestContainerEvents::byteSizes() {
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    QCOMPARE(ContainerEventParser::parseByteSize(text), bytes);
}

void TestContainerEvents::percents_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("percent");
    QTest::newRow("docker") << QStringLiteral("0.05%") << 0.05;
    QTest::newRow("blank before sign") << QStringLiteral(" 2.54 % ") << 2.54;
    QTest::newRow("no sign") << QStringLiteral("12") << 12.0;
    QTest::newRow("several cpus") << QStringLiteral("150.5%") << 150.5;
    QTest::newRow("dashes") << QStringLiteral("--") << -1.0;
    QTest::newRow("negative") << QStringLiteral("-3%") << -1.0;
    QTest::newRow("empty") << QString() << -1.0;
    QTest::newRow("word") << QStringLiteral("n/a") << -1.0;
}

void TestContainerEvents::percents() {
    QFETCH(QString, text);
    QFETCH(double, percent);
    QCOMPARE(ContainerEventParser::parsePercent(text), percent);
}

void TestContainerEvents::capturedStats_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("cpu");
    QTest::addColumn<qint64>("memory");
    QTest::addColumn<qint64>("limit");
    QTest::newRow("docker") << QStringLiteral("docker-20.10-client-28.2.stats.jsonl") << QStringLiteral("76e1e89ec2c9")
                            << 0.0 << Q_INT64_C(557056) << static_cast<qint64>(std::llround(23.54 * 1073741824.0));
    QTest::newRow("podman") << QStringLiteral("podman-4.3.stats.json") << QStringLiteral("db10f00cdcd0") << 2.44
                            << Q_INT64_C(573400) << Q_INT64_C(25280000000);
}

void TestContainerEvents::capturedStats() {
    QFETCH(QString, file);
    QFETCH(QString, id);
    QFETCH(double, cpu);
    QFETCH(qint64, memory);
    QFETCH(qint64, limit);
    const QList<ContainerStats> stats = ContainerEventParser::parseStats(readData(file));
    QCOMPARE(stats.size(), 1);
    QCOMPARE(stats.first().containerId, id);
    QCOMPARE(stats.first().cpuPercent, cpu);
    QCOMPARE(stats.first().memoryBytes, memory);
    QCOMPARE(stats.first().memoryLimitBytes, limit);
}

void TestContainerEvents::otherStatsShapes_data() {
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<QStringList>("ids");
    QTest::addColumn<QList<qint64>>("memory");
    const QByteArray docker = readData(QStringLiteral("docker-20.10-client-28.2.stats.jsonl")).trimmed();
    QVERIFY(!docker.isEmpty());
    QTest::newRow("empty") << QByteArray() << QStringList() << QList<qint64>();
    QTest::newRow("garbage") << QByteArray("Error: no such container") << QStringList() << QList<qint64>();
    QTest::newRow("truncated") << docker.left(docker.size() - 10) << QStringList() << QList<qint64>();
    QTest::newRow("object without id") << QByteArray(R"([{"cpu_percent":"1%"}])") << QStringList() << QList<qint64>();
    QTest::newRow("two lines around a warning")
        << QByteArray(R"({"ID":"aaaaaaaaaaaa","CPUPerc":"1.00%","MemUsage":"1MiB / 2MiB"})"
                      "\nWARNING: something\n"
                      R"({"ID":"bbbbbbbbbbbb","CPUPerc":"--","MemUsage":"-- / --"})"
                      "\n")
        << QStringList{QStringLiteral("aaaaaaaaaaaa"), QStringLiteral("bbbbbbbbbbbb")} << QList<qint64>{1048576, -1};
    QTest::newRow("api numbers") << QByteArray(
        R"([{"ContainerID":"cccccccccccc","CPU":1.5,"MemUsage":1024,"MemLimit":2048}])")
                                 << QStringList{QStringLiteral("cccccccccccc")} << QList<qint64>{1024};
    QTest::newRow("usage without limit") << QByteArray(R"([{"id":"dddddddddddd","mem_usage":"3kB"}])")
                                         << QStringList{QStringLiteral("dddddddddddd")} << QList<qint64>{3000};
}

void TestContainerEvents::otherStatsShapes() {
    QFETCH(QByteArray, output);
    QFETCH(QStringList, ids);
    QFETCH(QList<qint64>, memory);
    const QList<ContainerStats> stats = ContainerEventParser::parseStats(output);
    QStringList gotIds;
    QList<qint64> gotMemory;
    for (const ContainerStats& s : stats) {
        gotIds << s.containerId;
        gotMemory << s.memoryBytes;
    }
    QCOMPARE(gotIds, ids);
    QCOMPARE(gotMemory, memory);
}

void TestContainerEvents::capturedInspect_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("sessions");
    QTest::addColumn<QList<State>>("states");
    QTest::addColumn<QList<int>>("exitCodes");
    const QStringList both{QStringLiteral("s-run"), QStringLiteral("s-exit")};
    for (const char* engine : {"docker-20.10-client-28.2", "podman-4.3"}) {
        QTest::addRow("%s", engine) << QString::fromLatin1(engine) + QStringLiteral(".inspect.json") << both
                                    << QList<State>{State::Running, State::Exited} << QList<int>{-1, 7};
        QTest::addRow("%s missing", engine)
            << QString::fromLatin1(engine) + QStringLiteral(".inspect-missing.json")
            << QStringList{QStringLiteral("s-run")} << QList<State>{State::Running} << QList<int>{-1};
    }
}

void TestContainerEvents::capturedInspect() {
    QFETCH(QString, file);
    QFETCH(QStringList, sessions);
    QFETCH(QList<State>, states);
    QFETCH(QList<int>, exitCodes);
    const QList<ContainerEvent> events = DockerRuntime().parseInspectStates(readData(file));
    QCOMPARE(events.size(), sessions.size());
    for (int i = 0; i < events.size(); ++i) {
        QCOMPARE(events.at(i).sessionId, sessions.at(i));
        QCOMPARE(events.at(i).ownerId, QStringLiteral("inspect-owner"));
        QCOMPARE(events.at(i).state, states.at(i));
        QCOMPARE(events.at(i).exitCode, exitCodes.at(i));
        QVERIFY(isFullId(events.at(i).containerId));
        QVERIFY(events.at(i).time.isValid());
    }
    // The states come from the adapter's one inspect parser, which the sessions use too.
    const QList<ContainerInfo> containers = DockerRuntime().parseInspectAll(readData(file));
    QCOMPARE(containers.size(), sessions.size());
    for (const ContainerInfo& info : containers) {
        QVERIFY(!info.name.isEmpty());
        QVERIFY(!info.name.startsWith(QLatin1Char('/')));
    }
    QCOMPARE(DockerRuntime().parseInspect(readData(file))->id, containers.first().id);
}

void TestContainerEvents::inspectGarbage_data() {
    QTest::addColumn<QByteArray>("output");
    const QByteArray real = readData(QStringLiteral("docker-20.10-client-28.2.inspect.json"));
    QVERIFY(!real.isEmpty());
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("empty array") << QByteArray("[]");
    QTest::newRow("truncated") << real.left(real.size() / 2);
    QTest::newRow("stderr text") << readData(QStringLiteral("podman-4.3.inspect-missing.stderr"));
    QTest::newRow("no ids") << QByteArray(R"([{"State":{"Status":"running"}}, 5, "x"])");
    QTest::newRow("apple shape") << QByteArray(
        R"([{"configuration":{"id":"ours","labels":{}},"id":"ours","status":{"state":"running"}}])");
}

void TestContainerEvents::inspectGarbage() {
    QFETCH(QByteArray, output);
    QVERIFY(DockerRuntime().parseInspectStates(output).isEmpty());
    QVERIFY(PodmanRuntime().parseInspectStates(output).isEmpty());
}

void TestContainerEvents::statusWords_data() {
    QTest::addColumn<QString>("word");
    QTest::addColumn<State>("state");
    QTest::newRow("running") << QStringLiteral("running") << State::Running;
    QTest::newRow("Running") << QStringLiteral(" Running ") << State::Running;
    QTest::newRow("created") << QStringLiteral("created") << State::Created;
    QTest::newRow("podman configured") << QStringLiteral("configured") << State::Created;
    QTest::newRow("paused") << QStringLiteral("paused") << State::Paused;
    QTest::newRow("exited") << QStringLiteral("exited") << State::Exited;
    QTest::newRow("podman stopped") << QStringLiteral("stopped") << State::Exited;
    QTest::newRow("dead") << QStringLiteral("dead") << State::Exited;
    QTest::newRow("removing") << QStringLiteral("removing") << State::Removed;
    QTest::newRow("empty") << QString() << State::Unknown;
    QTest::newRow("other") << QStringLiteral("sleeping") << State::Unknown;
}

void TestContainerEvents::statusWords() {
    QFETCH(QString, word);
    QFETCH(State, state);
    QCOMPARE(ContainerEventParser::stateForStatus(word), state);
}

void TestContainerEvents::sameContainer_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<bool>("same");
    const QString full = QStringLiteral("76e1e89ec2c9ce03b44af530b6ee2ef01f93d5dd633b44f9fda3877964a6e4c9");
    QTest::newRow("equal") << full << full << true;
    QTest::newRow("short and full") << full.left(12) << full << true;
    QTest::newRow("full and short") << full << full.left(12) << true;
    QTest::newRow("uppercase") << full.left(12).toUpper() << full << true;
    QTest::newRow("too short") << full.left(4) << full << false;
    QTest::newRow("other") << QStringLiteral("db10f00cdcd0") << full << false;
    QTest::newRow("empty") << QString() << QString() << false;
}

void TestContainerEvents::sameContainer() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(bool, same);
    QCOMPARE(ContainerEventParser::sameContainer(a, b), same);
}

void TestContainerEvents::eventsArguments() {
    const QDateTime since(QDate(2026, 11, 29), QTime(14, 0, 1), Qt::UTC);
    const QStringList docker = DockerRuntime().eventsArguments(QStringLiteral("own1"), since);
    QCOMPARE(docker.first(), QStringLiteral("events"));
    QVERIFY(docker.contains(QStringLiteral("label=zeus.desktop.owner=own1")));
    QVERIFY(docker.contains(QStringLiteral("type=container")));
    QVERIFY(docker.contains(QStringLiteral("event=die")));
    QVERIFY(docker.contains(QStringLiteral("event=destroy")));
    QVERIFY(docker.contains(QStringLiteral("event=start")));
    // exec events carry the agent's command line: never subscribed.
    QVERIFY(!docker.join(QLatin1Char(' ')).contains(QStringLiteral("exec")));
    QCOMPARE(docker.mid(docker.indexOf(QStringLiteral("--since")), 2),
             (QStringList{QStringLiteral("--since"), QStringLiteral("2026-11-29T14:00:01Z")}));
    QCOMPARE(docker.mid(docker.size() - 2), (QStringList{QStringLiteral("--format"), QStringLiteral("{{json .}}")}));

    const QStringList podman = PodmanRuntime().eventsArguments(QStringLiteral("own1"));
    QVERIFY(podman.contains(QStringLiteral("event=died")));
    QVERIFY(podman.contains(QStringLiteral("event=remove")));
    QVERIFY(!podman.contains(QStringLiteral("event=die")));
    QVERIFY(!podman.contains(QStringLiteral("--since")));
    QCOMPARE(podman.mid(podman.size() - 2), (QStringList{QStringLiteral("--format"), QStringLiteral("json")}));
    // every filter value follows its own --filter
    for (int i = 0; i < podman.size(); ++i) {
        if (podman.at(i).startsWith(QLatin1String("event=")) || podman.at(i).startsWith(QLatin1String("label="))) {
            QCOMPARE(podman.at(i - 1), QStringLiteral("--filter"));
        }
    }
    QVERIFY(AppleRuntime().eventsArguments(QStringLiteral("own1")).isEmpty());
}

void TestContainerEvents::statsArguments() {
    const QStringList ids{QStringLiteral("aaa"), QStringLiteral("bbb")};
    QCOMPARE(DockerRuntime().statsArguments(ids),
             (QStringList{QStringLiteral("stats"), QStringLiteral("--no-stream"), QStringLiteral("--format"),
                          QStringLiteral("{{json .}}"), QStringLiteral("aaa"), QStringLiteral("bbb")}));
    QCOMPARE(PodmanRuntime().statsArguments(ids),
             (QStringList{QStringLiteral("stats"), QStringLiteral("--no-stream"), QStringLiteral("--format"),
                          QStringLiteral("json"), QStringLiteral("aaa"), QStringLiteral("bbb")}));
    QVERIFY(AppleRuntime().statsArguments(ids).isEmpty());
}

QTEST_GUILESS_MAIN(TestContainerEvents)
#include "tst_containerevents.moc"
