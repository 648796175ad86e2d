// SPDX-License-Identifier: MIT
#include "historymodel.h"

#include "core/formatting.h"
#include "outcomesummary.h"

namespace Cordon::Ui {

HistoryModel::HistoryModel(QObject *parent)
    : PagedListModel({tr("Started"), tr("Container"), tr("Ran"), tr("Outcome"), tr("Took")}, parent)
{}

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
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const QJsonObject &run = item(index.row());
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

} // namespace Cordon::Ui
