// The pure probe classifiers over outputs captured from real engines (tests/data/probes,
// see its README) and over hand-made failures. No process is started here.
#include "runtime/detectionresult.h"
#include "runtime/runtimeprobeparser.h"

#include <QFile>
#include <QTest>

using zeus::DetectionResult;
using zeus::ProcessResult;
using zeus::RuntimeKind;
using zeus::RuntimePreference;
using zeus::RuntimeProbe;
using State = zeus::RuntimeProbe::State;

namespace {

QByteArray readData(const QString& name) {
    QFile file(QStringLiteral(ZEUS_TEST_DATA_DIR "/probes/") + name);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return file.readAll();
}

// A finished process as the runner reports it, from a captured fixture (name.stdout,
// name.stderr, name.exit).
ProcessResult fixture(const QString& program, const QStringList& arguments, const QString& name) {
    ProcessResult result;
    result.program = program;
    result.resolvedPath = QStringLiteral("/usr/bin/") + program;
    result.arguments = arguments;
    result.started = true;
    const QByteArray exitCode = readData(name + QStringLiteral(".exit"));
    if (exitCode.isEmpty()) {
        qFatal("missing fixture %s", qPrintable(name));
    }
    result.exitCode = exitCode.trimmed().toInt();
    result.standardOutput = readData(name + QStringLiteral(".stdout"));
    result.standardError = readData(name + QStringLiteral(".stderr"));
    result.durationMs = 42;
    return result;
}

QStringList dockerArgs() {
    return {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("{{json .}}")};
}
QStringList podmanArgs() {
    return {QStringLiteral("info"), QStringLiteral("--format"), QStringLiteral("json")};
}

// Synthetic endings shared by every runtime: "notstarted", "timeout", "crash".
ProcessResult synthetic(const QString& program, const QStringList& arguments, const QString& kind) {
    ProcessResult result;
    result.program = program;
    result.arguments = arguments;
    if (kind == QLatin1String("notstarted")) {
        result.errorString = QStringLiteral("not found on PATH");
        return result;
    }
    result.started = true;
    result.resolvedPath = QStringLiteral("/usr/bin/") + program;
    if (kind == QLatin1String("timeout")) {
        result.timedOut = true;
        result.crashed = true;
        result.durationMs = 5003;
    } else if (kind == QLatin1String("crash")) {
        result.crashed = true;
        result.errorString = QStringLiteral("Process crashed");
    }
    return result;
}

ProcessResult load(const QString& program, const QStringList& arguments, const QString& source) {
    if (source.startsWith(QLatin1String("synthetic:"))) {
        return synthetic(program, arguments, source.mid(10));
    }
    return fixture(program, arguments, source);
}

RuntimeProbe probeIn(RuntimeKind kind, State state) {
    RuntimeProbe probe;
    probe.kind = kind;
    probe.state = state;
    probe.reason = state == State::Ready ? QString() : QStringLiteral("%1 reason").arg(zeus::runtimeKindToString(kind));
    return probe;
}

}  // namespace

class TestRuntimeProbeParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void docker_data();
    void docker();
    void dockerKeepsEvidence();
    void errorMessages_data();
    void errorMessages();
    void podman_data();
    void podman();
    void limits_data();
    void limits();
    void apple_data();
    void apple();
    void appleStatusArguments_data();
    void appleStatusArguments();
    void runc_data();
    void runc();
    void jsonTolerant_data();
    void jsonTolerant();
    void stateNames();
    void choose_data();
    void choose();
    void refusalText();
};

