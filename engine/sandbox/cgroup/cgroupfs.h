// SPDX-License-Identifier: MIT
// Small POSIX helpers shared by the v1 and v2 backends. cgroupfs files are tiny, written in one write(2) and
// read until EOF; errors carry the path and errno ("write `/sys/fs/cgroup/...`: Permission denied").
#pragma once

#include "sandbox/cgroup/cgroupparsers.h"
#include "sandbox/error.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace Cordon::Cgroup::Fs {

Result<std::string> readFile(const std::string &path);
Result<> writeFile(const std::string &path, std::string_view data);
// A limit or counter file: "max" and the v1 unlimited value give -1.
Result<std::int64_t> readValue(const std::string &path);
Result<FlatKeyed> readFlatKeyed(const std::string &path);
Result<std::vector<std::string>> readControllers(const std::string &path);

// pids.events' "max" in a group's pids folder: how often a fork or clone was refused at pids.max (v1 and v2
// name it alike). 0 when the file is missing or unreadable: a count the limit itself does not depend on.
std::int64_t pidsLimitHits(const std::string &pidsGroupDir);

bool exists(const std::string &path);
// True when created, false when it already existed.
Result<bool> makeDir(const std::string &path);
// ENOENT is success; EBUSY (a group whose last process is still exiting) is retried for a bounded time.
Result<> removeDir(const std::string &path);
// The stat(2) owner of a path, or -1 when it cannot be read.
std::int64_t ownerOf(const std::string &path);
bool writable(const std::string &path);

// The union of the pids listed in each file (cgroup.procs of every hierarchy), sorted and unique.
Result<std::vector<pid_t>> readPids(const std::vector<std::string> &procsFiles);
// SIGKILLs every process listed until the files are empty or the timeout passes. Each pid is pinned with a
// pidfd and signalled only if it is still listed after the pidfd was opened, so a pid that exited and was
// reused by a process outside the group is never signalled.
Result<> killUntilEmpty(const std::vector<std::string> &procsFiles, std::chrono::milliseconds timeout);
// Waits until the files list no process (after cgroup.kill), bounded.
Result<> waitUntilEmpty(const std::vector<std::string> &procsFiles, std::chrono::milliseconds timeout);

// Where a path from /proc/<pid>/cgroup lives under a mount of its hierarchy; empty when the mount does not
// show it (a bind mount of another subtree).
std::string fsPathOf(const MountEntry &mount, std::string_view procPath);

std::string joinPath(std::string_view dir, std::string_view name);
std::string parentOf(std::string_view path);
// The deepest directory containing both absolute paths.
std::string commonAncestor(std::string_view a, std::string_view b);
// What addProcess() checks first in both backends: a valid group name and a real pid.
Result<> checkProcessFor(std::string_view name, pid_t pid);

using Cordon::ticked; // "`path`", as every message quotes a path

// v2: adds the controllers missing from dir/cgroup.subtree_control. Nothing is written when they are all
// there already, because the write fails with EBUSY while dir holds processes, which a configured cgroup may.
// `cgroup.unavailable` when dir's own cgroup.controllers lacks one (its parent does not pass it down).
Result<> enableControllers(const std::string &dir, const std::vector<std::string> &controllers);

} // namespace Cordon::Cgroup::Fs
