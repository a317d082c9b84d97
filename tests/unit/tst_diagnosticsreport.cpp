// DiagnosticsReport: the JSON shape support tools read, the readable text, sections added by
// later parts, and which guidance the report leads with.
#include "diagnosticsections.h"
#include "diagnosticsreport.h"
#include "support/vocabulary.h"

#include <zeus/buildinfo.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

using zeus::BackendConnection;
using zeus::CredentialStore;
using zeus::DetectionResult;
using zeus::DiagnosticCheck;
using zeus::DiagnosticSection;
using zeus::DiagnosticSections;
using zeus::ImageInspection;
using zeus::WorkspaceGuard;
using Level = zeus::DiagnosticCheck::Level;
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

DiagnosticCheck onlyCheck(const DiagnosticSection& section) {
    return section.checks.size() == 1 ? section.checks.first() : DiagnosticCheck{};
}

DetectionResult withLimits(RuntimeKind kind, std::optional<bool> memory, std::optional<bool> pids,
                           std::optional<bool> cpus, bool rootless = false) {
    RuntimeProbe ready = probe(kind, State::Ready);
    ready.limits.memory = memory;
    ready.limits.pids = pids;
    ready.limits.cpus = cpus;
    ready.rootless = rootless;
    return DetectionResult::choose({ready}, RuntimePreference::Auto);
}

}  // namespace

Q_DECLARE_METATYPE(zeus::ImageInspection::Outcome)

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
    void runtimeChecks_data();
    void runtimeChecks();
    void imageCheck_data();
    void imageCheck();
    void resourceLimits_data();
    void resourceLimits();
    void workspaces_data();
    void workspaces();
    void checkFolders();
    void keychain_data();
    void keychain();
    void connection_data();
    void connection();
    void checksInReport();
    void sandboxBoundsAndLoad();
    void engineLocation_data();
    void engineLocation();
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
    // The checklist first, then the facts.
    QVERIFY2(text.startsWith(QStringLiteral("Checks: 1 ok, 0 warning(s), 1 failed\n"
                                            "[ok] Container runtime: Docker is installed.\n"
                                            "[!!] Engine reachable: docker is permission_denied\n"
                                            "       You are not allowed to use the Docker socket.")),
             qPrintable(text.left(300)));
    QVERIFY(text.contains(QStringLiteral("\n\n" ZEUS_APP_NAME " " ZEUS_VERSION)));
    QVERIFY(text.indexOf(QStringLiteral("[!!]")) < text.indexOf(QStringLiteral(ZEUS_APP_NAME " " ZEUS_VERSION)));
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

void TestDiagnosticsReport::runtimeChecks_data() {
    QTest::addColumn<State>("apple");
    QTest::addColumn<State>("docker");
    QTest::addColumn<State>("podman");
    QTest::addColumn<RuntimePreference>("preference");
    QTest::addColumn<Level>("runtime");
    QTest::addColumn<Level>("engine");
    QTest::addColumn<QString>("summaryContains");  // of the first failed row, or the runtime row
    QTest::addColumn<QString>("actionContains");

    QTest::newRow("docker ready") << State::NotInstalled << State::Ready << State::NotInstalled
                                  << RuntimePreference::Auto << Level::Ok << Level::Ok << "Using Docker 28.2.2"
                                  << "";
    QTest::newRow("nothing installed") << State::NotInstalled << State::NotInstalled << State::NotInstalled
                                       << RuntimePreference::Auto << Level::Failed << Level::Warning
                                       << QString(zeus::kNoRuntimeMessage) << "sudo apt-get install -y docker.io";
    QTest::newRow("docker daemon down") << State::NotInstalled << State::NotRunning << State::NotInstalled
                                        << RuntimePreference::Auto << Level::Ok << Level::Failed
                                        << "docker is not_running"
                                        << "sudo systemctl enable --now docker";
    QTest::newRow("docker permission denied")
        << State::NotInstalled << State::PermissionDenied << State::NotInstalled << RuntimePreference::Auto << Level::Ok
        << Level::Failed << "docker is permission_denied"
        << "usermod";
    QTest::newRow("docker runc too old") << State::NotInstalled << State::Unsupported << State::NotInstalled
                                         << RuntimePreference::Auto << Level::Failed << Level::Ok
                                         << "docker is unsupported"
                                         << "";
    QTest::newRow("podman wanted, missing") << State::NotInstalled << State::Ready << State::NotInstalled
                                            << RuntimePreference::Podman << Level::Failed << Level::Warning << "Podman"
                                            << "podman";
}

