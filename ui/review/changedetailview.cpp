#include "review/changedetailview.h"

#include "review/changelistmodel.h"
#include "review/diffhighlighter.h"
#include "review/sidebyside.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextEdit>
#include <QVBoxLayout>

#include <utility>

namespace zeus {

namespace {

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
    return size == 1 ? ChangeDetailView::tr("1 byte") : ChangeDetailView::tr("%1 bytes").arg(QLocale().toString(size));
}

// What a change without a text diff is, in words (a folder, a link, the exec bit).
QString describeWithoutDiff(const Change& change) {
    const ManifestEntry* side = change.hasAfter ? &change.after : (change.hasBefore ? &change.before : nullptr);
    if (!side) {
        return {};
    }
    if (change.kind == Change::Kind::TypeChanged && change.hasBefore && change.hasAfter) {
        return ChangeDetailView::tr("Was a %1, is now a %2.")
            .arg(ManifestEntry::typeName(change.before.type), ManifestEntry::typeName(change.after.type));
    }
    if (side->type == ManifestEntry::Type::Directory) {
        return change.kind == Change::Kind::Deleted ? ChangeDetailView::tr("Folder deleted (with what it held).")
                                                    : ChangeDetailView::tr("Folder added.");
    }
    if (side->type == ManifestEntry::Type::Symlink) {
        if (change.hasBefore && change.hasAfter) {
            return ChangeDetailView::tr("Link target changed from %1 to %2.")
                .arg(change.before.linkTarget, change.after.linkTarget);
        }
        return change.hasAfter ? ChangeDetailView::tr("Link added, pointing to %1.").arg(change.after.linkTarget)
                               : ChangeDetailView::tr("Link deleted (it pointed to %1).").arg(change.before.linkTarget);
    }
    if (change.kind == Change::Kind::ModeChanged) {
        return change.after.isExecutable()
                   ? ChangeDetailView::tr("Only the executable bit changed: the file is now executable.")
                   : ChangeDetailView::tr("Only the executable bit changed: the file is no longer executable.");
    }
    if (change.kind == Change::Kind::Added && change.after.size == 0) {
        return ChangeDetailView::tr("Empty file added.");
    }
    if (change.kind == Change::Kind::Deleted && change.before.size == 0) {
        return ChangeDetailView::tr("Empty file deleted.");
    }
    return ChangeDetailView::tr("No difference in the text.");
}

QColor sideBySideBackground(SideBySide::Kind kind) {
    switch (kind) {
        case SideBySide::Kind::Removed:
            return DiffHighlighter::formatFor(DiffHighlighter::LineKind::Removed).background().color();
        case SideBySide::Kind::Added:
            return DiffHighlighter::formatFor(DiffHighlighter::LineKind::Added).background().color();
        case SideBySide::Kind::Hunk:
            return DiffHighlighter::formatFor(DiffHighlighter::LineKind::Hunk).background().color();
        case SideBySide::Kind::Filler:
            return {0xee, 0xee, 0xee};
        case SideBySide::Kind::Context:
            break;
    }
    return {};
}

// One column of the side-by-side view, its changed lines coloured across the whole width.
void paintColumn(QPlainTextEdit* edit, const QList<SideBySide::Row>& rows, bool leftSide) {
    QList<QTextEdit::ExtraSelection> lines;
    QTextBlock block = edit->document()->begin();
    for (const SideBySide::Row& row : rows) {
        const QColor background = sideBySideBackground(leftSide ? row.leftKind : row.rightKind);
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
}

}  // namespace

ChangeDetailView::ChangeDetailView(QWidget* parent) : QWidget(parent) {
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("detailTitle"));
    m_title->setTextFormat(Qt::RichText);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);
    m_hostChanged =
        banner(QStringLiteral("hostChangedBanner"), QColor(0xff, 0xeb, 0xe9), QColor(0x5c, 0x0b, 0x10), this);
    m_hostChanged->setText(
        tr("This file changed on your computer since the copy was taken: applying it is a conflict."));
    m_hostChanged->setAccessibleName(m_hostChanged->text());
    m_note = banner(QStringLiteral("changeNote"), QColor(0xfe, 0xf3, 0xc7), QColor(0x42, 0x2c, 0x06), this);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("detailError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_error->setVisible(false);
    setUpTexts();
    m_sideBySideToggle = new QCheckBox(tr("Side by side"), this);
    m_sideBySideToggle->setObjectName(QStringLiteral("sideBySideToggle"));
    m_sideBySideToggle->setToolTip(tr("Show the file before and after the change in two columns"));
    m_sideBySideToggle->setVisible(false);
    connect(m_sideBySideToggle, &QCheckBox::clicked, this, [this] {
        m_sideBySideChosen = true;  // the user's choice from now on, not the width
        showDiffText();
    });
    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(m_title, 1);
    titleRow->addWidget(m_sideBySideToggle);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(titleRow);
    layout->addWidget(m_hostChanged);
    layout->addWidget(m_note);
    layout->addWidget(m_error);
    layout->addWidget(m_stack, 1);
}

