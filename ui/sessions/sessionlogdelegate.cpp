#include "sessions/sessionlogdelegate.h"

#include "sessions/sessionlogmodel.h"

#include <QApplication>
#include <QFontDatabase>
#include <QPainter>

namespace zeus {

namespace {

constexpr int kGutter = 8;  // room for the mark at the left
constexpr int kMarkWidth = 3;
constexpr int kVerticalPadding = 2;

bool isDark(const QPalette& palette) {
    return palette.color(QPalette::Base).lightness() < 128;
}

QColor kindColor(SessionLogModel::Kind kind, const QPalette& palette) {
    const bool dark = isDark(palette);
    switch (kind) {
        case SessionLogModel::Kind::Stderr:
            return dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xb4, 0x23, 0x18);
        case SessionLogModel::Kind::Command:
            return dark ? QColor(0x79, 0xc0, 0xff) : QColor(0x09, 0x5a, 0xb5);
        case SessionLogModel::Kind::Result:
        case SessionLogModel::Kind::Notice:
            return palette.color(QPalette::PlaceholderText);
        case SessionLogModel::Kind::Stdout:
            break;
    }
    return palette.color(QPalette::Text);
}

}  // namespace

SessionLogDelegate::SessionLogDelegate(QObject* parent)
    : QStyledItemDelegate(parent), m_font(QFontDatabase::systemFont(QFontDatabase::FixedFont)) {
    m_boldFont = m_font;
    m_boldFont.setBold(true);
}

void SessionLogDelegate::setFont(const QFont& font) {
    m_font = font;
    m_boldFont = font;
    m_boldFont.setBold(true);
}

void SessionLogDelegate::setColumns(int columns) {
    const int bounded = std::min(columns, SessionLogModel::kMaxLineLength + 40);
    if (bounded > m_columns) {
        m_columns = bounded;
        // Uniform item sizes: the view asks only for the first row's size.
        Q_EMIT sizeHintChanged(QModelIndex());
    }
}

QSize SessionLogDelegate::sizeHint(const QStyleOptionViewItem& /*option*/, const QModelIndex& /*index*/) const {
    const QFontMetrics metrics(m_font);
    return {kGutter + m_columns * metrics.horizontalAdvance(QLatin1Char('M')) + 8,
            metrics.lineSpacing() + kVerticalPadding};
}

void SessionLogDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const auto kind = index.data(SessionLogModel::KindRole).value<SessionLogModel::Kind>();
    const QPalette& palette = option.palette;
    const bool selected = option.state & QStyle::State_Selected;

    painter->save();
    if (selected) {
        painter->fillRect(option.rect, palette.brush(QPalette::Highlight));
    }
    if (kind == SessionLogModel::Kind::Stderr || kind == SessionLogModel::Kind::Command) {
        painter->fillRect(QRect(option.rect.left() + 2, option.rect.top(), kMarkWidth, option.rect.height()),
                          kindColor(kind, palette));
    }
    QFont font = kind == SessionLogModel::Kind::Command ? m_boldFont : m_font;
    font.setItalic(kind == SessionLogModel::Kind::Result || kind == SessionLogModel::Kind::Notice);
    painter->setFont(font);
    painter->setPen(selected ? palette.color(QPalette::HighlightedText) : kindColor(kind, palette));
    const QRect textRect = option.rect.adjusted(kGutter, 0, -2, 0);
    const QString text = index.data(Qt::DisplayRole).toString();
    const QString shown = QFontMetrics(font).elidedText(text, Qt::ElideRight, textRect.width());
    painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine | Qt::TextExpandTabs, shown);
    if (option.state & QStyle::State_HasFocus) {
        QPen pen(palette.color(QPalette::Highlight));
        pen.setStyle(Qt::DotLine);
        painter->setPen(pen);
        painter->drawRect(option.rect.adjusted(0, 0, -1, -1));
    }
    painter->restore();
}

}  // namespace zeus
