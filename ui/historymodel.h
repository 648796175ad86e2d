// SPDX-License-Identifier: MIT
// Runs from the daemon's history (`history.runs`), newest first, one page at a time (PagedListModel). Rows
// are the run objects as the daemon sent them (without output).
#pragma once

#include "pagedlistmodel.h"

namespace Cordon::Ui {

class HistoryModel final : public PagedListModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryModel)

public:
    enum Column
    {
        StartedColumn,
        ContainerColumn,
        WhatColumn,
        OutcomeColumn,
        DurationColumn,
        ColumnCount
    };
    enum Role
    {
        RunIdRole = Qt::UserRole + 1,
        RunRole,     // the run object (QJsonObject)
        OutcomeRole, // the error class ("ok", "oom", ...), or the state while running or interrupted
    };

    explicit HistoryModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // The run's class for filters and the Outcome column.
    static QString outcomeOf(const QJsonObject &run);
    // What ran, escaped for display: the first meaningful line of its code (RunSummary), else its language
    // or command line.
    static QString whatOf(const QJsonObject &run);
    // It ended without success (any class but ok, or interrupted): marked in the Outcome column with the
    // failure icon and colour (messagetone.h), so that failures stand out in a long list.
    static bool failed(const QJsonObject &run);
};

} // namespace Cordon::Ui
