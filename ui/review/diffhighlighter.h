#pragma once

#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QTextCharFormat>

namespace zeus {

// Colours a unified diff (`diff -u`: "--- a/PATH", "+++ b/PATH", "@@ -1,3 +1,4 @@" hunks): added lines green,
// removed lines red, hunk headers blue, file headers bold.
//
// It follows the hunk line counts, so a removed line that reads "-- x" (shown as "--- x") is a removed line, not
// a file header. Colour is never the only sign: the +, - and @@ stay in the text.
class DiffHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum class LineKind { Context, Added, Removed, Hunk, FileHeader, Meta };

    explicit DiffHighlighter(QTextDocument* document);

    // The format of a kind of line (for a legend, and the tests).
    static QTextCharFormat formatFor(LineKind kind);
    // What a highlighted block is (Context before it was highlighted): the view paints added and removed lines
    // across its whole width with it.
    static LineKind lineKind(const QTextBlock& block);

protected:
    void highlightBlock(const QString& text) override;
};

}  // namespace zeus
