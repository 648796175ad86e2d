// SPDX-License-Identifier: MIT
// Runs from the daemon's history (`history.runs`), newest first, one page at a time: the first page replaces
// the rows, "load more" appends the next. Rows are the run objects as the daemon sent them (without output).
#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

#include <functional>

namespace Cordon::Ui {

class HistoryModel final : public QAbstractTableModel
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

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // A `history.runs` answer: the first page, or the next one.
    void resetFrom(const QJsonArray &runs, qint64 total);
    void append(const QJsonArray &runs, qint64 total);
    qint64 total() const { return m_total; }
    bool canLoadMore() const { return m_rows.size() < m_total; }
    int rowOf(const QString &runId) const;

    // Names for container ids (the window's container list); unknown ids are shown shortened.
    void setContainerNames(std::function<QString(const QString &)> names) { m_names = std::move(names); }
    QString containerName(const QString &containerId) const;

    // The run's class for filters and the Outcome column.
    static QString outcomeOf(const QJsonObject &run);
    // "python", "bash", or the command line.
    static QString whatOf(const QJsonObject &run);

private:
    QList<QJsonObject> m_rows;
    qint64 m_total = 0;
    std::function<QString(const QString &)> m_names;
};

} // namespace Cordon::Ui