void TestRuntimeProbeParser::docker_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<State>("state");
    QTest::addColumn<QString>("serverVersion");
    QTest::addColumn<QString>("clientVersion");
    QTest::addColumn<int>("rootless");  // -1 unknown, 0, 1
    QTest::addColumn<QString>("reasonContains");

    const QString engine = QStringLiteral("20.10.24+dfsg1");
    QTest::newRow("client 28, engine 20.10: ready")
        << "docker28-engine20-ready" << State::Ready << engine << "28.2.2" << 0 << "";
    QTest::newRow("client 20.10, engine 20.10: ready")
        << "docker20-engine20-ready" << State::Ready << engine << "" << 0 << "";
    QTest::newRow("client 28, daemon down (exit 1, stderr)") << "docker28-daemon-down" << State::NotRunning << ""
                                                             << "28.2.2" << -1 << "Cannot connect to the Docker daemon";
    QTest::newRow("client 20.10, daemon down (exit 0, ServerErrors)")
        << "docker20-daemon-down" << State::NotRunning << ""
        << "" << -1 << "Cannot connect to the Docker daemon";
    QTest::newRow("client 28, permission denied") << "docker28-permission-denied" << State::PermissionDenied << ""
                                                  << "28.2.2" << -1 << "permission denied";
    QTest::newRow("client 20.10, permission denied (exit 0, ServerErrors)")
        << "docker20-permission-denied" << State::PermissionDenied << ""
        << "" << -1 << "permission denied";
    QTest::newRow("runc 1.1.11 is too old")
        << "derived-docker-runc-too-old" << State::Unsupported << engine << "28.2.2" << 0 << "1.1.11";
    QTest::newRow("rootless engine") << "derived-docker-rootless" << State::Ready << engine << "28.2.2" << 1 << "";
    QTest::newRow("runc reported as a bare commit: not judged")
        << "derived-docker-runc-commit-only" << State::Ready << engine << "28.2.2" << 0 << "";
    QTest::newRow("a warning line before the JSON")
        << "derived-docker-warning-line" << State::Ready << engine << "28.2.2" << 0 << "";
    QTest::newRow("truncated JSON") << "derived-docker-truncated" << State::Unparseable << ""
                                    << "" << -1 << "JSON";
    QTest::newRow("garbage") << "derived-garbage" << State::Unparseable << ""
                             << "" << -1 << "JSON";
    QTest::newRow("empty output") << "derived-empty" << State::Unparseable << ""
                                  << "" << -1 << "JSON";
    QTest::newRow("not installed") << "synthetic:notstarted" << State::NotInstalled << ""
                                   << "" << -1 << "not installed";
    QTest::newRow("timed out") << "synthetic:timeout" << State::TimedOut << ""
                               << "" << -1 << "5003 ms";
    QTest::newRow("crashed") << "synthetic:crash" << State::Unparseable << ""
                             << "" << -1 << "crashed";
}

void TestRuntimeProbeParser::docker() {
    QFETCH(QString, source);
    QFETCH(State, state);
    QFETCH(QString, serverVersion);
    QFETCH(QString, clientVersion);
    QFETCH(int, rootless);
    QFETCH(QString, reasonContains);

    const RuntimeProbe probe = zeus::classifyDockerInfo(load(QStringLiteral("docker"), dockerArgs(), source));
    QCOMPARE(probe.kind, RuntimeKind::Docker);
    QCOMPARE(probe.state, state);
    QCOMPARE(probe.serverVersion, serverVersion);
    QCOMPARE(probe.clientVersion, clientVersion);
    QCOMPARE(probe.rootless.has_value() ? int(*probe.rootless) : -1, rootless);
    QVERIFY2(probe.reason.contains(reasonContains, Qt::CaseInsensitive), qPrintable(probe.reason));
    QCOMPARE(probe.isUsable(), state == State::Ready);
    // Every unusable state explains itself; a usable one has nothing to explain.
    QCOMPARE(probe.reason.isEmpty(), state == State::Ready);
    if (state == State::Ready) {
        QCOMPARE(probe.os, QStringLiteral("Debian GNU/Linux 12 (bookworm)"));
        QCOMPARE(probe.arch, QStringLiteral("x86_64"));
        QVERIFY(!probe.runcVersion.isEmpty());
    }
}

