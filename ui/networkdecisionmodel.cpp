// SPDX-License-Identifier: MIT
#include "networkdecisionmodel.h"

#include "allowlistmodel.h"
#include "core/formatting.h"

#include <QGuiApplication>
#include <QJsonObject>
#include <QPalette>

#include <algorithm>

namespace Cordon::Ui {

NetworkDecisionModel::NetworkDecisionModel(QObject *parent) : QAbstractTableModel(parent) {}

int NetworkDecisionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int NetworkDecisionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NetworkDecisionModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    if (role == HostRole)
        return row.host;
    if (role == DecisionRole)
        return row.decision;
    if (role == Qt::ForegroundRole && index.column() == DecisionColumn &&
        row.decision != QLatin1String("allowed"))
        return AllowlistModel::problemColour(QGuiApplication::palette());
    if (role == Qt::TextAlignmentRole && index.column() == CountColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case HostColumn:
        if (row.suppressed)
            return tr("(past the row limit: counted, not itemised)");
        if (!row.host.isEmpty())
            return Format::displayName(row.host);
        return row.target.isEmpty() ? tr("(no request line)") : tr("not understood: %1").arg(row.target);
    case DecisionColumn:
        if (row.decision == QLatin1String("allowed"))
            return tr("allowed");
        if (row.decision == QLatin1String("denied"))
            return tr("denied");
        return row.decision == QLatin1String("error") ? tr("error") : row.decision;
    case CountColumn:
        return QString::number(row.count);
    case ReasonColumn:
        return Format::displayName(row.reason);
    case TimeColumn:
        return Format::dateTime(row.lastAt);
    default:
        return {};
    }
}

QVariant NetworkDecisionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case HostColumn:
        return tr("Host");
    case DecisionColumn:
        return tr("Decision");
    case CountColumn:
        return tr("Count");
    case ReasonColumn:
        return tr("Last reason");
    case TimeColumn:
        return tr("Last time");
    default:
        return {};
    }
}

void NetworkDecisionModel::setHosts(const QJsonArray &hosts)
{
    QList<Row> rows;
    for (const QJsonValue &value : hosts) {
        const QJsonObject host = value.toObject();
        rows.append(Row{host.value(QStringLiteral("host")).toString(),
                        host.value(QStringLiteral("target")).toString(),
                        host.value(QStringLiteral("suppressed")).toBool(),
                        host.value(QStringLiteral("decision")).toString(),
                        host.value(QStringLiteral("count")).toInteger(),
                        host.value(QStringLiteral("last_reason")).toString(),
                        host.value(QStringLiteral("last_at")).toInteger()});
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row &a, const Row &b) { return a.lastAt > b.lastAt; });
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void NetworkDecisionModel::clear()
{
    setHosts({});
}

int NetworkDecisionModel::find(const QString &host, const QString &decision) const
{
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).host == host && m_rows.at(i).decision == decision)
            return int(i);
    }
    return -1;
}

} // namespace Cordon::Ui
