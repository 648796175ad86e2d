// SPDX-License-Identifier: MIT
// cgroup v1: one group per container in the memory hierarchy and one in the pids hierarchy (the same
// directory when the two controllers are mounted together).
#pragma once

#include "cgroup/cgroupbackend.h"

namespace Cordon::Cgroup {

class CgroupV1 final : public CgroupBackend
{
public:
    // The per-user bases, e.g. /sys/fs/cgroup/memory/cordon/uid-0 and /sys/fs/cgroup/pids/cordon/uid-0.
    // createBase: make them (and their `cordon` parent) on demand, which only root may do.
    CgroupV1(QString memoryBase, QString pidsBase, bool createBase);
    Q_DISABLE_COPY_MOVE(CgroupV1)

    Version version() const override { return Version::V1; }
    QString describe() const override;
    Result<> prepareSelf() override;
    Result<> create(const QString &name, const ResourceLimits &limits) override;
    Result<> addProcess(const QString &name, pid_t pid) override;
    Result<MemoryStats> memoryStats(const QString &name) const override;
    Result<int> pidsCurrent(const QString &name) const override;
    Result<QList<pid_t>> processes(const QString &name) const override;
    Result<> killAll(const QString &name) override;
    Result<> destroy(const QString &name) override;
    QStringList groupPaths(const QString &name) const override;

private:
    QStringList bases() const;
    QStringList procsFiles(const QString &name) const;
    Result<> ensureBases();
    Result<> writeLimits(const QString &name, const ResourceLimits &limits);

    QString m_memoryBase;
    QString m_pidsBase;
    bool m_createBase = false;
};

} // namespace Cordon::Cgroup
