#include "review/reviewcontroller.h"

#include "dashboard/dashboardwindow.h"
#include "review/changeset.h"
#include "review/reviewpanel.h"
#include "sandbox/review/reviewservice.h"
#include "sandbox/sessionmanager.h"
#include "sessions/sessionspanel.h"
#include "sessions/sessiontablemodel.h"
#include "tray/traynotifier.h"

namespace zeus {

ReviewController::ReviewController(ReviewService& reviews, DashboardWindow* dashboard, TrayNotifier* notifier,
                                   QObject* parent)
    : QObject(parent), m_reviews(reviews), m_dashboard(dashboard), m_notifier(notifier) {
    ReviewPanel* panel = m_dashboard->reviewPanel();
    SessionTableModel* table = m_dashboard->sessionsPanel()->model();
    // A click on the last "changes to review" notification opens the Changes page at that session.
    connect(m_notifier, &TrayNotifier::reviewNoticeClicked, panel, [this, panel](const QString& sessionId) {
        m_dashboard->present(DashboardWindow::Page::Changes);
        panel->showSession(sessionId);
    });
    connect(&m_reviews, &ReviewService::recordsChanged, panel, [this] { showRecords(); });
    connect(panel, &ReviewPanel::refreshRequested, &m_reviews, &ReviewService::refreshChanges);
    connect(panel, &ReviewPanel::detailRequested, &m_reviews, &ReviewService::requestDetail);
    connect(panel, &ReviewPanel::applyRequested, &m_reviews, &ReviewService::apply);
    connect(panel, &ReviewPanel::discardRequested, &m_reviews, &ReviewService::discard);
    connect(
        &m_reviews, &ReviewService::changesReady, panel,
        [this, panel, table](const QString& sessionId, bool ok, const QString& error, const QList<Change>& changes) {
            panel->setChanges(sessionId, ok, error, changes);
            if (!ok) {
                return;
            }
            if (const std::optional<ReviewRecord> record = m_reviews.store().record(sessionId)) {
                table->setChangesToReview(sessionId, record->workspace, ChangeSet::peopleCount(changes));
            }
        });
    connect(&m_reviews, &ReviewService::detailReady, panel, &ReviewPanel::setDetail);
    connect(&m_reviews, &ReviewService::applied, panel,
            [this, panel](const QString& sessionId, const QList<ApplyOutcome>& outcomes, const QString& error) {
                panel->setApplied(sessionId, outcomes, error);
                if (!error.isEmpty()) {
                    Q_EMIT errorOccurred(error);
                }
            });
    connect(&m_reviews, &ReviewService::commitsFetched, panel,
            [panel](const QString& sessionId, const CommitsResult& commits) {
                panel->setCommits(sessionId, commits.describe(), commits.state == CommitsResult::State::Failed);
            });
    connect(&m_reviews, &ReviewService::discarded, panel,
            [this, panel, table](const QString& sessionId, bool ok, const QString& error) {
                panel->setDiscarded(sessionId, ok, error);
                if (ok) {
                    table->clearChangesToReview(sessionId);
                    panel->setRecords(m_reviews.records());
                } else {
                    Q_EMIT errorOccurred(error);
                }
            });
    // The copies an earlier run (or the command line) kept.
    showRecords();
}

void ReviewController::attach(SessionManager* manager) {
    connect(manager, &SessionManager::reviewCopyKept, m_dashboard->sessionsPanel(),
            [this](const QString& sessionId, const QString& workspace, int changeCount) {
                onCopyKept(sessionId, workspace, changeCount);
            });
}

void ReviewController::showRecords() {
    const QList<ReviewRecord> records = m_reviews.records();
    m_dashboard->reviewPanel()->setRecords(records);
    SessionTableModel* table = m_dashboard->sessionsPanel()->model();
    for (const ReviewRecord& record : records) {
        // The count comes with the change list; until then it is not known.
        const QList<Change> changes = m_reviews.lastChanges(record.sessionId);
        table->setChangesToReview(record.sessionId, record.workspace,
                                  changes.isEmpty() ? -1 : ChangeSet::peopleCount(changes));
    }
}

void ReviewController::onCopyKept(const QString& sessionId, const QString& workspace, int changeCount) {
    m_dashboard->sessionsPanel()->model()->setChangesToReview(sessionId, workspace, changeCount);
    m_notifier->notifyReviewCopy(sessionId, workspace, changeCount);
}

}  // namespace zeus
