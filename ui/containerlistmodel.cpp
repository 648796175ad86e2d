// SPDX-License-Identifier: MIT
#include "containerlistmodel.h"

#include "core/formatting.h"
#include "messagetone.h"
#include "paletteicon.h"

#include <algorithm>

#include <QApplication>
#include <QDateTime>
#include <QFontDatabase>
#include <QPalette>

namespace Cordon::Ui {

namespace {

QString idOf(const QJsonObject &container)
{
    return container.value(QStringLiteral("id")).toString();
}

QString stateOf(const QJsonObject &container)
{
    return container.value(QStringLiteral("state")).toString();
}

bool isAuditContainer(const QJsonObject &container)
{
    return container.value(QStringLiteral("origin")).toString().startsWith(QLatin1String("audit:"));
}

bool runningCode(const QJsonObject &container)
{
    return container.value(QStringLiteral("active_runs")).toInt() > 0;
}

bool hasDeadline(const QJsonObject &container)
{
    const QString state = stateOf(container);
    return state == QLatin1String("running") || state == QLatin1String("stopped");
}

QString stateText(const QString &state)
{
    if (state == QLatin1String("running"))
        return ContainerListModel::tr("Running");
    if (state == QLatin1String("stopped"))
        return ContainerListModel::tr("Stopped");
    if (state == QLatin1String("expired"))
        return ContainerListModel::tr("Expired");
    if (state == QLatin1String("deleted"))
        return ContainerListModel::tr("Deleted");
    return state;
}

} // namespace

ContainerListModel::ContainerListModel(QObject *parent)
    : QAbstractTableModel(parent), m_clock([] { return QDateTime::currentMSecsSinceEpoch(); })
{
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &ContainerListModel::tick);
    m_tick.start();
}

int ContainerListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ContainerListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

qint64 ContainerListModel::idlePeriodMs(const QJsonObject &container)
{
    const QJsonObject policy = container.value(QStringLiteral("policy")).toObject();
    const double minutes = policy.value(QStringLiteral("expires_after"))
                               .toObject()
                               .value(QStringLiteral("minutes"))
                               .toDouble(20);
    const double scale = qMax(1.0, container.value(QStringLiteral("time_scale")).toDouble(1));
    return static_cast<qint64>(minutes * 60000.0 / scale);
}

qint64 ContainerListModel::remainingMs(const QJsonObject &container) const
{
    return qMax<qint64>(0, container.value(QStringLiteral("expires_at")).toInteger() - m_clock());
}

QVariant ContainerListModel::display(const QJsonObject &container, int column) const
{
    switch (column) {
    case NameColumn:
        return container.value(QStringLiteral("name")).toString();
    case IdColumn:
        return Format::shortId(idOf(container));
    case StateColumn:
        // The same width whether or not code runs: an icon says that, so columns do not jump (or clip).
        return stateText(stateOf(container));
    case MemoryColumn:
        return Format::bytes(container.value(QStringLiteral("memory_limit")).toInteger());
    case IdleColumn:
        return hasDeadline(container) ? Format::countdown(remainingMs(container)) : QStringLiteral("—");
    }
    return {};
}

