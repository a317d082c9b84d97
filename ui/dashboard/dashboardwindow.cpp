#include "dashboard/dashboardwindow.h"

#include "dashboard/connectionpanel.h"
#include "dashboard/localconsole.h"
#include "dashboard/networkpanel.h"
#include "dashboard/runtimepanel.h"
#include "dashboard/workspacepanel.h"
#include "review/reviewpanel.h"
#include "sessions/sessionspanel.h"
#include "tray/trayicon.h"

#include <zeus/buildinfo.h>

#include <QAction>
#include <QCloseEvent>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTabWidget>
#include <QVBoxLayout>

namespace zeus {

namespace {

QGroupBox* box(const QString& title, QWidget* content, QWidget* parent) {
    auto* group = new QGroupBox(title, parent);
    auto* layout = new QVBoxLayout(group);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(content);
    return group;
}

}  // namespace

DashboardWindow::DashboardWindow(AppSettings* settings, RuntimeDetector* detector, BackendConnection* connection,
                                 DiagnosticsPanel::ReportSource reportSource, QWidget* parent)
    : QMainWindow(parent) {
    setObjectName(QStringLiteral("DashboardWindow"));
    setWindowTitle(QStringLiteral(ZEUS_APP_NAME));
    setWindowIcon(QIcon(QStringLiteral(":/icons/app.svg")));

    auto* central = new QWidget(this);
    m_bannerBox = new QWidget(central);
    m_bannerBox->setObjectName(QStringLiteral("banner"));
    m_bannerBox->setAutoFillBackground(true);
    QPalette bannerPalette = m_bannerBox->palette();
    bannerPalette.setColor(QPalette::Window, QColor(0xfe, 0xf3, 0xc7));
    bannerPalette.setColor(QPalette::WindowText, QColor(0x42, 0x2c, 0x06));
    m_bannerBox->setPalette(bannerPalette);
    m_bannerText = new QLabel(m_bannerBox);
    m_bannerText->setObjectName(QStringLiteral("bannerText"));
    m_bannerText->setWordWrap(true);
    m_bannerButton = new QPushButton(m_bannerBox);
    m_bannerButton->setObjectName(QStringLiteral("bannerAction"));
    auto* bannerLayout = new QHBoxLayout(m_bannerBox);
    bannerLayout->addWidget(m_bannerText, 1);
    bannerLayout->addWidget(m_bannerButton);
    m_bannerBox->setVisible(false);

    m_tabs = new QTabWidget(central);
    m_tabs->setObjectName(QStringLiteral("pages"));
    m_tabs->setDocumentMode(true);

    auto* overview = new QWidget(m_tabs);
    m_workspace = new WorkspacePanel(settings, overview);
    m_runtime = new RuntimePanel(detector, overview);
    m_connection = new ConnectionPanel(connection, settings, overview);
    auto* overviewLayout = new QVBoxLayout(overview);
    overviewLayout->addWidget(box(tr("Working directory"), m_workspace, overview));
    overviewLayout->addWidget(box(tr("Container runtime"), m_runtime, overview));
    overviewLayout->addWidget(box(tr("Backend connection"), m_connection, overview));
    overviewLayout->addStretch(1);
    auto* scroll = new QScrollArea(m_tabs);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(overview);
    m_tabs->addTab(scroll, tr("&Overview"));
    m_overviewPage = scroll;

    m_sessions = new SessionsPanel(m_tabs);
    m_tabs->addTab(m_sessions, tr("S&essions"));
    m_review = new ReviewPanel(m_tabs);
    m_tabs->addTab(m_review, tr("Chan&ges"));
    m_console = new LocalConsole(m_tabs);
    m_tabs->addTab(m_console, tr("Co&nsole"));
    m_network = new NetworkPanel(m_tabs);
    m_tabs->addTab(m_network, tr("Net&work"));
    m_diagnostics = new DiagnosticsPanel(std::move(reportSource), m_tabs);
    m_tabs->addTab(m_diagnostics, tr("&Diagnostics"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (currentPage() == Page::Diagnostics) {
            m_diagnostics->refresh();
        }
        updateSessionsPageVisible();
    });

    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_bannerBox);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* settingsAction = file->addAction(tr("&Settings…"), this, &DashboardWindow::settingsRequested);
    settingsAction->setShortcut(QKeySequence::Preferences);
    if (settingsAction->shortcut().isEmpty()) {
        settingsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    }
    file->addSeparator();
    QAction* close = file->addAction(tr("&Close Window"), this, &QWidget::close);
    close->setShortcut(QKeySequence::Close);
    QAction* quit = file->addAction(tr("&Quit"), this, &DashboardWindow::quitRequested);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QList<QPair<QString, Page>> pages{{tr("&Overview"), Page::Overview},
                                            {tr("S&essions"), Page::Sessions},
                                            {tr("Co&nsole"), Page::Console},
                                            {tr("&Diagnostics"), Page::Diagnostics},
                                            {tr("Chan&ges"), Page::Changes}};
    for (int i = 0; i < pages.size(); ++i) {
        const Page page = pages.at(i).second;
        QAction* action = view->addAction(pages.at(i).first, this, [this, page] { showPage(page); });
        action->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }

