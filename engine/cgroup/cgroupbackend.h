// SPDX-License-Identifier: MIT
// Per-container resource limits through cgroups, behind one small interface: cgroup v2 with a delegated
// subtree where the host offers one, else writable cgroup v1 memory and pids hierarchies. Chosen once at
// start-up by detectBackend(); `cordon doctor` shows inspectHost(). See docs/cgroups.md.
// The logic lives in the plain C++ core (cgroup/core/cgroupbackend.h), which the Qt-free `cordon` launcher
// uses directly; this is its Qt face: QString for std::string, QList for std::vector, Cordon::Error for
// Plain::Failure, with the same codes and messages.
#pragma once

#include "core/result.h"
#include "sandbox/cgroup/cgroupbackend.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <memory>
#include <sys/types.h>

namespace Cordon::Cgroup {

using Version = Core::Version;

struct ResourceLimits
{
    qint64 memoryBytes = 0; // 0 = no limit; swap is never allowed beyond it
    int pidsMax = 0;        // 0 = no limit
};

struct MemoryStats
{
    qint64 current = 0;       // bytes charged now
    qint64 peak = 0;          // high-water mark; 0 on v2 kernels before 5.19, which have no memory.peak
    qint64 limit = 0;         // 0 = no limit, as in ResourceLimits
    qint64 oomKills = 0;      // processes the OOM killer killed in this group
    qint64 oomEvents = 0;     // times the group hit its limit and the OOM killer ran; v1 counts only kills
    qint64 pidsLimitHits = 0; // forks and clones refused because the group was at pids.max
};

class CgroupBackend
{
public:
    virtual ~CgroupBackend() = default;

    // The plain backend this one adapts.
    virtual Core::CgroupBackend &core() = 0;

    virtual Version version() const = 0;
    // One line: "cgroup v1: memory at /sys/fs/cgroup/memory/cordon/uid-0, pids at
    // /sys/fs/cgroup/pids/cordon/uid-0".
    virtual QString describe() const = 0;

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
    virtual Result<> create(const QString &name, const ResourceLimits &limits) = 0;
    // Moves a whole process (all its threads) into the group, in every hierarchy.
    virtual Result<> addProcess(const QString &name, pid_t pid) = 0;
    virtual Result<MemoryStats> memoryStats(const QString &name) const = 0;
    virtual Result<int> pidsCurrent(const QString &name) const = 0;
    // Sorted, without duplicates, over every hierarchy.
    virtual Result<QList<pid_t>> processes(const QString &name) const = 0;
    // SIGKILLs everything in the group and waits (bounded) until it is empty.
    virtual Result<> killAll(const QString &name) = 0;
    // Kills what is left and removes the group in every hierarchy; ok when it is already gone.
    virtual Result<> destroy(const QString &name) = 0;

    // The group's directories, one per hierarchy (v1: memory then pids unless co-mounted; v2: one).
    virtual QStringList groupPaths(const QString &name) const = 0;
};

struct HostReport
{
    Version version = Version::None; // what detectBackend() would choose for this user
    bool memoryController = false;   // the chosen (or best available) layout offers memory limits
    bool pidsController = false;     // ... and pids limits
    bool writable = false;           // this user may create groups under the base
    QString base;                    // the per-user base directory (v1: the memory hierarchy's)
    QString explanation;             // sentences a user can act on
};

// Gives a backend of the plain core this interface.
std::unique_ptr<CgroupBackend> adaptBackend(std::unique_ptr<Core::CgroupBackend> backend);

// Container group names: [A-Za-z0-9_-], 1 to 64 characters; otherwise `cgroup.invalid_name`.
Result<> validateGroupName(const QString &name);

// Chooses once: cgroup v2 when a delegated, writable subtree with the memory and pids controllers is
// available to this user; else v1 when the memory and pids hierarchies offer a writable base; else
// `cgroup.unavailable` whose message says what is missing.
Result<std::unique_ptr<CgroupBackend>> detectBackend();

// The user's name from the password database (NSS, so LDAP and sssd users too), for the advice of a cgroup
// error; the Qt programs pass it to Core::detectBackend().
std::string userNameFromNss(uid_t uid);

// For `cordon doctor`: what this host offers, in words a user can act on. Never changes anything.
HostReport inspectHost();

// The one root step for hosts without systemd delegation: creates the per-user base (v1:
// memory/cordon/uid-UID and pids/cordon/uid-UID; v2: <root>/cordon/uid-UID with memory and pids enabled on
// the way down) and hands it to uid:gid the way systemd's Delegate=yes does. Idempotent. Returns a one-line
// description of what was delegated. `cgroup.permission` when not root.
Result<QString> delegateToUser(uid_t uid, gid_t gid);

} // namespace Cordon::Cgroup