QVariant ContainerListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QJsonObject &container = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(container, index.column());
    case Qt::DecorationRole:
        if (index.column() == StateColumn && runningCode(container))
            return paletteIcon(QStringLiteral("outcome-running"));
        return {};
    case Qt::FontRole:
        if (index.column() == IdColumn)
            return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == IdColumn)
            return tr("%1 (Copy Container ID copies it whole)").arg(idOf(container));
        if (index.column() == StateColumn && runningCode(container))
            return tr("%1, running code now").arg(stateText(stateOf(container)));
        if (index.column() == IdleColumn && hasDeadline(container) &&
            container.contains(QStringLiteral("grace_since")))
            return tr("Grace period: idle past its deadline while no daemon ran; deleted with its files "
                      "after %1 more without activity")
                .arg(Format::countdown(remainingMs(container)));
        if (index.column() == IdleColumn && hasDeadline(container))
            return tr("Deleted with its files after %1 more without activity")
                .arg(Format::countdown(remainingMs(container)));
        if (stateOf(container) == QLatin1String("expired"))
            return tr("Expired after being idle: its files are gone");
        return tr("%1 (%2)").arg(container.value(QStringLiteral("name")).toString(), idOf(container));
    case Qt::AccessibleTextRole: {
        QString text = display(container, index.column()).toString();
        if (index.column() == StateColumn && runningCode(container))
            text = tr("%1, running code").arg(text);
        return tr("%1: %2").arg(headerData(index.column(), Qt::Horizontal).toString(), text);
    }
    case Qt::TextAlignmentRole:
        if (index.column() == MemoryColumn || index.column() == IdleColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole: {
        const QString state = stateOf(container);
        const QPalette palette = QApplication::palette();
        if (state == QLatin1String("expired") ||
            (state == QLatin1String("stopped") && index.column() == StateColumn))
            return palette.color(QPalette::Disabled, QPalette::Text);
        if (index.column() == IdleColumn && hasDeadline(container) &&
            remainingMs(container) < WarningFraction * double(idlePeriodMs(container)))
            return toneColours(Tone::Warning, palette).accent;
        return {};
    }
    case IdRole:
        return idOf(container);
    case ContainerRole:
        return container;
    case StateRole:
        return stateOf(container);
    case RemainingMsRole:
        return hasDeadline(container) ? remainingMs(container) : qint64(0);
    }
    return {};
}

QVariant ContainerListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(
            (section == MemoryColumn || section == IdleColumn ? Qt::AlignRight : Qt::AlignLeft) |
            Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case IdColumn:
        return tr("ID");
    case StateColumn:
        return tr("State");
    case MemoryColumn:
        return tr("Memory");
    case IdleColumn:
        return tr("Expires in");
    }
    return {};
}

int ContainerListModel::rowOf(const QString &id) const
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (idOf(m_rows.at(row)) == id)
            return row;
    }
    return -1;
}

QJsonObject ContainerListModel::container(const QString &id) const
{
    const int row = rowOf(id);
    return row < 0 ? QJsonObject() : m_rows.at(row);
}

QStringList ContainerListModel::liveNames() const
{
    QStringList names;
    for (const QJsonObject &row : m_rows)
        if (hasDeadline(row))
            names.append(row.value(QStringLiteral("name")).toString());
    return names;
}

bool ContainerListModel::hasDemo() const
{
    return std::any_of(m_rows.cbegin(), m_rows.cend(), [](const QJsonObject &row) {
        return hasDeadline(row) && row.value(QStringLiteral("demo")).toBool();
    });
}

void ContainerListModel::resetFrom(const QJsonArray &containers)
{
    QList<QString> incoming;
    for (const QJsonValue &value : containers)
        incoming.append(idOf(value.toObject()));
    for (int row = static_cast<int>(m_rows.size()) - 1; row >= 0; --row) {
        const QJsonObject &known = m_rows.at(row);
        if (!incoming.contains(idOf(known)) && stateOf(known) != QLatin1String("expired")) {
            beginRemoveRows({}, row, row);
            m_rows.removeAt(row);
            endRemoveRows();
        }
    }
    for (const QJsonValue &value : containers)
        update(value.toObject());
}

void ContainerListModel::update(const QJsonObject &container)
{
    const QString id = idOf(container);
    if (id.isEmpty())
        return;
    const int row = rowOf(id);
    // A Go/No-Go audit's own containers come and go while it runs: the audit's view reports on them, the
    // user's list is left as it was.
    if (stateOf(container) == QLatin1String("deleted") || isAuditContainer(container)) {
        if (row >= 0) {
            beginRemoveRows({}, row, row);
            m_rows.removeAt(row);
            endRemoveRows();
        }
        return;
    }
    if (row >= 0) {
        m_rows[row] = container;
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    // Newest first, as `cordon ls` and the daemon list them.
    const qint64 created = container.value(QStringLiteral("created_at")).toInteger();
    int at = 0;
    while (at < m_rows.size() && m_rows.at(at).value(QStringLiteral("created_at")).toInteger() >= created)
        ++at;
    beginInsertRows({}, at, at);
    m_rows.insert(at, container);
    endInsertRows();
}

void ContainerListModel::remove(const QString &id)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
}

void ContainerListModel::tick()
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (hasDeadline(m_rows.at(row)))
            Q_EMIT dataChanged(index(row, IdleColumn), index(row, IdleColumn),
                               {Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole, RemainingMsRole});
    }
}

} // namespace Cordon::Ui
