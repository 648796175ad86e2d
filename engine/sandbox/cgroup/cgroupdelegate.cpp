// SPDX-License-Identifier: MIT
// The one root step for hosts without systemd delegation: a per-user base handed over the way systemd's
// Delegate=yes does it. The user gets the directory and the files that let them create groups and move their
// own processes, never the base's limit files, so root can still cap everything the user runs.
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/cgroup/cgroupfs.h"

#include <cerrno>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

const std::vector<std::string> &needed()
{
    static const std::vector<std::string> controllers = {"memory", "pids"};
    return controllers;
}

Result<> chownTo(const std::string &path, uid_t uid, gid_t gid)
{
    if (::chown(path.c_str(), uid, gid) != 0)
        return failErrno("cgroup.io",
                         "chown `" + path + "` to " + std::to_string(uid) + ':' + std::to_string(gid), errno);
    return {};
}

Result<> makeBase(const std::string &mountPoint, const std::string &userDir)
{
    CORDON_TRY(Fs::makeDir(Fs::joinPath(mountPoint, "cordon")));
    CORDON_TRY(Fs::makeDir(userDir));
    return {};
}

std::string delegatedTo(uid_t uid, gid_t gid)
{
    return " delegated to " + std::to_string(uid) + ':' + std::to_string(gid);
}

Result<std::string> delegateV2(const MountEntry &mount, uid_t uid, gid_t gid)
{
    const std::string cordon = Fs::joinPath(mount.mountPoint, "cordon");
    const std::string userDir = Fs::joinPath(cordon, "uid-" + std::to_string(uid));
    // Controllers flow down: the root passes memory and pids to `cordon`, `cordon` to each uid-N. The user's
    // engine enables them in uid-N itself once it has moved into a leaf (a cgroup with controllers enabled
    // for its children may not hold processes, and a login hook may place the user's session right in uid-N).
    CORDON_TRY(Fs::enableControllers(mount.mountPoint, needed()));
    CORDON_TRY(makeBase(mount.mountPoint, userDir));
    CORDON_TRY(Fs::enableControllers(cordon, needed()));
    for (const char *file : {"", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"})
        CORDON_TRY(chownTo(*file ? Fs::joinPath(userDir, file) : userDir, uid, gid));
    return "cgroup v2: " + userDir + delegatedTo(uid, gid);
}

Result<std::string> delegateV1(const MountEntry &memory, const MountEntry &pids, uid_t uid, gid_t gid)
{
    std::vector<std::string> dirs;
    for (const MountEntry *mount : {&memory, &pids}) {
        std::string userDir = Fs::joinPath(mount->mountPoint, "cordon/uid-" + std::to_string(uid));
        if (contains(dirs, userDir))
            continue;
        CORDON_TRY(makeBase(mount->mountPoint, userDir));
        // v1 checks only the target file's permission (and that the mover's uid matches the moved process),
        // so the directory, cgroup.procs and tasks are all a user needs; the new groups' files then belong to
        // the user who creates them.
        CORDON_TRY(chownTo(userDir, uid, gid));
        CORDON_TRY(chownTo(Fs::joinPath(userDir, "cgroup.procs"), uid, gid));
        CORDON_TRY(chownTo(Fs::joinPath(userDir, "tasks"), uid, gid));
        dirs.push_back(std::move(userDir));
    }
    std::string listed;
    for (const std::string &dir : dirs)
        listed += (listed.empty() ? "" : ", ") + dir;
    return "cgroup v1: " + listed + delegatedTo(uid, gid);
}

} // namespace

Result<std::string> delegateToUser(uid_t uid, gid_t gid)
{
    if (::geteuid() != 0)
        return fail("cgroup.permission",
                    "delegate a cgroup subtree to uid " + std::to_string(uid) +
                        ": only root may, and this runs as uid " + std::to_string(::geteuid()),
                    EPERM);
    if (uid == uid_t(-1) || gid == gid_t(-1))
        return fail("cgroup.permission", "delegate a cgroup subtree: invalid uid or gid", EINVAL);
    auto mountinfo = Fs::readFile("/proc/self/mountinfo");
    if (!mountinfo)
        return fail(std::move(mountinfo).error());
    const std::vector<MountEntry> mounts = parseCgroupMounts(*mountinfo);

    // The same preference as detectBackend(): v2 when its hierarchy has the controllers, else v1.
    if (const MountEntry *unified = hierarchyMount(mounts, {})) {
        auto controllers = Fs::readControllers(unified->mountPoint + "/cgroup.controllers");
        if (controllers && contains(*controllers, needed()[0]) && contains(*controllers, needed()[1]))
            return delegateV2(*unified, uid, gid);
    }
    const MountEntry *memory = hierarchyMount(mounts, "memory");
    const MountEntry *pids = hierarchyMount(mounts, "pids");
    if (memory && pids)
        return delegateV1(*memory, *pids, uid, gid);
    return fail("cgroup.unavailable",
                "delegate a cgroup subtree: this host mounts neither a cgroup2 hierarchy with the memory and "
                "pids controllers nor cgroup v1 memory and pids hierarchies");
}

} // namespace Cordon::Cgroup
