// SPDX-License-Identifier: MIT
// cgroup v2: one group per container below a per-user base in the unified hierarchy.
#pragma once

#include "cgroup/cgroupbackend.h"
#include "cgroup/cgroupparsers.h"

namespace Cordon::Cgroup {

struct V2Layout
{
    MountEntry mount;       // the cgroup2 mount, to find the engine's own group from /proc/self/cgroup
    QString delegationRoot; // the topmost directory the engine may change: the mount (root), the systemd
                            // delegated unit (user@UID.service), or a base made by `cordon cgroup-delegate`
    QString base;           // where container groups go, at or below delegationRoot
    bool moveSelf = false;  // prepareSelf() moves the engine into base/engine.<pid> (everyone but root)
};

class CgroupV2 final : public CgroupBackend
{
public:
    explicit CgroupV2(V2Layout layout);
    Q_DISABLE_COPY_MOVE(CgroupV2)

    Version version() const override { return Version::V2; }
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

    // The leaf prepareSelf() moves the engine into.
    QString engineLeaf() const;

private:
    QStringList chainToBase() const;
    Result<> makeChain();
    Result<> enableControllers();
    void removeStaleEngineLeaves() const;

    V2Layout m_layout;
    bool m_baseReady = false;
};

} // namespace Cordon::Cgroup
