// The diagnostics panel: the report as text and JSON, Copy and Save, and redaction: a
// planted canary token never appears in what is shown, copied or saved.
#include "dashboard/diagnosticspanel.h"
#include "diagnosticsections.h"

#include <zeus/buildinfo.h>

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using zeus::DiagnosticCheck;
using zeus::DiagnosticSections;
using zeus::DiagnosticsPanel;
using zeus::DiagnosticsReport;
using Level = zeus::DiagnosticCheck::Level;

namespace {

const QString kCanary = QStringLiteral("zcanary-9f8e7d6c5b4a");

// A report with the canary planted where a careless caller might leave it.
DiagnosticsReport plantedReport() {
    DiagnosticsReport report;
    QJsonObject connection;
    connection.insert(QStringLiteral("url"), QStringLiteral("wss://backend.example.com/desktop"));
    connection.insert(QStringLiteral("token"), kCanary);
    QJsonArray history;
    history.append(QString(QStringLiteral("upgrade refused: Authorization: Bearer ") + kCanary));
    history.append(QString(QStringLiteral("GET /desktop?access_token=") + kCanary + QStringLiteral("&x=1")));
    history.append(QString(QStringLiteral("peer said ") + kCanary));
    connection.insert(QStringLiteral("history"), history);
    report.addSection(QStringLiteral("connection"), connection, QStringLiteral("Backend connection"),
                      QStringLiteral("history: Authorization: Bearer %1\nraw: %1").arg(kCanary));
    report.addSection(QStringLiteral("sandbox"), QJsonObject{{QStringLiteral("image"), QStringLiteral("img:1")}},
                      QStringLiteral("Sandbox"));
    return report;
}

// Every level at once: a usable Docker, the offline test image, a refused token, a missing keychain.
DiagnosticsReport mixedReport() {
    DiagnosticsReport report;
    zeus::RuntimeProbe docker;
    docker.kind = zeus::RuntimeKind::Docker;
    docker.state = zeus::RuntimeProbe::State::Ready;
    docker.binaryPath = QStringLiteral("/usr/bin/docker");
    docker.clientVersion = QStringLiteral("28.2.2");
    docker.serverVersion = QStringLiteral("20.10.24");
    docker.os = QStringLiteral("Debian GNU/Linux 12 (bookworm)");
    docker.arch = QStringLiteral("x86_64");
    docker.rootless = false;
    docker.limits.memory = true;
    docker.limits.pids = false;
    docker.limits.cpus = true;
    const zeus::DetectionResult detection = zeus::DetectionResult::choose({docker}, zeus::RuntimePreference::Auto);
    report.setDetection(detection);
    DiagnosticSections::ImageFacts image;
    image.image = QStringLiteral("zeus-desktop-sandbox:latest");
    image.runtimeName = QStringLiteral("Docker");
    zeus::ImageInspection inspection;
    inspection.outcome = zeus::ImageInspection::Outcome::Present;
    inspection.comment = QStringLiteral("Imported from -");
    image.inspection = inspection;
    report.addSection(DiagnosticSections::image(image));
    DiagnosticSections::AgentFacts agent;
    agent.runtime = zeus::RuntimeKind::Docker;
    agent.hostPath = QStringLiteral("/usr/libexec/zeus-desktop/zeus-sandbox-agent");
    agent.versionOutput = QStringLiteral("zeus-sandbox-agent " ZEUS_VERSION);
    report.addSection(DiagnosticSections::agent(agent));
    report.addSection(DiagnosticSections::resourceLimits(detection, 512, 2048, 2));
    zeus::WorkspaceGuard::Result accepted;
    accepted.rule = zeus::WorkspaceGuard::Rule::Accepted;
    accepted.canonicalPath = QStringLiteral("/home/ann/projects/site");
    report.addSection(DiagnosticSections::workspaces({{accepted.canonicalPath, accepted, false}}));
    DiagnosticSections::KeychainFacts keychain;
    keychain.checked = true;
    keychain.status = zeus::CredentialStore::Status::NoKeyring;
    keychain.message = QStringLiteral("The name org.freedesktop.secrets was not provided by any .service files");
    keychain.backendUrl = QStringLiteral("wss://backend.example.com/desktop");
    report.addSection(DiagnosticSections::keychain(keychain));
    DiagnosticSections::SecretsFacts secrets;
    secrets.stored = {QStringLiteral("GH_TOKEN"), QStringLiteral("NPM_TOKEN")};
    secrets.bound.insert(QStringLiteral("GH_TOKEN"), {QStringLiteral("github.com"), QStringLiteral("api.github.com")});
    secrets.ca = DiagnosticSections::SecretsFacts::Ca::Loaded;
    secrets.caFingerprint = QStringLiteral("AB:CD:EF");
    report.addSection(DiagnosticSections::secrets(secrets));
    DiagnosticSections::ConnectionFacts connection;
    connection.url = keychain.backendUrl;
    connection.state = zeus::BackendConnection::State::AuthFailed;
    connection.lastError = QStringLiteral("the backend refused the token (HTTP 401) ") + kCanary;
    report.addSection(DiagnosticSections::connection(connection));
    return report;
}

}  // namespace

class TestDiagnosticsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void redact_data();
    void redact();
    void canaryNeverLeaves();
    void reportHasTheFacts();
    void checklistAboveTheReport();
    void rowsArrivingLaterAllShow();
    void screenshot();
};

void TestDiagnosticsPanel::redact_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("known secret") << QStringLiteral("x sekret123 y") << QStringLiteral("x [redacted] y");
    QTest::newRow("authorization header")
        << QStringLiteral("Authorization: Bearer abc.def") << QStringLiteral("Authorization: [redacted]");
    QTest::newRow("bearer alone") << QStringLiteral("sent bearer abcDEF123")
                                  << QStringLiteral("sent bearer [redacted]");
    QTest::newRow("query token") << QStringLiteral("/ws?token=abc&b=2") << QStringLiteral("/ws?token=[redacted]&b=2");
    QTest::newRow("json token field") << QStringLiteral(R"({"access_token": "abc"})")
                                      << QStringLiteral(R"({"access_token": "[redacted]"})");
    QTest::newRow("password") << QStringLiteral("password=hunter2") << QStringLiteral("password=[redacted]");
    QTest::newRow("ordinary text untouched") << QStringLiteral("docker ready 20.10, tokens are never included")
                                             << QStringLiteral("docker ready 20.10, tokens are never included");
}

void TestDiagnosticsPanel::redact() {
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(DiagnosticsPanel::redact(input, {QStringLiteral("sekret123")}), expected);
}

