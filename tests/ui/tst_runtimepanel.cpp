// The runtime panel: the chosen runtime with its version, every probe, and when nothing
// is usable the install guidance with copyable commands and a working Re-check.
#include "dashboard/runtimepanel.h"
#include "diagnosticsreport.h"
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"

#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest>

using zeus::DetectionResult;
using zeus::InstallGuidance;
using zeus::RuntimeKind;
using zeus::RuntimePanel;
using zeus::RuntimePreference;
using zeus::RuntimeProbe;

namespace {

RuntimeProbe probe(RuntimeKind kind, RuntimeProbe::State state, const QString& version = {}) {
    RuntimeProbe p;
    p.kind = kind;
    p.state = state;
    p.serverVersion = version;
    p.binaryPath = QStringLiteral("/usr/bin/") + zeus::runtimeProgram(kind);
    if (state != RuntimeProbe::State::Ready) {
        p.reason = QStringLiteral("%1 is %2").arg(zeus::runtimeProgram(kind), RuntimeProbe::stateToString(state));
    }
    return p;
}

DetectionResult dockerReady() {
    return DetectionResult::choose({probe(RuntimeKind::Apple, RuntimeProbe::State::NotInstalled),
                                    probe(RuntimeKind::Docker, RuntimeProbe::State::Ready, QStringLiteral("20.10.24")),
                                    probe(RuntimeKind::Podman, RuntimeProbe::State::NotInstalled)},
                                   RuntimePreference::Auto);
}

DetectionResult nothingUsable() {
    return DetectionResult::choose({probe(RuntimeKind::Apple, RuntimeProbe::State::NotInstalled),
                                    probe(RuntimeKind::Docker, RuntimeProbe::State::NotRunning),
                                    probe(RuntimeKind::Podman, RuntimeProbe::State::NotInstalled)},
                                   RuntimePreference::Auto);
}

}  // namespace

class TestRuntimePanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readyShowsRuntimeAndVersion();
    void engineLocationIsShown_data();
    void engineLocationIsShown();
    void nothingUsableShowsGuidance();
    void preferenceFailureNamesThePreferredRuntime();
    void recheckAsksTheDetector();
    void limitsWarning_data();
    void limitsWarning();
    void screenshot();
};

void TestRuntimePanel::readyShowsRuntimeAndVersion() {
    RuntimePanel panel(nullptr);
    panel.showResult(dockerReady());
    QCOMPARE(panel.findChild<QLabel*>(QStringLiteral("runtimeHeadline"))->text(),
             QStringLiteral("Docker 20.10.24 is ready."));
    QVERIFY(panel.findChild<QWidget*>(QStringLiteral("guidance"))->isHidden());
    auto* probes = panel.findChild<QTreeWidget*>(QStringLiteral("probes"));
    QCOMPARE(probes->topLevelItemCount(), 3);
    QCOMPARE(probes->topLevelItem(1)->text(0), QStringLiteral("Docker (in use)"));
    QCOMPARE(probes->topLevelItem(1)->text(1), RuntimeProbe::stateLabel(RuntimeProbe::State::Ready));
    QCOMPARE(probes->topLevelItem(1)->text(2), QStringLiteral("20.10.24"));
    QCOMPARE(probes->topLevelItem(0)->text(4), QStringLiteral("container is not_installed"));
}

void TestRuntimePanel::engineLocationIsShown_data() {
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QString>("headline");
    QTest::addColumn<QString>("column");
    QTest::newRow("local") << "unix:///var/run/docker.sock"
                           << "Docker 20.10.24 is ready (local)."
                           << "local";
    QTest::newRow("remote, credentials left out") << "tcp://me:pw@127.0.0.1:23750"
                                                  << "Docker 20.10.24 is ready (remote (tcp://127.0.0.1:23750))."
                                                  << "remote (tcp://127.0.0.1:23750)";
}

void TestRuntimePanel::engineLocationIsShown() {
    QFETCH(QString, endpoint);
    QFETCH(QString, headline);
    QFETCH(QString, column);
    RuntimeProbe docker = probe(RuntimeKind::Docker, RuntimeProbe::State::Ready, QStringLiteral("20.10.24"));
    docker.location = zeus::EngineLocation::fromEndpoint(endpoint);
    RuntimePanel panel(nullptr);
    panel.showResult(DetectionResult::choose({probe(RuntimeKind::Apple, RuntimeProbe::State::NotInstalled), docker},
                                             RuntimePreference::Auto));
    QCOMPARE(panel.findChild<QLabel*>(QStringLiteral("runtimeHeadline"))->text(), headline);
    auto* probes = panel.findChild<QTreeWidget*>(QStringLiteral("probes"));
    QCOMPARE(probes->topLevelItem(1)->text(3), column);
    QCOMPARE(probes->topLevelItem(0)->text(3), QString());  // not probed for a location: nothing to claim
}

void TestRuntimePanel::nothingUsableShowsGuidance() {
    RuntimePanel panel(nullptr);
    panel.setGuidanceOs(InstallGuidance::Os::Debian);
    const DetectionResult result = nothingUsable();
    panel.showResult(result);
    QCOMPARE(panel.findChild<QLabel*>(QStringLiteral("runtimeHeadline"))->text(), QString(zeus::kNoRuntimeMessage));
    QVERIFY(!panel.findChild<QWidget*>(QStringLiteral("guidance"))->isHidden());
    const auto expected = zeus::DiagnosticsReport::overallGuidance(result, InstallGuidance::Os::Debian);
    QVERIFY(expected.has_value());
    QCOMPARE(panel.findChild<QLabel*>(QStringLiteral("guidanceSummary"))->text(), expected->summary);
    auto* commands = panel.findChild<QPlainTextEdit*>(QStringLiteral("guidanceCommands"));
    QCOMPARE(commands->toPlainText(), expected->commands.join(QLatin1Char('\n')));
    QVERIFY(!commands->toPlainText().isEmpty());
    panel.findChild<QPushButton*>(QStringLiteral("copyCommands"))->click();
    QCOMPARE(QApplication::clipboard()->text(), commands->toPlainText());
    if (!expected->verify.isEmpty()) {
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("guidanceVerify"))->text().contains(expected->verify));
    }
}

