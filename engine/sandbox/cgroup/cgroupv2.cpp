// SPDX-License-Identifier: MIT
#include "sandbox/cgroup/cgroupv2.h"

#include "sandbox/cgroup/cgroupfs.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <dirent.h>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

using namespace std::chrono_literals;
constexpr auto KillTimeout = 5000ms;

const std::vector<std::string> &needed()
{
    static const std::vector<std::string> controllers = {"memory", "pids"};
    return controllers;
}

Result<std::string> ownCgroupPath(const MountEntry &mount)
{
    auto data = Fs::readFile("/proc/self/cgroup");
    if (!data)
        return fail(std::move(data).error());
    auto entries = parseProcSelfCgroup(*data);
    if (!entries)
        return fail(entries.error().wrap("parse `/proc/self/cgroup`"));
    for (const ProcCgroupEntry &entry : *entries) {
        if (entry.isUnified())
            return Fs::fsPathOf(mount, entry.path);
    }
    return fail("cgroup.unavailable", "/proc/self/cgroup has no cgroup v2 entry");
}

} // namespace

CgroupV2::CgroupV2(V2Layout layout) : m_layout(std::move(layout)) {}

std::string CgroupV2::describe() const
{
    return "cgroup v2: memory and pids at " + m_layout.base;
}

std::string CgroupV2::engineLeaf() const
{
    // A '.' cannot appear in a container name, so the engine's leaf never collides with a container's group.
    return Fs::joinPath(m_layout.base, "engine." + std::to_string(::getpid()));
}

std::vector<std::string> CgroupV2::groupPaths(std::string_view name) const
{
    return {Fs::joinPath(m_layout.base, name)};
}

std::vector<std::string> CgroupV2::chainToBase() const
{
    std::vector<std::string> chain{m_layout.delegationRoot};
    const std::string_view rest = std::string_view(m_layout.base)
                                      .substr(std::min(m_layout.delegationRoot.size(), m_layout.base.size()));
    std::string path = m_layout.delegationRoot;
    size_t start = 0;
    while (start < rest.size()) {
        const size_t end = std::min(rest.find('/', start), rest.size());
        if (end > start) {
            path = Fs::joinPath(path, rest.substr(start, end - start));
            chain.push_back(path);
        }
        start = end + 1;
    }
    return chain;
}

Result<> CgroupV2::makeChain()
{
    const std::vector<std::string> chain = chainToBase();
    for (size_t i = 1; i < chain.size(); ++i)
        CORDON_TRY(Fs::makeDir(chain[i]));
    return {};
}

Result<> CgroupV2::enableControllers()
{
    // A child can only use a controller its parent lists in cgroup.subtree_control, so memory and pids are
    // switched on from the delegation root down to the base.
    for (const std::string &dir : chainToBase()) {
        auto enabled = Fs::enableControllers(dir, needed());
        if (!enabled && enabled.error().sysErrno() == EBUSY)
            return fail(enabled.error().wrap(
                "enable memory and pids in " + Fs::ticked(dir) +
                ", which holds processes itself (a cgroup that passes controllers to its children may not; "
                "the engine leaves it in prepareSelf())"));
        CORDON_TRY(enabled);
    }
    return {};
}

void CgroupV2::removeStaleEngineLeaves() const
{
    // Leaves of engines that have exited stay behind (a process cannot remove the group it is in). rmdir only
    // succeeds on an empty group, and a leaf whose engine still lives is left alone even if it is empty yet,
    // because that engine may be about to move in.
    DIR *dir = ::opendir(m_layout.base.c_str());
    if (!dir)
        return;
    while (const dirent *entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (!name.starts_with("engine."))
            continue;
        const auto pid = parseInteger(name.substr(7));
        if (!pid || *pid <= 0 || *pid > INT_MAX || pid_t(*pid) == ::getpid())
            continue;
        if (::kill(pid_t(*pid), 0) == 0 || errno != ESRCH)
            continue;
        (void)::rmdir(Fs::joinPath(m_layout.base, name).c_str());
    }
    ::closedir(dir);
}