void TestRuntimeProbeParser::dockerKeepsEvidence() {
    const ProcessResult result =
        fixture(QStringLiteral("docker"), dockerArgs(), QStringLiteral("docker28-daemon-down"));
    const RuntimeProbe probe = zeus::classifyDockerInfo(result);
    QCOMPARE(probe.steps.size(), 1);
    const zeus::ProbeStep& step = probe.steps.first();
    QCOMPARE(step.argv, QStringList{QStringLiteral("docker")} + dockerArgs());
    QCOMPARE(step.exitCode, 1);
    QCOMPARE(step.durationMs, qint64(42));
    QCOMPARE(step.standardError, QString::fromUtf8(result.standardError));
    QCOMPARE(step.standardOutput, QString::fromUtf8(result.standardOutput));
    QCOMPARE(probe.binaryPath, QStringLiteral("/usr/bin/docker"));

    // Evidence is bounded: a huge answer keeps an excerpt and says how much was cut.
    ProcessResult huge = result;
    huge.standardOutput = QByteArray(100000, 'x');
    const zeus::ProbeStep cut = zeus::ProbeStep::fromProcessResult(huge, 1000);
    QVERIFY(cut.standardOutput.startsWith(QString(1000, QLatin1Char('x'))));
    QVERIFY(cut.standardOutput.contains(QStringLiteral("99000 more bytes")));
    QVERIFY(cut.standardOutput.size() < 1100);
}

void TestRuntimeProbeParser::errorMessages_data() {
    // Messages seen from other platforms and versions, as a failed CLI prints them.
    QTest::addColumn<QString>("program");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("standardError");
    QTest::addColumn<State>("state");

    QTest::newRow("docker desktop stopped, macOS")
        << "docker" << 1
        << QByteArray(
               "Cannot connect to the Docker daemon at unix:///Users/me/.docker/run/docker.sock. Is the docker "
               "daemon running?\n")
        << State::NotRunning;
    QTest::newRow("docker desktop stopped, Windows")
        << "docker" << 1
        << QByteArray(
               "error during connect: Get \"http://%2F%2F.%2Fpipe%2FdockerDesktopLinuxEngine/v1.47/info\": open "
               "//./pipe/dockerDesktopLinuxEngine: The system cannot find the file specified.\n")
        << State::NotRunning;
    QTest::newRow("docker, Windows user not in docker-users")
        << "docker" << 1
        << QByteArray("permission denied while trying to connect to the docker API at npipe:////./pipe/docker_engine\n")
        << State::PermissionDenied;
    QTest::newRow("docker, unknown context: not reachable, own words")
        << "docker" << 1 << QByteArray("context \"remote\" does not exist\n") << State::NotRunning;
    QTest::newRow("podman machine stopped, macOS")
        << "podman" << 125
        << QByteArray(
               "Cannot connect to Podman. Please verify your connection to the Linux system using `podman "
               "system connection list`, or try `podman machine init` and `podman machine start` to manage a "
               "new Linux VM\nError: unable to connect to Podman socket: failed to connect: dial tcp "
               "127.0.0.1:50897: connect: connection refused\n")
        << State::NotRunning;
    QTest::newRow("podman socket not accessible")
        << "podman" << 125
        << QByteArray(
               "Error: unable to connect to Podman socket: Get \"http://d/v4.3.1/libpod/_ping\": dial unix "
               "/run/podman/podman.sock: connect: permission denied\n")
        << State::PermissionDenied;
}

void TestRuntimeProbeParser::errorMessages() {
    QFETCH(QString, program);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, standardError);
    QFETCH(State, state);
    ProcessResult result;
    result.program = program;
    result.started = true;
    result.exitCode = exitCode;
    result.standardError = standardError;
    const RuntimeProbe probe =
        program == QLatin1String("docker") ? zeus::classifyDockerInfo(result) : zeus::classifyPodmanInfo(result);
    QCOMPARE(probe.state, state);
    // The reason quotes the CLI, so support staff see the real cause.
    const QString firstLine = QString::fromUtf8(standardError).split(QLatin1Char('\n')).first().left(60);
    QVERIFY2(probe.reason.contains(firstLine), qPrintable(probe.reason));
}

