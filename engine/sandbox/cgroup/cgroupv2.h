// SPDX-License-Identifier: MIT
// cgroup v2: one group per container below a per-user base in the unified hierarchy.
#pragma once

#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/cgroup/cgroupparsers.h"

namespace Cordon::Cgroup {

struct V2Layout
{
    MountEntry mount; // the cgroup2 mount, to find the engine's own group from /proc/self/cgroup
    std::string
        delegationRoot;    // the topmost directory the engine may change: the mount (root), the systemd
                           // delegated unit (user@UID.service), or a base made by `cordon cgroup-delegate`
    std::string base;      // where container groups go, at or below delegationRoot
    bool moveSelf = false; // prepareSelf() moves the engine into base/engine.<pid> (everyone but root)
};

class CgroupV2 final : public CgroupBackend
{
public:
    explicit CgroupV2(V2Layout layout);

    Version version() const override { return Version::V2; }
    std::string describe() const override;
    Result<> prepareSelf() override;
    Result<> create(std::string_view name, const ResourceLimits &limits) override;
    Result<> addProcess(std::string_view name, pid_t pid) override;
    Result<MemoryStats> memoryStats(std::string_view name) const override;
    Result<int> pidsCurrent(std::string_view name) const override;
    Result<std::vector<pid_t>> processes(std::string_view name) const override;
    Result<> killAll(std::string_view name) override;
    Result<> destroy(std::string_view name) override;
    std::vector<std::string> groupPaths(std::string_view name) const override;

    // The leaf prepareSelf() moves the engine into.
    std::string engineLeaf() const;

private:
    std::vector<std::string> chainToBase() const;
    Result<> makeChain();
    Result<> enableControllers();
    void removeStaleEngineLeaves() const;

    V2Layout m_layout;
    bool m_baseReady = false;
};

} // namespace Cordon::Cgroup
