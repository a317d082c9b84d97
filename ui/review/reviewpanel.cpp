#include "review/reviewpanel.h"

#include "review/applyresultview.h"
#include "review/changedetailview.h"
#include "review/changelistmodel.h"
#include "review/changeset.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace zeus {

namespace {

constexpr int kMaxListedInQuestion = 12;  // a confirmation names at most this many paths, then "and N more"

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
    QHBoxLayout* top = setUpSessionRow(content);
    QWidget* left = setUpChangeList(content);
    m_detail = new ChangeDetailView(content);  // right: the selected change
    m_splitter = new QSplitter(Qt::Horizontal, content);
    m_splitter->setObjectName(QStringLiteral("reviewSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(left);
    m_splitter->addWidget(m_detail);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);
    m_result = new ApplyResultView(content);
    QHBoxLayout* actions = setUpActions(content);

    auto* contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addLayout(top);
    contentLayout->addWidget(m_splitter, 1);
    contentLayout->addWidget(m_result);
    contentLayout->addLayout(actions);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_message);
    layout->addWidget(m_stack, 1);

    connectActions();
    m_stack->setCurrentWidget(m_empty);
    m_detail->clear(QString());
    updateSummary();
    updateButtons();
}

// The chosen review copy.
QHBoxLayout* ReviewPanel::setUpSessionRow(QWidget* content) {
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
    return top;
}

// Left: the change list, its filter and what it holds.
QWidget* ReviewPanel::setUpChangeList(QWidget* content) {
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
    return left;
}

// The actions.
QHBoxLayout* ReviewPanel::setUpActions(QWidget* content) {
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
    return actions;
}

void ReviewPanel::connectActions() {
    connect(m_sessions, &QComboBox::currentIndexChanged, this, &ReviewPanel::chooseSession);
    connect(m_refresh, &QPushButton::clicked, this, &ReviewPanel::requestRefresh);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ReviewPanel::currentChangeChanged);
    connect(m_model, &ChangeListModel::checkedChanged, this, [this] {
        updateSummary();
        updateButtons();
    });
    connect(m_apply, &QPushButton::clicked, this, [this] { requestApply(m_model->checkedChanges()); });
    connect(m_applyAll, &QPushButton::clicked, this, &ReviewPanel::applyAll);
    connect(m_discard, &QPushButton::clicked, this, &ReviewPanel::confirmDiscard);
    connect(m_result, &ApplyResultView::takeTheirsClicked, this, &ReviewPanel::confirmTakeTheirs);
}

void ReviewPanel::applyAll() {
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
    m_result->clear();
    showMessage(QString(), false);
    m_detail->clear(QString());
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
    m_result->setTakeTheirsEnabled(idle && !m_conflicts.isEmpty());
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
        m_detail->clear(QString());
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
        m_detail->clear(tr("Nothing to review."));
    } else {
        const int row = qMax(m_model->rowOf(selected), 0);
        m_list->setCurrentIndex(m_model->index(row, ChangeListModel::PathColumn));  // asks for its detail
    }
    updateSummary();
    updateButtons();
}

void ReviewPanel::currentChangeChanged() {
    const int row = m_list->currentIndex().row();
    if (row < 0 || row >= m_model->rowCount()) {
        m_detailPath.clear();
        m_detail->clear(QString());
        return;
    }
    const Change change = m_model->change(row);
    m_detailPath = change.path;
    m_detail->showChange(change);
    Q_EMIT detailRequested(currentSession(), change);
}

void ReviewPanel::setDetail(const QString& sessionId, const zeus::ChangeDetail& detail) {
    if (sessionId != currentSession() || detail.path != m_detailPath) {
        return;  // an answer for a change no longer selected
    }
    const int row = m_model->rowOf(detail.path);
    m_detail->showDetail(detail, row >= 0 ? &m_model->change(row) : nullptr);
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
    // Take Theirs replaces the conflicts this panel asked to apply (in the order Apply reported them).
    m_conflicts.clear();
    for (const ApplyOutcome& outcome : outcomes) {
        if (outcome.result == ApplyOutcome::Result::Conflict && m_requested.contains(outcome.path)) {
            m_conflicts.append(m_requested.value(outcome.path));
        }
    }
    m_result->showOutcomes(outcomes, !m_conflicts.isEmpty());
    showMessage(error.isEmpty() ? QString() : tr("Apply did not finish: %1").arg(error), !error.isEmpty());
    updateButtons();
}

void ReviewPanel::setCommits(const QString& sessionId, const QString& text, bool failed) {
    if (sessionId != currentSession()) {
        return;
    }
    m_result->setCommits(text, failed);
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