void TestRuntimeProbeParser::podman_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<State>("state");
    QTest::addColumn<QString>("serverVersion");
    QTest::addColumn<int>("rootless");
    QTest::addColumn<QString>("reasonContains");

    QTest::newRow("podman 4.3 ready (runc 1.1.5 with the Debian fix)")
        << "podman43-ready" << State::Ready << "4.3.1" << 0 << "";
    QTest::newRow("rootless with crun: runc rule not applied")
        << "derived-podman-rootless-crun" << State::Ready << "4.3.1" << 1 << "";
    QTest::newRow("runc 1.1.4 is too old")
        << "derived-podman-runc-too-old" << State::Unsupported << "4.3.1" << 0 << "1.1.4";
    QTest::newRow("JSON array") << "derived-podman-array" << State::Ready << "4.3.1" << 0 << "";
    QTest::newRow("truncated JSON") << "derived-podman-truncated" << State::Unparseable << "" << -1 << "JSON";
    QTest::newRow("garbage") << "derived-garbage" << State::Unparseable << "" << -1 << "JSON";
    QTest::newRow("rootless without subuids")
        << "derived-podman-permission-denied" << State::PermissionDenied << "" << -1 << "not permitted";
    QTest::newRow("remote service down") << "podman43-remote-down" << State::NotRunning << "" << -1
                                         << "Cannot connect to Podman";
    QTest::newRow("not installed") << "synthetic:notstarted" << State::NotInstalled << "" << -1 << "not installed";
    QTest::newRow("timed out") << "synthetic:timeout" << State::TimedOut << "" << -1 << "did not answer";
}

void TestRuntimeProbeParser::podman() {
    QFETCH(QString, source);
    QFETCH(State, state);
    QFETCH(QString, serverVersion);
    QFETCH(int, rootless);
    QFETCH(QString, reasonContains);

    const RuntimeProbe probe = zeus::classifyPodmanInfo(load(QStringLiteral("podman"), podmanArgs(), source));
    QCOMPARE(probe.kind, RuntimeKind::Podman);
    QCOMPARE(probe.state, state);
    QCOMPARE(probe.serverVersion, serverVersion);
    QCOMPARE(probe.rootless.has_value() ? int(*probe.rootless) : -1, rootless);
    QVERIFY2(probe.reason.contains(reasonContains, Qt::CaseInsensitive), qPrintable(probe.reason));
    QCOMPARE(probe.reason.isEmpty(), state == State::Ready);
    if (state == State::Ready) {
        QCOMPARE(probe.clientVersion, QStringLiteral("4.3.1"));
        QVERIFY2(probe.os.startsWith(QLatin1String("linux")), qPrintable(probe.os));
        QCOMPARE(probe.arch, QStringLiteral("amd64"));
    }
}

void TestRuntimeProbeParser::limits_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("memory");  // 1 enforced, 0 dropped, -1 unknown
    QTest::addColumn<int>("pids");
    QTest::addColumn<int>("cpus");

    QTest::newRow("docker 28 client, engine 20: all enforced") << "docker"
                                                               << "docker28-engine20-ready" << 1 << 1 << 1;
    QTest::newRow("docker 20 client: all enforced") << "docker"
                                                    << "docker20-engine20-ready" << 1 << 1 << 1;
    QTest::newRow("docker without cgroup controllers") << "docker"
                                                       << "derived-docker-no-limits" << 0 << 0 << 0;
    QTest::newRow("docker daemon down: unknown") << "docker"
                                                 << "docker28-daemon-down" << -1 << -1 << -1;
    QTest::newRow("podman rootful: all controllers") << "podman"
                                                     << "podman43-ready" << 1 << 1 << 1;
    QTest::newRow("podman JSON array") << "podman"
                                       << "derived-podman-array" << 1 << 1 << 1;
    QTest::newRow("podman rootless on cgroup v1: none") << "podman"
                                                        << "derived-podman-rootless-cgroupv1" << 0 << 0 << 0;
    QTest::newRow("podman remote down: unknown") << "podman"
                                                 << "podman43-remote-down" << -1 << -1 << -1;
}

void TestRuntimeProbeParser::limits() {
    QFETCH(QString, engine);
    QFETCH(QString, source);
    QFETCH(int, memory);
    QFETCH(int, pids);
    QFETCH(int, cpus);
    const RuntimeProbe probe = engine == QLatin1String("docker")
                                   ? zeus::classifyDockerInfo(load(engine, dockerArgs(), source))
                                   : zeus::classifyPodmanInfo(load(engine, podmanArgs(), source));
    const auto asInt = [](const std::optional<bool>& value) { return value ? int(*value) : -1; };
    QCOMPARE(asInt(probe.limits.memory), memory);
    QCOMPARE(asInt(probe.limits.pids), pids);
    QCOMPARE(asInt(probe.limits.cpus), cpus);
}

