// A bridged MCP session in the tray app, on a real Docker engine (SPEC §12 "stdio", §11): a bridge reaches the
// tray's MCP server as `zeus-desktop --mcp` does (its request read by the single-instance socket, then handed to
// GuiMcpHost); with the folder in ask-all mode the command is asked in the tray's approval dialog, Run Once lets it
// run in the sandbox, the session is in the Sessions page, and closing the bridge removes its container.
#include "../engine/sessionfixture.h"
#include "appoptions.h"
#include "approval/approvaldialog.h"
#include "appsettings.h"
#include "dashboard/dashboardwindow.h"
#include "guimcphost.h"
#include "guiservice.h"
#include "mcp/mcpcodec.h"
#include "mcpbridgechannel.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "widgetlookup.h"

#include <QApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocalServer>
#include <QLocalSocket>
#include <QPushButton>
#include <QUuid>
#include <QtTest>

#include <memory>

using namespace zeus;
using namespace zeus::test;

namespace {

QByteArray mcpRequest(int id, const QString& method, const QJsonObject& params) {
    return McpCodec::toBytes(McpCodec::makeRequest(QJsonValue(id), method, params));
}

}  // namespace

class TestGuiMcpHost : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_owner;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");  // the keychain answers at once that it cannot be reached
        qunsetenv("ZEUS_DESKTOP_TOKEN");
    }

    void cleanup() {
        if (!m_owner.isEmpty()) {
            removeContainersOf(QStringLiteral("docker"), m_owner);
        }
    }

    void bridgedCallIsAskedInTheTrayAndShownThere() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const QString folder = QFileInfo(makeWorkspace(m_dir, QStringLiteral("proj"))).canonicalFilePath();
        const QString other = QFileInfo(makeWorkspace(m_dir, QStringLiteral("other"))).canonicalFilePath();
        AppSettings settings(m_dir.filePath(QStringLiteral("settings.ini")));
        settings.setRuntimePreference(QStringLiteral("docker"));
        settings.setImage(testImage());
        QVERIFY(settings.approveWorkspace(folder));
        m_owner = settings.installId();
        AppOptions options;
        options.approval = ApprovalMode::AskAll;
        GuiService gui(options, &settings);
        gui.start();
        DashboardWindow* window = topLevel<DashboardWindow>();
        QVERIFY(window);

        // A local socket pair: the tray's end goes to the MCP host as the single-instance socket hands it on.
        QLocalServer server;
        QVERIFY(server.listen(QStringLiteral("zeus-test-") + QUuid::createUuid().toString(QUuid::Id128).left(12)));
        QList<QJsonObject> lines;
        std::unique_ptr<McpBridgeChannel> refused;
        std::unique_ptr<McpBridgeChannel> client;
        const auto bridge = [&](std::unique_ptr<McpBridgeChannel>& end, const QStringList& workspaces) {
            auto* socket = new QLocalSocket;
            end = std::make_unique<McpBridgeChannel>(socket);
            connect(end.get(), &McpBridgeChannel::lineReceived, this,
                    [&lines](const QByteArray& line) { lines << QJsonDocument::fromJson(line).object(); });
            socket->connectToServer(server.fullServerName());
            if (!server.waitForNewConnection(5000)) {
                return false;
            }
            gui.mcpHost().accept(new McpBridgeChannel(server.nextPendingConnection()), workspaces);
            return true;
        };

        // A folder the tray has not approved is refused with its reason.
        QVERIFY(bridge(refused, {other}));
        QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 1, 5000);
        QCOMPARE(lines.at(0).value(QStringLiteral("ok")).toBool(true), false);
        QCOMPARE(lines.at(0).value(QStringLiteral("code")).toString(), QStringLiteral("workspace_not_approved"));
        QVERIFY(lines.at(0).value(QStringLiteral("message")).toString().contains(QLatin1String("approve it")));
        QTRY_VERIFY_WITH_TIMEOUT(!refused->isOpen(), 5000);
        lines.clear();

        QVERIFY(bridge(client, {folder}));
        QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 1, 5000);
        QVERIFY(lines.at(0).value(QStringLiteral("ok")).toBool());
        const QString session = lines.at(0).value(QStringLiteral("session")).toString();
        QVERIFY2(session.startsWith(QLatin1String("local-mcp-")), qPrintable(session));
        lines.clear();
        client->sendLine(mcpRequest(0, QStringLiteral("initialize"),
                                    QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                                {QStringLiteral("capabilities"), QJsonObject{}},
                                                {QStringLiteral("clientInfo"),
                                                 QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                                             {QStringLiteral("version"), QStringLiteral("1")}}}}));
        QTRY_COMPARE_WITH_TIMEOUT(lines.size(), 1, 5000);
        client->sendLine(McpCodec::toBytes(McpCodec::makeNotification(QStringLiteral("notifications/initialized"))));
        // The runtime may still be detected: the call is sent once the sandbox serves.
        QTRY_VERIFY_WITH_TIMEOUT(gui.sandbox().manager() && gui.sandbox().readinessProblem().isEmpty(), 60000);
        client->sendLine(mcpRequest(
            1, QStringLiteral("tools/call"),
            QJsonObject{{QStringLiteral("name"), QStringLiteral("run_command")},
                        {QStringLiteral("arguments"),
                         QJsonObject{{QStringLiteral("command"), QStringLiteral("echo asked-in-the-tray")}}}}));

        // Asked in the tray's dialog, naming the bridged session; Run Once lets it run.
        ApprovalDialog* dialog = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((dialog = topLevel<ApprovalDialog>()) && dialog->isVisible(), 60000);
        bool namesSession = false;
        for (QLabel* label : dialog->findChildren<QLabel*>()) {
            namesSession = namesSession || label->text() == session;
        }
        QVERIFY2(namesSession, "the dialog names the MCP session");
        QPushButton* runOnce = buttonNamed(dialog, QStringLiteral("Run Once"));
        QVERIFY(runOnce);
        runOnce->click();
        QJsonObject result;
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(lines.cbegin(), lines.cend(),
                                             [&result](const QJsonObject& m) {
                                                 if (m.value(QStringLiteral("id")).toInt(-1) != 1) {
                                                     return false;
                                                 }
                                                 result = m.value(QStringLiteral("result")).toObject();
                                                 return true;
                                             }),
                                 120000);
        const QByteArray text = QJsonDocument(result).toJson(QJsonDocument::Compact);
        QVERIFY2(!result.value(QStringLiteral("isError")).toBool() && text.contains("asked-in-the-tray"),
                 text.constData());

        // The session is in the Sessions page, as the console's and the backend's are.
        SessionsPanel* sessions = window->sessionsPanel();
        QTRY_VERIFY_WITH_TIMEOUT(sessions->model()->rowOf(session) >= 0, 10000);
        QVERIFY(!gui.sandbox().manager()->containerId(session).isEmpty());

        // The bridge closes: the session ends and its container goes.
        client->close();
        QTRY_VERIFY_WITH_TIMEOUT(gui.sandbox().manager()->containerId(session).isEmpty(), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(gui.mcpHost().bridges(), 0, 5000);
    }
};

QTEST_MAIN(TestGuiMcpHost)
#include "tst_guimcphost.moc"
