#pragma once

#include "dashboard/diagnosticspanel.h"
#include "tray/traystatus.h"

#include <QMainWindow>

class QLabel;
class QPushButton;
class QTabWidget;

namespace zeus {

class AppSettings;
class BackendConnection;
class ConnectionPanel;
class LocalConsole;
class NetworkPanel;
class ReviewPanel;
class RuntimeDetector;
class RuntimePanel;
class SessionsPanel;
class WorkspacePanel;

// The dashboard: working directory, runtime and connection on the Overview page; the
// sessions table with live logs; the review copies' changes; the local console; the
// network policy log; the diagnostics report. A banner at
// the top puts what blocks the user first (no runtime, not signed in) front and centre.
//
// Owns the panels. It shows core's objects and forwards requests; closing it only hides it
// (the app lives in the tray).
class DashboardWindow : public QMainWindow {
    Q_OBJECT
public:
    // The tabs show Changes after Sessions; its value comes last so the others keep theirs.
    enum class Page { Overview, Sessions, Console, Network, Diagnostics, Changes };
    using Banner = DashboardBanner;  // derived by TrayStatus::bannerFor()

    DashboardWindow(AppSettings* settings, RuntimeDetector* detector, BackendConnection* connection,
                    DiagnosticsPanel::ReportSource reportSource, QWidget* parent = nullptr);

    WorkspacePanel* workspacePanel() const { return m_workspace; }
    RuntimePanel* runtimePanel() const { return m_runtime; }
    ConnectionPanel* connectionPanel() const { return m_connection; }
    SessionsPanel* sessionsPanel() const { return m_sessions; }
    LocalConsole* console() const { return m_console; }
    DiagnosticsPanel* diagnosticsPanel() const { return m_diagnostics; }
    NetworkPanel* networkPanel() const { return m_network; }
    ReviewPanel* reviewPanel() const { return m_review; }

    void showPage(Page page);
    Page currentPage() const;
    // Shows, raises and focuses the window (also from another launch).
    void bringToFront();
    // bringToFront() at that page (a tray menu entry, a notice clicked, guidance on the first run).
    void present(Page page);
    void setBanner(Banner banner, const QString& detail = QString());
    Banner banner() const { return m_banner; }
    // When there is no tray, closing the window quits instead of hiding.
    void setClosingQuits(bool quits) { m_closingQuits = quits; }

    // True while the sessions page is on screen (the engine's stats are polled only then).
    bool isSessionsPageVisible() const;

Q_SIGNALS:
    void settingsRequested();
    void quitRequested();
    void sessionsPageVisibleChanged(bool visible);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void updateSessionsPageVisible();
    QWidget* pageWidget(Page page) const;

    QTabWidget* m_tabs = nullptr;
    bool m_sessionsPageVisible = false;
    QWidget* m_bannerBox = nullptr;
    QLabel* m_bannerText = nullptr;
    QPushButton* m_bannerButton = nullptr;
    Banner m_banner = Banner::None;
    bool m_closingQuits = false;

    WorkspacePanel* m_workspace = nullptr;
    RuntimePanel* m_runtime = nullptr;
    ConnectionPanel* m_connection = nullptr;
    SessionsPanel* m_sessions = nullptr;
    LocalConsole* m_console = nullptr;
    DiagnosticsPanel* m_diagnostics = nullptr;
    NetworkPanel* m_network = nullptr;
    ReviewPanel* m_review = nullptr;
    QWidget* m_overviewPage = nullptr;
};

}  // namespace zeus