void TestRuntimeProbeParser::apple_data() {
    QTest::addColumn<QString>("versionSource");
    QTest::addColumn<QString>("statusSource");  // empty: status not run
    QTest::addColumn<State>("state");
    QTest::addColumn<QString>("clientVersion");
    QTest::addColumn<QString>("serverVersion");
    QTest::addColumn<QString>("reasonContains");

    QTest::newRow("1.2.2 running (JSON)") << "apple-version-1.2.2"
                                          << "apple-status-json-running" << State::Ready << "1.2.2"
                                          << "1.2.2"
                                          << "";
    QTest::newRow("1.2.2 not running (JSON, exit 1)") << "apple-version-1.2.2"
                                                      << "apple-status-json-not-running" << State::NotRunning << "1.2.2"
                                                      << ""
                                                      << "not running";
    QTest::newRow("1.2.2 unregistered (JSON, exit 1)")
        << "apple-version-1.2.2"
        << "apple-status-json-unregistered" << State::NotRunning << "1.2.2"
        << ""
        << "launchd";
    QTest::newRow("0.10.0 debug build running") << "apple-version-0.10.0-debug"
                                                << "apple-status-json-running" << State::Ready << "0.10.0-27-g9fd15f0"
                                                << "1.2.2"
                                                << "";
    QTest::newRow("0.9.0 running (text, exit 0)") << "apple-version-0.9.0"
                                                  << "apple-status-text-running-0.9.0" << State::Ready << "0.9.0"
                                                  << "0.9.0"
                                                  << "";
    QTest::newRow("0.9.0 unregistered (text, exit 1)")
        << "apple-version-0.9.0"
        << "apple-status-text-unregistered-0.9.0" << State::NotRunning << "0.9.0"
        << ""
        << "not registered";
    // "not running" contains "running": only the exit code may decide here.
    QTest::newRow("0.9.0 not running (text, exit 1)")
        << "apple-version-0.9.0"
        << "apple-status-text-not-running-0.9.0" << State::NotRunning << "0.9.0"
        << ""
        << "not running";
    QTest::newRow("status rejects its options") << "apple-version-1.2.2"
                                                << "apple-status-unknown-option" << State::Unparseable << "1.2.2"
                                                << ""
                                                << "exit code 64";
    QTest::newRow("status times out") << "apple-version-1.2.2"
                                      << "synthetic:timeout" << State::TimedOut << "1.2.2"
                                      << ""
                                      << "did not answer";
    QTest::newRow("version is garbage") << "derived-garbage"
                                        << "" << State::Unparseable << ""
                                        << ""
                                        << "no version";
    QTest::newRow("not installed") << "synthetic:notstarted"
                                   << "" << State::NotInstalled << ""
                                   << ""
                                   << "not installed";
    QTest::newRow("version times out") << "synthetic:timeout"
                                       << "" << State::TimedOut << ""
                                       << ""
                                       << "did not answer";
}

void TestRuntimeProbeParser::apple() {
    QFETCH(QString, versionSource);
    QFETCH(QString, statusSource);
    QFETCH(State, state);
    QFETCH(QString, clientVersion);
    QFETCH(QString, serverVersion);
    QFETCH(QString, reasonContains);

    const QString program = QStringLiteral("container");
    const ProcessResult version = load(program, {QStringLiteral("--version")}, versionSource);
    std::optional<ProcessResult> status;
    if (!statusSource.isEmpty()) {
        QVERIFY(zeus::appleVersionStepPasses(version));
        status =
            load(program, zeus::appleStatusArguments(zeus::parseAppleCliVersion(version.standardOutput)), statusSource);
    } else {
        QVERIFY(!zeus::appleVersionStepPasses(version));
    }
    const RuntimeProbe probe = zeus::classifyApple(version, status);
    QCOMPARE(probe.kind, RuntimeKind::Apple);
    QCOMPARE(probe.state, state);
    QCOMPARE(probe.clientVersion, clientVersion);
    QCOMPARE(probe.serverVersion, serverVersion);
    QVERIFY2(probe.reason.contains(reasonContains, Qt::CaseInsensitive), qPrintable(probe.reason));
    QCOMPARE(probe.reason.isEmpty(), state == State::Ready);
    QCOMPARE(probe.steps.size(), status ? 2 : 1);
}

