// SPDX-License-Identifier: MIT
// The memory samples of every container over the last minutes, as the daemon reports them twice a second
// (`memory.sample` events, and the `memory_backlog` that comes with each subscription, so a reconnected
// window shows the minutes it missed). The chart draws from here.
#pragma once

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>

#include <deque>

namespace Cordon::Ui {

struct MemorySample
{
    qint64 at = 0; // ms since the epoch
    qint64 current = 0;
    qint64 peak = 0;
    qint64 limit = 0;
    qint64 oomKills = 0;
    qint64 pids = 0;          // processes and threads in the container
    qint64 pidsLimit = 0;     // its limits.pids
    qint64 pidsLimitHits = 0; // forks the limit refused since the container started

    static MemorySample fromJson(const QJsonObject &json);
};

class MemoryHistory final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MemoryHistory)

public:
    // As much as the daemon keeps (ten minutes); the chart shows the end of it.
    static constexpr qint64 KeepMs = 10 * 60 * 1000;

    explicit MemoryHistory(QObject *parent = nullptr);

    const std::deque<MemorySample> &samples(const QString &containerId) const;
    void forget(const QString &containerId);

    // Replaces what is known with the daemon's backlog (after a (re)subscription).
    void resetFrom(const QJsonArray &backlog);
    void add(const QString &containerId, const MemorySample &sample);

Q_SIGNALS:
    void sampleAdded(const QString &containerId, const Cordon::Ui::MemorySample &sample);
    void historyReset();

private:
    QHash<QString, std::deque<MemorySample>> m_samples;
};

} // namespace Cordon::Ui
