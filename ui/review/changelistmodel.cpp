#include "review/changelistmodel.h"

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QFont>
#include <QHash>
#include <QIcon>
#include <QLocale>
#include <QPalette>
#include <QPixmap>
#include <QStyle>

#include <algorithm>

namespace zeus {

namespace {

// Two changes are the same when everything Apply would write is the same.
QString identity(const Change& change) {
    return Change::kindLetter(change.kind) + QLatin1Char('\n') + change.path + QLatin1Char('\n')
           + QString::fromLatin1(change.hasBefore ? change.before.sha256 : QByteArray("-")) + QLatin1Char('\n')
           + QString::fromLatin1(change.hasAfter ? change.after.sha256 : QByteArray("-")) + QLatin1Char('\n')
           + QString::number(change.hasAfter ? change.after.mode : 0, 8);
}

QColor kindColor(Change::Kind kind) {
    switch (kind) {
        case Change::Kind::Added:
            return {0x1a, 0x7f, 0x37};
        case Change::Kind::Modified:
            return {0x9a, 0x67, 0x00};
        case Change::Kind::Deleted:
            return {0xcf, 0x22, 0x2e};
        case Change::Kind::ModeChanged:
            return {0x82, 0x50, 0xdf};
        case Change::Kind::TypeChanged:
            return {0xbc, 0x4c, 0x00};
    }
    return {};
}

bool isFile(const Change& change) {
    return (change.hasBefore && change.before.type == ManifestEntry::Type::File)
           || (change.hasAfter && change.after.type == ManifestEntry::Type::File);
}

}  // namespace

ChangeListModel::ChangeListModel(QObject* parent) : QAbstractTableModel(parent) {}

int ChangeListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_changes.size());
}

int ChangeListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString ChangeListModel::kindName(Change::Kind kind) {
    switch (kind) {
        case Change::Kind::Added:
            return tr("Added");
        case Change::Kind::Modified:
            return tr("Modified");
        case Change::Kind::Deleted:
            return tr("Deleted");
        case Change::Kind::ModeChanged:
            return tr("Executable bit changed");
        case Change::Kind::TypeChanged:
            return tr("Type changed");
    }
    return {};
}

qint64 ChangeListModel::sizeDeltaBytes(const Change& change) {
    const qint64 before = change.hasBefore ? change.before.size : 0;
    const qint64 after = change.hasAfter ? change.after.size : 0;
    return after - before;
}

QString ChangeListModel::sizeDelta(const Change& change) {
    const qint64 delta = sizeDeltaBytes(change);
    if (delta == 0) {
        return isFile(change) && change.kind != Change::Kind::ModeChanged ? tr("±0 bytes") : QString();
    }
    const QString size = QLocale().formattedDataSize(delta < 0 ? -delta : delta, 1);
    return (delta < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + size;
}

QVariant ChangeListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_changes.size()) {
        return {};
    }
    const Change& change = m_changes.at(index.row());
    const int column = index.column();

    if (role == Qt::ToolTipRole) {
        const QString notApplied = change.notApplicableReason.isEmpty() ? tr("This change is never applied as files.")
                                                                        : change.notApplicableReason;
        if (column == KindColumn) {
            QString text = kindName(change.kind);
            if (change.execChanged && change.hasAfter) {
                text += QLatin1String(": ")
                        + (change.after.isExecutable() ? tr("now executable") : tr("no longer executable"));
            }
            return change.applicable ? text : text + QLatin1Char('\n') + notApplied;
        }
        if (!change.applicable) {
            return notApplied;
        }
        if (change.flagged && (column == CheckColumn || column == PathColumn)) {
            return tr("Makes your computer run code: %1").arg(change.flagReason);
        }
        if (column == SizeColumn) {
            const QLocale locale;
            const QString before =
                change.hasBefore ? tr("%1 bytes").arg(locale.toString(change.before.size)) : tr("none");
            const QString after = change.hasAfter ? tr("%1 bytes").arg(locale.toString(change.after.size)) : tr("none");
            return tr("Before: %1, after: %2").arg(before, after);
        }
        if (column == PathColumn) {
            return change.path;
        }
        return {};
    }
    if (role == Qt::ForegroundRole) {
        if (!change.applicable) {
            return QApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        }
        if (column == KindColumn) {
            return QBrush(kindColor(change.kind));
        }
        return {};
    }

    switch (column) {
        case CheckColumn:
            if (role == Qt::CheckStateRole && change.applicable) {
                return m_checked.at(index.row()) ? Qt::Checked : Qt::Unchecked;
            }
            if (role == Qt::AccessibleTextRole) {
                return change.applicable ? (m_checked.at(index.row()) ? tr("picked for Apply") : tr("not picked"))
                                         : tr("cannot be applied");
            }
            break;
        case KindColumn:
            if (role == Qt::DisplayRole) {
                return Change::kindLetter(change.kind);
            }
            if (role == Qt::AccessibleTextRole) {
                return kindName(change.kind);
            }
            if (role == Qt::TextAlignmentRole) {
                return Qt::Alignment(Qt::AlignCenter).toInt();
            }
            if (role == Qt::FontRole) {
                QFont font;
                font.setBold(true);
                return font;
            }
            break;
        case PathColumn:
            if (role == Qt::DisplayRole) {
                const bool folder =
                    (change.hasAfter && change.after.type == ManifestEntry::Type::Directory)
                    || (!change.hasAfter && change.hasBefore && change.before.type == ManifestEntry::Type::Directory);
                return folder ? change.path + QLatin1Char('/') : change.path;
            }
            if (role == Qt::DecorationRole) {
                // Paths without the sign keep its room, so every path starts at the same place.
                static const QIcon none = [] {
                    QPixmap blank(16, 16);
                    blank.fill(Qt::transparent);
                    return QIcon(blank);
                }();
                return change.flagged ? QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning) : none;
            }
            if (role == Qt::AccessibleTextRole) {
                return change.flagged ? tr("%1, runs code on your computer").arg(change.path) : change.path;
            }
            break;
        case SizeColumn:
            if (role == Qt::DisplayRole) {
                return sizeDelta(change);
            }
            if (role == Qt::TextAlignmentRole) {
                return Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter).toInt();
            }
            break;
        default:
            break;
    }
    return {};
}

