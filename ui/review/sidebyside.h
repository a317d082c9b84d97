#pragma once

#include <QList>
#include <QString>

namespace zeus {

// A unified diff (`diff -u`, as TextDiff writes it) as two aligned columns, for the Changes view's side-by-side
// mode: each hunk's removed lines face its added lines row by row, a side with fewer lines gets filler rows, and
// context lines sit on both sides. Pure: no widget.
class SideBySide {
public:
    SideBySide() = delete;

    enum class Kind { Context, Removed, Added, Filler, Hunk };
    struct Row {
        Kind leftKind = Kind::Filler;
        Kind rightKind = Kind::Filler;
        QString left;  // the line without its +, - or space
        QString right;
        int leftLine = 0;   // 1-based line number in the old file; 0 for a filler or hunk row
        int rightLine = 0;  // in the new file
    };

    // The file headers ("--- a/…", "+++ b/…") are left out; "\ No newline at end of file" marks are left out.
    static QList<Row> fromUnified(const QString& unified);
};

}  // namespace zeus
