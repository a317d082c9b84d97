#include "sidebyside.h"

#include <QRegularExpression>

namespace zeus {

namespace {

struct Pending {
    QStringList removed;
    QStringList added;
};

void flush(Pending& pending, int& oldLine, int& newLine, QList<SideBySide::Row>& rows) {
    const qsizetype count = qMax(pending.removed.size(), pending.added.size());
    for (qsizetype i = 0; i < count; ++i) {
        SideBySide::Row row;
        if (i < pending.removed.size()) {
            row.leftKind = SideBySide::Kind::Removed;
            row.left = pending.removed.at(i);
            row.leftLine = oldLine++;
        }
        if (i < pending.added.size()) {
            row.rightKind = SideBySide::Kind::Added;
            row.right = pending.added.at(i);
            row.rightLine = newLine++;
        }
        rows.append(row);
    }
    pending = Pending();
}

}  // namespace

QList<SideBySide::Row> SideBySide::fromUnified(const QString& unified) {
    static const QRegularExpression hunkHeader(QStringLiteral("^@@ -(\\d+)(?:,\\d+)? \\+(\\d+)(?:,\\d+)? @@"));
    QList<Row> rows;
    Pending pending;
    int oldLine = 0;
    int newLine = 0;
    bool inHunk = false;
    QStringList lines = unified.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty()) {
        lines.removeLast();  // the text ends with a newline
    }
    for (const QString& line : std::as_const(lines)) {
        const QRegularExpressionMatch hunk = hunkHeader.match(line);
        if (hunk.hasMatch()) {
            flush(pending, oldLine, newLine, rows);
            inHunk = true;
            oldLine = qMax(1, hunk.captured(1).toInt());
            newLine = qMax(1, hunk.captured(2).toInt());
            Row row;
            row.leftKind = Kind::Hunk;
            row.rightKind = Kind::Hunk;
            row.left = line;
            row.right = line;
            rows.append(row);
            continue;
        }
        if (!inHunk || line.isEmpty()) {
            continue;  // the file headers before the first hunk
        }
        const QChar sign = line.at(0);
        const QString text = line.mid(1);
        if (sign == QLatin1Char('-')) {
            pending.removed.append(text);
        } else if (sign == QLatin1Char('+')) {
            pending.added.append(text);
        } else if (sign == QLatin1Char(' ')) {
            flush(pending, oldLine, newLine, rows);
            Row row;
            row.leftKind = Kind::Context;
            row.rightKind = Kind::Context;
            row.left = text;
            row.right = text;
            row.leftLine = oldLine++;
            row.rightLine = newLine++;
            rows.append(row);
        }
        // '\': "No newline at end of file", about the line before it; not shown in columns.
    }
    flush(pending, oldLine, newLine, rows);
    return rows;
}

}  // namespace zeus