Result<> CgroupV2::prepareSelf()
{
    if (!m_layout.moveSelf)
        return {};
    CORDON_TRY(makeChain());
    const std::string leaf = engineLeaf();
    auto current = ownCgroupPath(m_layout.mount);
    if (!current)
        return fail(std::move(current).error());
    if (*current != leaf) {
        CORDON_TRY(Fs::makeDir(leaf));
        auto moved = Fs::writeFile(leaf + "/cgroup.procs", std::to_string(::getpid()));
        if (!moved) {
            (void)Fs::removeDir(leaf);
            const int err = moved.error().sysErrno();
            if (err == EACCES || err == EPERM) {
                const std::string ancestor =
                    current->empty() ? m_layout.mount.mountPoint : Fs::commonAncestor(*current, leaf);
                return fail(
                    "cgroup.permission",
                    "move the engine from " + Fs::ticked(current->empty() ? std::string("?") : *current) +
                        " into " + Fs::ticked(leaf) + ": " + moved.error().message() +
                        ". The kernel lets a process be moved only by someone who may write cgroup.procs of "
                        "the common ancestor, here " +
                        Fs::ticked(ancestor) + "; start Cordon inside the delegated subtree " +
                        Fs::ticked(m_layout.delegationRoot) +
                        " (from the desktop session, or `systemd-run --user --scope -p Delegate=yes cordon "
                        "...`)",
                    err);
            }
            return moved;
        }
    }
    CORDON_TRY(enableControllers());
    m_baseReady = true;
    removeStaleEngineLeaves();
    return {};
}

Result<> CgroupV2::create(std::string_view name, const ResourceLimits &limits)
{
    CORDON_TRY(validateGroupName(name));
    if (!m_baseReady) {
        CORDON_TRY(makeChain());
        CORDON_TRY(enableControllers());
        m_baseReady = true;
    }
    const std::string dir = Fs::joinPath(m_layout.base, name);
    auto made = Fs::makeDir(dir);
    if (!made)
        return fail(std::move(made).error());
    if (!*made) {
        // A group left over from a crashed engine may be reused, but never one that still runs something.
        auto pids = processes(name);
        if (!pids)
            return fail(std::move(pids).error());
        if (!pids->empty())
            return fail("cgroup.io",
                        "create group `" + std::string(name) + "`: it already exists and holds " +
                            std::to_string(pids->size()) + " process(es)",
                        EEXIST);
    }
    auto rollback = [&] {
        if (*made)
            (void)Fs::removeDir(dir);
    };
    auto write = [&](std::string_view file, std::string_view value) -> Result<> {
        auto written = Fs::writeFile(Fs::joinPath(dir, file), value);
        if (!written)
            rollback();
        return written;
    };

    auto controllers = Fs::readControllers(dir + "/cgroup.controllers");
    if (!controllers) {
        rollback();
        return fail(std::move(controllers).error());
    }
    const bool memory = contains(*controllers, "memory");
    const bool pids = contains(*controllers, "pids");
    if ((limits.memoryBytes > 0 && !memory) || (limits.pidsMax > 0 && !pids)) {
        rollback();
        std::string offered;
        for (const std::string &controller : *controllers)
            offered += (offered.empty() ? "" : " ") + controller;
        return fail("cgroup.unavailable", "create group `" + std::string(name) + "`: " + Fs::ticked(dir) +
                                              " offers only `" + offered +
                                              "`, not the controllers for its limits");
    }
    if (memory) {
        CORDON_TRY(write("memory.max",
                         limits.memoryBytes > 0 ? std::to_string(limits.memoryBytes) : std::string("max")));
        // Absent when the kernel runs without swap accounting; then there is no swap to limit per group.
        if (Fs::exists(dir + "/memory.swap.max"))
            CORDON_TRY(write("memory.swap.max", "0"));
        // The OOM killer picks within the group, as on v1: the run (its OOM score raised) goes, cordon-init
        // and the container stay. memory.oom.group = 1 would kill PID 1 with it and stop a long-lived
        // container over one run's allocation (found by the cgroup v2 guest suite).
        CORDON_TRY(write("memory.oom.group", "0"));
    }
    if (pids)
        CORDON_TRY(
            write("pids.max", limits.pidsMax > 0 ? std::to_string(limits.pidsMax) : std::string("max")));
    return {};
}