void TestRuntimePanel::preferenceFailureNamesThePreferredRuntime() {
    RuntimePanel panel(nullptr);
    const DetectionResult result =
        DetectionResult::choose({probe(RuntimeKind::Docker, RuntimeProbe::State::Ready, QStringLiteral("20.10")),
                                 probe(RuntimeKind::Podman, RuntimeProbe::State::PermissionDenied)},
                                RuntimePreference::Podman);
    panel.showResult(result);
    const QString headline = panel.findChild<QLabel*>(QStringLiteral("runtimeHeadline"))->text();
    QVERIFY2(headline.contains(QStringLiteral("Podman")), qPrintable(headline));
    QVERIFY(!panel.findChild<QWidget*>(QStringLiteral("guidance"))->isHidden());
}

void TestRuntimePanel::limitsWarning_data() {
    // The engine's own word on --memory, --pids-limit, --cpus (nullopt: it does not say).
    QTest::addColumn<RuntimeKind>("kind");
    QTest::addColumn<bool>("rootless");
    QTest::addColumn<std::optional<bool>>("memory");
    QTest::addColumn<std::optional<bool>>("pids");
    QTest::addColumn<QString>("expected");  // a part of the warning; empty: no warning
    QTest::newRow("all enforced") << RuntimeKind::Docker << false << std::optional<bool>(true)
                                  << std::optional<bool>(true) << QString();
    QTest::newRow("engine does not say") << RuntimeKind::Docker << false << std::optional<bool>()
                                         << std::optional<bool>() << QString();
    QTest::newRow("docker without memory cgroup")
        << RuntimeKind::Docker << false << std::optional<bool>(false) << std::optional<bool>(true)
        << QStringLiteral("Docker will not enforce --memory:");
    QTest::newRow("rootless podman on cgroup v1")
        << RuntimeKind::Podman << true << std::optional<bool>(false) << std::optional<bool>(false)
        << QStringLiteral("Podman will not enforce --memory, --pids-limit (rootless Podman without cgroup v2");
}

void TestRuntimePanel::limitsWarning() {
    QFETCH(RuntimeKind, kind);
    QFETCH(bool, rootless);
    QFETCH(std::optional<bool>, memory);
    QFETCH(std::optional<bool>, pids);
    QFETCH(QString, expected);
    RuntimeProbe ready = probe(kind, RuntimeProbe::State::Ready, QStringLiteral("4.3.1"));
    ready.rootless = rootless;
    ready.limits.memory = memory;
    ready.limits.pids = pids;
    const DetectionResult result = DetectionResult::choose({ready}, RuntimePreference::Auto);
    RuntimePanel panel(nullptr);
    panel.showResult(result);
    auto* warning = panel.findChild<QLabel*>(QStringLiteral("limitsWarning"));
    QVERIFY(warning);
    QCOMPARE(!warning->isHidden(), !expected.isEmpty());
    QVERIFY2(warning->text().contains(expected), qPrintable(warning->text()));
    // Fixed by the next detection: the warning goes.
    panel.showResult(dockerReady());
    QVERIFY(warning->isHidden());
}

void TestRuntimePanel::recheckAsksTheDetector() {
    // A detector whose CLIs do not exist: detection ends quickly with nothing usable.
    zeus::RuntimeDetector::Options options;
    options.appleProgram = QStringLiteral("zeus-test-no-such-container-cli");
    options.dockerProgram = QStringLiteral("zeus-test-no-such-docker-cli");
    options.podmanProgram = QStringLiteral("zeus-test-no-such-podman-cli");
    zeus::RuntimeDetector detector(options);
    RuntimePanel panel(&detector);
    auto* headline = panel.findChild<QLabel*>(QStringLiteral("runtimeHeadline"));
    QVERIFY(headline->text().startsWith(QStringLiteral("Checking")));
    QSignalSpy finished(&detector, &zeus::RuntimeDetector::detectionFinished);
    detector.detect();
    QVERIFY(finished.wait(10000));
    QCOMPARE(headline->text(), QString(zeus::kNoRuntimeMessage));
    auto* recheck = panel.findChild<QPushButton*>(QStringLiteral("recheck"));
    QVERIFY(recheck->isEnabled());
    QSignalSpy started(&detector, &zeus::RuntimeDetector::detectionStarted);
    recheck->click();
    QVERIFY(!recheck->isEnabled());
    QVERIFY(headline->text().startsWith(QStringLiteral("Checking")));
    QVERIFY(finished.wait(10000));
    QCOMPARE(started.count(), 1);
    QVERIFY(recheck->isEnabled());
}

void TestRuntimePanel::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    RuntimePanel panel(nullptr);
    panel.setGuidanceOs(InstallGuidance::Os::Debian);
    panel.showResult(nothingUsable());
    panel.resize(700, 360);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.grab().save(shots + QStringLiteral("/runtime-none.png")));
    panel.showResult(dockerReady());
    QVERIFY(panel.grab().save(shots + QStringLiteral("/runtime-ready.png")));
}

QTEST_MAIN(TestRuntimePanel)
#include "tst_runtimepanel.moc"
