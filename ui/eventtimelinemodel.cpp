// SPDX-License-Identifier: MIT
#include "eventtimelinemodel.h"

#include "core/eventwords.h"
#include "core/formatting.h"

namespace Cordon::Ui {

EventTimelineModel::EventTimelineModel(QObject *parent)
    : PagedListModel({tr("Time"), tr("Container"), tr("Kind"), tr("What happened")}, parent)
{}

QVariant EventTimelineModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const QJsonObject &event = item(index.row());
    switch (role) {
    case EventRole:
        return event;
    case KindRole:
        return event.value(QStringLiteral("kind")).toString();
    case Qt::ToolTipRole:
        if (index.column() == DescriptionColumn)
            return EventWords::describe(event);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case TimeColumn:
        return Format::dateTime(event.value(QStringLiteral("at")).toInteger());
    case ContainerColumn: {
        const QString container = event.value(QStringLiteral("container")).toString();
        return container.isEmpty() ? tr("(daemon)") : containerName(event);
    }
    case KindColumn:
        return event.value(QStringLiteral("kind")).toString();
    case DescriptionColumn:
        return EventWords::describe(event);
    default:
        return {};
    }
}

} // namespace Cordon::Ui