bool ChangeListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.column() != CheckColumn || role != Qt::CheckStateRole) {
        return false;
    }
    return setChecked(index.row(), value.value<Qt::CheckState>() == Qt::Checked);
}

Qt::ItemFlags ChangeListModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) {
        return Qt::NoItemFlags;
    }
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == CheckColumn && m_changes.at(index.row()).applicable) {
        flags |= Qt::ItemIsUserCheckable;
    }
    return flags;
}

QVariant ChangeListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
            case PathColumn:
                return tr("Path");
            case SizeColumn:
                return tr("Size");
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case CheckColumn:
                return tr("Picked for Apply Selected");
            case KindColumn:
                return tr("A added, M modified, D deleted, X executable bit changed, T type changed");
            case SizeColumn:
                return tr("How much the file grew or shrank");
            default:
                return {};
        }
    }
    return {};
}

void ChangeListModel::setChanges(const QList<Change>& changes) {
    QHash<QString, bool> previous;
    for (int row = 0; row < m_changes.size(); ++row) {
        previous.insert(identity(m_changes.at(row)), m_checked.at(row));
    }
    beginResetModel();
    m_changes = changes;
    m_checked.clear();
    m_checked.reserve(m_changes.size());
    for (const Change& change : std::as_const(m_changes)) {
        const bool checked = previous.value(identity(change), checkedByDefault(change));
        m_checked.append(change.applicable && checked);
    }
    endResetModel();
    Q_EMIT checkedChanged();
}

int ChangeListModel::rowOf(const QString& path) const {
    for (int row = 0; row < m_changes.size(); ++row) {
        if (m_changes.at(row).path == path) {
            return row;
        }
    }
    return -1;
}

bool ChangeListModel::isChecked(int row) const {
    return row >= 0 && row < m_checked.size() && m_checked.at(row);
}

bool ChangeListModel::setChecked(int row, bool checked) {
    if (row < 0 || row >= m_changes.size() || !m_changes.at(row).applicable) {
        return false;
    }
    if (m_checked.at(row) != checked) {
        m_checked[row] = checked;
        const QModelIndex cell = index(row, CheckColumn);
        Q_EMIT dataChanged(cell, cell, {Qt::CheckStateRole, Qt::AccessibleTextRole});
        Q_EMIT checkedChanged();
    }
    return true;
}

QList<Change> ChangeListModel::checkedChanges() const {
    QList<Change> checked;
    for (int row = 0; row < m_changes.size(); ++row) {
        if (m_checked.at(row)) {
            checked.append(m_changes.at(row));
        }
    }
    return checked;
}

int ChangeListModel::checkedCount() const {
    return static_cast<int>(std::count(m_checked.cbegin(), m_checked.cend(), true));
}

int ChangeListModel::flaggedCount() const {
    return static_cast<int>(
        std::count_if(m_changes.cbegin(), m_changes.cend(), [](const Change& change) { return change.flagged; }));
}

}  // namespace zeus
