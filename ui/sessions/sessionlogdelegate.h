#pragma once

#include <QStyledItemDelegate>

namespace zeus {

// Paints one log line fast: a monospace row, a coloured gutter mark for stderr and
// commands (so the difference is not carried by colour alone), elided past the widest
// line seen. All rows have one height, so the view can lay out 100,000 rows in O(1).
//
// Owns nothing but its metrics; it must never look at other rows (painting is per row).
class SessionLogDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit SessionLogDelegate(QObject* parent = nullptr);

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    // The widest line in characters; the uniform row size follows it (horizontal scrolling).
    void setColumns(int columns);
    int columns() const { return m_columns; }
    void setFont(const QFont& font);

private:
    QFont m_font;
    QFont m_boldFont;
    int m_columns = 80;
};

}  // namespace zeus
