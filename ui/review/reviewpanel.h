#pragma once

#include "review/changeapplier.h"
#include "review/changeset.h"
#include "review/reviewstore.h"
#include "sandbox/review/reviewservice.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QWidget>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTableView;

namespace zeus {

class ApplyResultView;
class ChangeDetailView;
class ChangeListModel;

// The dashboard's Changes page (SPEC §10): the review copies, the change list of the chosen one, the selected
// change's diff (or sizes and hashes), and Apply Selected / Apply All / Discard Copy with what Apply did.
//
// The panel only shows and asks: every request goes out as a signal, every answer comes back through a set…()
// call (the composition root connects it to ReviewService). Changes that make the host run code are applied only
// after their own confirmation; Apply All leaves them. While a request of the chosen session is on its way its
// buttons are disabled. Errors are shown inline, never in a dialog. The selected change is shown by
// ChangeDetailView, what the last Apply did by ApplyResultView.
class ReviewPanel : public QWidget {
    Q_OBJECT
public:
    explicit ReviewPanel(QWidget* parent = nullptr);
    ~ReviewPanel() override;

    // The sessions with a review copy (a new list keeps the chosen session while it is still there).
    void setRecords(const QList<ReviewRecord>& records);
    void setChanges(const QString& sessionId, bool ok, const QString& error, const QList<zeus::Change>& changes);
    void setDetail(const QString& sessionId, const zeus::ChangeDetail& detail);
    void setApplied(const QString& sessionId, const QList<zeus::ApplyOutcome>& outcomes, const QString& error);
    void setDiscarded(const QString& sessionId, bool ok, const QString& error);
    // What the Apply just reported did with the agent's commits (CommitsResult::describe(); empty: nothing to say),
    // under its summary; `failed` shows it as an error.
    void setCommits(const QString& sessionId, const QString& text, bool failed);
    // Chooses a session (from a tray notification); one not listed yet is chosen when it arrives.
    void showSession(const QString& sessionId);
    QString currentSession() const;

    ChangeListModel* changeModel() const { return m_model; }
    // True while a request of this session is on its way.
    bool isBusy(const QString& sessionId) const { return m_busy.contains(sessionId); }

Q_SIGNALS:
    // A session was chosen, or Refresh.
    void refreshRequested(const QString& sessionId);
    // A change was selected in the list.
    void detailRequested(const QString& sessionId, const zeus::Change& change);
    // Flagged changes in `changes` are confirmed; takeTheirs only for the conflicts the user chose to replace.
    void applyRequested(const QString& sessionId, const QList<zeus::Change>& changes, bool takeTheirs);
    void discardRequested(const QString& sessionId);

private:
    // The constructor's parts, each building one area of the page (in the order they are laid out).
    QHBoxLayout* setUpSessionRow(QWidget* content);
    QWidget* setUpChangeList(QWidget* content);
    QHBoxLayout* setUpActions(QWidget* content);
    void connectActions();
    void applyAll();

    void chooseSession(int index);
    void requestRefresh();
    void requestApply(const QList<Change>& changes);
    void emitApply(const QString& sessionId, const QList<Change>& changes, bool takeTheirs);
    void confirmDiscard();
    void confirmTakeTheirs();
    void currentChangeChanged();
    void showMessage(const QString& text, bool error);
    void setBusy(const QString& sessionId, bool busy, const QString& status = QString());
    void updateRecordInfo();
    void updateSummary();
    void applyFilter();
    void updateButtons();
    const ReviewRecord* record(const QString& sessionId) const;

    QList<ReviewRecord> m_records;
    QString m_pendingShow;               // asked for by showSession() before its record arrived
    QSet<QString> m_busy;                // sessions with a refresh, apply or discard on its way
    bool m_listed = false;               // the chosen session's list arrived (Apply needs it)
    QString m_detailPath;                // the change the detail pane is for
    QHash<QString, Change> m_requested;  // the last Apply of the chosen session, by path (for Take Theirs)
    QList<Change> m_conflicts;           // of the last Apply: what Take Theirs would replace

    QStackedWidget* m_stack = nullptr;
    QLabel* m_empty = nullptr;
    QComboBox* m_sessions = nullptr;
    QLabel* m_recordInfo = nullptr;
    QPushButton* m_refresh = nullptr;
    QLabel* m_message = nullptr;
    QSplitter* m_splitter = nullptr;
    ChangeListModel* m_model = nullptr;
    QTableView* m_list = nullptr;
    QLabel* m_summary = nullptr;
    QLineEdit* m_filter = nullptr;
    int m_hiddenRows = 0;
    ChangeDetailView* m_detail = nullptr;
    ApplyResultView* m_result = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_apply = nullptr;
    QPushButton* m_applyAll = nullptr;
    QPushButton* m_discard = nullptr;
};

}  // namespace zeus