void TestDiagnosticsReport::runtimeChecks() {
    QFETCH(State, apple);
    QFETCH(State, docker);
    QFETCH(State, podman);
    QFETCH(RuntimePreference, preference);
    QFETCH(Level, runtime);
    QFETCH(Level, engine);
    QFETCH(QString, summaryContains);
    QFETCH(QString, actionContains);
    const QList<DiagnosticCheck> checks =
        DiagnosticSections::runtimeChecks(detection(apple, docker, podman, preference), InstallGuidance::Os::Debian);
    QCOMPARE(checks.size(), 2);
    QCOMPARE(checks.at(0).id, QStringLiteral("runtime"));
    QCOMPARE(checks.at(1).id, QStringLiteral("engine"));
    QCOMPARE(checks.at(0).level, runtime);
    QCOMPARE(checks.at(1).level, engine);
    const DiagnosticCheck& deciding = runtime == Level::Failed || engine != Level::Failed ? checks.at(0) : checks.at(1);
    QVERIFY2(deciding.summary.contains(summaryContains), qPrintable(deciding.summary));
    QVERIFY2(deciding.action.contains(actionContains), qPrintable(deciding.action));
    for (const DiagnosticCheck& check : checks) {
        QCOMPARE(check.action.isEmpty(), check.level == Level::Ok);
        QVERIFY2(!check.summary.contains(QLatin1Char('\n')), qPrintable(check.summary));
    }
}

void TestDiagnosticsReport::imageCheck_data() {
    QTest::addColumn<QString>("runtimeName");
    QTest::addColumn<bool>("inspected");
    QTest::addColumn<ImageInspection::Outcome>("outcome");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("comment");
    QTest::addColumn<Level>("level");
    QTest::addColumn<QString>("kind");  // JSON "kind" for a present image
    QTest::addColumn<QString>("contains");

    using Outcome = ImageInspection::Outcome;
    QTest::newRow("no runtime: not checked") << "" << false << Outcome::Failed << ""
                                             << "" << Level::Warning << ""
                                             << "Not checked";
    QTest::newRow("not inspected yet") << "Docker" << false << Outcome::Failed << ""
                                       << "" << Level::Warning << ""
                                       << "not been inspected";
    QTest::newRow("missing") << "Docker" << true << Outcome::Missing << ""
                             << "" << Level::Failed << ""
                             << "docker build -t sandbox:1";
    QTest::newRow("engine error") << "Podman" << true << Outcome::Failed << ""
                                  << "" << Level::Failed << ""
                                  << "Could not ask Podman";
    QTest::newRow("the real sandbox") << "Docker" << true << Outcome::Present << "Zeus Desktop sandbox"
                                      << "" << Level::Ok << "sandbox"
                                      << "Zeus sandbox image (version 0.1.0)";
    QTest::newRow("offline test image by title")
        << "Podman" << true << Outcome::Present << "zeus-desktop-sandbox-offline-test"
        << "imported from tarball" << Level::Warning << "offline_test"
        << "offline test image";
    QTest::newRow("offline test image: unlabelled import") << "Docker" << true << Outcome::Present << ""
                                                           << "Imported from -" << Level::Warning << "offline_test"
                                                           << "no Python";
    QTest::newRow("a custom image") << "Docker" << true << Outcome::Present << "my tools"
                                    << "" << Level::Ok << "custom"
                                    << "custom image";
}

