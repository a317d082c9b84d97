#pragma once

#include "review/changeset.h"

#include <QAbstractTableModel>
#include <QList>

namespace zeus {

// The change list of one review copy (SPEC §10): a box to pick the change for Apply, its kind (A, M, D, X, T), its
// path and how much it grew or shrank.
//
// Picking follows what Apply may do: a change that can never be applied (inside .git) is greyed out and has no box;
// one that makes the host run code (flagged) starts unpicked with a warning sign and its reason, so the user opts
// in to each; every other change starts picked. A new list keeps the user's picks for the changes it still holds
// unchanged. Owns its rows only: it never asks the service anything.
class ChangeListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { CheckColumn, KindColumn, PathColumn, SizeColumn, ColumnCount };

    explicit ChangeListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Replaces the list. A change equal to one of the old list (path, kind, both sides) keeps its pick.
    void setChanges(const QList<Change>& changes);
    void clear() { setChanges({}); }
    const QList<Change>& changes() const { return m_changes; }
    const Change& change(int row) const { return m_changes.at(row); }
    // The row of a path, -1 when the list does not hold it.
    int rowOf(const QString& path) const;

    bool isChecked(int row) const;
    // False (and nothing changes) for a change that cannot be applied.
    bool setChecked(int row, bool checked);
    // The picked changes, in list order.
    QList<Change> checkedChanges() const;
    int checkedCount() const;
    int flaggedCount() const;

    // What the list shows for a change, for the detail pane too.
    static QString kindName(Change::Kind kind);
    // "+1.2 KiB", "−300 bytes", "" for a folder or no size change of a non-file.
    static QString sizeDelta(const Change& change);
    static qint64 sizeDeltaBytes(const Change& change);
    // By default a change is picked when it can be applied and is not flagged.
    static bool checkedByDefault(const Change& change) { return change.applicable && !change.flagged; }

Q_SIGNALS:
    // The picks changed (by the user or by a new list).
    void checkedChanged();

private:
    QList<Change> m_changes;
    QList<bool> m_checked;
};

}  // namespace zeus