ChangeDetailView::~ChangeDetailView() = default;

// The diff as one text, and side by side: the old file on the left, the new one on the right, scrolled together.
void ChangeDetailView::setUpTexts() {
    m_diff = new QPlainTextEdit(this);
    m_diff->setObjectName(QStringLiteral("changeDiff"));
    m_diff->setAccessibleName(tr("Change detail"));
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_diff->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_highlighter = new DiffHighlighter(m_diff->document());
    m_side = new QWidget(this);
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
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_diff);
    m_stack->addWidget(m_side);
}

void ChangeDetailView::clear(const QString& text) {
    m_unified.clear();
    showDiffText();
    m_diff->setExtraSelections({});
    m_title->clear();
    m_title->setVisible(false);
    m_hostChanged->setVisible(false);
    m_note->setVisible(false);
    m_error->setVisible(false);
    m_diff->setPlainText(text);
}

void ChangeDetailView::showChange(const Change& change) {
    clear(tr("Loading…"));
    QString what = ChangeListModel::kindName(change.kind);
    if (change.execChanged && change.hasAfter && change.kind != Change::Kind::ModeChanged) {
        what +=
            QStringLiteral(", ") + (change.after.isExecutable() ? tr("now executable") : tr("no longer executable"));
    }
    if (const QString delta = ChangeListModel::sizeDelta(change); !delta.isEmpty()) {
        what += QStringLiteral(" · ") + delta;
    }
    m_title->setText(QStringLiteral("<b>%1</b>&nbsp;&nbsp;<span style=\"color:#6e7781\">%2</span>")
                         .arg(change.path.toHtmlEscaped(), what.toHtmlEscaped()));
    m_title->setAccessibleName(change.path + QStringLiteral(", ") + what);
    m_title->setVisible(true);
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
}

void ChangeDetailView::showDetail(const ChangeDetail& detail, const Change* change) {
    m_hostChanged->setVisible(detail.ok && detail.hostChanged);
    if (!detail.ok) {
        m_error->setText(tr("Could not show this change: %1").arg(detail.error));
        m_error->setVisible(true);
        m_unified.clear();
        showDiffText();
        m_diff->clear();
        m_diff->setExtraSelections({});
        return;
    }
    m_error->setVisible(false);
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
        m_diff->setPlainText(change ? describeWithoutDiff(*change) : tr("No difference in the text."));
        return;
    }
    m_diff->setPlainText(detail.unifiedDiff);
    colourChangedLines();
}

// Added and removed lines coloured across the whole width, as in a code review.
void ChangeDetailView::colourChangedLines() {
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

bool ChangeDetailView::sideBySideFits() const {
    // Two columns of 60 characters and their line numbers.
    const QFontMetrics metrics(m_before->font());
    return m_stack->width() >= 2 * 68 * metrics.horizontalAdvance(QLatin1Char('x'));
}

void ChangeDetailView::showDiffText() {
    m_sideBySideToggle->setVisible(!m_unified.isEmpty());
    if (!m_sideBySideChosen) {
        m_sideBySideToggle->setChecked(sideBySideFits());
    }
    if (m_unified.isEmpty() || !m_sideBySideToggle->isChecked()) {
        m_stack->setCurrentWidget(m_diff);
        m_before->clear();
        m_after->clear();
        return;
    }
    showSideBySide();
}

void ChangeDetailView::showSideBySide() {
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
    paintColumn(m_before, rows, true);
    paintColumn(m_after, rows, false);
    m_stack->setCurrentWidget(m_side);
}

}  // namespace zeus