void TestDiagnosticsReport::imageCheck() {
    QFETCH(QString, runtimeName);
    QFETCH(bool, inspected);
    QFETCH(ImageInspection::Outcome, outcome);
    QFETCH(QString, title);
    QFETCH(QString, comment);
    QFETCH(Level, level);
    QFETCH(QString, kind);
    QFETCH(QString, contains);
    DiagnosticSections::ImageFacts facts;
    facts.image = QStringLiteral("sandbox:1");
    facts.runtimeName = runtimeName;
    facts.buildCommand = QStringLiteral("docker build -t sandbox:1 /usr/share/zeus-desktop/docker");
    if (inspected) {
        ImageInspection inspection;
        inspection.outcome = outcome;
        inspection.image = facts.image;
        inspection.comment = comment;
        if (!title.isEmpty()) {
            inspection.labels.insert(QStringLiteral("org.opencontainers.image.title"), title);
            inspection.labels.insert(QStringLiteral("org.opencontainers.image.version"), QStringLiteral("0.1.0"));
        }
        if (outcome != ImageInspection::Outcome::Present) {
            inspection.error = QStringLiteral("engine said no");
        }
        facts.inspection = inspection;
    }
    const DiagnosticSection section = DiagnosticSections::image(facts);
    QCOMPARE(section.key, QStringLiteral("image"));
    const DiagnosticCheck check = onlyCheck(section);
    QCOMPARE(check.id, QStringLiteral("image"));
    QCOMPARE(check.level, level);
    QVERIFY2(QString(check.summary + QLatin1Char('\n') + check.action).contains(contains),
             qPrintable(check.summary + QLatin1String(" / ") + check.action));
    QCOMPARE(check.action.isEmpty(), level == Level::Ok);
    QCOMPARE(section.value.toObject().value(QLatin1String("kind")).toString(), kind);
    QCOMPARE(section.value.toObject().value(QLatin1String("image")).toString(), facts.image);
}

void TestDiagnosticsReport::resourceLimits_data() {
    QTest::addColumn<DetectionResult>("detection");
    QTest::addColumn<Level>("level");
    QTest::addColumn<QString>("contains");

    QTest::newRow("docker enforces all") << withLimits(RuntimeKind::Docker, true, true, true) << Level::Ok
                                         << "Docker enforces the limits (memory 2048 MiB, 512 processes, 2 CPUs)";
    QTest::newRow("docker drops memory and pids") << withLimits(RuntimeKind::Docker, false, false, true)
                                                  << Level::Warning << "will not enforce --memory, --pids-limit";
    QTest::newRow("docker: cgroup advice")
        << withLimits(RuntimeKind::Docker, true, true, false) << Level::Warning << "cgroup_enable=memory";
    QTest::newRow("rootless podman on cgroup v1") << withLimits(RuntimeKind::Podman, false, false, false, true)
                                                  << Level::Warning << "Rootless Podman needs cgroup v2";
    QTest::newRow("engine does not say") << withLimits(RuntimeKind::Podman, true, std::nullopt, true) << Level::Warning
                                         << "does not say whether it enforces --pids-limit";
    QTest::newRow("apple: the VM bounds it")
        << withLimits(RuntimeKind::Apple, std::nullopt, std::nullopt, std::nullopt) << Level::Ok << "its own VM";
    QTest::newRow("no runtime") << detection(State::NotInstalled, State::NotInstalled, State::NotInstalled,
                                             RuntimePreference::Auto)
                                << Level::Warning << "Not checked";
}

