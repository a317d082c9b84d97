// The tray app's MCP server over HTTP (SPEC §12 "Streamable HTTP", Settings > Agents), on a real Docker engine and
// the test keyring, driven by curl: off until the setting names a port; then 127.0.0.1:PORT answers only with the
// keychain's token; a client without elicitation is asked in the tray's dialog (ask-all), Run Once runs the command
// in the tray's sandbox under a `local-mcp-` session shown in the Sessions page; a new token shuts out the old one at
// once; port 0 closes the port.
#include "../engine/sessionfixture.h"
#include "appoptions.h"
#include "approval/approvaldialog.h"
#include "appsettings.h"
#include "dashboard/dashboardwindow.h"
#include "guimcphost.h"
#include "guiservice.h"
#include "mcp/mcphttptoken.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "testenvironment.h"
#include "widgetlookup.h"

#include <QApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTcpServer>
#include <QtTest>

using namespace zeus;
using namespace zeus::test;

namespace {

quint16 freePort() {
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

// One POST with curl (a real HTTP client), run while the event loop serves it: headers and body, or empty.
struct Posted {
    int status = 0;
    QString session;
    QByteArray body;
};

Posted post(quint16 port, const QString& token, const QByteArray& body, const QString& session = {}) {
    QStringList args{QStringLiteral("-s"), QStringLiteral("-i"),
                     QStringLiteral("-m"), QStringLiteral("150"),
                     QStringLiteral("-X"), QStringLiteral("POST"),
                     QStringLiteral("-H"), QStringLiteral("Content-Type: application/json"),
                     QStringLiteral("-H"), QStringLiteral("Accept: application/json, text/event-stream"),
                     QStringLiteral("-H"), QStringLiteral("Authorization: Bearer ") + token};
    if (!session.isEmpty()) {
        args << QStringLiteral("-H") << QStringLiteral("Mcp-Session-Id: ") + session;
    }
    args << QStringLiteral("--data-binary") << QString::fromUtf8(body)
         << QStringLiteral("http://127.0.0.1:%1/mcp").arg(port);
    QProcess curl;
    curl.start(QStringLiteral("curl"), args);
    Posted posted;
    if (!QTest::qWaitFor([&curl] { return curl.state() == QProcess::NotRunning; }, 160000)) {
        curl.kill();
        return posted;
    }
    const QByteArray out = curl.readAllStandardOutput();
    const qsizetype end = out.indexOf("\r\n\r\n");
    const QString head = QString::fromLatin1(out.left(end));
    posted.status = head.section(QLatin1Char(' '), 1, 1).toInt();
    const QRegularExpressionMatch id =
        QRegularExpression(QStringLiteral("(?im)^mcp-session-id: *([0-9a-f]+)")).match(head);
    posted.session = id.hasMatch() ? id.captured(1) : QString();
    posted.body = end < 0 ? QByteArray() : out.mid(end + 4);
    return posted;
}

QByteArray initialize() {
    return R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
           R"("capabilities":{},"clientInfo":{"name":"curl","version":"1"}}})";
}

QString keychainToken() {
    McpHttpToken store;
    QSignalSpy ready(&store, &McpHttpToken::ready);
    store.obtain(false);
    return ready.wait(10000) ? ready.at(0).at(1).toString() : QString();
}

}  // namespace

class TestGuiMcpHttp : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_owner;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
        qunsetenv("ZEUS_DESKTOP_TOKEN");
    }

    void cleanup() {
        if (!m_owner.isEmpty()) {
            removeContainersOf(QStringLiteral("docker"), m_owner);
        }
    }

    void servesOverHttpWhenTurnedOn() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        if (qEnvironmentVariable("ZEUS_TEST_KEYRING") != QLatin1String("1")) {
            if (isCi()) {
                QFAIL("no test keyring (run inside tests/harness/keyring-session.sh)");
            }
            QSKIP("no test keyring");
        }
        const QString folder = QFileInfo(makeWorkspace(m_dir, QStringLiteral("proj"))).canonicalFilePath();
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
        QVERIFY(!gui.mcpHost().isServingHttp());  // off by default

        const quint16 port = freePort();
        QVERIFY(settings.setMcpHttpPort(port));
        QTRY_VERIFY_WITH_TIMEOUT(gui.mcpHost().isServingHttp(), 15000);
        const QString token = keychainToken();
        QVERIFY(!token.isEmpty());
        QCOMPARE(post(port, QStringLiteral("not-the-token"), initialize()).status, 401);
        const Posted opened = post(port, token, initialize());
        QCOMPARE(opened.status, 200);
        QVERIFY(!opened.session.isEmpty());
        QCOMPARE(post(port, token, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", opened.session).status,
                 202);

        // Asked in the tray's dialog (the client declared no elicitation); Run Once runs it in the tray's sandbox.
        QTRY_VERIFY_WITH_TIMEOUT(gui.sandbox().manager() && gui.sandbox().readinessProblem().isEmpty(), 60000);
        QTimer::singleShot(0, this, [] {
            ApprovalDialog* dialog = nullptr;
            if (!QTest::qWaitFor([&dialog] { return (dialog = topLevel<ApprovalDialog>()) && dialog->isVisible(); },
                                 60000)) {
                return;
            }
            for (QPushButton* candidate : dialog->findChildren<QPushButton*>()) {
                if (candidate->text().remove(QLatin1Char('&')) == QLatin1String("Run Once")) {
                    candidate->click();
                }
            }
        });
        const Posted ran = post(
            port, token,
            R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo served-by-the-tray"}}})",
            opened.session);
        QCOMPARE(ran.status, 200);
        QVERIFY2(ran.body.contains("served-by-the-tray") && !ran.body.contains("\"isError\":true"),
                 ran.body.constData());
        bool shown = false;
        const QStringList sessions = gui.sandbox().manager()->sessionIds();
        for (const QString& session : sessions) {
            shown = shown
                    || (session.startsWith(QLatin1String("local-mcp-"))
                        && window->sessionsPanel()->model()->rowOf(session) >= 0);
        }
        QVERIFY2(shown, "the HTTP session is a local-mcp- session in the Sessions page");

        // A new token (Settings > Agents, Make a new token): the old one no longer opens anything.
        McpHttpToken renewer;
        QSignalSpy made(&renewer, &McpHttpToken::ready);
        renewer.obtain(true);
        QVERIFY(made.wait(10000));
        const QString fresh = made.at(0).at(1).toString();
        QVERIFY(fresh != token);
        gui.mcpHost().renewToken();
        QTRY_VERIFY_WITH_TIMEOUT(gui.mcpHost().isServingHttp(), 15000);
        QTRY_COMPARE_WITH_TIMEOUT(post(port, token, initialize()).status, 401, 15000);
        QCOMPARE(post(port, fresh, initialize()).status, 200);

        // Off: the port closes.
        QVERIFY(settings.setMcpHttpPort(0));
        QTRY_VERIFY_WITH_TIMEOUT(!gui.mcpHost().isServingHttp(), 5000);
        QCOMPARE(post(port, fresh, initialize()).status, 0);
    }
};

QTEST_MAIN(TestGuiMcpHttp)
#include "tst_guimcphttp.moc"
