#pragma once

#include "review/changeapplier.h"

#include <QList>
#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace zeus {

// What the last Apply did, under the Changes page's list: a one-line summary (applied, conflicts, refused,
// skipped), each path's result and reason, where the agent's commits landed, and Take Theirs for the conflicts.
// It only shows: ReviewPanel knows which conflicts Take Theirs would replace and asks before it does.
class ApplyResultView : public QWidget {
    Q_OBJECT
public:
    explicit ApplyResultView(QWidget* parent = nullptr);
    ~ApplyResultView() override;

    // Shows the outcomes, the most important first; `canTakeTheirs` when some conflicts could be replaced.
    void showOutcomes(const QList<zeus::ApplyOutcome>& outcomes, bool canTakeTheirs);
    // What the Apply did with the agent's commits (empty: nothing to say); `failed` shows it as an error.
    void setCommits(const QString& text, bool failed);
    void setTakeTheirsEnabled(bool enabled);
    // Hidden, its rows dropped: another session was chosen.
    void clear();

Q_SIGNALS:
    void takeTheirsClicked();

private:
    QLabel* m_summary = nullptr;
    QTreeWidget* m_outcomes = nullptr;
    QPushButton* m_takeTheirs = nullptr;
    QLabel* m_commits = nullptr;
};

}  // namespace zeus