    connect(m_bannerButton, &QPushButton::clicked, this, [this] {
        switch (m_banner) {
            case Banner::NoRuntime:
                showPage(Page::Overview);
                m_runtime->setFocus();
                break;
            case Banner::NotReady:
                showPage(Page::Diagnostics);  // the image row names the build command; Re-check asks again
                break;
            case Banner::SignIn:
                Q_EMIT settingsRequested();
                break;
            case Banner::ChooseFolder:
                m_workspace->openFolderDialog();
                break;
            case Banner::None:
                break;
        }
    });
    resize(960, 680);
}

QWidget* DashboardWindow::pageWidget(Page page) const {
    switch (page) {
        case Page::Overview:
            return m_overviewPage;
        case Page::Sessions:
            return m_sessions;
        case Page::Changes:
            return m_review;
        case Page::Console:
            return m_console;
        case Page::Network:
            return m_network;
        case Page::Diagnostics:
            return m_diagnostics;
    }
    return nullptr;
}

void DashboardWindow::showPage(Page page) {
    m_tabs->setCurrentWidget(pageWidget(page));
}

DashboardWindow::Page DashboardWindow::currentPage() const {
    for (Page page : {Page::Overview, Page::Sessions, Page::Changes, Page::Console, Page::Network, Page::Diagnostics}) {
        if (m_tabs->currentWidget() == pageWidget(page)) {
            return page;
        }
    }
    return Page::Overview;
}

void DashboardWindow::present(Page page) {
    bringToFront();
    showPage(page);
}

void DashboardWindow::bringToFront() {
    show();
    setWindowState((windowState() & ~Qt::WindowMinimized) | Qt::WindowActive);
    raise();
    activateWindow();
}

void DashboardWindow::setBanner(Banner banner, const QString& detail) {
    m_banner = banner;
    switch (banner) {
        case Banner::None:
            m_bannerBox->setVisible(false);
            return;
        case Banner::NoRuntime:
            m_bannerText->setText(detail.isEmpty() ? tr("No container runtime is usable, so no command can run.")
                                                   : detail);
            m_bannerButton->setText(tr("Show &What to Do"));
            break;
        case Banner::NotReady:
            m_bannerText->setText(detail);
            m_bannerButton->setText(tr("Open &Diagnostics"));
            break;
        case Banner::SignIn:
            m_bannerText->setText(detail.isEmpty() ? tr("Sign in to connect to the backend: paste your token in "
                                                        "Settings.")
                                                   : detail);
            m_bannerButton->setText(tr("Sign &In…"));
            break;
        case Banner::ChooseFolder:
            m_bannerText->setText(detail.isEmpty()
                                      ? tr("Choose and approve the folder that commands may work in.")
                                      : detail + QLatin1Char(' ')
                                            + tr("Choose and approve the folder that commands may work in."));
            m_bannerButton->setText(tr("C&hoose Folder…"));
            break;
    }
    m_bannerText->setAccessibleName(m_bannerText->text());
    m_bannerBox->setVisible(true);
}

bool DashboardWindow::isSessionsPageVisible() const {
    return m_sessionsPageVisible;
}

void DashboardWindow::updateSessionsPageVisible() {
    const bool visible = isVisible() && !isMinimized() && currentPage() == Page::Sessions;
    if (visible != m_sessionsPageVisible) {
        m_sessionsPageVisible = visible;
        Q_EMIT sessionsPageVisibleChanged(visible);
    }
}

void DashboardWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    updateSessionsPageVisible();
}

void DashboardWindow::hideEvent(QHideEvent* event) {
    QMainWindow::hideEvent(event);
    updateSessionsPageVisible();
}

void DashboardWindow::closeEvent(QCloseEvent* event) {
    if (m_closingQuits) {
        event->accept();
        Q_EMIT quitRequested();
        return;
    }
    // The app keeps running in the tray.
    hide();
    event->ignore();
}

}  // namespace zeus
