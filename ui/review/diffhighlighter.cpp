#include "review/diffhighlighter.h"

#include <QColor>
#include <QFont>
#include <QRegularExpression>
#include <QTextBlock>

namespace zeus {

namespace {

// Block state: -1 (or any negative) outside a hunk; inside one, the old and new lines still to come, packed.
constexpr int kOutside = -1;
constexpr int kCountMask = 0x7fff;  // a hunk of more lines than this ends early: its tail is coloured as context

int packed(int oldLeft, int newLeft) {
    return (qMin(oldLeft, kCountMask) << 15) | qMin(newLeft, kCountMask);
}

class LineData : public QTextBlockUserData {
public:
    explicit LineData(DiffHighlighter::LineKind kind) : kind(kind) {}
    DiffHighlighter::LineKind kind;
};

}  // namespace

DiffHighlighter::LineKind DiffHighlighter::lineKind(const QTextBlock& block) {
    const auto* data = dynamic_cast<const LineData*>(block.userData());
    return data ? data->kind : LineKind::Context;
}

DiffHighlighter::DiffHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

QTextCharFormat DiffHighlighter::formatFor(LineKind kind) {
    QTextCharFormat format;
    switch (kind) {
        case LineKind::Added:
            format.setForeground(QColor(0x11, 0x63, 0x29));
            format.setBackground(QColor(0xe6, 0xff, 0xec));
            break;
        case LineKind::Removed:
            format.setForeground(QColor(0xb3, 0x1d, 0x28));
            format.setBackground(QColor(0xff, 0xeb, 0xe9));
            break;
        case LineKind::Hunk:
            format.setForeground(QColor(0x05, 0x50, 0xae));
            format.setBackground(QColor(0xdd, 0xf4, 0xff));
            break;
        case LineKind::FileHeader:
            format.setFontWeight(QFont::Bold);
            break;
        case LineKind::Meta:
            format.setForeground(QColor(0x6e, 0x77, 0x81));
            format.setFontItalic(true);
            break;
        case LineKind::Context:
            break;
    }
    return format;
}

void DiffHighlighter::highlightBlock(const QString& text) {
    static const QRegularExpression hunk(QStringLiteral(R"(^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@)"));
    const int previous = previousBlockState();
    int oldLeft = 0;
    int newLeft = 0;
    if (previous >= 0) {
        oldLeft = (previous >> 15) & kCountMask;
        newLeft = previous & kCountMask;
    }
    const bool inHunk = previous >= 0 && (oldLeft > 0 || newLeft > 0);

    LineKind kind = LineKind::Context;
    int next = kOutside;
    if (inHunk) {
        if (text.startsWith(QLatin1Char('+'))) {
            kind = LineKind::Added;
            newLeft -= 1;
        } else if (text.startsWith(QLatin1Char('-'))) {
            kind = LineKind::Removed;
            oldLeft -= 1;
        } else if (text.startsWith(QLatin1Char('\\'))) {
            kind = LineKind::Meta;  // "\ No newline at end of file" counts for neither side
        } else {
            oldLeft -= 1;
            newLeft -= 1;
        }
        oldLeft = qMax(oldLeft, 0);
        newLeft = qMax(newLeft, 0);
        next = oldLeft > 0 || newLeft > 0 ? packed(oldLeft, newLeft) : kOutside;
        // A "\ No newline" line may follow the last line of a hunk.
    } else if (const QRegularExpressionMatch match = hunk.match(text); match.hasMatch()) {
        kind = LineKind::Hunk;
        const int oldCount = match.captured(1).isEmpty() ? 1 : match.captured(1).toInt();
        const int newCount = match.captured(2).isEmpty() ? 1 : match.captured(2).toInt();
        next = oldCount > 0 || newCount > 0 ? packed(oldCount, newCount) : kOutside;
    } else if (text.startsWith(QLatin1String("--- ")) || text.startsWith(QLatin1String("+++ "))
               || text.startsWith(QLatin1String("diff ")) || text.startsWith(QLatin1String("index "))) {
        kind = LineKind::FileHeader;
    } else if (text.startsWith(QLatin1Char('\\')) || text.startsWith(QLatin1String("Binary files "))) {
        kind = LineKind::Meta;
    }
    setCurrentBlockState(next);
    setCurrentBlockUserData(new LineData(kind));  // the block owns it
    if (kind != LineKind::Context) {
        setFormat(0, static_cast<int>(text.size()), formatFor(kind));
    }
}

}  // namespace zeus
