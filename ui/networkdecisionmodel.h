// SPDX-License-Identifier: MIT
// A container's recent egress decisions, one row per host and decision, from network.summary: how often, the
// latest reason and when. Newest first. Host names come from code in the container (whatever it asked the
// proxy for), so they are shown escaped like file names.
#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>

namespace Cordon::Ui {

class NetworkDecisionModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NetworkDecisionModel)

public:
    enum Column
    {
        HostColumn,
        DecisionColumn,
        CountColumn,
        ReasonColumn,
        TimeColumn,
        ColumnCount
    };
    enum Role
    {
        HostRole = Qt::UserRole + 1, // the host as the daemon recorded it (not escaped)
        DecisionRole,                // "allowed", "denied", "error"
    };

    explicit NetworkDecisionModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The `hosts` of a network.summary answer.
    void setHosts(const QJsonArray &hosts);
    void clear();
    // The row for this host and decision, or -1.
    int find(const QString &host, const QString &decision) const;

private:
    struct Row
    {
        QString host;
        QString target;          // with an empty host: the request line, quoted by the daemon
        bool suppressed = false; // decisions past the daemon's row limit, counted only
        QString decision;
        qint64 count = 0;
        QString reason;
        qint64 lastAt = 0;
    };
    QList<Row> m_rows;
};

} // namespace Cordon::Ui
