// SPDX-License-Identifier: MIT
// cgroup v1: one group per container in the memory hierarchy and one in the pids hierarchy (the same
// directory when the two controllers are mounted together).
#pragma once

#include "sandbox/cgroup/cgroupbackend.h"

namespace Cordon::Cgroup {

class CgroupV1 final : public CgroupBackend
{
public:
    // The per-user bases, e.g. /sys/fs/cgroup/memory/cordon/uid-0 and /sys/fs/cgroup/pids/cordon/uid-0.
    // createBase: make them (and their `cordon` parent) on demand, which only root may do.
    CgroupV1(std::string memoryBase, std::string pidsBase, bool createBase);

    Version version() const override { return Version::V1; }
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

private:
    std::vector<std::string> bases() const;
    std::vector<std::string> procsFiles(std::string_view name) const;
    Result<> ensureBases();
    Result<> writeLimits(std::string_view name, const ResourceLimits &limits);

    std::string m_memoryBase;
    std::string m_pidsBase;
    bool m_createBase = false;
};

} // namespace Cordon::Cgroup