Result<> CgroupV2::addProcess(std::string_view name, pid_t pid)
{
    CORDON_TRY(Fs::checkProcessFor(name, pid));
    const std::string file = Fs::joinPath(m_layout.base, name) + "/cgroup.procs";
    auto written = Fs::writeFile(file, std::to_string(pid));
    if (!written && (written.error().sysErrno() == EACCES || written.error().sysErrno() == EPERM) &&
        m_layout.moveSelf)
        return fail(written.error().wrap("add pid " + std::to_string(pid) +
                                         " (a process may only be moved below a common ancestor whose "
                                         "cgroup.procs the mover may write; was prepareSelf() called "
                                         "before it was started?)"));
    return written;
}

Result<MemoryStats> CgroupV2::memoryStats(std::string_view name) const
{
    CORDON_TRY(validateGroupName(name));
    const std::string dir = Fs::joinPath(m_layout.base, name);
    auto current = Fs::readValue(dir + "/memory.current");
    if (!current)
        return fail(std::move(current).error());
    auto limit = Fs::readValue(dir + "/memory.max");
    if (!limit)
        return fail(std::move(limit).error());
    auto events = Fs::readFlatKeyed(dir + "/memory.events");
    if (!events)
        return fail(std::move(events).error());
    MemoryStats stats;
    stats.current = *current;
    stats.limit = *limit < 0 ? 0 : *limit;
    // memory.peak appeared in 5.19.
    const std::string peakFile = dir + "/memory.peak";
    if (Fs::exists(peakFile)) {
        auto peak = Fs::readValue(peakFile);
        if (!peak)
            return fail(std::move(peak).error());
        stats.peak = *peak;
    }
    auto valueOf = [&events](const char *key) {
        const auto it = events->find(key);
        return it == events->end() ? std::int64_t(0) : it->second;
    };
    stats.oomEvents = valueOf("oom");
    stats.oomKills = valueOf("oom_kill");
    stats.pidsLimitHits = Fs::pidsLimitHits(dir);
    return stats;
}

Result<int> CgroupV2::pidsCurrent(std::string_view name) const
{
    CORDON_TRY(validateGroupName(name));
    auto value = Fs::readValue(Fs::joinPath(m_layout.base, name) + "/pids.current");
    if (!value)
        return fail(std::move(value).error());
    return int(*value);
}

Result<std::vector<pid_t>> CgroupV2::processes(std::string_view name) const
{
    CORDON_TRY(validateGroupName(name));
    return Fs::readPids({Fs::joinPath(m_layout.base, name) + "/cgroup.procs"});
}

Result<> CgroupV2::killAll(std::string_view name)
{
    CORDON_TRY(validateGroupName(name));
    const std::string dir = Fs::joinPath(m_layout.base, name);
    const std::vector<std::string> procs{dir + "/cgroup.procs"};
    // cgroup.kill (5.14) kills the whole subtree atomically with respect to forks; without it, kill in
    // rounds.
    const std::string killFile = dir + "/cgroup.kill";
    if (Fs::exists(killFile)) {
        CORDON_TRY(Fs::writeFile(killFile, "1"));
        return Fs::waitUntilEmpty(procs, KillTimeout);
    }
    return Fs::killUntilEmpty(procs, KillTimeout);
}

Result<> CgroupV2::destroy(std::string_view name)
{
    CORDON_TRY(validateGroupName(name));
    const std::string dir = Fs::joinPath(m_layout.base, name);
    if (!Fs::exists(dir))
        return {};
    CORDON_TRY(killAll(name));
    return Fs::removeDir(dir);
}

} // namespace Cordon::Cgroup
