// SPDX-License-Identifier: MIT
// The daemon's recorded events (`history.events`), newest first, one page at a time: containers created,
// started, stopped, expired and deleted, runs started and ended, files in and out, every egress proxy
// decision. Each row has the time, the container, the kind and one line in words (EventWords::describe).
#pragma once

#include "pagedlistmodel.h"

namespace Cordon::Ui {

class EventTimelineModel final : public PagedListModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventTimelineModel)

public:
    enum Column
    {
        TimeColumn,
        ContainerColumn,
        KindColumn,
        DescriptionColumn,
        ColumnCount
    };
    enum Role
    {
        EventRole = Qt::UserRole + 1, // the event object (QJsonObject)
        KindRole,
    };

    explicit EventTimelineModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
};

} // namespace Cordon::Ui
