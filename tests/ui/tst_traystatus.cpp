// TrayStatus::from: the one function that turns the app's state into the tray's icon
// and tooltip. Every state, the order between them, and the words in the tooltip. And from
// the same facts, the dashboard's banner and the local console's readiness.
#include "tray/traystatus.h"

#include <QFile>
#include <QIcon>
#include <QtTest>

using zeus::TrayStatus;
using State = zeus::TrayStatus::State;
using Connection = zeus::TrayStatus::Connection;
using zeus::DashboardBanner;

namespace {

TrayStatus::Input readyInput() {
    TrayStatus::Input input;
    input.runtimeChecked = true;
    input.runtimeUsable = true;
    input.runtimeName = QStringLiteral("Docker 20.10.24");
    input.connection = Connection::Connected;
    input.workspace = QStringLiteral("/home/ana/projects/site");
    return input;
}

}  // namespace

class TestTrayStatus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void state_data();
    void state();
    void tooltipInWords();
    void reconnectShowsNextAttempt();
    void longWorkspaceIsElided();
    void everyIconExists();
    void banner_data();
    void banner();
    void console_data();
    void console();
    void deletedApprovedFolder();
    void notReadyWithoutAgent();
};

void TestTrayStatus::state_data() {
    QTest::addColumn<bool>("runtimeChecked");
    QTest::addColumn<bool>("runtimeUsable");
    QTest::addColumn<int>("connection");
    QTest::addColumn<int>("commands");
    QTest::addColumn<QString>("lastError");
    QTest::addColumn<int>("expected");
    QTest::addColumn<QString>("icon");

    const auto c = [](Connection v) { return static_cast<int>(v); };
    const auto s = [](State v) { return static_cast<int>(v); };
    QTest::newRow("ready") << true << true << c(Connection::Connected) << 0 << QString() << s(State::Ready)
                           << QStringLiteral("ready");
    QTest::newRow("busy") << true << true << c(Connection::Connected) << 2 << QString() << s(State::Busy)
                          << QStringLiteral("busy");
    QTest::newRow("signed out") << true << true << c(Connection::SignedOut) << 0 << QString() << s(State::Disconnected)
                                << QStringLiteral("disconnected");
    QTest::newRow("connecting") << true << true << c(Connection::Connecting) << 0 << QString() << s(State::Disconnected)
                                << QStringLiteral("disconnected");
    QTest::newRow("reconnecting while commands run") << true << true << c(Connection::Reconnecting) << 1 << QString()
                                                     << s(State::Disconnected) << QStringLiteral("disconnected");
    QTest::newRow("auth failed") << true << true << c(Connection::AuthFailed) << 0 << QString() << s(State::Error)
                                 << QStringLiteral("error");
    QTest::newRow("connection error") << true << true << c(Connection::Error) << 0 << QString() << s(State::Error)
                                      << QStringLiteral("error");
    QTest::newRow("last error while connected")
        << true << true << c(Connection::Connected) << 0 << QStringLiteral("image missing") << s(State::Error)
        << QStringLiteral("error");
    QTest::newRow("no runtime beats everything")
        << true << false << c(Connection::AuthFailed) << 0 << QStringLiteral("x") << s(State::NoRuntime)
        << QStringLiteral("no-runtime");
    QTest::newRow("no runtime while connected") << true << false << c(Connection::Connected) << 0 << QString()
                                                << s(State::NoRuntime) << QStringLiteral("no-runtime");
    QTest::newRow("runtime still being checked")
        << false << false << c(Connection::Connected) << 0 << QString() << s(State::Ready) << QStringLiteral("ready");
}

void TestTrayStatus::state() {
    QFETCH(bool, runtimeChecked);
    QFETCH(bool, runtimeUsable);
    QFETCH(int, connection);
    QFETCH(int, commands);
    QFETCH(QString, lastError);
    QFETCH(int, expected);
    QFETCH(QString, icon);
    TrayStatus::Input input = readyInput();
    input.runtimeChecked = runtimeChecked;
    input.runtimeUsable = runtimeUsable;
    input.connection = static_cast<Connection>(connection);
    input.runningCommands = commands;
    input.runningSessions = commands > 0 ? 1 : 0;
    input.lastError = lastError;
    const TrayStatus status = TrayStatus::from(input);
    QCOMPARE(static_cast<int>(status.state), expected);
    QCOMPARE(status.iconName, QStringLiteral(":/icons/tray/%1.svg").arg(icon));
    QVERIFY(status.tooltip.startsWith(status.title));
    QVERIFY(status.title.contains(TrayStatus::stateText(status.state)));
}

