#include "sessions/sessionlogview.h"

#include "sessions/sessionlogdelegate.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>

namespace zeus {

SessionLogView::SessionLogView(QWidget* parent)
    : QWidget(parent),
      m_model(new SessionLogModel(this)),
      m_delegate(new SessionLogDelegate(this)),
      m_list(new QListView(this)) {
    m_list->setModel(m_model);
    m_list->setItemDelegate(m_delegate);
    // Uniform rows: layout and scrolling stay O(1) in the number of lines.
    m_list->setUniformItemSizes(true);
    m_list->setLayoutMode(QListView::SinglePass);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_list->setVerticalScrollMode(QAbstractItemView::ScrollPerItem);
    m_list->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_list->setWordWrap(false);
    m_list->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_list->setAccessibleName(tr("Session log"));
    m_list->setAccessibleDescription(tr("Commands, their output and results; error output is marked"));

    auto* copy = new QAction(tr("&Copy"), m_list);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &SessionLogView::copySelection);
    m_list->addAction(copy);
    auto* selectAll = new QAction(tr("Select &All"), m_list);
    selectAll->setShortcut(QKeySequence::SelectAll);
    selectAll->setShortcutContext(Qt::WidgetShortcut);
    connect(selectAll, &QAction::triggered, m_list, &QListView::selectAll);
    m_list->addAction(selectAll);
    auto* clearAction = new QAction(tr("C&lear Log"), m_list);
    connect(clearAction, &QAction::triggered, this, &SessionLogView::clear);
    m_list->addAction(clearAction);

    m_pausedBar = new QWidget(this);
    m_pausedLabel = new QLabel(m_pausedBar);
    m_followButton = new QPushButton(tr("&Follow Output"), m_pausedBar);
    m_followButton->setAccessibleDescription(tr("Scroll to the newest line and keep following it"));
    auto* barLayout = new QHBoxLayout(m_pausedBar);
    barLayout->setContentsMargins(6, 2, 6, 2);
    barLayout->addWidget(m_pausedLabel, 1);
    barLayout->addWidget(m_followButton);
    m_pausedBar->setVisible(false);
    connect(m_followButton, &QPushButton::clicked, this, [this] { setFollowingTail(true); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_pausedBar);
    setFocusProxy(m_list);

    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kFlushIntervalMs);
    connect(&m_flushTimer, &QTimer::timeout, this, &SessionLogView::flushSome);
    connect(m_list->verticalScrollBar(), &QScrollBar::valueChanged, this, &SessionLogView::onScrolled);
}

SessionLogView::~SessionLogView() = default;

void SessionLogView::appendStdout(const QString& text) {
    enqueue(SessionLogModel::Kind::Stdout, text, false);
}

void SessionLogView::appendStderr(const QString& text) {
    enqueue(SessionLogModel::Kind::Stderr, text, false);
}

void SessionLogView::appendCommand(const QString& command) {
    enqueue(SessionLogModel::Kind::Command, QStringLiteral("$ ") + command, true);
}

void SessionLogView::appendResult(const QString& summary) {
    enqueue(SessionLogModel::Kind::Result, summary, true);
}

void SessionLogView::appendNotice(const QString& notice) {
    enqueue(SessionLogModel::Kind::Notice, notice, true);
}

void SessionLogView::enqueue(SessionLogModel::Kind kind, const QString& text, bool wholeLine) {
    if (text.isEmpty() && !wholeLine) {
        return;
    }
    // Consecutive chunks of one stream are merged, so the queue stays short however
    // small the chunks are.
    if (!wholeLine && !m_pending.empty() && !m_pending.back().wholeLine && m_pending.back().kind == kind
        && m_pending.back().text.size() < kMaxCharsPerFlush) {
        m_pending.back().text += text;
    } else {
        m_pending.push_back({kind, text, wholeLine});
    }
    m_pendingChars += text.size();
    if (!m_flushTimer.isActive()) {
        m_flushTimer.start(kFlushIntervalMs);
    }
}

