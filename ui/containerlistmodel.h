// SPDX-License-Identifier: MIT
// The containers as the daemon last described them, one row each, newest first. Fed by the container list
// that comes with every (re)subscription and by `container.changed` events, so changes made elsewhere (the
// CLI, expiry) appear without a refresh. The idle column counts down from `expires_at` once a second.
#pragma once

#include <QAbstractTableModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QTimer>

#include <functional>

namespace Cordon::Ui {

class ContainerListModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContainerListModel)

public:
    enum Column
    {
        NameColumn,
        IdColumn, // the short id (Format::shortId), a prefix every command accepts; the tooltip has it whole
        StateColumn,
        MemoryColumn,
        IdleColumn,
        ColumnCount
    };
    enum Role
    {
        IdRole = Qt::UserRole + 1,
        ContainerRole, // the whole container object (QJsonObject)
        StateRole,     // "running", "stopped", "expired"
        RemainingMsRole,
    };

    explicit ContainerListModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The daemon's full list after a (re)connection. Rows are updated in place, so a selection survives a
    // reconnect; containers that ended while we were away are dropped, except expired ones the user was
    // shown, which stay until dismissed: their plain "expired" state is the point.
    void resetFrom(const QJsonArray &containers);
    // One container's new state; `deleted` removes its row. A Go/No-Go audit's own containers (`origin`
    // "audit:<id>") are never listed.
    void update(const QJsonObject &container);
    // Forgets an ended container (the user dismissed it).
    void remove(const QString &id);

    int rowOf(const QString &id) const;
    QJsonObject container(const QString &id) const;
    // Names of the containers shown that are neither expired nor deleted: the daemon refuses a second one.
    QStringList liveNames() const;
    // Whether a container shown, neither expired nor deleted, follows the demo clock.
    bool hasDemo() const;

    // For tests: the clock the countdown reads (milliseconds since the epoch).
    void setClock(std::function<qint64()> clock) { m_clock = std::move(clock); }

    // The fraction of the idle period left, 0..1; warning below this.
    static constexpr double WarningFraction = 0.1;
    static qint64 idlePeriodMs(const QJsonObject &container);

private:
    void tick();
    QVariant display(const QJsonObject &container, int column) const;
    qint64 remainingMs(const QJsonObject &container) const;

    QList<QJsonObject> m_rows;
    QTimer m_tick;
    std::function<qint64()> m_clock;
};

} // namespace Cordon::Ui
