// SPDX-License-Identifier: MIT
// Pure parsers for the kernel's cgroup files, in plain C++: they take bytes and never touch the filesystem,
// so they are tested on literal strings from v1, hybrid and v2 hosts. Strings hold the kernel's bytes as they
// are (paths are not re-encoded).
#pragma once

#include "sandbox/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace Cordon::Cgroup {

// One line of /proc/<pid>/cgroup: "4:memory:/a/b" (v1) or "0::/user.slice" (v2).
struct ProcCgroupEntry
{
    int hierarchyId = 0;
    std::vector<std::string>
        controllers;  // v1 controllers, "name=systemd" for named hierarchies; empty for v2
    std::string path; // relative to the hierarchy's root as seen from the reader's cgroup namespace

    bool isUnified() const { return hierarchyId == 0 && controllers.empty(); }
    bool operator==(const ProcCgroupEntry &) const = default;
};

// One cgroup or cgroup2 mount from /proc/self/mountinfo.
struct MountEntry
{
    std::string mountPoint; // octal escapes (\040) decoded
    std::string root;     // the part of the hierarchy this mount shows, "/" unless bind-mounted or namespaced
    bool unified = false; // fstype cgroup2
    std::vector<std::string> controllers; // v1 only: controllers bound to this hierarchy (v2 lists them in
                                          // cgroup.controllers)
    std::vector<std::string> options;     // every super option, e.g. "rw", "nsdelegate", "name=systemd"

    bool operator==(const MountEntry &) const = default;
};

using FlatKeyed = std::unordered_map<std::string, std::int64_t>;

// Fails on lines that are not "id:controllers:/path"; an empty input yields an empty list.
Result<std::vector<ProcCgroupEntry>> parseProcSelfCgroup(std::string_view data);

// Lines of other filesystems and malformed lines are skipped: mountinfo is the kernel's, but a reader must
// not fail just because one unrelated mount has an odd shape.
std::vector<MountEntry> parseCgroupMounts(std::string_view mountinfo);

// "key value" lines (memory.events, memory.oom_control, memory.stat, cgroup.events); lines whose value is not
// an integer are skipped.
FlatKeyed parseFlatKeyed(std::string_view data);

// A limit file: "max" (v2) and the v1 "unlimited" page-counter maximum give -1; otherwise a non-negative
// integer.
Result<std::int64_t> parseLimitValue(std::string_view data);

// Space-separated controller lists (cgroup.controllers, cgroup.subtree_control).
std::vector<std::string> parseControllerList(std::string_view data);

// A decimal integer with an optional sign and nothing else; nullopt when it is not one or does not fit.
std::optional<std::int64_t> parseInteger(std::string_view text);

// Whether a list (of controllers, mount options) holds the name.
bool contains(const std::vector<std::string> &names, std::string_view name);

// The mount of one hierarchy: the cgroup2 one when `controller` is empty, else the v1 one `controller` is
// bound to. Several mounts of one hierarchy can exist (bind mounts); the one showing the whole hierarchy
// (root "/") is preferred, else the first. Null when there is none.
const MountEntry *hierarchyMount(const std::vector<MountEntry> &mounts, std::string_view controller);

} // namespace Cordon::Cgroup
