// A dev server in the sandbox, opened in the host's browser from the Sessions page (SPEC §8 "Ports"), in the tray
// app on a real Docker engine, as a user does it: the dashboard's console starts a server in the sandbox (busybox
// httpd, which forks into the background and outlives its call, as `npm run dev` does); on the Sessions page the
// user selects the console's session, asks Open Port… for port 8000 and clicks Open in Browser. The browser (a URL
// handler this test installs in place of the desktop's) is handed http://127.0.0.1:PORT/, and that address serves
// the sandbox's page to this computer's curl. Stop Container closes the port with the session.
#include "../engine/sessionfixture.h"
#include "appoptions.h"
#include "appsettings.h"
#include "dashboard/dashboardwindow.h"
#include "dashboard/localconsole.h"
#include "guiservice.h"
#include "sessions/sessionlogview.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "widgetlookup.h"

#include <QApplication>
#include <QDesktopServices>
#include <QHostAddress>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTcpSocket>
#include <QtTest>

using namespace zeus;
using namespace zeus::test;

namespace {

// curl on this computer while the app's event loop runs (the published port's listener lives on this thread).
ProcessOutput curl(const QString& url) {
    QProcess process;
    process.start(QStringLiteral("curl"), {QStringLiteral("-sS"), QStringLiteral("--noproxy"), QStringLiteral("*"),
                                           QStringLiteral("--max-time"), QStringLiteral("20"), url});
    ProcessOutput out;
    if (!process.waitForStarted(5000)
        || !QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 30000)) {
        return out;
    }
    out.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    out.out = process.readAllStandardOutput();
    out.err = process.readAllStandardError();
    return out;
}

QString logText(SessionLogView* view) {
    view->flushAll();
    QString text;
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        text += view->model()->index(row, 0).data().toString() + QLatin1Char('\n');
    }
    return text;
}

bool canConnect(quint16 port) {
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(QHostAddress::LocalHost), port);
    return socket.waitForConnected(3000);
}

}  // namespace

// What the desktop would open: the URL handler QDesktopServices calls instead of a browser.
class BrowserStandIn : public QObject {
    Q_OBJECT
public:
    QList<QUrl> opened;
public Q_SLOTS:
    void open(const QUrl& url) { opened << url; }
};

