#pragma once

#include <QObject>
#include <QString>

namespace zeus {

class DashboardWindow;
class ReviewService;
class SessionManager;
class TrayNotifier;

// Review mode in the tray app (SPEC §10): connects the core's ReviewService to the Changes page, the sessions
// table's "changes to review" column and the tray's notice when a session keeps a copy. It decides nothing: the
// service does the work, the panel asks for it. Every connection to a widget uses that widget as its context, so
// nothing reaches a page that is gone.
class ReviewController : public QObject {
    Q_OBJECT
public:
    ReviewController(ReviewService& reviews, DashboardWindow* dashboard, TrayNotifier* notifier,
                     QObject* parent = nullptr);

    // A new session manager (SandboxHost::rebuilt): its kept copies are noticed.
    void attach(SessionManager* manager);

Q_SIGNALS:
    // Something went wrong that the user did not see in a dialog (the recent-errors list of diagnostics).
    void errorOccurred(const QString& error);

private:
    void showRecords();
    void onCopyKept(const QString& sessionId, const QString& workspace, int changeCount);

    ReviewService& m_reviews;
    DashboardWindow* m_dashboard;
    TrayNotifier* m_notifier;
};

}  // namespace zeus
