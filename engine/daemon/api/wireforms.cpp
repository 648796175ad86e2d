// SPDX-License-Identifier: MIT
#include "daemon/api/wireforms.h"

#include <QJsonDocument>

namespace Cordon::Api {

QJsonObject containerToJson(const Containers::ContainerSnapshot &container)
{
    const Store::ContainerRecord &record = container.record;
    const Policy::ContainerPolicy &policy = container.policy;
    return {{QStringLiteral("id"), record.id},
            {QStringLiteral("name"), policy.name},
            {QStringLiteral("state"), Containers::containerStateName(container.state)},
            {QStringLiteral("policy"), QJsonDocument::fromJson(policy.canonicalJson()).object()},
            {QStringLiteral("policy_version"), record.policyVersion},
            {QStringLiteral("created_at"), record.createdAt},
            {QStringLiteral("last_active_at"), record.lastActiveAt},
            // An ended container has no deadline left: 0, as for ended_at of one that lives.
            {QStringLiteral("expires_at"), record.endedAt == 0 ? record.expiresAt : 0},
            {QStringLiteral("ended_at"), record.endedAt},
            {QStringLiteral("time_scale"), record.timeScale},
            {QStringLiteral("memory_limit"), policy.memoryLimitBytes},
            {QStringLiteral("limits_enforced"), container.limitsEnforced},
            {QStringLiteral("active_runs"), container.activeRuns}};
}

QJsonArray containersToJson(const QList<Containers::ContainerSnapshot> &containers)
{
    QJsonArray array;
    for (const Containers::ContainerSnapshot &container : containers)
        array.append(containerToJson(container));
    return array;
}

QJsonObject memorySampleToJson(const Containers::MemorySample &sample)
{
    return {{QStringLiteral("container"), sample.container},
            {QStringLiteral("at"), sample.at},
            {QStringLiteral("current"), sample.current},
            {QStringLiteral("peak"), sample.peak},
            {QStringLiteral("limit"), sample.limit},
            {QStringLiteral("oom_kills"), sample.oomKills},
            {QStringLiteral("pids"), sample.pids},
            {QStringLiteral("pids_limit"), sample.pidsLimit},
            {QStringLiteral("pids_limit_hits"), sample.pidsLimitHits}};
}

QJsonArray memorySamplesToJson(const QList<Containers::MemorySample> &samples)
{
    QJsonArray array;
    for (const Containers::MemorySample &sample : samples)
        array.append(memorySampleToJson(sample));
    return array;
}

} // namespace Cordon::Api
