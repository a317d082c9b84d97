#include "sessions/sessionlogmodel.h"

#include <algorithm>
#include <iterator>

namespace zeus {

SessionLogModel::SessionLogModel(QObject* parent) : QAbstractListModel(parent) {}

int SessionLogModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_lines.size());
}

QVariant SessionLogModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount()) {
        return {};
    }
    const Line& line = m_lines[static_cast<size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case Qt::ToolTipRole:
        case Qt::AccessibleTextRole: {
            QString text = line.text;
            // A carriage return without its newline (progress bars) would garble the row.
            text.remove(QLatin1Char('\r'));
            if (line.cut) {
                text += QLatin1Char(' ') + tr("[… %1 more characters]").arg(line.cutChars);
            }
            if (role == Qt::AccessibleTextRole && line.kind == Kind::Stderr) {
                return tr("error output: %1").arg(text);
            }
            return text;
        }
        case KindRole:
            return QVariant::fromValue(line.kind);
        default:
            return {};
    }
}

void SessionLogModel::setMaximumLines(int lines) {
    m_maximumLines = std::max(1, lines);
    trimFront();
}

QString SessionLogModel::lineText(int row) const {
    return row >= 0 && row < rowCount() ? data(index(row), Qt::DisplayRole).toString() : QString();
}

SessionLogModel::Kind SessionLogModel::lineKind(int row) const {
    return row >= 0 && row < rowCount() ? m_lines[static_cast<size_t>(row)].kind : Kind::Notice;
}

void SessionLogModel::appendToLast(QStringView piece) {
    Line& last = m_lines.back();
    const qsizetype room = kMaxLineLength - last.text.size();
    if (piece.size() <= room) {
        last.text += piece;
    } else {
        last.text += piece.left(std::max<qsizetype>(0, room));
        last.cut = true;
        last.cutChars += piece.size() - std::max<qsizetype>(0, room);
    }
    m_widest = std::max(m_widest, static_cast<int>(last.text.size()));
    const QModelIndex changed = index(rowCount() - 1);
    Q_EMIT dataChanged(changed, changed, {Qt::DisplayRole});
}

void SessionLogModel::appendText(Kind kind, QStringView text) {
    if (text.isEmpty()) {
        return;
    }
    qsizetype start = 0;
    // Continue the open line of the same stream.
    if (!m_lines.empty() && m_lines.back().open && m_lines.back().kind == kind) {
        const qsizetype end = text.indexOf(QLatin1Char('\n'));
        appendToLast(text.mid(0, end < 0 ? text.size() : end));
        if (end < 0) {
            return;
        }
        m_lines.back().open = false;
        start = end + 1;
    } else if (!m_lines.empty() && m_lines.back().open) {
        // Another stream interrupts an open line: that line stays as it is, closed.
        m_lines.back().open = false;
    }

    std::deque<Line> fresh;
    while (start < text.size()) {
        const qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        const QStringView piece = text.mid(start, (end < 0 ? text.size() : end) - start);
        Line line;
        line.kind = kind;
        line.open = end < 0;
        if (piece.size() > kMaxLineLength) {
            line.text = piece.left(kMaxLineLength).toString();
            line.cut = true;
            line.cutChars = piece.size() - kMaxLineLength;
        } else {
            line.text = piece.toString();
        }
        fresh.push_back(std::move(line));
        if (end < 0) {
            break;
        }
        start = end + 1;
    }
    pushLines(std::move(fresh));
}

void SessionLogModel::appendLine(Kind kind, const QString& line) {
    if (!m_lines.empty()) {
        m_lines.back().open = false;
    }
    std::deque<Line> one(1);
    one.front().kind = kind;
    one.front().text = line.left(kMaxLineLength);
    if (line.size() > kMaxLineLength) {
        one.front().cut = true;
        one.front().cutChars = line.size() - kMaxLineLength;
    }
    pushLines(std::move(one));
}

void SessionLogModel::pushLines(std::deque<Line>&& lines) {
    if (lines.empty()) {
        return;
    }
    // Lines that would be trimmed at once are never inserted (a burst larger than the
    // whole log costs only its last maximumLines() lines).
    if (lines.size() > static_cast<size_t>(m_maximumLines)) {
        const size_t skip = lines.size() - static_cast<size_t>(m_maximumLines);
        m_dropped += static_cast<qint64>(skip);
        lines.erase(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(skip));
    }
    for (const Line& line : lines) {
        m_widest = std::max(m_widest, static_cast<int>(line.text.size()));
    }
    const int first = rowCount();
    beginInsertRows(QModelIndex(), first, first + static_cast<int>(lines.size()) - 1);
    std::move(lines.begin(), lines.end(), std::back_inserter(m_lines));
    endInsertRows();
    trimFront();
}

void SessionLogModel::trimFront() {
    const int excess = rowCount() - m_maximumLines;
    if (excess <= 0) {
        return;
    }
    beginRemoveRows(QModelIndex(), 0, excess - 1);
    m_lines.erase(m_lines.begin(), m_lines.begin() + excess);
    m_dropped += excess;
    endRemoveRows();
}

void SessionLogModel::clear() {
    beginResetModel();
    m_lines.clear();
    m_dropped = 0;
    m_widest = 0;
    endResetModel();
}

}  // namespace zeus