void TestDiagnosticsReport::resourceLimits() {
    QFETCH(DetectionResult, detection);
    QFETCH(Level, level);
    QFETCH(QString, contains);
    const DiagnosticSection section = DiagnosticSections::resourceLimits(detection, 512, 2048, 2.0);
    const DiagnosticCheck check = onlyCheck(section);
    QCOMPARE(check.id, QStringLiteral("resource_limits"));
    QCOMPARE(check.level, level);
    QVERIFY2(QString(check.summary + QLatin1Char('\n') + check.action).contains(contains),
             qPrintable(check.summary + QLatin1String(" / ") + check.action));
    QCOMPARE(section.value.toObject().value(QLatin1String("memory_mib")).toInt(), 2048);
}

void TestDiagnosticsReport::workspaces_data() {
    QTest::addColumn<QStringList>("paths");
    QTest::addColumn<QStringList>("canonical");  // "" = refused by the guard
    QTest::addColumn<Level>("level");
    QTest::addColumn<QString>("contains");

    QTest::newRow("none approved") << QStringList() << QStringList() << Level::Warning << "No folder is approved";
    QTest::newRow("all usable") << QStringList{QStringLiteral("/p/a"), QStringLiteral("/p/b")}
                                << QStringList{QStringLiteral("/p/a"), QStringLiteral("/p/b")} << Level::Ok
                                << "2 approved folder(s), all usable";
    QTest::newRow("one gone") << QStringList{QStringLiteral("/p/a"), QStringLiteral("/p/gone")}
                              << QStringList{QStringLiteral("/p/a"), QString()} << Level::Warning
                              << "1 of 2 approved folders cannot be used: /p/gone (refused)";
    QTest::newRow("changed since approval")
        << QStringList{QStringLiteral("/p/a")} << QStringList{QStringLiteral("/elsewhere")} << Level::Failed
        << "changed since approval: it now resolves to /elsewhere";
}

void TestDiagnosticsReport::workspaces() {
    QFETCH(QStringList, paths);
    QFETCH(QStringList, canonical);
    QFETCH(Level, level);
    QFETCH(QString, contains);
    QList<DiagnosticSections::FolderFacts> folders;
    for (qsizetype i = 0; i < paths.size(); ++i) {
        WorkspaceGuard::Result verdict;
        verdict.rule = canonical.at(i).isEmpty() ? WorkspaceGuard::Rule::NotFound : WorkspaceGuard::Rule::Accepted;
        verdict.canonicalPath = canonical.at(i);
        verdict.message = canonical.at(i).isEmpty() ? QStringLiteral("refused") : QString();
        folders.append({paths.at(i), verdict, false});
    }
    const DiagnosticSection section = DiagnosticSections::workspaces(folders);
    const DiagnosticCheck check = onlyCheck(section);
    QCOMPARE(check.id, QStringLiteral("workspaces"));
    QCOMPARE(check.level, level);
    QVERIFY2(check.summary.contains(contains), qPrintable(check.summary));
    QCOMPARE(section.value.toArray().size(), paths.size());
}

void TestDiagnosticsReport::checkFolders() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString real = QDir(root.path()).canonicalPath();
    QVERIFY(QDir(real).mkpath(QStringLiteral("home/work")));
    QVERIFY(QDir(real).mkpath(QStringLiteral("home/other")));
    // An approval whose last component became a symlink to another folder.
    QVERIFY(QFile::link(real + QStringLiteral("/home/other"), real + QStringLiteral("/home/swapped")));
    WorkspaceGuard::Environment environment;
    environment.homePath = real + QStringLiteral("/home");
    const QList<DiagnosticSections::FolderFacts> folders =
        DiagnosticSections::checkFolders({real + QStringLiteral("/home/work"), real + QStringLiteral("/home/swapped")},
                                         real + QStringLiteral("/home/missing"), environment);
    QCOMPARE(folders.size(), 3);
    QVERIFY(folders.at(0).verdict.accepted());
    QVERIFY(folders.at(2).forThisRunOnly);
    QCOMPARE(folders.at(2).verdict.rule, WorkspaceGuard::Rule::NotFound);
    const DiagnosticSection section = DiagnosticSections::workspaces(folders);
    QCOMPARE(onlyCheck(section).level, Level::Warning);
    const QJsonArray items = section.value.toArray();
    QCOMPARE(items.at(0).toObject().value(QLatin1String("status")).toString(), QStringLiteral("active"));
    QCOMPARE(items.at(1).toObject().value(QLatin1String("status")).toString(),
             QStringLiteral("changed_since_approval"));
    QCOMPARE(items.at(2).toObject().value(QLatin1String("status")).toString(), QStringLiteral("not_found"));
}

