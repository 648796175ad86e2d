// SPDX-License-Identifier: MIT
#include "pagedlistmodel.h"

#include "core/formatting.h"

namespace Cordon::Ui {

PagedListModel::PagedListModel(QStringList headers, QObject *parent)
    : QAbstractTableModel(parent), m_headers(std::move(headers))
{}

int PagedListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PagedListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant PagedListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return m_headers.value(section);
}

void PagedListModel::resetFrom(const QJsonArray &items, qint64 total)
{
    beginResetModel();
    m_rows.clear();
    m_rows.reserve(items.size());
    for (const QJsonValue &item : items)
        m_rows.append(item.toObject());
    m_total = qMax<qint64>(total, m_rows.size());
    endResetModel();
}

void PagedListModel::append(const QJsonArray &items, qint64 total)
{
    // Rows recorded since the first page push older ones down; a row already shown is not shown twice.
    QList<QJsonObject> fresh;
    for (const QJsonValue &value : items) {
        const QJsonObject item = value.toObject();
        if (rowOf(item.value(QStringLiteral("id"))) < 0)
            fresh.append(item);
    }
    if (!fresh.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + fresh.size() - 1));
        m_rows.append(fresh);
        endInsertRows();
    }
    m_total = qMax<qint64>(total, m_rows.size());
}

int PagedListModel::rowOf(const QJsonValue &id) const
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).value(QStringLiteral("id")) == id)
            return row;
    }
    return -1;
}

QString PagedListModel::containerName(const QJsonObject &row) const
{
    return containerName(row, m_names);
}

QString PagedListModel::containerName(const QJsonObject &row,
                                      const std::function<QString(const QString &)> &names)
{
    const QString containerId = row.value(QStringLiteral("container")).toString();
    QString name = row.value(QStringLiteral("container_name")).toString();
    if (name.isEmpty() && names)
        name = names(containerId);
    return name.isEmpty() ? containerId : Format::displayName(name);
}

} // namespace Cordon::Ui
