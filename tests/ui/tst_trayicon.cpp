// The tray icon's menu (every entry of SPEC §6 and what it asks for), recent folders, the
// Connect/Disconnect toggle, and icon and tooltip following TrayStatus.
#include "appsettings.h"
#include "tray/trayicon.h"

#include <QAction>
#include <QDir>
#include <QMenu>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTemporaryDir>
#include <QtTest>

using zeus::AppSettings;
using zeus::TrayIcon;
using zeus::TrayStatus;

class TestTrayIcon : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void menuHasEveryEntry();
    void recentFolders();
    void statusSetsIconAndTooltip();
    void iconsForEveryState();
};

void TestTrayIcon::menuHasEveryEntry() {
    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("s.ini")));
    TrayIcon tray(&settings);
    QMenu* menu = tray.menu();
    const auto trigger = [menu](const char* name) {
        auto* action = menu->findChild<QAction*>(QString::fromLatin1(name));
        QVERIFY2(action, name);
        action->trigger();
    };
    QSignalSpy open(&tray, &TrayIcon::openDashboardRequested);
    QSignalSpy choose(&tray, &TrayIcon::chooseFolderRequested);
    QSignalSpy connectSpy(&tray, &TrayIcon::connectRequested);
    QSignalSpy disconnectSpy(&tray, &TrayIcon::disconnectRequested);
    QSignalSpy diagnostics(&tray, &TrayIcon::diagnosticsRequested);
    QSignalSpy settingsSpy(&tray, &TrayIcon::settingsRequested);
    QSignalSpy quit(&tray, &TrayIcon::quitRequested);
    trigger("openDashboard");
    trigger("chooseFolder");
    trigger("connectToggle");
    tray.setConnectionActive(true);
    QCOMPARE(menu->findChild<QAction*>(QStringLiteral("connectToggle"))->text(), QStringLiteral("&Disconnect"));
    trigger("connectToggle");
    trigger("diagnostics");
    trigger("settings");
    trigger("quit");
    QCOMPARE(open.count(), 1);
    QCOMPARE(choose.count(), 1);
    QCOMPARE(connectSpy.count(), 1);
    QCOMPARE(disconnectSpy.count(), 1);
    QCOMPARE(diagnostics.count(), 1);
    QCOMPARE(settingsSpy.count(), 1);
    QCOMPARE(quit.count(), 1);
    QVERIFY(menu->findChild<QMenu*>(QStringLiteral("recentMenu")));
}

void TestTrayIcon::recentFolders() {
    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("s.ini")));
    TrayIcon tray(&settings);
    auto* recent = tray.menu()->findChild<QMenu*>(QStringLiteral("recentMenu"));
    QCOMPARE(recent->actions().size(), 1);
    QVERIFY(!recent->actions().first()->isEnabled());  // "No recent folders"

    const QString a = dir.filePath(QStringLiteral("a & b"));
    QVERIFY(QDir().mkpath(a));
    const QString canonical = QFileInfo(a).canonicalFilePath();
    settings.addRecentFolder(canonical);
    settings.addRecentFolder(QStringLiteral("/nowhere/else"));
    QCOMPARE(recent->actions().size(), 2);
    QCOMPARE(recent->actions().at(1)->data().toString(), canonical);
    QVERIFY(recent->actions().at(1)->text().contains(QStringLiteral("a && b")));  // not a mnemonic
    QVERIFY(!recent->actions().at(1)->isChecked());
    // --workspace of this run: marked like an approved folder, without being saved.
    tray.setRunApprovedFolder(QStringLiteral("/nowhere/else"));
    QVERIFY(recent->actions().at(0)->isChecked());
    QVERIFY(!settings.isWorkspaceApproved(QStringLiteral("/nowhere/else")));
    QVERIFY(!recent->actions().at(1)->isChecked());
    QVERIFY(settings.approveWorkspace(canonical));
    QVERIFY(recent->actions().at(1)->isChecked());  // approved folders are marked

    QSignalSpy chosen(&tray, &TrayIcon::recentFolderChosen);
    recent->actions().at(1)->trigger();
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), canonical);
}

void TestTrayIcon::statusSetsIconAndTooltip() {
    QTemporaryDir dir;
    AppSettings settings(dir.filePath(QStringLiteral("s.ini")));
    TrayIcon tray(&settings);
    TrayStatus::Input input;
    input.runtimeChecked = true;
    input.runtimeUsable = true;
    input.runtimeName = QStringLiteral("Podman 4.3.1");
    input.connection = TrayStatus::Connection::Connected;
    input.runningCommands = 1;
    const TrayStatus busy = TrayStatus::from(input);
    tray.setStatus(busy);
    QCOMPARE(tray.trayIcon()->toolTip(), busy.tooltip);
    QVERIFY(!tray.trayIcon()->icon().isNull());
    QCOMPARE(tray.status().state, TrayStatus::State::Busy);
    QCOMPARE(tray.menu()->actions().first()->text(), busy.title);
}

void TestTrayIcon::iconsForEveryState() {
    using S = TrayStatus::State;
    QList<QImage> images;
    for (S state : {S::Ready, S::Busy, S::Disconnected, S::NoRuntime, S::Error}) {
        const QIcon icon = TrayIcon::iconFor(state);
        const QImage image = icon.pixmap(22, 22).toImage();
        QVERIFY(!image.isNull());
        QVERIFY2(!images.contains(image), "two states share one icon");
        images.append(image);
    }
}

QTEST_MAIN(TestTrayIcon)
#include "tst_trayicon.moc"