void TestDiagnosticsReport::keychain_data() {
    QTest::addColumn<bool>("checked");
    QTest::addColumn<CredentialStore::Status>("status");
    QTest::addColumn<bool>("fromEnvironment");
    QTest::addColumn<QString>("url");
    QTest::addColumn<Level>("level");
    QTest::addColumn<QString>("contains");

    using Status = CredentialStore::Status;
    const QString url = QStringLiteral("wss://backend.example/ws");
    QTest::newRow("token stored") << true << Status::Ok << false << url << Level::Ok << "stored in the keychain";
    QTest::newRow("token from environment") << true << Status::Ok << true << url << Level::Ok << "ZEUS_DESKTOP_TOKEN";
    QTest::newRow("signed out") << true << Status::SignedOut << false << url << Level::Warning << "Sign in";
    QTest::newRow("signed out, no backend")
        << true << Status::SignedOut << false << "" << Level::Ok << "no backend is set up";
    QTest::newRow("no keyring") << true << Status::NoKeyring << false << url << Level::Failed << "GNOME Keyring";
    QTest::newRow("locked") << true << Status::AccessDenied << false << url << Level::Failed << "Unlock";
    QTest::newRow("timed out") << true << Status::TimedOut << false << url << Level::Failed << "Unlock";
    QTest::newRow("other error") << true << Status::Failed << false << url << Level::Failed << "keychain failed";
    QTest::newRow("not answered yet") << false << Status::Failed << false << url << Level::Warning
                                      << "has not answered";
}

void TestDiagnosticsReport::keychain() {
    QFETCH(bool, checked);
    QFETCH(CredentialStore::Status, status);
    QFETCH(bool, fromEnvironment);
    QFETCH(QString, url);
    QFETCH(Level, level);
    QFETCH(QString, contains);
    CredentialStore::Result result;
    result.status = status;
    result.token = status == CredentialStore::Status::Ok ? QStringLiteral("s3cret-token-value") : QString();
    result.message = status == CredentialStore::Status::Ok ? QString() : QStringLiteral("the keychain said so");
    result.fromEnvironment = fromEnvironment;
    DiagnosticSections::KeychainFacts facts = DiagnosticSections::KeychainFacts::from(result, url);
    facts.checked = checked;
    const DiagnosticSection section = DiagnosticSections::keychain(facts);
    const DiagnosticCheck check = onlyCheck(section);
    QCOMPARE(check.id, QStringLiteral("keychain"));
    QCOMPARE(check.level, level);
    QVERIFY2(QString(check.summary + QLatin1Char('\n') + check.action).contains(contains),
             qPrintable(check.summary + QLatin1String(" / ") + check.action));
    // The token never reaches the report.
    QVERIFY(!QJsonDocument(section.value.toObject()).toJson().contains("s3cret"));
    QVERIFY(!section.text.contains(QLatin1String("s3cret")));
}

