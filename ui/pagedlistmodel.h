// SPDX-License-Identifier: MIT
// Rows from one of the daemon's paged history queries (`history.runs`, `history.events`), newest first, one
// page at a time: the first page replaces the rows, the next is appended. Rows are the objects as the daemon
// sent them; subclasses say how to show them.
#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

#include <functional>

namespace Cordon::Ui {

class PagedListModel : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PagedListModel)

public:
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // An answer: the first page, or the next one.
    void resetFrom(const QJsonArray &items, qint64 total);
    void append(const QJsonArray &items, qint64 total);
    qint64 total() const { return m_total; }
    bool canLoadMore() const { return m_rows.size() < m_total; }
    // The row whose "id" is `id` (a run's string id, an event's number), or -1.
    int rowOf(const QJsonValue &id) const;
    const QJsonObject &item(int row) const { return m_rows.at(row); }

    // Names for container ids (the window's container list), for rows the daemon sent without their
    // container's name; unknown ids are shown as they are.
    void setContainerNames(std::function<QString(const QString &)> names) { m_names = std::move(names); }
    // The name of a row's container: the `container_name` the history keeps (a deleted container's too),
    // else the window's, escaped for display.
    QString containerName(const QJsonObject &row) const;
    // The same rule for any row: the name the history keeps (`container_name`), else the one `names` gives
    // for its container's id, else the id itself (a container the history never named).
    static QString containerName(const QJsonObject &row,
                                 const std::function<QString(const QString &)> &names);

protected:
    // One title per column, in the order of the subclass's Column enum.
    PagedListModel(QStringList headers, QObject *parent);

private:
    QStringList m_headers;
    QList<QJsonObject> m_rows;
    qint64 m_total = 0;
    std::function<QString(const QString &)> m_names;
};

} // namespace Cordon::Ui
