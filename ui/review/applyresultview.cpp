#include "review/applyresultview.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <array>

namespace zeus {

namespace {

enum OutcomeColumn { OutcomePath, OutcomeResult, OutcomeReason };

QString resultText(ApplyOutcome::Result result) {
    switch (result) {
        case ApplyOutcome::Result::Applied:
            return ApplyResultView::tr("applied");
        case ApplyOutcome::Result::Skipped:
            return ApplyResultView::tr("skipped");
        case ApplyOutcome::Result::Conflict:
            return ApplyResultView::tr("conflict");
        case ApplyOutcome::Result::Refused:
            return ApplyResultView::tr("refused");
    }
    return {};
}

// Most important first: what the user has to act on.
int resultOrder(ApplyOutcome::Result result) {
    switch (result) {
        case ApplyOutcome::Result::Conflict:
            return 0;
        case ApplyOutcome::Result::Refused:
            return 1;
        case ApplyOutcome::Result::Skipped:
            return 2;
        case ApplyOutcome::Result::Applied:
            return 3;
    }
    return 4;
}

QColor resultColor(ApplyOutcome::Result result) {
    switch (result) {
        case ApplyOutcome::Result::Applied:
            return {0x1a, 0x7f, 0x37};
        case ApplyOutcome::Result::Conflict:
            return {0x9a, 0x67, 0x00};
        case ApplyOutcome::Result::Refused:
            return {0xcf, 0x22, 0x2e};
        case ApplyOutcome::Result::Skipped:
            break;
    }
    return {0x6e, 0x77, 0x81};
}

}  // namespace

ApplyResultView::ApplyResultView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("applyResult"));
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("applySummary"));
    m_summary->setWordWrap(true);
    m_takeTheirs = new QPushButton(tr("&Take Theirs…"), this);
    m_takeTheirs->setObjectName(QStringLiteral("takeTheirs"));
    m_takeTheirs->setToolTip(tr("Replace your version of the conflicting files with the copy's"));
    connect(m_takeTheirs, &QPushButton::clicked, this, &ApplyResultView::takeTheirsClicked);
    m_outcomes = new QTreeWidget(this);
    m_outcomes->setObjectName(QStringLiteral("applyOutcomes"));
    m_outcomes->setAccessibleName(tr("What Apply did"));
    m_outcomes->setRootIsDecorated(false);
    m_outcomes->setUniformRowHeights(true);
    m_outcomes->setHeaderLabels({tr("Path"), tr("Result"), tr("Reason")});
    m_outcomes->header()->setSectionResizeMode(OutcomePath, QHeaderView::ResizeToContents);
    m_outcomes->header()->setSectionResizeMode(OutcomeResult, QHeaderView::ResizeToContents);
    m_outcomes->header()->setStretchLastSection(true);
    m_outcomes->setMaximumHeight(m_outcomes->fontMetrics().height() * 7);
    // Where the agent's commits landed (refs/zeus/<session>/…), or why they stay in the copy.
    m_commits = new QLabel(this);
    m_commits->setObjectName(QStringLiteral("applyCommits"));
    m_commits->setWordWrap(true);
    m_commits->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_commits->setVisible(false);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_takeTheirs);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_commits);
    layout->addWidget(m_outcomes);
    setVisible(false);
}

ApplyResultView::~ApplyResultView() = default;

void ApplyResultView::showOutcomes(const QList<ApplyOutcome>& outcomes, bool canTakeTheirs) {
    std::array<int, 4> counts{};
    QList<ApplyOutcome> sorted = outcomes;
    std::stable_sort(sorted.begin(), sorted.end(), [](const ApplyOutcome& a, const ApplyOutcome& b) {
        return resultOrder(a.result) < resultOrder(b.result);
    });
    m_outcomes->clear();
    m_commits->clear();
    m_commits->setVisible(false);
    for (const ApplyOutcome& outcome : std::as_const(sorted)) {
        counts[static_cast<std::size_t>(outcome.result)] += 1;
        auto* item = new QTreeWidgetItem(m_outcomes);
        item->setText(OutcomePath, outcome.path);
        item->setText(OutcomeResult, resultText(outcome.result));
        item->setData(OutcomeResult, Qt::UserRole, static_cast<int>(outcome.result));
        item->setForeground(OutcomeResult, resultColor(outcome.result));
        item->setText(OutcomeReason, outcome.reason);
        item->setToolTip(OutcomeReason, outcome.reason);
    }
    const int applied = counts[static_cast<std::size_t>(ApplyOutcome::Result::Applied)];
    const int conflicts = counts[static_cast<std::size_t>(ApplyOutcome::Result::Conflict)];
    const int refused = counts[static_cast<std::size_t>(ApplyOutcome::Result::Refused)];
    const int skipped = counts[static_cast<std::size_t>(ApplyOutcome::Result::Skipped)];
    QString summary = tr("Applied %1, conflicts %2, refused %3").arg(applied).arg(conflicts).arg(refused);
    if (skipped > 0) {
        summary += tr(", skipped %1").arg(skipped);
    }
    summary += QLatin1Char('.');
    if (conflicts > 0) {
        summary += QLatin1Char(' ')
                   + tr(
                       "A conflict is a file you changed since the copy was taken: it was left "
                       "as you have it.");
    }
    m_summary->setText(summary);
    m_summary->setAccessibleName(summary);
    m_takeTheirs->setVisible(canTakeTheirs);
    m_outcomes->setVisible(!outcomes.isEmpty());
    setVisible(true);
}

void ApplyResultView::setCommits(const QString& text, bool failed) {
    m_commits->setText(text);
    m_commits->setAccessibleName(text);
    m_commits->setStyleSheet(failed ? QStringLiteral("color: #b42318;") : QString());
    m_commits->setVisible(!text.isEmpty());
    if (!text.isEmpty()) {
        setVisible(true);
    }
}

void ApplyResultView::setTakeTheirsEnabled(bool enabled) {
    m_takeTheirs->setEnabled(enabled);
}

void ApplyResultView::clear() {
    m_outcomes->clear();
    setVisible(false);
}

}  // namespace zeus