void SessionLogView::flushSome() {
    m_applying = true;
    const int before = m_model->rowCount();
    const qint64 droppedBefore = m_model->droppedLines();
    qsizetype budget = kMaxCharsPerFlush;
    while (!m_pending.empty() && budget > 0) {
        Chunk& chunk = m_pending.front();
        if (chunk.wholeLine) {
            m_model->appendLine(chunk.kind, chunk.text);
            budget -= chunk.text.size() + 1;
            m_pendingChars -= chunk.text.size();
            m_pending.pop_front();
            continue;
        }
        // Split a large chunk at a line end within the budget, so a line is applied whole
        // when it can be.
        qsizetype take = chunk.text.size();
        if (take > budget) {
            const qsizetype cut = chunk.text.lastIndexOf(QLatin1Char('\n'), budget - 1);
            take = cut > 0 ? cut + 1 : budget;
        }
        const QStringView piece = QStringView(chunk.text).left(take);
        m_model->appendText(chunk.kind, piece);
        budget -= take;
        m_pendingChars -= take;
        if (take == chunk.text.size()) {
            m_pending.pop_front();
        } else {
            chunk.text.remove(0, take);
        }
    }
    const int added = m_model->rowCount() - before + static_cast<int>(m_model->droppedLines() - droppedBefore);
    m_delegate->setColumns(m_model->widestLine());

    if (m_following) {
        m_list->scrollToBottom();
    } else {
        m_linesWhilePaused += std::max(0, added);
        updatePausedBar();
    }
    m_applying = false;
    if (!m_pending.empty()) {
        // More is queued: keep draining, but let the event loop run in between.
        m_flushTimer.start(0);
    }
}

void SessionLogView::flushAll() {
    m_flushTimer.stop();
    while (!m_pending.empty()) {
        flushSome();
    }
    m_flushTimer.stop();
}

void SessionLogView::clear() {
    m_flushTimer.stop();
    m_pending.clear();
    m_pendingChars = 0;
    m_model->clear();
    m_linesWhilePaused = 0;
    setFollowingTail(true);
}

void SessionLogView::onScrolled(int value) {
    if (m_applying) {
        return;
    }
    const bool atBottom = value >= m_list->verticalScrollBar()->maximum();
    if (atBottom != m_following) {
        m_following = atBottom;
        if (m_following) {
            m_linesWhilePaused = 0;
        }
        updatePausedBar();
        Q_EMIT followingTailChanged(m_following);
    }
}

void SessionLogView::setFollowingTail(bool follow) {
    if (follow) {
        m_applying = true;
        m_list->scrollToBottom();
        m_applying = false;
        m_linesWhilePaused = 0;
    }
    if (follow != m_following) {
        m_following = follow;
        Q_EMIT followingTailChanged(m_following);
    }
    updatePausedBar();
}

void SessionLogView::updatePausedBar() {
    m_pausedBar->setVisible(!m_following);
    if (!m_following) {
        if (m_linesWhilePaused == 1) {
            m_pausedLabel->setText(tr("Scrolled up: 1 new line below."));
        } else if (m_linesWhilePaused > 1) {
            m_pausedLabel->setText(tr("Scrolled up: %1 new lines below.").arg(m_linesWhilePaused));
        } else {
            m_pausedLabel->setText(tr("Scrolled up: not following new output."));
        }
    }
}

QString SessionLogView::selectedText() const {
    QModelIndexList rows = m_list->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QStringList lines;
    lines.reserve(rows.size());
    for (const QModelIndex& row : std::as_const(rows)) {
        lines.append(m_model->lineText(row.row()));
    }
    return lines.join(QLatin1Char('\n'));
}

void SessionLogView::copySelection() const {
    const QString text = selectedText();
    if (!text.isEmpty()) {
        QApplication::clipboard()->setText(text);
    }
}

}  // namespace zeus