class TestGuiPorts : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_owner;
    BrowserStandIn m_browser;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
        qunsetenv("DBUS_SESSION_BUS_ADDRESS");  // the keychain answers at once that it cannot be reached
        qunsetenv("ZEUS_DESKTOP_TOKEN");
        QDesktopServices::setUrlHandler(QStringLiteral("http"), &m_browser, "open");
        QVERIFY2(runProgram(QStringLiteral("curl"), {QStringLiteral("--version")}).exitCode == 0, "curl on the host");
    }

    void cleanupTestCase() { QDesktopServices::unsetUrlHandler(QStringLiteral("http")); }

    void cleanup() {
        if (!m_owner.isEmpty()) {
            removeContainersOf(QStringLiteral("docker"), m_owner);
        }
    }

    void devServerOpensInTheBrowserFromTheSessionsPage() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        if (qEnvironmentVariable("ZEUS_TEST_EXEC_MODE") == QStringLiteral("exec")) {
            QSKIP("ports need the agent");
        }
        const QString folder = QFileInfo(makeWorkspace(m_dir, QStringLiteral("site"))).canonicalFilePath();
        AppSettings settings(m_dir.filePath(QStringLiteral("settings.ini")));
        settings.setRuntimePreference(QStringLiteral("docker"));
        settings.setImage(testImage());
        settings.addRecentFolder(folder);  // chosen on the Overview page, then approved
        QVERIFY(settings.approveWorkspace(folder));
        m_owner = settings.installId();
        AppOptions options;
        GuiService gui(options, &settings);
        gui.start();
        DashboardWindow* window = topLevel<DashboardWindow>();
        QVERIFY(window);

        // The console: a dev server starts in the sandbox and its call ends; the server stays.
        LocalConsole* console = window->console();
        QVERIFY(console);
        QTRY_COMPARE_WITH_TIMEOUT(console->workspace(), folder, 60000);
        auto* line = console->findChild<QLineEdit*>();
        QVERIFY(line);
        line->setText(
            QStringLiteral("mkdir -p \"$HOME/www\" && echo hello-from-the-dev-server > \"$HOME/www/index.html\" "
                           "&& busybox httpd -p 127.0.0.1:8000 -h \"$HOME/www\" && echo serving"));
        QPushButton* run = buttonNamed(console, QStringLiteral("Run"));
        QVERIFY(run);
        QTRY_VERIFY(run->isEnabled());
        run->click();
        QTRY_VERIFY_WITH_TIMEOUT(console->isRunning(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!console->isRunning(), 120000);
        QTRY_VERIFY2_WITH_TIMEOUT(logText(console->log()).contains(QStringLiteral("serving")),
                                  qPrintable(logText(console->log())), 10000);

        // The Sessions page: the console's session is selected; Open Port… asks for the port inside the sandbox.
        window->showPage(DashboardWindow::Page::Sessions);
        SessionsPanel* sessions = window->sessionsPanel();
        QTRY_VERIFY(sessions->model()->rowOf(LocalConsole::kSessionId) >= 0);
        sessions->selectSession(LocalConsole::kSessionId);
        QPushButton* openInBrowser = buttonNamed(sessions, QStringLiteral("Open in Browser"));
        QPushButton* openPort = buttonNamed(sessions, QStringLiteral("Open Port…"));
        QVERIFY(openInBrowser && openPort);
        QVERIFY(!openInBrowser->isEnabled());  // nothing published yet
        QTRY_VERIFY(openPort->isEnabled());
        openPort->click();
        QInputDialog* ask = nullptr;
        QTRY_VERIFY((ask = sessions->findChild<QInputDialog*>(QStringLiteral("openPortDialog"))) != nullptr);
        ask->setIntValue(8000);
        ask->accept();

        // The port is listed with its link, and Open in Browser hands the desktop the loopback URL.
        QTRY_COMPARE_WITH_TIMEOUT(sessions->portsOf(LocalConsole::kSessionId).size(), 1, 30000);
        const PublishedPorts::Port port = sessions->portsOf(LocalConsole::kSessionId).constFirst();
        QCOMPARE(port.containerPort, quint16(8000));
        QTRY_VERIFY(openInBrowser->isEnabled());
        bool linkShown = false;
        for (QLabel* label : sessions->findChildren<QLabel*>()) {
            linkShown = linkShown || label->text().contains(QStringLiteral("127.0.0.1:%1").arg(port.hostPort));
        }
        QVERIFY2(linkShown, "the Sessions page lists the open port");
        openInBrowser->click();
        QTRY_COMPARE(m_browser.opened.size(), 1);
        const QUrl url = m_browser.opened.constFirst();
        QCOMPARE(url.host(), QStringLiteral("127.0.0.1"));
        QCOMPARE(url.port(), int(port.hostPort));

        const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            window->resize(1100, 700);
            window->bringToFront();
            QVERIFY(QTest::qWaitForWindowExposed(window));
            QVERIFY(window->grab().save(shots + QStringLiteral("/sessions-open-port.png")));
        }

        // What the browser gets at that address is the sandbox's page.
        const ProcessOutput page = curl(url.toString());
        QVERIFY2(page.exitCode == 0, page.err.constData());
        QCOMPARE(page.out.trimmed(), QByteArray("hello-from-the-dev-server"));

        // Stop Container: the port closes with the session.
        QPushButton* stop = buttonNamed(sessions, QStringLiteral("Stop Container"));
        QVERIFY(stop);
        QTRY_VERIFY(stop->isEnabled());
        stop->click();
        QTRY_VERIFY_WITH_TIMEOUT(!canConnect(port.hostPort), 60000);
        QTRY_VERIFY(!openInBrowser->isEnabled());
    }
};

QTEST_MAIN(TestGuiPorts)
#include "tst_guiports.moc"
