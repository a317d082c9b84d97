#pragma once

#include <QAbstractListModel>
#include <QString>

#include <deque>

namespace zeus {

// The lines of one session's log: commands, their output (stdout and stderr kept apart)
// and results. One row per line; a line that has not ended yet ("open") grows in place
// while its stream keeps writing, so partial output shows without waiting for a newline.
//
// Owns the lines, bounded by maximumLines() (the oldest go first) and each line bounded
// by kMaxLineLength. It must never block on large input: the view feeds it in coalesced
// batches (SessionLogView), and it does no formatting beyond splitting lines.
class SessionLogModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum class Kind { Stdout, Stderr, Command, Result, Notice };
    Q_ENUM(Kind)

    enum Role { KindRole = Qt::UserRole + 1 };

    // Beyond this a line is cut and marked; a 64 MiB line would otherwise be one row
    // that no view can lay out quickly.
    static constexpr int kMaxLineLength = 4096;
    static constexpr int kDefaultMaximumLines = 200000;

    explicit SessionLogModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

    int maximumLines() const { return m_maximumLines; }
    void setMaximumLines(int lines);

    // Appends text of a stream; "\n" ends a line, "\r\n" counts as one line end.
    void appendText(Kind kind, QStringView text);
    // Appends one whole line (closing any open line first).
    void appendLine(Kind kind, const QString& line);
    void clear();

    QString lineText(int row) const;
    Kind lineKind(int row) const;
    // Lines dropped from the front since the last clear() (shown as a notice by the view).
    qint64 droppedLines() const { return m_dropped; }
    // The longest line kept since the last clear(), in characters (for the view's width).
    int widestLine() const { return m_widest; }

private:
    struct Line {
        QString text;
        Kind kind = Kind::Stdout;
        bool open = false;    // no line end seen yet
        bool cut = false;     // longer than kMaxLineLength
        qint64 cutChars = 0;  // characters dropped from this line
    };

    void appendToLast(QStringView piece);
    void pushLines(std::deque<Line>&& lines);
    void trimFront();

    std::deque<Line> m_lines;
    int m_maximumLines = kDefaultMaximumLines;
    qint64 m_dropped = 0;
    int m_widest = 0;
};

}  // namespace zeus