void TestTrayStatus::tooltipInWords() {
    TrayStatus::Input input = readyInput();
    input.runningSessions = 1;
    input.runningCommands = 3;
    const TrayStatus busy = TrayStatus::from(input);
    QCOMPARE(busy.tooltip, QStringLiteral("Zeus Desktop: Working\n"
                                          "Runtime: Docker 20.10.24\n"
                                          "Connection: Connected\n"
                                          "Working directory: /home/ana/projects/site\n"
                                          "1 session running, 3 commands running"));

    TrayStatus::Input none;
    none.runtimeChecked = true;
    none.runtimeProblem = QStringLiteral("Docker is installed but its daemon is not running");
    none.connection = Connection::AuthFailed;
    none.connectionError = QStringLiteral("401 Unauthorized");
    const TrayStatus broken = TrayStatus::from(none);
    QVERIFY2(broken.tooltip.contains(
                 QStringLiteral("Runtime: none usable (Docker is installed but its daemon is not running)")),
             qPrintable(broken.tooltip));
    QVERIFY2(broken.tooltip.contains(QStringLiteral("Connection: Sign-in rejected (401 Unauthorized)")),
             qPrintable(broken.tooltip));
    QVERIFY(broken.tooltip.contains(QStringLiteral("Working directory: none chosen")));
    QVERIFY(broken.tooltip.contains(QStringLiteral("No sessions running")));

    TrayStatus::Input checking;
    QVERIFY(TrayStatus::from(checking).tooltip.contains(QStringLiteral("Runtime: checking")));
}

void TestTrayStatus::reconnectShowsNextAttempt() {
    TrayStatus::Input input = readyInput();
    input.connection = Connection::Reconnecting;
    const QDateTime now(QDate(2026, 1, 2), QTime(10, 0, 0));
    input.nextReconnect = now.addSecs(16);
    const TrayStatus status = TrayStatus::from(input, now);
    QVERIFY2(status.tooltip.contains(QStringLiteral("Connection: Reconnecting (next attempt in 16 s)")),
             qPrintable(status.tooltip));
}

void TestTrayStatus::longWorkspaceIsElided() {
    TrayStatus::Input input = readyInput();
    input.workspace = QStringLiteral("/home/ana/") + QString(200, QLatin1Char('d')) + QStringLiteral("/end");
    const TrayStatus status = TrayStatus::from(input);
    const QString line = status.tooltip.split(QLatin1Char('\n')).at(3);
    QVERIFY2(line.size() < 80, qPrintable(line));
    QVERIFY(line.contains(QStringLiteral("/home/ana/")));
    QVERIFY(line.endsWith(QStringLiteral("/end")));
}

void TestTrayStatus::everyIconExists() {
    for (State state : {State::Ready, State::Busy, State::Disconnected, State::NoRuntime, State::Error}) {
        const QString path = TrayStatus::iconFor(state);
        QVERIFY2(QFile::exists(path), qPrintable(path));
        QVERIFY2(!QIcon(path).pixmap(22, 22).isNull(), qPrintable(path));
    }
}

void TestTrayStatus::banner_data() {
    QTest::addColumn<bool>("runtimeChecked");
    QTest::addColumn<bool>("runtimeUsable");
    QTest::addColumn<bool>("tokenChecked");
    QTest::addColumn<bool>("signInMissing");
    QTest::addColumn<int>("connection");
    QTest::addColumn<QString>("workspace");
    QTest::addColumn<int>("expected");
    QTest::addColumn<QString>("detail");

    const auto c = [](Connection v) { return static_cast<int>(v); };
    const auto b = [](DashboardBanner v) { return static_cast<int>(v); };
    const QString folder = QStringLiteral("/home/ana/site");
    const QString refused = QStringLiteral("The backend refused the sign-in token. Enter a new one in Settings.");
    QTest::newRow("all set") << true << true << true << false << c(Connection::Connected) << folder
                             << b(DashboardBanner::None) << QString();
    QTest::newRow("no runtime first, with its reason")
        << true << false << true << true << c(Connection::AuthFailed) << QString() << b(DashboardBanner::NoRuntime)
        << QStringLiteral("problem");
    QTest::newRow("runtime still being checked: no runtime banner")
        << false << false << true << false << c(Connection::Connected) << folder << b(DashboardBanner::None)
        << QString();
    QTest::newRow("no token") << true << true << true << true << c(Connection::SignedOut) << folder
                              << b(DashboardBanner::SignIn) << QString();
    QTest::newRow("token rejected") << true << true << true << false << c(Connection::AuthFailed) << folder
                                    << b(DashboardBanner::SignIn) << refused;
    QTest::newRow("keychain not answered yet: no sign-in banner")
        << true << true << false << true << c(Connection::SignedOut) << folder << b(DashboardBanner::None) << QString();
    QTest::newRow("no folder") << true << true << true << false << c(Connection::Connected) << QString()
                               << b(DashboardBanner::ChooseFolder) << QString();
    QTest::newRow("connection error is not a sign-in matter")
        << true << true << true << false << c(Connection::Error) << folder << b(DashboardBanner::None) << QString();
}

