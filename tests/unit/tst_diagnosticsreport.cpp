// DiagnosticsReport: the JSON shape support tools read, the readable text, sections added by
// later parts, and which guidance the report leads with.
#include "diagnosticsreport.h"

#include <zeus/buildinfo.h>

#include <QJsonArray>
#include <QTest>

using zeus::DetectionResult;
using zeus::DiagnosticsReport;
using zeus::InstallGuidance;
using zeus::RuntimeKind;
using zeus::RuntimePreference;
using zeus::RuntimeProbe;
using State = zeus::RuntimeProbe::State;

namespace {

RuntimeProbe probe(RuntimeKind kind, State state) {
    RuntimeProbe result;
    result.kind = kind;
    result.state = state;
    if (state == State::Ready) {
        result.clientVersion = QStringLiteral("28.2.2");
        result.serverVersion = QStringLiteral("20.10.24");
        result.os = QStringLiteral("linux");
        result.arch = QStringLiteral("x86_64");
        result.rootless = false;
    } else {
        result.reason =
            QStringLiteral("%1 is %2").arg(zeus::runtimeKindToString(kind), RuntimeProbe::stateToString(state));
    }
    zeus::ProcessResult step;
    step.program = zeus::runtimeProgram(kind);
    step.arguments = {QStringLiteral("info")};
    step.started = state != State::NotInstalled;
    step.exitCode = state == State::Ready ? 0 : 1;
    step.durationMs = 12;
    step.standardOutput = "out-" + zeus::runtimeKindToString(kind).toUtf8();
    step.standardError = state == State::Ready ? QByteArray() : QByteArray("err");
    result.steps.append(zeus::ProbeStep::fromProcessResult(step));
    return result;
}

DetectionResult detection(State apple, State docker, State podman, RuntimePreference preference) {
    return DetectionResult::choose(
        {probe(RuntimeKind::Apple, apple), probe(RuntimeKind::Docker, docker), probe(RuntimeKind::Podman, podman)},
        preference);
}

}  // namespace

class TestDiagnosticsReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void usableJson();
    void unusableJson();
    void overallGuidance_data();
    void overallGuidance();
    void sections();
    void text();
    void beforeDetection();
};

void TestDiagnosticsReport::usableJson() {
    DiagnosticsReport report;
    report.setGuidanceOs(InstallGuidance::Os::Debian);
    report.setDetection(detection(State::NotInstalled, State::Ready, State::NotRunning, RuntimePreference::Auto));
    const QJsonObject json = report.toJson();
    QCOMPARE(json.value(QLatin1String("app")).toObject().value(QLatin1String("version")).toString(),
             QStringLiteral(ZEUS_VERSION));
    QCOMPARE(json.value(QLatin1String("app")).toObject().value(QLatin1String("qt")).toString(),
             QString::fromLatin1(qVersion()));
    QVERIFY(json.value(QLatin1String("os")).isObject());
    const QJsonObject runtime = json.value(QLatin1String("runtime")).toObject();
    QCOMPARE(runtime.value(QLatin1String("kind")).toString(), QStringLiteral("docker"));
    QCOMPARE(runtime.value(QLatin1String("usable")).toBool(), true);
    QCOMPARE(runtime.value(QLatin1String("version")).toString(), QStringLiteral("28.2.2"));
    QCOMPARE(runtime.value(QLatin1String("server_version")).toString(), QStringLiteral("20.10.24"));
    QVERIFY(runtime.value(QLatin1String("reason")).isNull());
    QVERIFY(json.value(QLatin1String("guidance")).isNull());

    const QJsonArray probes = json.value(QLatin1String("probes")).toArray();
    QCOMPARE(probes.size(), 3);
    const QJsonObject apple = probes.at(0).toObject();
    QCOMPARE(apple.value(QLatin1String("runtime")).toString(), QStringLiteral("apple"));
    QCOMPARE(apple.value(QLatin1String("state")).toString(), QStringLiteral("not_installed"));
    QVERIFY(apple.value(QLatin1String("exit_code")).isNull());  // never started
    const QJsonObject docker = probes.at(1).toObject();
    QCOMPARE(docker.value(QLatin1String("exit_code")).toInt(-1), 0);
    QCOMPARE(docker.value(QLatin1String("duration_ms")).toInt(), 12);
    QCOMPARE(docker.value(QLatin1String("stdout")).toString(), QStringLiteral("out-docker"));
    QCOMPARE(docker.value(QLatin1String("argv")).toArray(),
             (QJsonArray{QStringLiteral("docker"), QStringLiteral("info")}));
    QCOMPARE(docker.value(QLatin1String("rootless")).toBool(true), false);
    QCOMPARE(docker.value(QLatin1String("steps")).toArray().size(), 1);
    const QJsonObject podman = probes.at(2).toObject();
    QCOMPARE(podman.value(QLatin1String("reason")).toString(), QStringLiteral("podman is not_running"));
    QVERIFY(podman.value(QLatin1String("rootless")).isNull());
    QVERIFY(podman.value(QLatin1String("guidance")).toObject().value(QLatin1String("commands")).toArray().size() > 0);
}

