#pragma once

#include "review/changeset.h"
#include "sandbox/review/reviewservice.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QStackedWidget;

namespace zeus {

class DiffHighlighter;

// The Changes page's right-hand side: the selected change's title, why it is flagged or never applied, whether the
// host file changed since the copy, and its text diff (unified, or the file before and after in two columns) or,
// for a binary file, its sizes and hashes. It only shows: ReviewPanel decides which change and asks for its detail.
class ChangeDetailView : public QWidget {
    Q_OBJECT
public:
    explicit ChangeDetailView(QWidget* parent = nullptr);
    ~ChangeDetailView() override;

    // Nothing selected: `text` (if any) in place of a diff.
    void clear(const QString& text);
    // A change was selected: its title and notes, the diff still loading.
    void showChange(const zeus::Change& change);
    // Its detail arrived; `change` is its row in the list (nullptr when it is no longer listed).
    void showDetail(const zeus::ChangeDetail& detail, const zeus::Change* change);

private:
    void setUpTexts();
    // The unified diff of the selected change as one text or in two columns (the toggle; by default two columns
    // when they fit).
    void showDiffText();
    void showSideBySide();
    bool sideBySideFits() const;
    void colourChangedLines();

    QLabel* m_title = nullptr;
    QLabel* m_hostChanged = nullptr;
    QLabel* m_note = nullptr;
    QLabel* m_error = nullptr;
    QPlainTextEdit* m_diff = nullptr;
    DiffHighlighter* m_highlighter = nullptr;
    QString m_unified;  // the selected change's text diff; empty for anything else
    QStackedWidget* m_stack = nullptr;
    QWidget* m_side = nullptr;
    QPlainTextEdit* m_before = nullptr;
    QPlainTextEdit* m_after = nullptr;
    QCheckBox* m_sideBySideToggle = nullptr;
    bool m_sideBySideChosen = false;
};

}  // namespace zeus
