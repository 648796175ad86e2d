// SPDX-License-Identifier: MIT
#include "sandbox/init/mountcalls.h"

#include "sandbox/uniquefd.h"

#include <algorithm>
#include <cerrno>
#include <initializer_list>
#include <sys/mount.h>
#include <sys/statvfs.h>

namespace Cordon::Isolation {

namespace {

std::string fdPath(int fd)
{
    return "/proc/self/fd/" + std::to_string(fd);
}

struct FlagPair
{
    unsigned long from;
    unsigned long long to;
};

unsigned long long translate(unsigned long flags, std::initializer_list<FlagPair> pairs)
{
    unsigned long long result = 0;
    for (const FlagPair &pair : pairs) {
        if (flags & pair.from)
            result |= pair.to;
    }
    return result;
}

unsigned long long mountAttributes(unsigned long msFlags)
{
    return translate(msFlags, {{MS_RDONLY, MOUNT_ATTR_RDONLY},
                               {MS_NOSUID, MOUNT_ATTR_NOSUID},
                               {MS_NODEV, MOUNT_ATTR_NODEV},
                               {MS_NOEXEC, MOUNT_ATTR_NOEXEC}});
}

// mount(2)'s data string, one fsconfig call per option: "key=value" sets a string, a bare "key" a flag.
int configure(int fsFd, const std::string &options)
{
    std::size_t position = 0;
    while (position <= options.size()) {
        const std::size_t end = std::min(options.find(',', position), options.size());
        const std::string option = options.substr(position, end - position);
        position = end + 1;
        if (option.empty())
            continue;
        const std::size_t equals = option.find('=');
        const int result = equals == std::string::npos
                               ? ::fsconfig(fsFd, FSCONFIG_SET_FLAG, option.c_str(), nullptr, 0)
                               : ::fsconfig(fsFd, FSCONFIG_SET_STRING, option.substr(0, equals).c_str(),
                                            option.c_str() + equals + 1, 0);
        if (result != 0)
            return errno;
    }
    return ::fsconfig(fsFd, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) == 0 ? 0 : errno;
}

int attach(int mountFd, int targetFd)
{
    return ::move_mount(mountFd, "", targetFd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) == 0
               ? 0
               : errno;
}

// Flags the kernel locks on a bind mount made inside a user namespace: a remount must repeat them or fail
// EPERM. (mount_setattr only changes the attributes it is given, so the first route needs none of this.)
unsigned long lockedFlags(int fd)
{
    struct statvfs info
    {
    };
    if (::fstatvfs(fd, &info) != 0)
        return 0;
    return static_cast<unsigned long>(translate(info.f_flag, {{ST_NOSUID, MS_NOSUID},
                                                              {ST_NODEV, MS_NODEV},
                                                              {ST_NOEXEC, MS_NOEXEC},
                                                              {ST_NOATIME, MS_NOATIME},
                                                              {ST_NODIRATIME, MS_NODIRATIME},
                                                              {ST_RELATIME, MS_RELATIME}}));
}

} // namespace

int MountCalls::newFilesystem(int targetFd, const char *type, const std::string &options,
                              unsigned long msFlags)
{
    if (m_classic)
        return classicNewFilesystem(targetFd, type, options, msFlags);
    UniqueFd fs(::fsopen(type, FSOPEN_CLOEXEC));
    if (fs.get() < 0) {
        if (errno != ENOSYS)
            return errno;
        m_classic = true;
        return classicNewFilesystem(targetFd, type, options, msFlags);
    }
    // As mount(2) would: the type as the source name in mountinfo, and a read-only superblock for MS_RDONLY.
    if (::fsconfig(fs.get(), FSCONFIG_SET_STRING, "source", type, 0) != 0)
        return errno;
    if ((msFlags & MS_RDONLY) && ::fsconfig(fs.get(), FSCONFIG_SET_FLAG, "ro", nullptr, 0) != 0)
        return errno;
    if (const int error = configure(fs.get(), options); error != 0)
        return error;
    UniqueFd mount(::fsmount(fs.get(), FSMOUNT_CLOEXEC, static_cast<unsigned>(mountAttributes(msFlags))));
    if (mount.get() < 0)
        return errno;
    return attach(mount.get(), targetFd);
}

int MountCalls::bind(int sourceFd, int targetFd, bool recursive, unsigned long msFlags,
                     const std::function<int()> &reopenTarget)
{
    if (m_classic)
        return classicBind(sourceFd, targetFd, recursive, msFlags, reopenTarget);
    UniqueFd tree(::open_tree(
        sourceFd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0)));
    if (tree.get() < 0 && errno != ENOSYS)
        return errno;
    if (tree.get() >= 0 && mountAttributes(msFlags) != 0) {
        // Only the top mount of a recursive clone gets the attributes, as a bind remount changes only it.
        mount_attr attributes{};
        attributes.attr_set = mountAttributes(msFlags);
        if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH, &attributes, sizeof attributes) != 0) {
            if (errno != ENOSYS)
                return errno;
            tree.reset(-1); // Linux 5.2 to 5.11: open_tree without mount_setattr
        }
    }
    if (tree.get() < 0) {
        m_classic = true;
        return classicBind(sourceFd, targetFd, recursive, msFlags, reopenTarget);
    }
    return attach(tree.get(), targetFd);
}

int MountCalls::restrictInPlace(int targetFd, unsigned long msFlags)
{
    if (m_classic)
        return classicRestrict(targetFd, msFlags);
    mount_attr attributes{};
    attributes.attr_set = mountAttributes(msFlags);
    if (::mount_setattr(targetFd, "", AT_EMPTY_PATH, &attributes, sizeof attributes) == 0)
        return 0;
    if (errno != ENOSYS)
        return errno;
    m_classic = true;
    return classicRestrict(targetFd, msFlags);
}

int MountCalls::classicRestrict(int targetFd, unsigned long msFlags)
{
    const unsigned long flags = MS_REMOUNT | MS_BIND | lockedFlags(targetFd) | msFlags;
    return ::mount(nullptr, fdPath(targetFd).c_str(), nullptr, flags, nullptr) == 0 ? 0 : errno;
}

int MountCalls::classicNewFilesystem(int targetFd, const char *type, const std::string &options,
                                     unsigned long msFlags)
{
    return ::mount(type, fdPath(targetFd).c_str(), type, msFlags,
                   options.empty() ? nullptr : options.c_str()) == 0
               ? 0
               : errno;
}

int MountCalls::classicBind(int sourceFd, int targetFd, bool recursive, unsigned long msFlags,
                            const std::function<int()> &reopenTarget)
{
    const unsigned long bindFlags = recursive ? (MS_BIND | MS_REC) : static_cast<unsigned long>(MS_BIND);
    if (::mount(fdPath(sourceFd).c_str(), fdPath(targetFd).c_str(), nullptr, bindFlags, nullptr) != 0)
        return errno;
    // A bind ignores every flag but MS_REC: read-only, nosuid, nodev, noexec need a second, remounting call,
    // on the new mount, which the old descriptor of the target does not reach.
    if (mountAttributes(msFlags) == 0)
        return 0;
    UniqueFd mounted(reopenTarget());
    if (mounted.get() < 0)
        return -mounted.get();
    const unsigned long flags = MS_REMOUNT | MS_BIND | lockedFlags(mounted.get()) | msFlags;
    return ::mount(nullptr, fdPath(mounted.get()).c_str(), nullptr, flags, nullptr) == 0 ? 0 : errno;
}

} // namespace Cordon::Isolation
