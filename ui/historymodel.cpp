// SPDX-License-Identifier: MIT
#include "historymodel.h"

#include "core/formatting.h"
#include "core/runsummary.h"
#include "messagetone.h"
#include "outcomesummary.h"
#include "paletteicon.h"

#include <QApplication>

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
    return Format::displayName(RunSummary::of(run));
}

bool HistoryModel::failed(const QJsonObject &run)
{
    const QString state = run.value(QStringLiteral("state")).toString();
    if (state == QLatin1String("interrupted"))
        return true;
    return state == QLatin1String("finished") && outcomeOf(run) != QLatin1String("ok");
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
        if (index.column() == WhatColumn) {
            const QString language = run.value(QStringLiteral("language")).toString();
            return language.isEmpty() ? whatOf(run) : tr("%1: %2").arg(language, whatOf(run));
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == OutcomeColumn && failed(run))
            return paletteIcon(QStringLiteral("outcome-failed"),
                               toneColours(Tone::Failure, QApplication::palette()).accent);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == OutcomeColumn && failed(run))
            return toneColours(Tone::Failure, QApplication::palette()).accent;
        return {};
    case Qt::AccessibleTextRole:
        if (index.column() == OutcomeColumn && failed(run))
            return tr("Failed: %1").arg(data(index, Qt::DisplayRole).toString());
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
        return containerName(run);
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