void TestTrayStatus::banner() {
    QFETCH(bool, runtimeChecked);
    QFETCH(bool, runtimeUsable);
    QFETCH(bool, tokenChecked);
    QFETCH(bool, signInMissing);
    QFETCH(int, connection);
    QFETCH(QString, workspace);
    QFETCH(int, expected);
    QFETCH(QString, detail);
    TrayStatus::Input input;
    input.runtimeChecked = runtimeChecked;
    input.runtimeUsable = runtimeUsable;
    input.runtimeProblem = QStringLiteral("problem");
    input.tokenChecked = tokenChecked;
    input.signInMissing = signInMissing;
    input.connection = Connection(connection);
    input.workspace = workspace;
    const TrayStatus::Banner banner = TrayStatus::bannerFor(input);
    QCOMPARE(int(banner.banner), expected);
    QCOMPARE(banner.detail, detail);
}

void TestTrayStatus::console_data() {
    QTest::addColumn<bool>("runtimeChecked");
    QTest::addColumn<bool>("runtimeUsable");
    QTest::addColumn<QString>("workspace");
    QTest::addColumn<QString>("readyIn");
    QTest::addColumn<QString>("reason");

    const QString folder = QStringLiteral("/home/ana/site");
    QTest::newRow("ready") << true << true << folder << folder << QString();
    QTest::newRow("checking") << false << false << folder << QString()
                              << QStringLiteral("Checking for a container runtime…");
    QTest::newRow("no runtime: its reason")
        << true << false << folder << QString() << QStringLiteral("Docker is not running.");
    QTest::newRow("no folder") << true << true << QString() << QString()
                               << QStringLiteral("Choose and approve a working directory on the Overview page first.");
}

void TestTrayStatus::console() {
    QFETCH(bool, runtimeChecked);
    QFETCH(bool, runtimeUsable);
    QFETCH(QString, workspace);
    QFETCH(QString, readyIn);
    QFETCH(QString, reason);
    TrayStatus::Input input = readyInput();
    input.runtimeChecked = runtimeChecked;
    input.runtimeUsable = runtimeUsable;
    input.runtimeProblem = QStringLiteral("Docker is not running.");
    input.workspace = workspace;
    input.connection = Connection::SignedOut;  // the console needs no backend
    const TrayStatus::ConsoleReadiness console = TrayStatus::consoleFor(input);
    QCOMPARE(console.workspace, readyIn);
    QCOMPARE(console.reason, reason);
}

// The chosen approved folder was deleted on the host: the tooltip, the banner and the console say so, in those
// words, instead of "none chosen".
void TestTrayStatus::deletedApprovedFolder() {
    TrayStatus::Input input = readyInput();
    input.workspace.clear();
    input.missingWorkspace = QStringLiteral("/home/ana/gone");
    const TrayStatus status = TrayStatus::from(input);
    QVERIFY2(status.tooltip.contains(QLatin1String("Working directory: /home/ana/gone no longer exists")),
             qPrintable(status.tooltip));
    const TrayStatus::Banner banner = TrayStatus::bannerFor(input);
    QCOMPARE(banner.banner, DashboardBanner::ChooseFolder);
    QCOMPARE(banner.detail, QStringLiteral("The approved folder /home/ana/gone no longer exists."));
    const TrayStatus::ConsoleReadiness console = TrayStatus::consoleFor(input);
    QVERIFY(console.workspace.isEmpty());
    QVERIFY2(console.reason.contains(QLatin1String("no longer exists")), qPrintable(console.reason));
}

// A usable runtime without an agent it can use is not ready (SPEC §7): the tray says so as an error, the banner
// names the problem and opens Diagnostics, the console refuses with the same words. A missing runtime still comes
// first.
void TestTrayStatus::notReadyWithoutAgent() {
    TrayStatus::Input input = readyInput();
    input.tokenChecked = true;
    input.readinessProblem = QStringLiteral("no sandbox agent to run commands through: build it");
    const TrayStatus status = TrayStatus::from(input);
    QCOMPARE(status.state, State::Error);
    QVERIFY2(status.tooltip.contains(QStringLiteral("Runtime: Docker 20.10.24, not ready: no sandbox agent")),
             qPrintable(status.tooltip));
    const TrayStatus::Banner banner = TrayStatus::bannerFor(input);
    QCOMPARE(banner.banner, DashboardBanner::NotReady);
    QCOMPARE(banner.detail, QStringLiteral("No sandbox agent to run commands through: build it"));
    const TrayStatus::ConsoleReadiness console = TrayStatus::consoleFor(input);
    QVERIFY(console.workspace.isEmpty());
    QCOMPARE(console.reason, input.readinessProblem);

    input.runtimeUsable = false;
    input.runtimeProblem = QStringLiteral("Docker is not running");
    QCOMPARE(TrayStatus::from(input).state, State::NoRuntime);
    QCOMPARE(TrayStatus::bannerFor(input).banner, DashboardBanner::NoRuntime);
    QCOMPARE(TrayStatus::consoleFor(input).reason, input.runtimeProblem);
}

QTEST_MAIN(TestTrayStatus)
#include "tst_traystatus.moc"
