// The tray app's Diagnostics report on a real engine: GuiService assembles it through the core section builders,
// so its checklist has all seven rows (runtime, engine, image, resource_limits, workspaces, keychain, backend),
// with the image row from an `image inspect` run by the sandbox's own runtime after detection, again when the image
// setting changes, and for this run's --image. Without a keychain the keychain row fails; the token never
// appears in the report.
#include "appoptions.h"
#include "appsettings.h"
#include "dashboard/dashboardwindow.h"
#include "diagnosticsections.h"
#include "guiservice.h"
#include "testenvironment.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

namespace {

using Levels = QMap<QString, QString>;  // check id -> level

Levels levelsOf(const DiagnosticsReport& report) {
    Levels levels;
    for (const DiagnosticCheck& check : report.checks()) {
        levels.insert(check.id, DiagnosticCheck::levelToString(check.level));
    }
    return levels;
}

QString imageOutcome(const DiagnosticsReport& report) {
    return report.toJson().value(QStringLiteral("image")).toObject().value(QStringLiteral("outcome")).toString();
}

QString describe(const DiagnosticsReport& report) {
    return DiagnosticsReport::checklistText(report.checks());
}

// A loopback port nobody listens on: the connection keeps retrying.
QString closedLoopbackUrl() {
    QTcpServer server;
    server.listen(QHostAddress::LocalHost);
    const quint16 port = server.serverPort();
    server.close();
    return QStringLiteral("ws://127.0.0.1:%1").arg(port);
}

}  // namespace