void TestDiagnosticsPanel::canaryNeverLeaves() {
    DiagnosticsPanel panel([] { return plantedReport(); });
    panel.setSecrets({kCanary});
    panel.refresh();
    const QByteArray canary = kCanary.toUtf8();
    QVERIFY(!panel.reportText().contains(kCanary));
    QVERIFY(!QJsonDocument(panel.reportJson()).toJson().contains(canary));
    QVERIFY(!panel.findChild<QPlainTextEdit*>(QStringLiteral("diagnosticsText"))->toPlainText().contains(kCanary));
    QVERIFY(panel.reportText().contains(QStringLiteral("[redacted]")));

    panel.findChild<QPushButton*>(QStringLiteral("copyReport"))->click();
    QVERIFY(!QApplication::clipboard()->text().contains(kCanary));
    QVERIFY(QApplication::clipboard()->text().contains(QStringLiteral("Backend connection")));

    QTemporaryDir dir;
    QString error;
    for (const QString& name : {QStringLiteral("report.json"), QStringLiteral("report.txt")}) {
        const QString path = dir.filePath(name);
        QVERIFY2(panel.saveReport(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray saved = file.readAll();
        QVERIFY(!saved.isEmpty());
        QVERIFY2(!saved.contains(canary), name.toUtf8().constData());
        if (name.endsWith(QLatin1String(".json"))) {
            QJsonParseError parse;
            QJsonDocument::fromJson(saved, &parse);
            QCOMPARE(parse.error, QJsonParseError::NoError);
        }
    }

    // Even without being told the secret, header- and parameter-shaped values go.
    DiagnosticsPanel unaware([] { return plantedReport(); });
    unaware.refresh();
    QVERIFY(!unaware.reportText().contains(QStringLiteral("Bearer ") + kCanary));
    QVERIFY(!QJsonDocument(unaware.reportJson()).toJson().contains(QByteArray(QByteArray("\"token\": \"") + canary)));
}

void TestDiagnosticsPanel::reportHasTheFacts() {
    DiagnosticsPanel panel([] { return plantedReport(); });
    panel.refresh();
    const QJsonObject json = panel.reportJson();
    QVERIFY(json.contains(QStringLiteral("app")) || json.contains(QStringLiteral("application")));
    QVERIFY(QJsonDocument(json).toJson().contains("img:1"));
    QVERIFY(panel.reportText().contains(QStringLiteral(QT_VERSION_STR))
            || panel.reportText().contains(QString::fromLatin1(qVersion())));
    QSignalSpy recheck(&panel, &DiagnosticsPanel::recheckRequested);
    panel.findChild<QPushButton*>(QStringLiteral("recheckRuntimes"))->click();
    QCOMPARE(recheck.count(), 1);
}

void TestDiagnosticsPanel::checklistAboveTheReport() {
    DiagnosticsPanel panel(nullptr);
    panel.setSecrets({kCanary});
    panel.showReport(mixedReport());
    panel.resize(800, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));

    // The rows in the report's order, with their levels.
    QStringList ids;
    QList<Level> levels;
    for (const DiagnosticCheck& check : panel.checks()) {
        ids << check.id;
        levels << check.level;
    }
    QCOMPARE(ids, DiagnosticSections::checkOrder());
    QCOMPARE(levels, (QList<Level>{Level::Ok, Level::Ok, Level::Warning, Level::Ok, Level::Warning, Level::Ok,
                                   Level::Failed, Level::Ok, Level::Failed}));
    // Host-bound secrets (SPEC §9): which are bound, which go into the environment, and the CA's fingerprint.
    QVERIFY2(panel.reportText().contains(QStringLiteral("GH_TOKEN goes only to github.com, api.github.com")),
             qPrintable(panel.reportText().section(QStringLiteral("== Secrets =="), 1)));
    QVERIFY(panel.reportText().contains(
        QStringLiteral("Into the command's environment when allowed (redacted from the output): NPM_TOKEN")));
    QVERIFY(panel.reportText().contains(QStringLiteral("Interception CA: SHA-256 AB:CD:EF")));

    // One widget per row: the summary, and the action only where there is something to do.
    auto* checklist = panel.findChild<QWidget*>(QStringLiteral("diagnosticsChecklist"));
    QVERIFY(checklist);
    auto* image = checklist->findChild<QWidget*>(QStringLiteral("check_image"));
    QVERIFY(image);
    auto* imageSummary = image->findChild<QLabel*>(QStringLiteral("checkSummary"));
    QVERIFY(imageSummary->text().contains(QLatin1String("<b>Sandbox image</b>")));
    QVERIFY(imageSummary->text().contains(QLatin1String("offline test image")));
    auto* imageAction = image->findChild<QLabel*>(QStringLiteral("checkAction"));
    QVERIFY(imageAction);
    QVERIFY(imageAction->text().contains(QLatin1String("--build-image")));
    QVERIFY(imageAction->isVisible());
    QVERIFY(imageAction->font().pointSizeF() < imageSummary->font().pointSizeF());
    auto* runtime = checklist->findChild<QWidget*>(QStringLiteral("check_runtime"));
    QVERIFY(runtime);
    QVERIFY(!runtime->findChild<QLabel*>(QStringLiteral("checkAction")));
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("checksHeading"))->text().contains(QLatin1String("2 failed")));

    // Above the full report, which still holds everything.
    auto* view = panel.findChild<QPlainTextEdit*>(QStringLiteral("diagnosticsText"));
    QVERIFY(checklist->mapTo(&panel, QPoint(0, 0)).y() < view->mapTo(&panel, QPoint(0, 0)).y());
    QVERIFY(view->toPlainText().startsWith(QLatin1String("Checks: 5 ok, 2 warning(s), 2 failed")));
    QVERIFY(view->toPlainText().contains(QLatin1String("agent: ok (version " ZEUS_VERSION)));
    QCOMPARE(panel.reportJson().value(QLatin1String("checks")).toArray().size(), 9);

    // Redacted like the rest: the canary in the connection's last error is gone from the rows too.
    for (const DiagnosticCheck& check : panel.checks()) {
        QVERIFY(!check.summary.contains(kCanary));
    }
    for (const QLabel* label : checklist->findChildren<QLabel*>()) {
        QVERIFY(!label->text().contains(kCanary));
    }

    // A new report replaces the rows, never adds to them.
    panel.showReport(mixedReport());
    QCOMPARE(checklist->findChildren<QLabel*>(QStringLiteral("checkSummary")).size(), 9);
}

// The tray app shows the page before the slow checks finish (detection, image inspect): the rows that arrive
// while the panel is visible must all show, not stay in the height of the first, empty checklist.
void TestDiagnosticsPanel::rowsArrivingLaterAllShow() {
    DiagnosticsPanel panel(nullptr);
    panel.resize(960, 640);
    panel.showReport(DiagnosticsReport());
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* checklist = panel.findChild<QWidget*>(QStringLiteral("diagnosticsChecklist"));
    QVERIFY(checklist);
    auto* scroll = qobject_cast<QScrollArea*>(checklist->parentWidget()->parentWidget());
    QVERIFY(scroll);

    panel.showReport(mixedReport());
    auto* last = checklist->findChild<QWidget*>(QStringLiteral("check_backend"));
    QVERIFY(last);
    // The last row's bottom inside the visible part of the checklist, no scrolling needed.
    QTRY_VERIFY(last->isVisible()
                && last->mapTo(scroll->viewport(), QPoint(0, last->height())).y() <= scroll->viewport()->height());
    QTRY_VERIFY(!scroll->verticalScrollBar()->isVisible());
}

void TestDiagnosticsPanel::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    DiagnosticsPanel panel(nullptr);
    panel.setSecrets({kCanary});
    panel.showReport(mixedReport());
    panel.resize(820, 720);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.grab().save(shots + QStringLiteral("/diagnostics-checks.png")));
}

QTEST_MAIN(TestDiagnosticsPanel)
#include "tst_diagnosticspanel.moc"
