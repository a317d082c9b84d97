#include "review/reviewpanel.h"

#include "review/changelistmodel.h"
#include "review/changeset.h"
#include "review/diffhighlighter.h"
#include "review/sidebyside.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextEdit>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <array>

namespace zeus {

namespace {

constexpr int kMaxListedInQuestion = 12;  // a confirmation names at most this many paths, then "and N more"

QLabel* banner(const QString& name, const QColor& background, const QColor& text, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setAutoFillBackground(true);
    label->setMargin(6);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette palette = label->palette();
    palette.setColor(QPalette::Window, background);
    palette.setColor(QPalette::WindowText, text);
    label->setPalette(palette);
    label->setVisible(false);
    return label;
}

QString bytes(qint64 size) {
    return size == 1 ? ReviewPanel::tr("1 byte") : ReviewPanel::tr("%1 bytes").arg(QLocale().toString(size));
}

QString changesCount(int count) {
    return count == 1 ? ReviewPanel::tr("1 change") : ReviewPanel::tr("%1 changes").arg(count);
}

// "• path: reason" lines for a confirmation, at most kMaxListedInQuestion of them.
QString bulletList(const QList<QPair<QString, QString>>& items) {
    QStringList lines;
    for (int i = 0; i < items.size() && i < kMaxListedInQuestion; ++i) {
        const QString& reason = items.at(i).second;
        lines.append(QStringLiteral("• ") + items.at(i).first
                     + (reason.isEmpty() ? QString() : QString(QLatin1String(": ") + reason)));
    }
    if (items.size() > kMaxListedInQuestion) {
        lines.append(ReviewPanel::tr("… and %1 more").arg(items.size() - kMaxListedInQuestion));
    }
    return lines.join(QLatin1Char('\n'));
}

enum OutcomeColumn { OutcomePath, OutcomeResult, OutcomeReason };

QString resultText(ApplyOutcome::Result result) {
    switch (result) {
        case ApplyOutcome::Result::Applied:
            return ReviewPanel::tr("applied");
        case ApplyOutcome::Result::Skipped:
            return ReviewPanel::tr("skipped");
        case ApplyOutcome::Result::Conflict:
            return ReviewPanel::tr("conflict");
        case ApplyOutcome::Result::Refused:
            return ReviewPanel::tr("refused");
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

// What a change without a text diff is, in words (a folder, a link, the exec bit).
QString describeWithoutDiff(const Change& change) {
    const ManifestEntry* side = change.hasAfter ? &change.after : (change.hasBefore ? &change.before : nullptr);
    if (!side) {
        return {};
    }
    if (change.kind == Change::Kind::TypeChanged && change.hasBefore && change.hasAfter) {
        return ReviewPanel::tr("Was a %1, is now a %2.")
            .arg(ManifestEntry::typeName(change.before.type), ManifestEntry::typeName(change.after.type));
    }
    if (side->type == ManifestEntry::Type::Directory) {
        return change.kind == Change::Kind::Deleted ? ReviewPanel::tr("Folder deleted (with what it held).")
                                                    : ReviewPanel::tr("Folder added.");
    }
    if (side->type == ManifestEntry::Type::Symlink) {
        if (change.hasBefore && change.hasAfter) {
            return ReviewPanel::tr("Link target changed from %1 to %2.")
                .arg(change.before.linkTarget, change.after.linkTarget);
        }
        return change.hasAfter ? ReviewPanel::tr("Link added, pointing to %1.").arg(change.after.linkTarget)
                               : ReviewPanel::tr("Link deleted (it pointed to %1).").arg(change.before.linkTarget);
    }
    if (change.kind == Change::Kind::ModeChanged) {
        return change.after.isExecutable()
                   ? ReviewPanel::tr("Only the executable bit changed: the file is now executable.")
                   : ReviewPanel::tr("Only the executable bit changed: the file is no longer executable.");
    }
    if (change.kind == Change::Kind::Added && change.after.size == 0) {
        return ReviewPanel::tr("Empty file added.");
    }
    if (change.kind == Change::Kind::Deleted && change.before.size == 0) {
        return ReviewPanel::tr("Empty file deleted.");
    }
    return ReviewPanel::tr("No difference in the text.");
}

}  // namespace

ReviewPanel::ReviewPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("ReviewPanel"));

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("reviewMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setVisible(false);

    m_stack = new QStackedWidget(this);
    m_empty = new QLabel(tr("No review copies. Sessions in review mode keep the agent's changes here until you "
                            "apply or discard them."),
                         m_stack);
    m_empty->setObjectName(QStringLiteral("reviewEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setMargin(24);
    m_empty->setForegroundRole(QPalette::PlaceholderText);
    m_stack->addWidget(m_empty);

    auto* content = new QWidget(m_stack);
    m_stack->addWidget(content);

    // The chosen review copy.
    auto* sessionLabel = new QLabel(tr("&Session:"), content);
    m_sessions = new QComboBox(content);
    m_sessions->setObjectName(QStringLiteral("reviewSessions"));
    m_sessions->setAccessibleName(tr("Review copy"));
    m_sessions->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_sessions->setMinimumContentsLength(32);
    sessionLabel->setBuddy(m_sessions);
    m_recordInfo = new QLabel(content);
    m_recordInfo->setObjectName(QStringLiteral("reviewRecordInfo"));
    m_recordInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_refresh = new QPushButton(tr("&Refresh"), content);
    m_refresh->setObjectName(QStringLiteral("reviewRefresh"));
    m_refresh->setToolTip(tr("List the changes of this copy again"));
    auto* top = new QHBoxLayout;
    top->addWidget(sessionLabel);
    top->addWidget(m_sessions, 1);
    top->addWidget(m_recordInfo, 2);
    top->addWidget(m_refresh);

    // Left: the change list.
    m_model = new ChangeListModel(this);
    auto* left = new QWidget(content);
    m_list = new QTableView(left);
    m_list->setObjectName(QStringLiteral("changeList"));
    m_list->setAccessibleName(tr("Changes"));
    m_list->setModel(m_model);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setShowGrid(false);
    m_list->setWordWrap(false);
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->verticalHeader()->hide();
    m_list->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->horizontalHeader()->setSectionResizeMode(ChangeListModel::CheckColumn, QHeaderView::ResizeToContents);
    m_list->horizontalHeader()->setSectionResizeMode(ChangeListModel::KindColumn, QHeaderView::ResizeToContents);
    m_list->horizontalHeader()->setSectionResizeMode(ChangeListModel::PathColumn, QHeaderView::Stretch);
    m_list->horizontalHeader()->setSectionResizeMode(ChangeListModel::SizeColumn, QHeaderView::ResizeToContents);
    m_list->horizontalHeader()->setHighlightSections(false);
    m_summary = new QLabel(left);
    m_summary->setObjectName(QStringLiteral("changeSummary"));
    m_summary->setWordWrap(true);
    // The filter hides rows, nothing else: what is ticked stays ticked (the summary counts the hidden ones).
    m_filter = new QLineEdit(left);
    m_filter->setObjectName(QStringLiteral("changeFilter"));
    m_filter->setPlaceholderText(tr("Filter by path"));
    m_filter->setAccessibleName(tr("Filter the changes by path"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &ReviewPanel::applyFilter);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ReviewPanel::applyFilter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_list, 1);
    leftLayout->addWidget(m_summary);

    // Right: the selected change.
    auto* right = new QWidget(content);
    m_detailTitle = new QLabel(right);
    m_detailTitle->setObjectName(QStringLiteral("detailTitle"));
    m_detailTitle->setTextFormat(Qt::RichText);
    m_detailTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detailTitle->setWordWrap(true);
    m_hostChanged =
        banner(QStringLiteral("hostChangedBanner"), QColor(0xff, 0xeb, 0xe9), QColor(0x5c, 0x0b, 0x10), right);
    m_hostChanged->setText(
        tr("This file changed on your computer since the copy was taken: applying it is a conflict."));
    m_hostChanged->setAccessibleName(m_hostChanged->text());
    m_note = banner(QStringLiteral("changeNote"), QColor(0xfe, 0xf3, 0xc7), QColor(0x42, 0x2c, 0x06), right);
    m_detailError = new QLabel(right);
    m_detailError->setObjectName(QStringLiteral("detailError"));
    m_detailError->setWordWrap(true);
    m_detailError->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detailError->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_detailError->setVisible(false);
    m_diff = new QPlainTextEdit(right);
    m_diff->setObjectName(QStringLiteral("changeDiff"));
    m_diff->setAccessibleName(tr("Change detail"));
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_diff->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_highlighter = new DiffHighlighter(m_diff->document());
    // Side by side: the old file on the left, the new one on the right, scrolled together.
    m_side = new QWidget(right);
    m_before = new QPlainTextEdit(m_side);
    m_after = new QPlainTextEdit(m_side);
    m_before->setObjectName(QStringLiteral("diffBefore"));
    m_after->setObjectName(QStringLiteral("diffAfter"));
    m_before->setAccessibleName(tr("The file before the change"));
    m_after->setAccessibleName(tr("The file after the change"));
    for (QPlainTextEdit* edit : {m_before, m_after}) {
        edit->setReadOnly(true);
        edit->setLineWrapMode(QPlainTextEdit::NoWrap);
        edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        edit->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    }
    for (auto [from, to] : {std::pair{m_before, m_after}, std::pair{m_after, m_before}}) {
        connect(from->verticalScrollBar(), &QScrollBar::valueChanged, to->verticalScrollBar(), &QScrollBar::setValue);
        connect(from->horizontalScrollBar(), &QScrollBar::valueChanged, to->horizontalScrollBar(),
                &QScrollBar::setValue);
    }
    auto* sideLayout = new QHBoxLayout(m_side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->setSpacing(2);
    sideLayout->addWidget(m_before);
    sideLayout->addWidget(m_after);
    m_detailStack = new QStackedWidget(right);
    m_detailStack->addWidget(m_diff);
    m_detailStack->addWidget(m_side);
    m_sideBySideToggle = new QCheckBox(tr("Side by side"), right);
    m_sideBySideToggle->setObjectName(QStringLiteral("sideBySideToggle"));
    m_sideBySideToggle->setToolTip(tr("Show the file before and after the change in two columns"));
    m_sideBySideToggle->setVisible(false);
    connect(m_sideBySideToggle, &QCheckBox::clicked, this, [this] {
        m_sideBySideChosen = true;  // the user's choice from now on, not the width
        showDiffText();
    });
    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(m_detailTitle, 1);
    titleRow->addWidget(m_sideBySideToggle);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addLayout(titleRow);
    rightLayout->addWidget(m_hostChanged);
    rightLayout->addWidget(m_note);
    rightLayout->addWidget(m_detailError);
    rightLayout->addWidget(m_detailStack, 1);

    m_splitter = new QSplitter(Qt::Horizontal, content);
    m_splitter->setObjectName(QStringLiteral("reviewSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(left);
    m_splitter->addWidget(right);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);

    // What the last Apply did.
    m_resultBox = new QWidget(content);
    m_resultBox->setObjectName(QStringLiteral("applyResult"));
    m_resultSummary = new QLabel(m_resultBox);
    m_resultSummary->setObjectName(QStringLiteral("applySummary"));
    m_resultSummary->setWordWrap(true);
    m_takeTheirs = new QPushButton(tr("&Take Theirs…"), m_resultBox);
    m_takeTheirs->setObjectName(QStringLiteral("takeTheirs"));
    m_takeTheirs->setToolTip(tr("Replace your version of the conflicting files with the copy's"));
    m_outcomes = new QTreeWidget(m_resultBox);
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
    m_commits = new QLabel(m_resultBox);
    m_commits->setObjectName(QStringLiteral("applyCommits"));
    m_commits->setWordWrap(true);
    m_commits->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_commits->setVisible(false);
    auto* resultTop = new QHBoxLayout;
    resultTop->addWidget(m_resultSummary, 1);
    resultTop->addWidget(m_takeTheirs);
    auto* resultLayout = new QVBoxLayout(m_resultBox);
    resultLayout->setContentsMargins(0, 0, 0, 0);
    resultLayout->addLayout(resultTop);
    resultLayout->addWidget(m_commits);
    resultLayout->addWidget(m_outcomes);
    m_resultBox->setVisible(false);

    // The actions.
    m_status = new QLabel(content);
    m_status->setObjectName(QStringLiteral("reviewStatus"));
    m_status->setForegroundRole(QPalette::PlaceholderText);
    m_apply = new QPushButton(tr("&Apply Selected"), content);
    m_apply->setObjectName(QStringLiteral("applySelected"));
    m_apply->setToolTip(tr("Write the picked changes into your folder"));
    m_applyAll = new QPushButton(tr("Apply A&ll"), content);
    m_applyAll->setObjectName(QStringLiteral("applyAll"));
    m_applyAll->setToolTip(
        tr("Write every change into your folder except the flagged ones (they need their "
           "own confirmation)"));
    m_discard = new QPushButton(tr("D&iscard Copy…"), content);
    m_discard->setObjectName(QStringLiteral("discardCopy"));
    m_discard->setToolTip(tr("Remove the review copy and everything the agent changed in it"));
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_status, 1);
    actions->addWidget(m_discard);
    actions->addSpacing(12);
    actions->addWidget(m_applyAll);
    actions->addWidget(m_apply);

    auto* contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addLayout(top);
    contentLayout->addWidget(m_splitter, 1);
    contentLayout->addWidget(m_resultBox);
    contentLayout->addLayout(actions);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addWidget(m_stack, 1);

    connect(m_sessions, &QComboBox::currentIndexChanged, this, &ReviewPanel::chooseSession);
    connect(m_refresh, &QPushButton::clicked, this, &ReviewPanel::requestRefresh);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ReviewPanel::currentChangeChanged);
    connect(m_model, &ChangeListModel::checkedChanged, this, [this] {
        updateSummary();
        updateButtons();
    });
    connect(m_apply, &QPushButton::clicked, this, [this] { requestApply(m_model->checkedChanges()); });
    connect(m_applyAll, &QPushButton::clicked, this, [this] {
        QList<Change> all;
        bool gitChanged = false;
        for (const Change& change : m_model->changes()) {
            if (ChangeListModel::checkedByDefault(change)) {
                all.append(change);
            }
            gitChanged = gitChanged || ChangeSet::isGitInternal(change.path);
        }
        if (all.isEmpty() && gitChanged && !currentSession().isEmpty()) {
            // Only the repository changed (commits): Apply All brings the commits and no file.
            emitApply(currentSession(), {}, false);
            return;
        }
        requestApply(all);
    });
    connect(m_discard, &QPushButton::clicked, this, &ReviewPanel::confirmDiscard);
    connect(m_takeTheirs, &QPushButton::clicked, this, &ReviewPanel::confirmTakeTheirs);

    m_stack->setCurrentWidget(m_empty);
    clearDetail(QString());
    updateSummary();
    updateButtons();
}

ReviewPanel::~ReviewPanel() = default;

QString ReviewPanel::currentSession() const {
    return m_sessions->currentData().toString();
}

const ReviewRecord* ReviewPanel::record(const QString& sessionId) const {
    for (const ReviewRecord& entry : m_records) {
        if (entry.sessionId == sessionId) {
            return &entry;
        }
    }
    return nullptr;
}

void ReviewPanel::setRecords(const QList<ReviewRecord>& records) {
    const QString previous = currentSession();
    m_records = records;
    QString target;
    if (!m_pendingShow.isEmpty() && record(m_pendingShow)) {
        target = m_pendingShow;
        m_pendingShow.clear();
    } else if (record(previous)) {
        target = previous;
    } else if (!m_records.isEmpty()) {
        target = m_records.constFirst().sessionId;
    }

    {
        const QSignalBlocker blocker(m_sessions);
        m_sessions->clear();
        for (const ReviewRecord& entry : std::as_const(m_records)) {
            const QString folder = QDir::toNativeSeparators(entry.workspace);
            m_sessions->addItem(tr("%1 — %2").arg(entry.sessionId, folder), entry.sessionId);
            m_sessions->setItemData(
                m_sessions->count() - 1,
                tr("Session %1\nFolder: %2\nContainer: %3").arg(entry.sessionId, folder, entry.containerName),
                Qt::ToolTipRole);
        }
        m_sessions->setCurrentIndex(m_sessions->findData(target));
    }
    m_stack->setCurrentWidget(m_records.isEmpty() ? static_cast<QWidget*>(m_empty) : m_stack->widget(1));
    if (target != previous) {
        chooseSession(m_sessions->currentIndex());
    } else {
        updateRecordInfo();
        updateButtons();
    }
}

void ReviewPanel::showSession(const QString& sessionId) {
    const int index = m_sessions->findData(sessionId);
    if (index < 0) {
        m_pendingShow = sessionId;
        return;
    }
    m_pendingShow.clear();
    if (index == m_sessions->currentIndex()) {
        if (!m_busy.contains(sessionId)) {
            requestRefresh();
        }
        return;
    }
    m_sessions->setCurrentIndex(index);  // chooseSession() asks for the list
}

void ReviewPanel::chooseSession(int /*index*/) {
    m_listed = false;
    m_requested.clear();
    m_conflicts.clear();
    m_detailPath.clear();
    m_model->clear();
    m_outcomes->clear();
    m_resultBox->setVisible(false);
    showMessage(QString(), false);
    clearDetail(QString());
    updateRecordInfo();
    const QString id = currentSession();
    m_status->setText(m_busy.contains(id) ? tr("Working…") : QString());
    updateSummary();
    updateButtons();
    if (!id.isEmpty()) {
        requestRefresh();
    }
}

void ReviewPanel::updateRecordInfo() {
    const ReviewRecord* current = record(currentSession());
    if (!current) {
        m_recordInfo->clear();
        return;
    }
    const QString when = QLocale().toString(current->created.toLocalTime(), QLocale::ShortFormat);
    m_recordInfo->setText(current->engine.isEmpty() ? tr("Copy taken %1").arg(when)
                                                    : tr("Copy taken %1 · %2").arg(when, current->engine));
    m_recordInfo->setToolTip(
        tr("Folder: %1\nContainer: %2 (%3)")
            .arg(QDir::toNativeSeparators(current->workspace), current->containerName, current->containerId.left(12)));
}

void ReviewPanel::requestRefresh() {
    const QString id = currentSession();
    if (id.isEmpty()) {
        return;
    }
    setBusy(id, true, tr("Listing the changes…"));
    Q_EMIT refreshRequested(id);
}

void ReviewPanel::setBusy(const QString& sessionId, bool busy, const QString& status) {
    if (busy) {
        m_busy.insert(sessionId);
    } else {
        m_busy.remove(sessionId);
    }
    if (sessionId == currentSession()) {
        m_status->setText(busy ? status : QString());
    }
    updateButtons();
}

void ReviewPanel::updateButtons() {
    const QString id = currentSession();
    const bool idle = !id.isEmpty() && !m_busy.contains(id);
    bool anyApplicable = false;
    for (const Change& change : m_model->changes()) {
        // A change inside .git counts for Apply All: every Apply brings the agent's commits.
        anyApplicable =
            anyApplicable || ChangeListModel::checkedByDefault(change) || ChangeSet::isGitInternal(change.path);
    }
    m_refresh->setEnabled(idle);
    m_apply->setEnabled(idle && m_listed && m_model->checkedCount() > 0);
    m_applyAll->setEnabled(idle && m_listed && anyApplicable);
    m_discard->setEnabled(idle);
    m_takeTheirs->setEnabled(idle && !m_conflicts.isEmpty());
}

void ReviewPanel::applyFilter() {
    const QString text = m_filter->text().trimmed();
    int hidden = 0;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QString path = m_model->index(row, ChangeListModel::PathColumn).data().toString();
        const bool hide = !text.isEmpty() && !path.contains(text, Qt::CaseInsensitive);
        m_list->setRowHidden(row, hide);
        hidden += hide ? 1 : 0;
    }
    m_hiddenRows = hidden;
    updateSummary();
}

void ReviewPanel::updateSummary() {
    if (!m_listed) {
        m_summary->clear();
        return;
    }
    const int rows = m_model->rowCount();
    if (rows == 0) {
        m_summary->setText(tr("No changes: the copy holds what the folder held when it was taken."));
        return;
    }
    QStringList parts{changesCount(rows), tr("%1 picked").arg(m_model->checkedCount())};
    if (const int flagged = m_model->flaggedCount(); flagged > 0) {
        parts.append(tr("%1 flagged").arg(flagged));
    }
    if (m_hiddenRows > 0) {
        parts.append(tr("%1 hidden by the filter").arg(m_hiddenRows));
    }
    m_summary->setText(parts.join(QStringLiteral(" · ")));
}

void ReviewPanel::showMessage(const QString& text, bool error) {
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #b42318;") : QString());
    m_message->setAccessibleName(text);
    m_message->setVisible(!text.isEmpty());
}

void ReviewPanel::setChanges(const QString& sessionId, bool ok, const QString& error,
                             const QList<zeus::Change>& changes) {
    setBusy(sessionId, false);
    if (sessionId != currentSession()) {
        return;
    }
    m_listed = ok;
    if (!ok) {
        m_model->clear();
        m_detailPath.clear();
        clearDetail(QString());
        showMessage(tr("Could not list the changes: %1").arg(error), true);
        updateSummary();
        updateButtons();
        return;
    }
    showMessage(QString(), false);
    const QString selected = m_detailPath;
    m_detailPath.clear();
    m_model->setChanges(changes);  // resets the selection
    if (changes.isEmpty()) {
        clearDetail(tr("Nothing to review."));
    } else {
        const int row = qMax(m_model->rowOf(selected), 0);
        m_list->setCurrentIndex(m_model->index(row, ChangeListModel::PathColumn));  // asks for its detail
    }
    updateSummary();
    updateButtons();
}

void ReviewPanel::clearDetail(const QString& text) {
    m_unified.clear();
    showDiffText();
    m_diff->setExtraSelections({});
    m_detailTitle->clear();
    m_detailTitle->setVisible(false);
    m_hostChanged->setVisible(false);
    m_note->setVisible(false);
    m_detailError->setVisible(false);
    m_diff->setPlainText(text);
}

void ReviewPanel::currentChangeChanged() {
    const int row = m_list->currentIndex().row();
    if (row < 0 || row >= m_model->rowCount()) {
        m_detailPath.clear();
        clearDetail(QString());
        return;
    }
    const Change change = m_model->change(row);
    m_detailPath = change.path;
    clearDetail(tr("Loading…"));

    QString what = ChangeListModel::kindName(change.kind);
    if (change.execChanged && change.hasAfter && change.kind != Change::Kind::ModeChanged) {
        what +=
            QStringLiteral(", ") + (change.after.isExecutable() ? tr("now executable") : tr("no longer executable"));
    }
    if (const QString delta = ChangeListModel::sizeDelta(change); !delta.isEmpty()) {
        what += QStringLiteral(" · ") + delta;
    }
    m_detailTitle->setText(QStringLiteral("<b>%1</b>&nbsp;&nbsp;<span style=\"color:#6e7781\">%2</span>")
                               .arg(change.path.toHtmlEscaped(), what.toHtmlEscaped()));
    m_detailTitle->setAccessibleName(change.path + QStringLiteral(", ") + what);
    m_detailTitle->setVisible(true);
    if (!change.applicable) {
        m_note->setText(tr("Never applied: %1").arg(change.notApplicableReason));
        m_note->setVisible(true);
    } else if (change.flagged) {
        m_note->setText(tr("Makes your computer run code: %1. Read it before you apply it; it needs its own "
                           "confirmation.")
                            .arg(change.flagReason));
        m_note->setVisible(true);
    }
    m_note->setAccessibleName(m_note->text());
    Q_EMIT detailRequested(currentSession(), change);
}

void ReviewPanel::setDetail(const QString& sessionId, const zeus::ChangeDetail& detail) {
    if (sessionId != currentSession() || detail.path != m_detailPath) {
        return;  // an answer for a change no longer selected
    }
    const int row = m_model->rowOf(detail.path);
    m_hostChanged->setVisible(detail.ok && detail.hostChanged);
    if (!detail.ok) {
        m_detailError->setText(tr("Could not show this change: %1").arg(detail.error));
        m_detailError->setVisible(true);
        m_unified.clear();
        showDiffText();
        m_diff->clear();
        m_diff->setExtraSelections({});
        return;
    }
    m_detailError->setVisible(false);
    m_diff->setExtraSelections({});
    m_unified = detail.binary ? QString() : detail.unifiedDiff;
    showDiffText();
    if (detail.binary) {
        const QString before =
            detail.beforeSize < 0
                ? tr("none (the file is new)")
                : tr("%1 (SHA-256 %2)").arg(bytes(detail.beforeSize), QString::fromLatin1(detail.beforeSha256));
        const QString after =
            detail.afterSize < 0
                ? tr("none (the file is deleted)")
                : tr("%1 (SHA-256 %2)").arg(bytes(detail.afterSize), QString::fromLatin1(detail.afterSha256));
        m_diff->setLineWrapMode(QPlainTextEdit::WidgetWidth);
        m_diff->setPlainText(tr("Binary file: no text diff.") + QStringLiteral("\n\n") + tr("Before: %1").arg(before)
                             + QLatin1Char('\n') + tr("After: %1").arg(after));
        return;
    }
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    if (detail.unifiedDiff.isEmpty()) {
        m_diff->setPlainText(row >= 0 ? describeWithoutDiff(m_model->change(row)) : tr("No difference in the text."));
        return;
    }
    m_diff->setPlainText(detail.unifiedDiff);
    // Added and removed lines coloured across the whole width, as in a code review.
    QList<QTextEdit::ExtraSelection> lines;
    for (QTextBlock block = m_diff->document()->begin(); block.isValid(); block = block.next()) {
        const DiffHighlighter::LineKind kind = DiffHighlighter::lineKind(block);
        if (kind != DiffHighlighter::LineKind::Added && kind != DiffHighlighter::LineKind::Removed
            && kind != DiffHighlighter::LineKind::Hunk) {
            continue;
        }
        QTextEdit::ExtraSelection line;
        line.cursor = QTextCursor(block);
        line.format.setBackground(DiffHighlighter::formatFor(kind).background());
        line.format.setProperty(QTextFormat::FullWidthSelection, true);
        lines.append(line);
    }
    m_diff->setExtraSelections(lines);
}

bool ReviewPanel::sideBySideFits() const {
    // Two columns of 60 characters and their line numbers.
    const QFontMetrics metrics(m_before->font());
    return m_detailStack->width() >= 2 * 68 * metrics.horizontalAdvance(QLatin1Char('x'));
}

void ReviewPanel::showDiffText() {
    m_sideBySideToggle->setVisible(!m_unified.isEmpty());
    if (!m_sideBySideChosen) {
        m_sideBySideToggle->setChecked(sideBySideFits());
    }
    if (m_unified.isEmpty() || !m_sideBySideToggle->isChecked()) {
        m_detailStack->setCurrentWidget(m_diff);
        m_before->clear();
        m_after->clear();
        return;
    }
    const QList<SideBySide::Row> rows = SideBySide::fromUnified(m_unified);
    const auto number = [](int line) {
        return line > 0 ? QStringLiteral("%1 ").arg(line, 5) : QString(6, QLatin1Char(' '));
    };
    QStringList left;
    QStringList right;
    for (const SideBySide::Row& row : rows) {
        left << (row.leftKind == SideBySide::Kind::Hunk ? row.left : number(row.leftLine) + row.left);
        right << (row.rightKind == SideBySide::Kind::Hunk ? row.right : number(row.rightLine) + row.right);
    }
    m_before->setPlainText(left.join(QLatin1Char('\n')));
    m_after->setPlainText(right.join(QLatin1Char('\n')));
    const auto paint = [&rows](QPlainTextEdit* edit, bool leftSide) {
        QList<QTextEdit::ExtraSelection> lines;
        QTextBlock block = edit->document()->begin();
        for (const SideBySide::Row& row : rows) {
            const SideBySide::Kind kind = leftSide ? row.leftKind : row.rightKind;
            QColor background;
            switch (kind) {
                case SideBySide::Kind::Removed:
                    background = DiffHighlighter::formatFor(DiffHighlighter::LineKind::Removed).background().color();
                    break;
                case SideBySide::Kind::Added:
                    background = DiffHighlighter::formatFor(DiffHighlighter::LineKind::Added).background().color();
                    break;
                case SideBySide::Kind::Hunk:
                    background = DiffHighlighter::formatFor(DiffHighlighter::LineKind::Hunk).background().color();
                    break;
                case SideBySide::Kind::Filler:
                    background = QColor(0xee, 0xee, 0xee);
                    break;
                case SideBySide::Kind::Context:
                    break;
            }
            if (background.isValid() && block.isValid()) {
                QTextEdit::ExtraSelection line;
                line.cursor = QTextCursor(block);
                line.format.setBackground(background);
                line.format.setProperty(QTextFormat::FullWidthSelection, true);
                lines.append(line);
            }
            block = block.next();
        }
        edit->setExtraSelections(lines);
    };
    paint(m_before, true);
    paint(m_after, false);
    m_detailStack->setCurrentWidget(m_side);
}

void ReviewPanel::requestApply(const QList<Change>& changes) {
    const QString id = currentSession();
    if (id.isEmpty() || changes.isEmpty()) {
        return;
    }
    QList<QPair<QString, QString>> flagged;
    for (const Change& change : changes) {
        if (change.flagged) {
            flagged.append({change.path, change.flagReason});
        }
    }
    if (flagged.isEmpty()) {
        emitApply(id, changes, false);
        return;
    }
    // open(), not exec(): no nested event loop. The question keeps the session and the changes it was asked for.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Apply changes that run code?"),
                                tr("These changes make your computer run code (a build, CI, an editor task or a "
                                   "git hook may run what the agent wrote). Apply them only if you have read them:")
                                    + QStringLiteral("\n\n") + bulletList(flagged),
                                QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("confirmFlagged"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, id, changes] {
        if (box->standardButton(box->clickedButton()) == QMessageBox::Yes && !m_busy.contains(id)) {
            emitApply(id, changes, false);
        }
    });
    box->open();
}

void ReviewPanel::emitApply(const QString& sessionId, const QList<Change>& changes, bool takeTheirs) {
    m_requested.clear();
    for (const Change& change : changes) {
        m_requested.insert(change.path, change);
    }
    m_conflicts.clear();
    const int count = static_cast<int>(changes.size());
    setBusy(sessionId, true,
            count == 0   ? tr("Fetching the agent's commits…")
            : count == 1 ? tr("Applying 1 change…")
                         : tr("Applying %1 changes…").arg(count));
    Q_EMIT applyRequested(sessionId, changes, takeTheirs);
}

void ReviewPanel::setApplied(const QString& sessionId, const QList<zeus::ApplyOutcome>& outcomes,
                             const QString& error) {
    setBusy(sessionId, false);
    if (sessionId != currentSession()) {
        return;
    }
    std::array<int, 4> counts{};
    QList<ApplyOutcome> sorted = outcomes;
    std::stable_sort(sorted.begin(), sorted.end(), [](const ApplyOutcome& a, const ApplyOutcome& b) {
        return resultOrder(a.result) < resultOrder(b.result);
    });
    m_outcomes->clear();
    m_conflicts.clear();
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
        if (outcome.result == ApplyOutcome::Result::Conflict && m_requested.contains(outcome.path)) {
            m_conflicts.append(m_requested.value(outcome.path));
        }
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
    m_resultSummary->setText(summary);
    m_resultSummary->setAccessibleName(summary);
    m_takeTheirs->setVisible(!m_conflicts.isEmpty());
    m_outcomes->setVisible(!outcomes.isEmpty());
    m_resultBox->setVisible(true);
    showMessage(error.isEmpty() ? QString() : tr("Apply did not finish: %1").arg(error), !error.isEmpty());
    updateButtons();
}

void ReviewPanel::setCommits(const QString& sessionId, const QString& text, bool failed) {
    if (sessionId != currentSession()) {
        return;
    }
    m_commits->setText(text);
    m_commits->setAccessibleName(text);
    m_commits->setStyleSheet(failed ? QStringLiteral("color: #b42318;") : QString());
    m_commits->setVisible(!text.isEmpty());
    if (!text.isEmpty()) {
        m_resultBox->setVisible(true);
    }
}

void ReviewPanel::confirmTakeTheirs() {
    const QString id = currentSession();
    if (id.isEmpty() || m_conflicts.isEmpty()) {
        return;
    }
    const QList<Change> conflicts = m_conflicts;
    QList<QPair<QString, QString>> paths;
    for (const Change& change : conflicts) {
        paths.append({change.path, QString()});
    }
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Replace your version?"),
                                tr("These files changed on your computer since the copy was taken. Take Theirs "
                                   "replaces your version with the agent's; what you changed in them is lost:")
                                    + QStringLiteral("\n\n") + bulletList(paths),
                                QMessageBox::Yes | QMessageBox::No, this);
    box->setObjectName(QStringLiteral("confirmTakeTheirs"));
    box->setDefaultButton(QMessageBox::No);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, id, conflicts] {
        if (box->standardButton(box->clickedButton()) == QMessageBox::Yes && !m_busy.contains(id)) {
            emitApply(id, conflicts, true);
        }
    });
    box->open();
}