void TestDiagnosticsReport::connection_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<BackendConnection::State>("state");
    QTest::addColumn<Level>("level");
    QTest::addColumn<QString>("contains");

    using S = BackendConnection::State;
    const QString url = QStringLiteral("wss://backend.example/ws");
    QTest::newRow("connected") << url << S::Connected << Level::Ok << "Connected to wss://backend.example/ws";
    QTest::newRow("connecting") << url << S::Connecting << Level::Warning << "Connecting";
    QTest::newRow("reconnecting") << url << S::Reconnecting << Level::Warning << "retrying (host not found).";
    QTest::newRow("signed out") << url << S::SignedOut << Level::Warning << "Sign in";
    QTest::newRow("disconnected") << url << S::Disconnected << Level::Warning << "tray menu";
    QTest::newRow("token refused") << url << S::AuthFailed << Level::Failed << "new token";
    QTest::newRow("bad settings") << url << S::Error << Level::Failed << "Correct the backend URL";
    QTest::newRow("no URL") << "" << S::Disconnected << Level::Warning << "No backend URL";
}

void TestDiagnosticsReport::connection() {
    QFETCH(QString, url);
    QFETCH(BackendConnection::State, state);
    QFETCH(Level, level);
    QFETCH(QString, contains);
    DiagnosticSections::ConnectionFacts facts;
    facts.url = url;
    facts.state = state;
    facts.lastError = QStringLiteral("host not found");
    facts.history.append(BackendConnection::HistoryEntry{QDateTime::fromSecsSinceEpoch(0, Qt::UTC),
                                                         BackendConnection::State::Reconnecting,
                                                         QStringLiteral("closed"), 1006});
    const DiagnosticSection section = DiagnosticSections::connection(facts);
    QCOMPARE(section.key, QStringLiteral("connection"));
    const DiagnosticCheck check = onlyCheck(section);
    QCOMPARE(check.id, QStringLiteral("backend"));
    QCOMPARE(check.level, level);
    QVERIFY2(QString(check.summary + QLatin1Char('\n') + check.action).contains(contains),
             qPrintable(check.summary + QLatin1String(" / ") + check.action));
    const QJsonObject value = section.value.toObject();
    QCOMPARE(
        value.value(QLatin1String("history")).toArray().first().toObject().value(QLatin1String("close_code")).toInt(),
        1006);
    // The JSON holds the states' stable words, never the translated names the text shows.
    QCOMPARE(value.value(QLatin1String("state")).toString(), wordOf(state));
    QCOMPARE(
        value.value(QLatin1String("history")).toArray().first().toObject().value(QLatin1String("state")).toString(),
        QStringLiteral("reconnecting"));
    QVERIFY(section.text.contains(QLatin1String("(close 1006)")));
}

