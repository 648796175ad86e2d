// SPDX-License-Identifier: MIT
// Per-container resource limits through cgroups, in plain C++ (no Qt), behind one small interface: cgroup v2
// with a delegated subtree where the host offers one, else writable cgroup v1 memory and pids hierarchies.
// Chosen once at start-up by detectBackend(): by the daemon for its containers, by the `cordon` launcher for
// a one-shot run. See docs/cgroups.md.
// Nothing here loads a shared library or asks NSS, so it also works in a static executable.
#pragma once

#include "sandbox/error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace Cordon::Cgroup {

enum class Version
{
    None,
    V1,
    V2
};

struct ResourceLimits
{
    std::int64_t memoryBytes = 0; // 0 = no limit; swap is never allowed beyond it
    int pidsMax = 0;              // 0 = no limit
};

struct MemoryStats
{
    std::int64_t current = 0;   // bytes charged now
    std::int64_t peak = 0;      // high-water mark; 0 on v2 kernels before 5.19, which have no memory.peak
    std::int64_t limit = 0;     // 0 = no limit, as in ResourceLimits
    std::int64_t oomKills = 0;  // processes the OOM killer killed in this group
    std::int64_t oomEvents = 0; // times the group hit its limit and the OOM killer ran; v1 counts only kills
    std::int64_t pidsLimitHits = 0; // forks and clones refused because the group was at pids.max
};

class CgroupBackend
{
public:
    CgroupBackend() = default;
    CgroupBackend(const CgroupBackend &) = delete;
    CgroupBackend &operator=(const CgroupBackend &) = delete;
    virtual ~CgroupBackend() = default;

    virtual Version version() const = 0;
    // One line: "cgroup v1: memory at /sys/fs/cgroup/memory/cordon/uid-0, pids at
    // /sys/fs/cgroup/pids/cordon/uid-0".
    virtual std::string describe() const = 0;

    // v2 only: moves the calling process into the leaf <base>/engine.<pid>. Call once at start-up, before
    // create(). Two kernel rules make this necessary for an unprivileged engine: a cgroup that enables
    // controllers for its children may not hold processes itself (so the engine must leave a delegated cgroup
    // it was started in), and moving a process needs write access to cgroup.procs of the common ancestor of
    // the source and destination (inside the base that is the base itself, which is ours). A no-op for v1 and
    // for root.
    virtual Result<> prepareSelf() = 0;

    // Creates the group for one container under the base and writes its limits; v2 also sets
    // memory.oom.group=1 so an OOM kills the whole container. Reuses an existing empty group of the same
    // name.
    virtual Result<> create(std::string_view name, const ResourceLimits &limits) = 0;
    // Moves a whole process (all its threads) into the group, in every hierarchy.
    virtual Result<> addProcess(std::string_view name, pid_t pid) = 0;
    virtual Result<MemoryStats> memoryStats(std::string_view name) const = 0;
    virtual Result<int> pidsCurrent(std::string_view name) const = 0;
    // Sorted, without duplicates, over every hierarchy.
    virtual Result<std::vector<pid_t>> processes(std::string_view name) const = 0;
    // SIGKILLs everything in the group and waits (bounded) until it is empty.
    virtual Result<> killAll(std::string_view name) = 0;
    // Kills what is left and removes the group in every hierarchy; ok when it is already gone.
    virtual Result<> destroy(std::string_view name) = 0;

    // The group's directories, one per hierarchy (v1: memory then pids unless co-mounted; v2: one).
    virtual std::vector<std::string> groupPaths(std::string_view name) const = 0;
};

struct HostReport
{
    Version version = Version::None; // what detectBackend() would choose for this user
    bool memoryController = false;   // the chosen (or best available) layout offers memory limits
    bool pidsController = false;     // ... and pids limits
    bool writable = false;           // this user may create groups under the base
    std::string base;                // the per-user base directory (v1: the memory hierarchy's)
    std::string explanation;         // sentences a user can act on
};

// Container group names: [A-Za-z0-9_-], 1 to 64 characters; otherwise `cgroup.invalid_name`.
Result<> validateGroupName(std::string_view name);

// How a failure's advice names the user ("sudo cordon cgroup-delegate --user NAME"). Only called when no
// backend is usable. Null: the name from /etc/passwd, else the number (a static executable cannot ask NSS;
// the Qt layer passes a getpwuid() lookup).
using UserNameLookup = std::string (*)(uid_t uid);

// Chooses once: cgroup v2 when a delegated, writable subtree with the memory and pids controllers is
// available to this user; else v1 when the memory and pids hierarchies offer a writable base; else
// `cgroup.unavailable` whose message says what is missing.
Result<std::unique_ptr<CgroupBackend>> detectBackend(UserNameLookup userName = nullptr);

// For `cordon doctor`: what this host offers, in words a user can act on. Never changes anything.
HostReport inspectHost(UserNameLookup userName = nullptr);

// Set to 1 by a service manager's unit that delegates the cgroup it starts the program in
// (packaging/systemd/cordond.service.in, beside Delegate=yes); see systemdDelegationRoot().
constexpr const char *SelfDelegatedVariable = "CORDON_CGROUP_DELEGATED";

// cgroup v2, a user's engine under systemd: the cgroup it may treat as delegated to it, from `self` (its own
// cgroup, a directory below mountPoint) and `owned` (whether the user owns a directory with its cgroup.procs
// and cgroup.subtree_control). Normally the topmost owned cgroup of self's chain, user@UID.service, where
// systemd's user manager runs. With selfDelegated, self itself: a unit with Delegate=yes hands over its own
// cgroup only, and the engine stays in it, so the unit's limits and its KillMode cover the containers. Empty
// when the user owns none of it.
std::string systemdDelegationRoot(std::string_view mountPoint, std::string_view self, bool selfDelegated,
                                  const std::function<bool(const std::string &)> &owned);

// The one root step for hosts without systemd delegation: creates the per-user base (v1:
// memory/cordon/uid-UID and pids/cordon/uid-UID; v2: <root>/cordon/uid-UID with memory and pids enabled on
// the way down) and hands it to uid:gid the way systemd's Delegate=yes does. Idempotent. Returns a one-line
// description of what was delegated. `cgroup.permission` when not root.
Result<std::string> delegateToUser(uid_t uid, gid_t gid);

} // namespace Cordon::Cgroup