void ReviewPanel::confirmDiscard() {
    const QString id = currentSession();
    if (id.isEmpty()) {
        return;
    }
    const int count = m_model->rowCount();
    QString lost;
    if (!m_listed) {
        lost = tr("Every change in it will be lost.");
    } else if (count == 0) {
        lost = tr("It holds no changes.");
    } else {
        lost = count == 1 ? tr("1 change will be lost.") : tr("%1 changes will be lost.").arg(count);
    }
    auto* box = new QMessageBox(QMessageBox::Question, tr("Discard review copy?"),
                                tr("Discard the review copy of session %1?").arg(id) + QLatin1Char(' ') + lost,
                                QMessageBox::Discard | QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("confirmDiscard"));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, id] {
        if (box->standardButton(box->clickedButton()) == QMessageBox::Discard && !m_busy.contains(id)) {
            setBusy(id, true, tr("Discarding the copy…"));
            Q_EMIT discardRequested(id);
        }
    });
    box->open();
}

void ReviewPanel::setDiscarded(const QString& sessionId, bool ok, const QString& error) {
    setBusy(sessionId, false);
    if (!ok) {
        if (sessionId == currentSession()) {
            showMessage(tr("Could not discard the review copy: %1").arg(error), true);
        }
        return;
    }
    QList<ReviewRecord> rest;
    for (const ReviewRecord& entry : std::as_const(m_records)) {
        if (entry.sessionId != sessionId) {
            rest.append(entry);
        }
    }
    setRecords(rest);
    showMessage(tr("The review copy of session %1 was discarded.").arg(sessionId), false);
}

}  // namespace zeus