void TestDiagnosticsReport::unusableJson() {
    DiagnosticsReport report;
    report.setGuidanceOs(InstallGuidance::Os::MacOS);
    report.setDetection(
        detection(State::NotInstalled, State::NotInstalled, State::NotInstalled, RuntimePreference::Auto));
    const QJsonObject json = report.toJson();
    const QJsonObject runtime = json.value(QLatin1String("runtime")).toObject();
    QVERIFY(runtime.value(QLatin1String("kind")).isNull());
    QCOMPARE(runtime.value(QLatin1String("usable")).toBool(true), false);
    QCOMPARE(runtime.value(QLatin1String("reason")).toString(), QString(zeus::kNoRuntimeMessage));
    const QJsonObject guidance = json.value(QLatin1String("guidance")).toObject();
    QVERIFY(guidance.value(QLatin1String("commands")).toArray().contains(QStringLiteral("brew install --cask docker")));
}

void TestDiagnosticsReport::overallGuidance_data() {
    QTest::addColumn<State>("apple");
    QTest::addColumn<State>("docker");
    QTest::addColumn<State>("podman");
    QTest::addColumn<RuntimePreference>("preference");
    QTest::addColumn<QString>("command");  // "" = no guidance

    QTest::newRow("usable: none") << State::NotInstalled << State::Ready << State::Ready << RuntimePreference::Auto
                                  << "";
    QTest::newRow("nothing installed: install docker")
        << State::NotInstalled << State::NotInstalled << State::NotInstalled << RuntimePreference::Auto
        << "sudo apt-get install -y docker.io";
    QTest::newRow("docker installed but stopped: start it")
        << State::NotInstalled << State::NotRunning << State::NotInstalled << RuntimePreference::Auto
        << "sudo systemctl enable --now docker";
    QTest::newRow("podman wanted, missing: install podman")
        << State::NotInstalled << State::Ready << State::NotInstalled << RuntimePreference::Podman
        << "sudo apt-get install -y podman runc";
}

void TestDiagnosticsReport::overallGuidance() {
    QFETCH(State, apple);
    QFETCH(State, docker);
    QFETCH(State, podman);
    QFETCH(RuntimePreference, preference);
    QFETCH(QString, command);
    const std::optional<InstallGuidance> guidance =
        DiagnosticsReport::overallGuidance(detection(apple, docker, podman, preference), InstallGuidance::Os::Debian);
    QCOMPARE(guidance.has_value(), !command.isEmpty());
    if (guidance) {
        QVERIFY2(guidance->commands.contains(command), qPrintable(guidance->toText()));
    }
}

void TestDiagnosticsReport::sections() {
    DiagnosticsReport report;
    report.setDetection(detection(State::NotInstalled, State::Ready, State::Ready, RuntimePreference::Auto));
    report.addSection(QStringLiteral("connection"), QJsonObject{{QStringLiteral("state"), QStringLiteral("connected")}},
                      QStringLiteral("Connection"));
    report.addSection(QStringLiteral("sessions"), QJsonArray{}, QStringLiteral("Sessions"),
                      QStringLiteral("no sessions"));
    report.addSection(QStringLiteral("connection"),
                      QJsonObject{{QStringLiteral("state"), QStringLiteral("reconnecting")}},
                      QStringLiteral("Connection"));  // replaces
    const QJsonObject json = report.toJson();
    QCOMPARE(json.value(QLatin1String("connection")).toObject().value(QLatin1String("state")).toString(),
             QStringLiteral("reconnecting"));
    QVERIFY(json.value(QLatin1String("sessions")).isArray());
    const QString text = report.toText();
    QVERIFY(text.contains(QStringLiteral("== Connection ==")));
    QVERIFY(text.contains(QStringLiteral("\"reconnecting\"")));
    QVERIFY(!text.contains(QStringLiteral("\"connected\"")));
    QVERIFY(text.contains(QStringLiteral("== Sessions ==\nno sessions")));
}

void TestDiagnosticsReport::text() {
    DiagnosticsReport report;
    report.setGuidanceOs(InstallGuidance::Os::Fedora);
    report.setDetection(
        detection(State::NotInstalled, State::PermissionDenied, State::NotInstalled, RuntimePreference::Auto));
    const QString text = report.toText();
    QVERIFY(text.startsWith(QStringLiteral(ZEUS_APP_NAME " " ZEUS_VERSION)));
    QVERIFY(text.contains(QStringLiteral("Using: none")));
    QVERIFY(text.contains(QString(zeus::kNoRuntimeMessage)));
    QVERIFY(text.contains(QStringLiteral("-- Docker: Permission denied --")));
    QVERIFY(text.contains(QStringLiteral("sudo usermod -aG docker")));
    QVERIFY(text.contains(QStringLiteral("  $ docker info    [exit 1, 12 ms]")));
    QVERIFY(text.contains(QStringLiteral("      err")));
    QVERIFY(text.contains(QStringLiteral("[not started: ")));
}

void TestDiagnosticsReport::beforeDetection() {
    DiagnosticsReport report;
    const QJsonObject runtime = report.toJson().value(QLatin1String("runtime")).toObject();
    QVERIFY(runtime.value(QLatin1String("kind")).isNull());
    QCOMPARE(runtime.value(QLatin1String("usable")).toBool(true), false);
    QVERIFY(!runtime.value(QLatin1String("reason")).toString().isEmpty());
    QCOMPARE(report.toJson().value(QLatin1String("probes")).toArray().size(), 0);
}

QTEST_GUILESS_MAIN(TestDiagnosticsReport)
#include "tst_diagnosticsreport.moc"
