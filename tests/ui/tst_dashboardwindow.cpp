// The dashboard: its pages, keyboard shortcuts, the banner that puts the blocker first,
// closing to the tray, and every widget reachable with an accessible name.
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "dashboard/dashboardwindow.h"
#include "runtime/runtimedetector.h"

#include <QAbstractButton>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using zeus::AppSettings;
using zeus::DashboardWindow;

class TestDashboardWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void pagesAndShortcuts();
    void bannerPutsBlockerFirst();
    void closingHidesUnlessNoTray();
    void buttonsHaveNames();
    void screenshot();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<AppSettings> m_settings;
    std::unique_ptr<zeus::RuntimeDetector> m_detector;
    std::unique_ptr<zeus::BackendConnection> m_connection;
    std::unique_ptr<DashboardWindow> m_window;
};

void TestDashboardWindow::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    m_settings = std::make_unique<AppSettings>(m_dir->filePath(QStringLiteral("s.ini")));
    zeus::RuntimeDetector::Options options;
    options.appleProgram = QStringLiteral("zeus-test-missing-container");
    options.dockerProgram = QStringLiteral("zeus-test-missing-docker");
    options.podmanProgram = QStringLiteral("zeus-test-missing-podman");
    m_detector = std::make_unique<zeus::RuntimeDetector>(options);
    m_connection = std::make_unique<zeus::BackendConnection>();
    m_window = std::make_unique<DashboardWindow>(m_settings.get(), m_detector.get(), m_connection.get(),
                                                 [] { return zeus::DiagnosticsReport(); });
}

void TestDashboardWindow::cleanup() {
    m_window.reset();
}

void TestDashboardWindow::pagesAndShortcuts() {
    m_window->bringToFront();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QCOMPARE(m_window->currentPage(), DashboardWindow::Page::Overview);
    QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(m_window->currentPage(), DashboardWindow::Page::Sessions);
    QTest::keyClick(m_window.get(), Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(m_window->currentPage(), DashboardWindow::Page::Console);
    QTest::keyClick(m_window.get(), Qt::Key_4, Qt::ControlModifier);
    QCOMPARE(m_window->currentPage(), DashboardWindow::Page::Diagnostics);
    // The diagnostics page fills its report when shown.
    QVERIFY(!m_window->diagnosticsPanel()->reportText().isEmpty());
    QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(m_window->currentPage(), DashboardWindow::Page::Overview);
    QSignalSpy settings(m_window.get(), &DashboardWindow::settingsRequested);
    QTest::keyClick(m_window.get(), Qt::Key_Comma, Qt::ControlModifier);
    QCOMPARE(settings.count(), 1);

    // Stats are wanted only while the sessions page is on screen.
    QSignalSpy sessionsVisible(m_window.get(), &DashboardWindow::sessionsPageVisibleChanged);
    QVERIFY(!m_window->isSessionsPageVisible());
    m_window->showPage(DashboardWindow::Page::Sessions);
    QVERIFY(m_window->isSessionsPageVisible());
    m_window->hide();
    QVERIFY(!m_window->isSessionsPageVisible());
    m_window->bringToFront();
    QVERIFY(m_window->isSessionsPageVisible());
    m_window->showPage(DashboardWindow::Page::Overview);
    QVERIFY(!m_window->isSessionsPageVisible());
    QCOMPARE(sessionsVisible.count(), 4);
}

void TestDashboardWindow::bannerPutsBlockerFirst() {
    m_window->bringToFront();
    auto* banner = m_window->findChild<QWidget*>(QStringLiteral("banner"));
    auto* text = m_window->findChild<QLabel*>(QStringLiteral("bannerText"));
    auto* action = m_window->findChild<QAbstractButton*>(QStringLiteral("bannerAction"));
    QVERIFY(!banner->isVisible());
    m_window->setBanner(DashboardWindow::Banner::SignIn);
    QVERIFY(banner->isVisible());
    QVERIFY(text->text().contains(QStringLiteral("Sign in")));
    QSignalSpy settings(m_window.get(), &DashboardWindow::settingsRequested);
    action->click();
    QCOMPARE(settings.count(), 1);

    m_window->showPage(DashboardWindow::Page::Console);
    m_window->setBanner(DashboardWindow::Banner::NoRuntime, QStringLiteral("No container runtime detected."));
    QCOMPARE(text->text(), QStringLiteral("No container runtime detected."));
    action->click();
    QCOMPARE(m_window->currentPage(), DashboardWindow::Page::Overview);  // where the guidance is

    // A runtime without a sandbox agent it can use: the problem's own words, and Diagnostics (the image row).
    m_window->setBanner(DashboardWindow::Banner::NotReady, QStringLiteral("No sandbox agent to run commands through."));
    QCOMPARE(text->text(), QStringLiteral("No sandbox agent to run commands through."));
    QVERIFY(action->text().contains(QStringLiteral("Diagnostics")));
    action->click();
    QCOMPARE(m_window->currentPage(), DashboardWindow::Page::Diagnostics);
    m_window->setBanner(DashboardWindow::Banner::None);
    QVERIFY(!banner->isVisible());
}

void TestDashboardWindow::closingHidesUnlessNoTray() {
    m_window->bringToFront();
    QSignalSpy quit(m_window.get(), &DashboardWindow::quitRequested);
    m_window->close();
    QVERIFY(!m_window->isVisible());
    QCOMPARE(quit.count(), 0);
    m_window->bringToFront();
    m_window->setClosingQuits(true);
    m_window->close();
    QCOMPARE(quit.count(), 1);
}

void TestDashboardWindow::buttonsHaveNames() {
    // Every button says what it does (text or accessible name), for screen readers and
    // keyboard users.
    const auto buttons = m_window->findChildren<QAbstractButton*>();
    QVERIFY(buttons.size() > 8);
    for (const QAbstractButton* button : buttons) {
        if (button->objectName().startsWith(QLatin1String("qt_")) || !button->isVisibleTo(m_window.get())) {
            continue;
        }
        QVERIFY2(!button->text().isEmpty() || !button->accessibleName().isEmpty(), qPrintable(button->objectName()));
    }
    for (const QLineEdit* edit : m_window->findChildren<QLineEdit*>()) {
        if (edit->isVisibleTo(m_window.get()) && !edit->objectName().startsWith(QLatin1String("qt_"))) {
            QVERIFY2(!edit->accessibleName().isEmpty(), qPrintable(edit->objectName()));
        }
    }
}

void TestDashboardWindow::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    QSignalSpy finished(m_detector.get(), &zeus::RuntimeDetector::detectionFinished);
    m_detector->detect();
    QVERIFY(finished.wait(10000));
    m_window->setBanner(DashboardWindow::Banner::NoRuntime, m_detector->result().reason);
    m_window->resize(960, 760);
    m_window->bringToFront();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_window->grab().save(shots + QStringLiteral("/dashboard-no-runtime.png")));
    m_window->showPage(DashboardWindow::Page::Diagnostics);
    QVERIFY(m_window->grab().save(shots + QStringLiteral("/dashboard-diagnostics.png")));
}

QTEST_MAIN(TestDashboardWindow)
#include "tst_dashboardwindow.moc"
