// SPDX-License-Identifier: MIT
// How long it takes to move a process into a cgroup, and the root step that makes it quick. Every container
// start and every one-shot run moves cordon-init into its cgroup; the kernel takes cgroup_threadgroup_rwsem
// for writing to do it, and unless the cgroup2 hierarchy is mounted with `favordynmods` that write lock waits
// for an RCU grace period: 5-20 ms on the development machines, most of a one-shot run (docs/benchmarks.md).
// With favordynmods the move takes about 0.05 ms, and forks and exits pay a little more instead (kernel
// documentation, admin-guide/cgroup-v2.rst). The lock is shared by every hierarchy, so the option on the
// cgroup2 mount helps cgroup v1 memory and pids moves too. It is a host-wide choice, so it is only ever made
// by root.
#pragma once

#include "sandbox/cgroup/cgroupparsers.h"
#include "sandbox/error.h"

#include <string>
#include <vector>

namespace Cordon::Cgroup {

struct MigrationTuning
{
    std::string unifiedMountPoint; // the cgroup2 mount, empty when there is none
    bool favoured = false;         // mounted with favordynmods
};

MigrationTuning inspectMigrationTuning(const std::vector<MountEntry> &mounts);

// The mount options for a remount of `unified` that keeps what it has (nsdelegate, memory_recursiveprot, ...)
// and adds favordynmods: a remount sets the cgroup2 options anew, so leaving one out would switch it off.
std::string favourDynmodsOptions(const MountEntry &unified);

// Root only: remounts the cgroup2 hierarchy with favordynmods (idempotent). Returns what was done, in words.
// `cgroup.permission` when not root, `cgroup.unavailable` when no cgroup2 hierarchy is mounted.
Result<std::string> favourDynmods();

} // namespace Cordon::Cgroup