class TestGuiDiagnostics : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QTemporaryDir m_workspace;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(m_workspace.isValid());
        // No session bus: the keychain answers at once that it cannot be reached, whatever this machine has.
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");
        qunsetenv("ZEUS_DESKTOP_TOKEN");
    }

    void reportHasEveryCheck_data() {
        QTest::addColumn<QString>("settingsImage");
        QTest::addColumn<QString>("imageOverride");  // --image
        QTest::addColumn<bool>("withBackend");       // --backend to a closed loopback port
        QTest::addColumn<QString>("imageKind");      // outcome, or kind when present
        QTest::addColumn<Levels>("expected");

        const QString test = test::testImage();
        const QString missing =
            QStringLiteral("zeus-desktop-sandbox:no-such-tag-%1").arg(QCoreApplication::applicationPid());
        const Levels base{{QStringLiteral("runtime"), QStringLiteral("ok")},
                          {QStringLiteral("engine"), QStringLiteral("ok")},
                          // The build tree's agent, found beside the test program.
                          {QStringLiteral("agent"), QStringLiteral("ok")},
                          // The harness's dockerd enforces memory, pids and cpu limits.
                          {QStringLiteral("resource_limits"), QStringLiteral("ok")},
                          {QStringLiteral("workspaces"), QStringLiteral("ok")},
                          // No secret is bound to hosts.
                          {QStringLiteral("bound_secrets"), QStringLiteral("ok")}};
        Levels noBackend = base;
        noBackend.insert(QStringLiteral("image"), QStringLiteral("warning"));    // only the offline test image
        noBackend.insert(QStringLiteral("keychain"), QStringLiteral("ok"));      // nothing to sign in to yet
        noBackend.insert(QStringLiteral("backend"), QStringLiteral("warning"));  // no URL
        QTest::newRow("offline test image, no backend")
            << test << QString() << false << QStringLiteral("offline_test") << noBackend;

        Levels noKeychain = noBackend;
        noKeychain.insert(QStringLiteral("keychain"), QStringLiteral("failed"));  // no keyring service
        noKeychain.insert(QStringLiteral("backend"), QStringLiteral("warning"));  // connecting / retrying
        QTest::newRow("--image, local backend, no keychain")
            << missing << test << true << QStringLiteral("offline_test") << noKeychain;

        Levels missingImage = noBackend;
        missingImage.insert(QStringLiteral("image"), QStringLiteral("failed"));
        QTest::newRow("missing image") << missing << QString() << false << QStringLiteral("missing") << missingImage;
    }

    void reportHasEveryCheck() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        QFETCH(QString, settingsImage);
        QFETCH(QString, imageOverride);
        QFETCH(bool, withBackend);
        QFETCH(QString, imageKind);
        QFETCH(Levels, expected);

        const QString file = m_dir.filePath(QString::fromLatin1(QTest::currentDataTag())
                                                .replace(QLatin1Char(' '), QLatin1Char('_'))
                                                .remove(QLatin1Char(','))
                                            + QStringLiteral(".ini"));
        QFile::remove(file);
        AppSettings settings(file);
        settings.setRuntimePreference(QStringLiteral("docker"));
        settings.setImage(settingsImage);
        QVERIFY(settings.approveWorkspace(QFileInfo(m_workspace.path()).canonicalFilePath()));
        AppOptions options;
        options.image = imageOverride;
        if (withBackend) {
            options.backend = closedLoopbackUrl();
        }
        GuiService gui(options, &settings);
        gui.start();

        // Detection, then the image inspect it starts, both asynchronous.
        QTRY_VERIFY_WITH_TIMEOUT(imageOutcome(gui.buildReport()) != QStringLiteral("not_checked"), 60000);
        if (withBackend) {
            // The keychain's answer (no service) arrives on its own.
            QTRY_COMPARE_WITH_TIMEOUT(levelsOf(gui.buildReport()).value(QStringLiteral("keychain")),
                                      QStringLiteral("failed"), 20000);
        }
        const DiagnosticsReport report = gui.buildReport();
        const QJsonObject json = report.toJson();
        const QJsonObject image = json.value(QStringLiteral("image")).toObject();
        const QString kind = image.value(QStringLiteral("outcome")).toString() == QStringLiteral("present")
                                 ? image.value(QStringLiteral("kind")).toString()
                                 : image.value(QStringLiteral("outcome")).toString();
        QCOMPARE(kind, imageKind);
        // The image the sessions use: --image over the setting.
        const QString used = imageOverride.isEmpty() ? settingsImage : imageOverride;
        QCOMPARE(json.value(QStringLiteral("sandbox")).toObject().value(QStringLiteral("image")).toString(), used);

        QStringList ids;
        for (const QJsonValue& row : json.value(QStringLiteral("checks")).toArray()) {
            ids << row.toObject().value(QStringLiteral("id")).toString();
        }
        QCOMPARE(ids, DiagnosticSections::checkOrder());
        QVERIFY2(levelsOf(report) == expected, qPrintable(describe(report)));
        // The sections of the old report are still there.
        for (const char* key : {"sandbox", "connection", "sessions", "recent_errors", "keychain", "workspaces"}) {
            QVERIFY2(json.contains(QString::fromLatin1(key)), key);
        }
    }

    // A new image in Settings is inspected at once (the sandbox itself swaps only when idle).
    void imageSettingChangeIsInspected() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const QString file = m_dir.filePath(QStringLiteral("change.ini"));
        QFile::remove(file);
        AppSettings settings(file);
        settings.setRuntimePreference(QStringLiteral("docker"));
        settings.setImage(test::testImage());
        AppOptions options;
        GuiService gui(options, &settings);
        gui.start();
        QTRY_COMPARE_WITH_TIMEOUT(imageOutcome(gui.buildReport()), QStringLiteral("present"), 60000);

        settings.setImage(
            QStringLiteral("zeus-desktop-sandbox:no-such-tag-%1").arg(QCoreApplication::applicationPid()));
        // The answer about the old image no longer counts.
        QCOMPARE(imageOutcome(gui.buildReport()), QStringLiteral("not_checked"));
        QTRY_COMPARE_WITH_TIMEOUT(imageOutcome(gui.buildReport()), QStringLiteral("missing"), 30000);
        QCOMPARE(levelsOf(gui.buildReport()).value(QStringLiteral("image")), QStringLiteral("failed"));

        settings.setImage(test::testImage());
        QTRY_COMPARE_WITH_TIMEOUT(imageOutcome(gui.buildReport()), QStringLiteral("present"), 30000);
    }
};

QTEST_MAIN(TestGuiDiagnostics)
#include "tst_guidiagnostics.moc"