void TestDiagnosticsReport::checksInReport() {
    DiagnosticsReport report;
    report.setGuidanceOs(InstallGuidance::Os::Debian);
    // Added out of order: the report shows them in checkOrder().
    DiagnosticSections::ConnectionFacts connection;
    connection.url = QStringLiteral("wss://b.example");
    connection.state = BackendConnection::State::AuthFailed;
    report.addSection(DiagnosticSections::connection(connection));
    DiagnosticSections::ImageFacts image;
    image.image = QStringLiteral("sandbox:1");
    image.runtimeName = QStringLiteral("Docker");
    image.inspection = ImageInspection{ImageInspection::Outcome::Missing, image.image, {}, {}, {}, {},
                                       QStringLiteral("no such image")};
    image.buildCommand = QStringLiteral("docker build -t sandbox:1 ctx");
    report.addSection(DiagnosticSections::image(image));
    report.setDetection(detection(State::NotInstalled, State::Ready, State::NotInstalled, RuntimePreference::Auto));

    const QList<DiagnosticCheck> checks = report.checks();
    QStringList ids;
    for (const DiagnosticCheck& check : checks) {
        ids << check.id;
    }
    QCOMPARE(ids, (QStringList{QStringLiteral("runtime"), QStringLiteral("engine"), QStringLiteral("image"),
                               QStringLiteral("backend")}));

    const QJsonObject json = report.toJson();
    const QJsonArray rows = json.value(QLatin1String("checks")).toArray();
    QCOMPARE(rows.size(), 4);
    const QJsonObject imageRow = rows.at(2).toObject();
    QCOMPARE(imageRow.keys(), (QStringList{QStringLiteral("action"), QStringLiteral("id"), QStringLiteral("level"),
                                           QStringLiteral("summary")}));
    QCOMPARE(imageRow.value(QLatin1String("id")).toString(), QStringLiteral("image"));
    QCOMPARE(imageRow.value(QLatin1String("level")).toString(), QStringLiteral("failed"));
    QVERIFY(imageRow.value(QLatin1String("action")).toString().contains(QLatin1String("docker build -t sandbox:1")));
    QCOMPARE(rows.at(0).toObject().value(QLatin1String("level")).toString(), QStringLiteral("ok"));
    QCOMPARE(rows.at(0).toObject().value(QLatin1String("action")).toString(), QString());
    QVERIFY(json.value(QLatin1String("image")).isObject());

    const QString text = report.toText();
    QVERIFY2(text.startsWith(QStringLiteral("Checks: 2 ok, 0 warning(s), 2 failed\n[ok] Container runtime: Using "
                                            "Docker 28.2.2")),
             qPrintable(text.left(400)));
    QVERIFY2(text.contains(QStringLiteral("\n[!!] Sandbox image: Docker has no image sandbox:1.\n"
                                          "       Build it (once, a few minutes): zeus-desktop --build-image\n"
                                          "       or: docker build -t sandbox:1 ctx\n")),
             qPrintable(text.left(800)));
    QVERIFY(text.indexOf(QLatin1String("[!!] Backend connection:"))
            < text.indexOf(QLatin1String("== Container runtime ==")));
    QVERIFY(text.contains(QLatin1String("== Sandbox image ==")));

    // A replaced section replaces its row.
    image.inspection->outcome = ImageInspection::Outcome::Present;
    image.inspection->labels.insert(QStringLiteral("org.opencontainers.image.title"),
                                    DiagnosticSections::sandboxImageTitle());
    report.addSection(DiagnosticSections::image(image));
    QCOMPARE(report.checks().size(), 4);
    QCOMPARE(report.checks().at(2).level, Level::Ok);
}

// The chosen engine's location in the JSON and the text, and each folder's workspace mode with the refusal a call
// in it would get (SPEC §10). Endpoints never carry credentials.
// SPEC §3's bounds, and where a sandbox serves how close the load came to them, in the sandbox section's JSON.
void TestDiagnosticsReport::sandboxBoundsAndLoad() {
    zeus::SandboxConfig config;
    config.maxContainers = 5;
    config.maxCallsPerSession = 3;
    config.maxCallsTotal = 7;
    config.maxQueuedPerSession = 11;
    config.maxQueuedTotal = 13;
    config.engineWaitMs = 17000;
    DiagnosticSections::SandboxFacts facts;
    DiagnosticSections::setBounds(facts, config);
    const QJsonObject withoutLoad = DiagnosticSections::sandbox(facts).value.toObject();
    QCOMPARE(withoutLoad.value(QStringLiteral("bounds")).toObject(),
             (QJsonObject{{QStringLiteral("containers"), 5},
                          {QStringLiteral("running_per_session"), 3},
                          {QStringLiteral("running_total"), 7},
                          {QStringLiteral("queued_per_session"), 11},
                          {QStringLiteral("queued_total"), 13},
                          {QStringLiteral("engine_wait_seconds"), 17}}));
    QVERIFY(!withoutLoad.contains(QStringLiteral("load")));  // --diagnose runs no sandbox
    facts.load = DiagnosticSections::SandboxFacts::Load{1, 2, 3, 7, 9, 4};
    const QJsonObject load =
        DiagnosticSections::sandbox(facts).value.toObject().value(QStringLiteral("load")).toObject();
    QCOMPARE(load.value(QStringLiteral("queued")).toInt(), 2);
    QCOMPARE(load.value(QStringLiteral("peak_running")).toInt(), 7);
    QCOMPARE(load.value(QStringLiteral("peak_queued")).toInt(), 9);
    QCOMPARE(load.value(QStringLiteral("peak_containers")).toInt(), 4);
}

