// SPDX-License-Identifier: MIT
#include "memoryhistory.h"

namespace Cordon::Ui {

MemorySample MemorySample::fromJson(const QJsonObject &json)
{
    return {json.value(QStringLiteral("at")).toInteger(),
            json.value(QStringLiteral("current")).toInteger(),
            json.value(QStringLiteral("peak")).toInteger(),
            json.value(QStringLiteral("limit")).toInteger(),
            json.value(QStringLiteral("oom_kills")).toInteger(),
            json.value(QStringLiteral("pids")).toInteger(),
            json.value(QStringLiteral("pids_limit")).toInteger(),
            json.value(QStringLiteral("pids_limit_hits")).toInteger()};
}

MemoryHistory::MemoryHistory(QObject *parent) : QObject(parent) {}

const std::deque<MemorySample> &MemoryHistory::samples(const QString &containerId) const
{
    static const std::deque<MemorySample> none;
    const auto it = m_samples.constFind(containerId);
    return it == m_samples.cend() ? none : *it;
}

void MemoryHistory::forget(const QString &containerId)
{
    m_samples.remove(containerId);
}

void MemoryHistory::resetFrom(const QJsonArray &backlog)
{
    m_samples.clear();
    for (const QJsonValue &value : backlog) {
        const QJsonObject json = value.toObject();
        std::deque<MemorySample> &list = m_samples[json.value(QStringLiteral("container")).toString()];
        list.push_back(MemorySample::fromJson(json));
    }
    Q_EMIT historyReset();
}

void MemoryHistory::add(const QString &containerId, const MemorySample &sample)
{
    std::deque<MemorySample> &list = m_samples[containerId];
    list.push_back(sample);
    while (!list.empty() && list.front().at < sample.at - KeepMs)
        list.pop_front();
    Q_EMIT sampleAdded(containerId, sample);
}

} // namespace Cordon::Ui
