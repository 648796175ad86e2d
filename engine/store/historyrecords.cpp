// SPDX-License-Identifier: MIT
#include "store/historyrecords.h"

namespace Cordon::Store {

QJsonObject FileRecord::toJson() const
{
    QJsonObject json{{QStringLiteral("id"), id},
                     {QStringLiteral("container"), containerId},
                     {QStringLiteral("direction"), direction},
                     {QStringLiteral("scope"), scope},
                     {QStringLiteral("path"), path},
                     {QStringLiteral("sha256"), sha256},
                     {QStringLiteral("size"), size},
                     {QStringLiteral("at"), at}};
    if (!runId.isEmpty())
        json.insert(QStringLiteral("run_id"), runId);
    return json;
}

QJsonObject EventRecord::toJson() const
{
    QJsonObject json{{QStringLiteral("id"), id},
                     {QStringLiteral("at"), at},
                     {QStringLiteral("kind"), kind},
                     {QStringLiteral("detail"), detail}};
    if (!containerId.isEmpty())
        json.insert(QStringLiteral("container"), containerId);
    if (!runId.isEmpty())
        json.insert(QStringLiteral("run_id"), runId);
    return json;
}

} // namespace Cordon::Store
