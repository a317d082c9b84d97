// The diagnostics panel: the report as text and JSON, Copy and Save, and redaction: a
// planted canary token never appears in what is shown, copied or saved.
#include "dashboard/diagnosticspanel.h"

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using zeus::DiagnosticsPanel;
using zeus::DiagnosticsReport;

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

}  // namespace

class TestDiagnosticsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void redact_data();
    void redact();
    void canaryNeverLeaves();
    void reportHasTheFacts();
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

QTEST_MAIN(TestDiagnosticsPanel)
#include "tst_diagnosticspanel.moc"