void TestRuntimeProbeParser::appleStatusArguments_data() {
    QTest::addColumn<QString>("version");
    QTest::addColumn<bool>("json");
    QTest::newRow("0.9.0 has no --format") << "0.9.0" << false;
    QTest::newRow("0.10.0 has --format json") << "0.10.0" << true;
    QTest::newRow("0.10.0 debug build") << "0.10.0-27-g9fd15f0" << true;
    QTest::newRow("1.2.2") << "1.2.2" << true;
    QTest::newRow("unknown") << "" << false;
}

void TestRuntimeProbeParser::appleStatusArguments() {
    QFETCH(QString, version);
    QFETCH(bool, json);
    QStringList expected{QStringLiteral("system"), QStringLiteral("status")};
    if (json) {
        expected << QStringLiteral("--format") << QStringLiteral("json");
    }
    QCOMPARE(zeus::appleStatusArguments(version), expected);
}

void TestRuntimeProbeParser::runc_data() {
    QTest::addColumn<QString>("reported");
    QTest::addColumn<bool>("known");
    QTest::addColumn<QString>("version");
    QTest::addColumn<bool>("patched");
    QTest::addColumn<bool>("acceptable");

    QTest::newRow("docker: v1.1.12") << "v1.1.12-0-g51d5e94" << true << "1.1.12" << false << true;
    QTest::newRow("docker: v1.1.11") << "v1.1.11-0-g4bccb38" << true << "1.1.11" << false << false;
    QTest::newRow("docker: 1.2.5") << "v1.2.5-0-g59923ef" << true << "1.2.5" << false << true;
    QTest::newRow("debian bookworm fixed build") << "1.1.5+ds1-1+deb12u1" << true << "1.1.5" << true << true;
    QTest::newRow("debian bookworm before the fix") << "1.1.5+ds1-1" << true << "1.1.5" << false << false;
    QTest::newRow("podman: debian fixed build")
        << "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\nspec: 1.0.2-dev\ngo: go1.19.8\nlibseccomp: 2.5.4"
        << true << "1.1.5" << true << true;
    QTest::newRow("podman: debian before the fix")
        << "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1\nspec: 1.0.2-dev" << true << "1.1.5" << false << false;
    QTest::newRow("release candidate") << "1.0.0-rc93" << true << "1.0.0" << false << false;
    QTest::newRow("bare commit: unknown") << "dc9208a3303feef5b3839f4323d9beb36df0a9dd" << false << "" << false << true;
    QTest::newRow("empty: unknown") << "" << false << "" << false << true;
    QTest::newRow("N/A: unknown") << "N/A" << false << "" << false << true;
}

void TestRuntimeProbeParser::runc() {
    QFETCH(QString, reported);
    QFETCH(bool, known);
    QFETCH(QString, version);
    QFETCH(bool, patched);
    QFETCH(bool, acceptable);
    const zeus::RuncCheck check = zeus::checkRuncVersion(reported);
    QCOMPARE(check.known, known);
    QCOMPARE(check.version.toString(), version);
    QCOMPARE(check.patchedBuild, patched);
    QCOMPARE(check.acceptable, acceptable);
}

void TestRuntimeProbeParser::jsonTolerant_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<bool>("parsed");
    QTest::addColumn<QString>("key");
    QTest::newRow("object") << QByteArray("{\"a\":1}\n") << true << "a";
    QTest::newRow("array of objects") << QByteArray("[{\"b\":1},{\"c\":2}]") << true << "b";
    QTest::newRow("warning line first") << QByteArray("WARNING: x\n{\"c\":1}\n") << true << "c";
    QTest::newRow("empty array") << QByteArray("[]") << false << "";
    QTest::newRow("scalar") << QByteArray("42") << false << "";
    QTest::newRow("truncated") << QByteArray("{\"a\":") << false << "";
    QTest::newRow("blank") << QByteArray(" \n ") << false << "";
    QTest::newRow("binary") << QByteArray("\x00\xff{\x01", 4) << false << "";
}

void TestRuntimeProbeParser::jsonTolerant() {
    QFETCH(QByteArray, input);
    QFETCH(bool, parsed);
    QFETCH(QString, key);
    const std::optional<QJsonObject> object = zeus::parseJsonObjectTolerant(input);
    QCOMPARE(object.has_value(), parsed);
    if (parsed) {
        QVERIFY(object->contains(key));
    }
}

