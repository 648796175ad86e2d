// SPDX-License-Identifier: MIT
#include "network/connectionrecord.h"

#include <QJsonArray>

namespace Cordon::Network {

QString decisionName(Decision decision)
{
    switch (decision) {
    case Decision::Allowed:
        return QStringLiteral("allowed");
    case Decision::Denied:
        return QStringLiteral("denied");
    case Decision::Error:
        break;
    }
    return QStringLiteral("error");
}

QJsonObject ConnectionRecord::toJson() const
{
    QJsonObject json{
        {QStringLiteral("container_id"), containerId},
        {QStringLiteral("connection_id"), qint64(connectionId)},
        {QStringLiteral("request_index"), requestIndex},
        {QStringLiteral("started_at"), startedAt.toString(Qt::ISODateWithMs)},
        {QStringLiteral("host"), host},
        {QStringLiteral("port"), int(port)},
        {QStringLiteral("method"), method},
        {QStringLiteral("path"), path},
        {QStringLiteral("decision"), decisionName(decision)},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("status"), status},
        {QStringLiteral("address"), address.isNull() ? QString() : address.toString()},
        {QStringLiteral("bytes_up"), bytesUp},
        {QStringLiteral("bytes_down"), bytesDown},
        {QStringLiteral("duration_ms"), durationMs},
    };
    if (host.isEmpty())
        json.insert(QStringLiteral("target"), target);
    if (tlsTerminated)
        json.insert(QStringLiteral("tls_terminated"), true);
    if (!secretsSent.isEmpty())
        json.insert(QStringLiteral("secrets_sent"), QJsonArray::fromStringList(secretsSent));
    if (!secretRefused.isEmpty())
        json.insert(QStringLiteral("secret_refused"), secretRefused);
    return json;
}

} // namespace Cordon::Network
