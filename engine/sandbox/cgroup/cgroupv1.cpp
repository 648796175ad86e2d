// SPDX-License-Identifier: MIT
#include "sandbox/cgroup/cgroupv1.h"

#include "sandbox/cgroup/cgroupfs.h"

#include <cerrno>

namespace Cordon::Cgroup {

namespace {

using namespace std::chrono_literals;
constexpr auto KillTimeout = 5000ms;

} // namespace

CgroupV1::CgroupV1(std::string memoryBase, std::string pidsBase, bool createBase)
    : m_memoryBase(std::move(memoryBase)), m_pidsBase(std::move(pidsBase)), m_createBase(createBase)
{}

std::string CgroupV1::describe() const
{
    if (m_memoryBase == m_pidsBase)
        return "cgroup v1: memory and pids at " + m_memoryBase;
    return "cgroup v1: memory at " + m_memoryBase + ", pids at " + m_pidsBase;
}

Result<> CgroupV1::prepareSelf()
{
    // v1 has no common-ancestor rule and no "no internal processes" rule: the engine may stay where it is.
    return {};
}

std::vector<std::string> CgroupV1::bases() const
{
    if (m_memoryBase == m_pidsBase)
        return {m_memoryBase};
    return {m_memoryBase, m_pidsBase};
}

std::vector<std::string> CgroupV1::groupPaths(std::string_view name) const
{
    std::vector<std::string> paths;
    for (const std::string &base : bases())
        paths.push_back(Fs::joinPath(base, name));
    return paths;
}

std::vector<std::string> CgroupV1::procsFiles(std::string_view name) const
{
    std::vector<std::string> files = groupPaths(name);
    for (std::string &path : files)
        path += "/cgroup.procs";
    return files;
}

Result<> CgroupV1::ensureBases()
{
    if (!m_createBase)
        return {};
    for (const std::string &base : bases()) {
        CORDON_TRY(Fs::makeDir(Fs::parentOf(base)));
        CORDON_TRY(Fs::makeDir(base));
    }
    return {};
}

Result<> CgroupV1::create(std::string_view name, const ResourceLimits &limits)
{
    CORDON_TRY(validateGroupName(name));
    CORDON_TRY(ensureBases());
    const std::vector<std::string> paths = groupPaths(name);
    std::vector<std::string> created;
    auto rollback = [&created] {
        for (const std::string &path : created)
            (void)Fs::removeDir(path);
    };
    for (const std::string &path : paths) {
        auto made = Fs::makeDir(path);
        if (!made && made.error().sysErrno() == ENOENT && m_createBase) {
            // The empty base was removed under us (by an administrator or a test cleaning up): make it again.
            made = ensureBases().and_then([&path] { return Fs::makeDir(path); });
        }
        if (!made) {
            rollback();
            return fail(std::move(made).error());
        }
        if (*made)
            created.push_back(path);
    }
    if (created.size() != paths.size()) {
        // A group left over from a crashed engine may be reused, but never one that still runs something.
        auto pids = processes(name);
        if (!pids || !pids->empty()) {
            rollback();
            if (!pids)
                return fail(std::move(pids).error());
            return fail("cgroup.io",
                        "create group `" + std::string(name) + "`: it already exists and holds " +
                            std::to_string(pids->size()) + " process(es)",
                        EEXIST);
        }
    }
    auto written = writeLimits(name, limits);
    if (!written) {
        rollback();
        return written;
    }
    return {};
}

Result<> CgroupV1::writeLimits(std::string_view name, const ResourceLimits &limits)
{
    const std::string memory = Fs::joinPath(m_memoryBase, name);
    const std::string bytes = limits.memoryBytes > 0 ? std::to_string(limits.memoryBytes) : std::string("-1");
    // memory.memsw (memory plus swap) must never be below memory.limit_in_bytes: open it fully first, then
    // set the memory limit, then close it down to the same value so the container gets no swap beyond its
    // memory. It is absent when the kernel runs without swap accounting; swappiness 0 then keeps limit
    // reclaim from swapping the group's anonymous memory, which is the best v1 offers there.
    const std::string memsw = memory + "/memory.memsw.limit_in_bytes";
    const bool haveMemsw = Fs::exists(memsw);
    if (haveMemsw)
        CORDON_TRY(Fs::writeFile(memsw, "-1"));
    CORDON_TRY(Fs::writeFile(memory + "/memory.limit_in_bytes", bytes));
    if (haveMemsw)
        CORDON_TRY(Fs::writeFile(memsw, bytes));
    CORDON_TRY(Fs::writeFile(memory + "/memory.swappiness", "0"));

    const std::string pids = limits.pidsMax > 0 ? std::to_string(limits.pidsMax) : std::string("max");
    CORDON_TRY(Fs::writeFile(Fs::joinPath(m_pidsBase, name) + "/pids.max", pids));
    return {};
}

Result<> CgroupV1::addProcess(std::string_view name, pid_t pid)
{
    CORDON_TRY(Fs::checkProcessFor(name, pid));
    // cgroup.procs moves the whole thread group; in v1 each hierarchy is joined separately.
    const std::string number = std::to_string(pid);
    for (const std::string &file : procsFiles(name))
        CORDON_TRY(Fs::writeFile(file, number));
    return {};
}

Result<MemoryStats> CgroupV1::memoryStats(std::string_view name) const
{
    CORDON_TRY(validateGroupName(name));
    const std::string dir = Fs::joinPath(m_memoryBase, name);
    auto current = Fs::readValue(dir + "/memory.usage_in_bytes");
    auto peak = Fs::readValue(dir + "/memory.max_usage_in_bytes");
    auto limit = Fs::readValue(dir + "/memory.limit_in_bytes");
    auto oom = Fs::readFlatKeyed(dir + "/memory.oom_control");
    for (const Result<std::int64_t> *value : {&current, &peak, &limit}) {
        if (!*value)
            return fail(value->error());
    }
    if (!oom)
        return fail(std::move(oom).error());
    MemoryStats stats;
    stats.current = *current;
    stats.peak = *peak;
    stats.limit = *limit < 0 ? 0 : *limit;
    // v1 reports no separate count of OOM events; with the OOM killer enabled every event ends in a kill.
    // (oom_kill appeared in 4.13; older kernels show 0.)
    const auto kills = oom->find("oom_kill");
    stats.oomKills = kills == oom->end() ? 0 : kills->second;
    stats.oomEvents = stats.oomKills;
    stats.pidsLimitHits = Fs::pidsLimitHits(Fs::joinPath(m_pidsBase, name));
    return stats;
}

Result<int> CgroupV1::pidsCurrent(std::string_view name) const
{
    CORDON_TRY(validateGroupName(name));
    auto value = Fs::readValue(Fs::joinPath(m_pidsBase, name) + "/pids.current");
    if (!value)
        return fail(std::move(value).error());
    return int(*value);
}

Result<std::vector<pid_t>> CgroupV1::processes(std::string_view name) const
{
    CORDON_TRY(validateGroupName(name));
    return Fs::readPids(procsFiles(name));
}

Result<> CgroupV1::killAll(std::string_view name)
{
    CORDON_TRY(validateGroupName(name));
    // The freezer would make this race-free but is a third hierarchy to delegate; pids.max bounds how many
    // processes a fork loop can add between rounds, so the bounded loop converges.
    return Fs::killUntilEmpty(procsFiles(name), KillTimeout);
}

Result<> CgroupV1::destroy(std::string_view name)
{
    CORDON_TRY(validateGroupName(name));
    std::vector<std::string> present;
    for (std::string &path : groupPaths(name)) {
        if (Fs::exists(path))
            present.push_back(std::move(path));
    }
    if (present.empty())
        return {};
    std::vector<std::string> files;
    for (const std::string &path : present)
        files.push_back(path + "/cgroup.procs");
    CORDON_TRY(Fs::killUntilEmpty(files, KillTimeout));
    for (const std::string &path : present)
        CORDON_TRY(Fs::removeDir(path));
    return {};
}

} // namespace Cordon::Cgroup