void TestDiagnosticsReport::engineLocation_data() {
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("textLine");
    QTest::addColumn<bool>("directRefused");
    QTest::newRow("local") << "unix:///var/run/docker.sock"
                           << "local"
                           << "unix:///var/run/docker.sock"
                           << "Engine: local" << false;
    QTest::newRow("remote") << "tcp://ann:secret@10.0.0.5:2376"
                            << "remote"
                            << "tcp://10.0.0.5:2376"
                            << "Engine: remote (tcp://10.0.0.5:2376)" << true;
}

void TestDiagnosticsReport::engineLocation() {
    QFETCH(QString, endpoint);
    QFETCH(QString, location);
    QFETCH(QString, host);
    QFETCH(QString, textLine);
    QFETCH(bool, directRefused);
    RuntimeProbe docker;
    docker.kind = RuntimeKind::Docker;
    docker.state = State::Ready;
    docker.serverVersion = QStringLiteral("28.2.2");
    docker.location = zeus::EngineLocation::fromEndpoint(endpoint);
    const DetectionResult result = DetectionResult::choose({docker}, RuntimePreference::Auto);
    DiagnosticsReport report;
    report.setDetection(result);
    zeus::SandboxConfig config;
    config.folderWorkspaceModes.insert(QStringLiteral("/d"), zeus::WorkspaceMode::Direct);
    config.folderWorkspaceModes.insert(QStringLiteral("/r"), zeus::WorkspaceMode::Review);
    report.addSection(DiagnosticSections::workspaceModes(
        config, {QStringLiteral("/d"), QStringLiteral("/r"), QStringLiteral("/unset")}, result));
    const QJsonObject json = report.toJson();
    const QJsonObject runtime = json.value(QLatin1String("runtime")).toObject();
    QCOMPARE(runtime.value(QLatin1String("location")).toString(), location);
    QCOMPARE(runtime.value(QLatin1String("host")).toString(), host);
    const QJsonObject probe = json.value(QLatin1String("probes")).toArray().first().toObject();
    QCOMPARE(probe.value(QLatin1String("location")).toString(), location);
    const QJsonObject modes = json.value(QLatin1String("workspace_mode")).toObject();
    QCOMPARE(modes.value(QLatin1String("engine")).toString(), location);
    const QJsonArray folders = modes.value(QLatin1String("folders")).toArray();
    QCOMPARE(folders.size(), 3);
    QCOMPARE(folders.at(0).toObject().value(QLatin1String("mode")).toString(), QStringLiteral("direct"));
    QCOMPARE(folders.at(0).toObject().contains(QLatin1String("refused")), directRefused);
    QCOMPARE(folders.at(1).toObject().value(QLatin1String("mode")).toString(), QStringLiteral("review"));
    QVERIFY(!folders.at(1).toObject().contains(QLatin1String("refused")));  // review works on either engine
    // A folder with no mode of its own is in review mode on a remote engine, direct on a local one.
    QCOMPARE(folders.at(2).toObject().value(QLatin1String("mode")).toString(),
             directRefused ? QStringLiteral("review") : QStringLiteral("direct"));
    QVERIFY(!folders.at(2).toObject().contains(QLatin1String("refused")));
    const QString text = report.toText();
    QVERIFY2(text.contains(textLine), qPrintable(text));
    QVERIFY(!text.contains(QLatin1String("secret")));
    QVERIFY(!QJsonDocument(json).toJson().contains("secret"));
}

QTEST_GUILESS_MAIN(TestDiagnosticsReport)
#include "tst_diagnosticsreport.moc"