void TestRuntimeProbeParser::stateNames() {
    QStringList names;
    for (const State state : RuntimeProbe::allStates()) {
        const QString name = RuntimeProbe::stateToString(state);
        QVERIFY(!name.isEmpty());
        QVERIFY(!names.contains(name));
        names << name;
        QCOMPARE(RuntimeProbe::stateFromString(name), std::optional<State>(state));
        QVERIFY(!RuntimeProbe::stateLabel(state).isEmpty());
    }
    QCOMPARE(names.size(), 7);
    QVERIFY(!RuntimeProbe::stateFromString(u"bogus").has_value());
    QCOMPARE(zeus::runtimeKindFromString(u"Docker"), std::optional<RuntimeKind>(RuntimeKind::Docker));
    QCOMPARE(zeus::runtimePreferenceFromString(u""), std::optional<RuntimePreference>(RuntimePreference::Auto));
    QCOMPARE(zeus::runtimePreferenceFromString(u" podman "),
             std::optional<RuntimePreference>(RuntimePreference::Podman));
    QVERIFY(!zeus::runtimePreferenceFromString(u"lxc").has_value());
}

void TestRuntimeProbeParser::choose_data() {
    QTest::addColumn<State>("apple");
    QTest::addColumn<State>("docker");
    QTest::addColumn<State>("podman");
    QTest::addColumn<RuntimePreference>("preference");
    QTest::addColumn<QString>("chosen");  // "" = none
    QTest::addColumn<QString>("reasonContains");

    const auto R = State::Ready;
    const auto N = State::NotInstalled;
    const auto D = State::NotRunning;
    QTest::newRow("all ready: apple wins") << R << R << R << RuntimePreference::Auto << "apple"
                                           << "";
    QTest::newRow("apple down: docker") << D << R << R << RuntimePreference::Auto << "docker"
                                        << "";
    QTest::newRow("only podman") << N << D << R << RuntimePreference::Auto << "podman"
                                 << "";
    QTest::newRow("none") << N << D << State::PermissionDenied << RuntimePreference::Auto << ""
                          << QString(zeus::kNoRuntimeMessage);
    QTest::newRow("prefer podman over ready docker") << N << R << R << RuntimePreference::Podman << "podman"
                                                     << "";
    QTest::newRow("prefer docker, docker down: none, with docker's reason")
        << N << D << R << RuntimePreference::Docker << ""
        << "docker reason";
    QTest::newRow("prefer apple, not installed") << N << R << R << RuntimePreference::Apple << ""
                                                 << "apple reason";
}

void TestRuntimeProbeParser::choose() {
    QFETCH(State, apple);
    QFETCH(State, docker);
    QFETCH(State, podman);
    QFETCH(RuntimePreference, preference);
    QFETCH(QString, chosen);
    QFETCH(QString, reasonContains);
    // Out of order on purpose: probes finish in any order.
    const QList<RuntimeProbe> probes{probeIn(RuntimeKind::Podman, podman), probeIn(RuntimeKind::Apple, apple),
                                     probeIn(RuntimeKind::Docker, docker)};
    const DetectionResult result = DetectionResult::choose(probes, preference);
    QCOMPARE(result.chosen ? zeus::runtimeKindToString(*result.chosen) : QString(), chosen);
    QCOMPARE(result.isUsable(), !chosen.isEmpty());
    QVERIFY2(result.reason.contains(reasonContains), qPrintable(result.reason));
    QCOMPARE(result.reason.isEmpty(), !chosen.isEmpty());
    QCOMPARE(result.probes.size(), 3);
    QCOMPARE(result.probes.at(0).kind, RuntimeKind::Apple);
    QCOMPARE(result.probes.at(1).kind, RuntimeKind::Docker);
    QCOMPARE(result.probes.at(2).kind, RuntimeKind::Podman);
}

void TestRuntimeProbeParser::refusalText() {
    QCOMPARE(QString(zeus::kNoRuntimeMessage),
             QStringLiteral("No container runtime detected. Please install Docker Desktop or upgrade to macOS 26 for "
                            "Apple Containerization."));
}

QTEST_GUILESS_MAIN(TestRuntimeProbeParser)
#include "tst_runtimeprobeparser.moc"
