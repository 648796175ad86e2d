// SPDX-License-Identifier: MIT
#include "historymodel.h"

#include "formatting.h"
#include "outcomesummary.h"

namespace Cordon::Ui {

HistoryModel::HistoryModel(QObject *parent) : QAbstractTableModel(parent) {}

int HistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int HistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString HistoryModel::outcomeOf(const QJsonObject &run)
{
    const QString state = run.value(QStringLiteral("state")).toString();
    if (state != QLatin1String("finished"))
        return state;
    return run.value(QStringLiteral("error_class")).toString();
}

QString HistoryModel::whatOf(const QJsonObject &run)
{
    const QString language = run.value(QStringLiteral("language")).toString();
    if (!language.isEmpty())
        return language;
    QStringList command;
    for (const QJsonValue &part : run.value(QStringLiteral("command")).toArray())
        command.append(part.toString());
    return Format::displayName(command.join(QLatin1Char(' ')));
}

QVariant HistoryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const QJsonObject &run = m_rows.at(index.row());
    switch (role) {
    case RunIdRole:
        return run.value(QStringLiteral("id")).toString();
    case RunRole:
        return run;
    case OutcomeRole:
        return outcomeOf(run);
    case Qt::ToolTipRole:
        if (index.column() == OutcomeColumn)
            return OutcomeSummary::fromRun(run).explanation;
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == DurationColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case StartedColumn:
        return Format::dateTime(run.value(QStringLiteral("started_at")).toInteger());
    case ContainerColumn:
        return containerName(run.value(QStringLiteral("container")).toString());
    case WhatColumn:
        return whatOf(run);
    case OutcomeColumn: {
        const QString outcome = outcomeOf(run);
        const int exitCode = run.value(QStringLiteral("exit_code")).toInt();
        const int signal = run.value(QStringLiteral("signal")).toInt();
        if (run.value(QStringLiteral("state")).toString() != QLatin1String("finished"))
            return outcome;
        if (signal > 0)
            return tr("%1 · %2").arg(outcome, OutcomeSummary::signalName(signal));
        return tr("%1 · exit %2").arg(outcome).arg(exitCode);
    }
    case DurationColumn:
        if (run.value(QStringLiteral("state")).toString() == QLatin1String("running"))
            return QString();
        return Format::duration(run.value(QStringLiteral("wall_ms")).toInteger());
    default:
        return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StartedColumn:
        return tr("Started");
    case ContainerColumn:
        return tr("Container");
    case WhatColumn:
        return tr("Ran");
    case OutcomeColumn:
        return tr("Outcome");
    case DurationColumn:
        return tr("Took");
    default:
        return {};
    }
}

void HistoryModel::resetFrom(const QJsonArray &runs, qint64 total)
{
    beginResetModel();
    m_rows.clear();
    for (const QJsonValue &run : runs)
        m_rows.append(run.toObject());
    m_total = qMax<qint64>(total, m_rows.size());
    endResetModel();
}

void HistoryModel::append(const QJsonArray &runs, qint64 total)
{
    // Runs started since the first page push older ones down; a run already shown is not shown twice.
    QList<QJsonObject> fresh;
    for (const QJsonValue &value : runs) {
        const QJsonObject run = value.toObject();
        if (rowOf(run.value(QStringLiteral("id")).toString()) < 0)
            fresh.append(run);
    }
    if (!fresh.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + fresh.size() - 1));
        m_rows.append(fresh);
        endInsertRows();
    }
    m_total = qMax<qint64>(total, m_rows.size());
}

QString HistoryModel::containerName(const QString &containerId) const
{
    const QString name = m_names ? m_names(containerId) : QString();
    return name.isEmpty() ? containerId.left(8) : Format::displayName(name);
}

int HistoryModel::rowOf(const QString &runId) const
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).value(QStringLiteral("id")).toString() == runId)
            return row;
    }
    return -1;
}

} // namespace Cordon::Ui
