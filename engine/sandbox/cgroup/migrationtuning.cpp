// SPDX-License-Identifier: MIT
#include "sandbox/cgroup/migrationtuning.h"

#include "sandbox/cgroup/cgroupfs.h"

#include <cerrno>
#include <sys/mount.h>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

constexpr std::string_view FavourOption = "favordynmods";

const MountEntry *unifiedMount(const std::vector<MountEntry> &mounts)
{
    for (const MountEntry &mount : mounts) {
        // The host's own hierarchy, not a bind of a subtree (a container's view of its cgroup).
        if (mount.unified && mount.root == "/")
            return &mount;
    }
    return nullptr;
}

} // namespace

MigrationTuning inspectMigrationTuning(const std::vector<MountEntry> &mounts)
{
    MigrationTuning tuning;
    if (const MountEntry *unified = unifiedMount(mounts)) {
        tuning.unifiedMountPoint = unified->mountPoint;
        tuning.favoured = contains(unified->options, FavourOption);
    }
    return tuning;
}

std::string favourDynmodsOptions(const MountEntry &unified)
{
    std::string options;
    for (const std::string &option : unified.options) {
        // rw/ro are the superblock's flags, not cgroup2 options; a remount leaves them as they are.
        if (option != "rw" && option != "ro" && option != FavourOption) {
            options += option;
            options += ',';
        }
    }
    options += FavourOption;
    return options;
}

Result<std::string> favourDynmods()
{
    if (::geteuid() != 0)
        return failErrno("cgroup.permission",
                         "remount the cgroup2 hierarchy with favordynmods: only root may, and this runs as "
                         "uid " +
                             std::to_string(::geteuid()),
                         EPERM);
    auto mountinfo = Fs::readFile("/proc/self/mountinfo");
    if (!mountinfo)
        return fail(std::move(mountinfo).error());
    const std::vector<MountEntry> mounts = parseCgroupMounts(*mountinfo);
    const MountEntry *unified = unifiedMount(mounts);
    if (!unified)
        return fail("cgroup.unavailable", "remount with favordynmods: this host mounts no cgroup2 hierarchy");
    if (contains(unified->options, FavourOption))
        return unified->mountPoint + " is already mounted with favordynmods";
    const std::string options = favourDynmodsOptions(*unified);
    if (::mount(nullptr, unified->mountPoint.c_str(), nullptr, MS_REMOUNT, options.c_str()) != 0)
        return failErrno("cgroup.io",
                         "remount " + unified->mountPoint + " with `" + options +
                             "` (the kernel may be older than 6.0, which added favordynmods)",
                         errno);
    return unified->mountPoint + " remounted with favordynmods: moving a process into a cgroup no longer "
                                 "waits for an RCU grace period "
                                 "(forks and exits pay a little more); it lasts until the next boot";
}

} // namespace Cordon::Cgroup
