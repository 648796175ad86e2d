// SPDX-License-Identifier: MIT
#include "sandbox/init/containersetup.h"

#include "sandbox/files/treemirror.h"
#include "sandbox/init/mountcalls.h"
#include "sandbox/uniquefd.h"
#include "sandbox/writeall.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <sched.h>
#include <string_view>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

// The new root is assembled on a tmpfs mounted here in the container's private mount namespace; after
// pivot_root it is "/". The host's /tmp is untouched: the mount is only visible inside.
constexpr const char *NewRoot = "/tmp";

struct Failure
{
    Stage stage;
    int error;
    std::string detail;
};

bool hasDotComponent(const std::string &path)
{
    std::size_t position = 0;
    while (position < path.size()) {
        const std::size_t end = std::min(path.find('/', position), path.size());
        const std::string_view component(path.data() + position, end - position);
        if (component == "." || component == "..")
            return true;
        position = end + 1;
    }
    return false;
}

// Opens `path` (absolute inside the new root) as O_PATH in one openat2 call: resolved beneath the root, with
// no symlink or magic link anywhere on the way. -errno on failure; -ENOSYS before Linux 5.6, where the
// callers walk instead.
int openResolvedBeneath(int rootFd, const std::string &path, int flags)
{
    if (hasDotComponent(path))
        return -EINVAL;
    const std::size_t start = path.find_first_not_of('/');
    const char *relative = start == std::string::npos ? "." : path.c_str() + start;
    open_how how{};
    how.flags = static_cast<std::uint64_t>(O_PATH | O_NOFOLLOW | O_CLOEXEC | flags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, rootFd, relative, &how, sizeof how);
    return fd >= 0 ? static_cast<int>(fd) : -errno;
}

// Walks `path` (absolute inside the new root) component by component from the root fd with O_NOFOLLOW,
// creating missing directories. Mount targets are always reached this way or by openResolvedBeneath(), so a
// symlink that code in the container planted in its workspace (/mnt/data/outputs -> /usr) can never redirect
// a mount: the open fails instead.
int walkDirBeneath(int rootFd, const std::string &path, bool create, std::uint32_t mode)
{
    int current = ::fcntl(rootFd, F_DUPFD_CLOEXEC, 3);
    if (current < 0)
        return -errno;
    std::size_t position = 0;
    while (position < path.size()) {
        while (position < path.size() && path[position] == '/')
            ++position;
        if (position >= path.size())
            break;
        const std::size_t end = path.find('/', position);
        const std::string component = path.substr(position, end == std::string::npos ? end : end - position);
        position = end == std::string::npos ? path.size() : end;
        if (component == "." || component == "..") {
            ::close(current);
            return -EINVAL;
        }
        int next = ::openat(current, component.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && create) {
            if (::mkdirat(current, component.c_str(), mode) != 0 && errno != EEXIST) {
                const int error = errno;
                ::close(current);
                return -error;
            }
            next = ::openat(current, component.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        }
        const int error = errno;
        ::close(current);
        if (next < 0)
            return -error;
        current = next;
    }
    return current;
}

std::pair<std::string, std::string> splitParent(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return {"/", path};
    return {slash == 0 ? std::string("/") : path.substr(0, slash), path.substr(slash + 1)};
}

int openDirBeneath(int rootFd, const std::string &path, bool create, std::uint32_t mode);

// A directory that is missing is made in its parent, found (or made, with the same mode) the same way: on
// the fresh root most targets are new, and this takes three or four calls where the walk from the root
// takes two for every component. The parent is reached beneath the root with no symlink on the way, and the
// new directory opened with O_NOFOLLOW, so a symlink in its place fails the open as in the walk.
int createDirBeneath(int rootFd, const std::string &path, std::uint32_t mode)
{
    auto [parentPath, name] = splitParent(path);
    if (name.empty())
        return walkDirBeneath(rootFd, path, true, mode);
    UniqueFd ownParent;
    if (parentPath != "/") {
        ownParent.reset(openDirBeneath(rootFd, parentPath, true, mode));
        if (ownParent.get() < 0)
            return ownParent.get();
    }
    const int parent = parentPath == "/" ? rootFd : ownParent.get();
    if (::mkdirat(parent, name.c_str(), mode) != 0 && errno != EEXIST)
        return -errno;
    const int fd = ::openat(parent, name.c_str(), O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

// A directory that exists is found in one call, one that is missing made in its parent; the walk, one
// openat per component, runs only where the kernel has no openat2. A mount plan opens about 40 targets.
int openDirBeneath(int rootFd, const std::string &path, bool create, std::uint32_t mode)
{
    const int fd = openResolvedBeneath(rootFd, path, O_DIRECTORY);
    if (fd >= 0 || (fd != -ENOSYS && !(fd == -ENOENT && create)))
        return fd;
    if (fd == -ENOENT)
        return createDirBeneath(rootFd, path, mode);
    return walkDirBeneath(rootFd, path, create, mode);
}

// Creates (or finds) a regular file to serve as a mount point or synthetic file; returns an O_PATH fd.
int openFileBeneath(int rootFd, const std::string &path, bool create, std::uint32_t mode)
{
    if (!create) {
        const int fd = openResolvedBeneath(rootFd, path, 0);
        if (fd != -ENOSYS)
            return fd;
    }
    auto [parentPath, name] = splitParent(path);
    UniqueFd parent(openDirBeneath(rootFd, parentPath, create, 0755));
    if (parent.get() < 0)
        return parent.get();
    if (create) {
        const int fd =
            ::openat(parent.get(), name.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0)
            return -errno;
        ::close(fd);
    }
    const int fd = ::openat(parent.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

// statx's STATX_ATTR_MOUNT_ROOT (Linux 5.8); false where the kernel does not say, which keeps the bind.
bool isMountRoot(int fd)
{
    struct statx info
    {
    };
    if (::statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, 0, &info) != 0)
        return false;
    return (info.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
           (info.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

bool isDirectoryFd(int fd)
{
    struct stat info
    {
    };
    return ::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode);
}

constexpr unsigned long BindRemountFlags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

int applyMountOp(int rootFd, const MountOp &op, const std::vector<int> &fds, MountCalls &calls)
{
    const unsigned long flags = static_cast<unsigned long>(op.flags);
    auto sourceFd = [&]() {
        return op.fdIndex >= 0 && static_cast<std::size_t>(op.fdIndex) < fds.size()
                   ? fds[static_cast<std::size_t>(op.fdIndex)]
                   : -1;
    };
    switch (op.kind) {
    case MountOpKind::Dir: {
        UniqueFd fd(openDirBeneath(rootFd, op.target, true, op.mode));
        return fd.get() < 0 ? -fd.get() : 0;
    }
    case MountOpKind::File: {
        auto [parentPath, name] = splitParent(op.target);
        UniqueFd parent(openDirBeneath(rootFd, parentPath, true, 0755));
        if (parent.get() < 0)
            return -parent.get();
        UniqueFd file(::openat(parent.get(), name.c_str(),
                               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, op.mode));
        if (file.get() < 0)
            return errno;
        return writeFully(file.get(), op.contents);
    }
    case MountOpKind::Symlink: {
        auto [parentPath, name] = splitParent(op.target);
        UniqueFd parent(openDirBeneath(rootFd, parentPath, true, 0755));
        if (parent.get() < 0)
            return -parent.get();
        return ::symlinkat(op.contents.c_str(), parent.get(), name.c_str()) == 0 ? 0 : errno;
    }
    case MountOpKind::Tmpfs: {
        UniqueFd fd(openDirBeneath(rootFd, op.target, true, 0755));
        return fd.get() < 0 ? -fd.get() : calls.newFilesystem(fd.get(), "tmpfs", op.contents, flags);
    }
    case MountOpKind::BindFd: {
        const int source = sourceFd();
        if (source < 0)
            return EBADF;
        const bool dir = isDirectoryFd(source);
        auto openTarget = [&](bool create) {
            return dir ? openDirBeneath(rootFd, op.target, create, 0755)
                       : openFileBeneath(rootFd, op.target, create, 0644);
        };
        UniqueFd target(openTarget(true));
        if (target.get() < 0)
            return -target.get();
        return calls.bind(source, target.get(), op.recursive, flags & BindRemountFlags,
                          [&] { return openTarget(false); });
    }
    case MountOpKind::Proc: {
        UniqueFd fd(openDirBeneath(rootFd, op.target, true, 0555));
        return fd.get() < 0 ? -fd.get()
                            : calls.newFilesystem(fd.get(), "proc", {}, MS_NOSUID | MS_NODEV | MS_NOEXEC);
    }
    case MountOpKind::Devpts: {
        UniqueFd fd(openDirBeneath(rootFd, op.target, true, 0755));
        return fd.get() < 0 ? -fd.get()
                            : calls.newFilesystem(fd.get(), "devpts", "newinstance,ptmxmode=0666,mode=0620",
                                                  MS_NOSUID | MS_NOEXEC);
    }
    case MountOpKind::MaskFile: {
        const int source = sourceFd();
        if (source < 0)
            return EBADF;
        UniqueFd target(openFileBeneath(rootFd, op.target, false, 0));
        if (target.get() < 0)
            return target.get() == -ENOENT ? 0 : -target.get();
        return calls.bind(source, target.get(), false, 0, [] { return -EINVAL; });
    }
    case MountOpKind::MaskDir: {
        UniqueFd target(openDirBeneath(rootFd, op.target, false, 0));
        if (target.get() < 0)
            return target.get() == -ENOENT ? 0 : -target.get();
        return calls.newFilesystem(target.get(), "tmpfs", "size=0,mode=0555",
                                   MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC);
    }
    case MountOpKind::SelfBind: {
        UniqueFd target(openDirBeneath(rootFd, op.target, true, 0755));
        if (target.get() < 0)
            return -target.get();
        return calls.bind(target.get(), target.get(), false, flags & BindRemountFlags,
                          [&] { return openDirBeneath(rootFd, op.target, false, 0); });
    }
    case MountOpKind::Restore: {
        const int source = sourceFd();
        if (source < 0)
            return EBADF;
        UniqueFd target(openDirBeneath(rootFd, op.target, true, 0755));
        if (target.get() < 0)
            return -target.get();
        // Bounded by the workspace tmpfs itself: what does not fit ends the setup with ENOSPC, and the saved
        // files stay on the host as they were.
        Files::MirrorLimits limits;
        limits.maxBytes = INT64_MAX;
        limits.maxEntries = INT64_MAX;
        auto restored = Files::mirrorTree(source, target.get(), limits);
        return restored ? 0 : (restored.error().sysErrno() != 0 ? restored.error().sysErrno() : EIO);
    }
    case MountOpKind::ReadOnly: {
        constexpr unsigned long Restricted = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
        UniqueFd target(openDirBeneath(rootFd, op.target, false, 0));
        if (target.get() < 0)
            return target.get() == -ENOENT ? 0 : -target.get();
        // A mount of the plan's own (/dev) is made read-only in place. Any other directory (/proc/sys) is
        // bound onto itself with every mount below it, and the new top mount made read-only.
        if (isMountRoot(target.get()))
            return calls.restrictInPlace(target.get(), Restricted);
        return calls.bind(target.get(), target.get(), true, Restricted,
                          [&] { return openDirBeneath(rootFd, op.target, false, 0); });
    }
    }
    return EINVAL;
}

std::optional<Failure> bringLoopbackUp()
{
    UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (sock.get() < 0)
        return Failure{Stage::LoopbackUp, errno, "socket"};
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    if (::ioctl(sock.get(), SIOCGIFFLAGS, &request) != 0)
        return Failure{Stage::LoopbackUp, errno, "SIOCGIFFLAGS"};
    request.ifr_flags |= IFF_UP;
    if (::ioctl(sock.get(), SIOCSIFFLAGS, &request) != 0)
        return Failure{Stage::LoopbackUp, errno, "SIOCSIFFLAGS"};
    return std::nullopt;
}

std::optional<Failure> dropBoundingSet()
{
    for (unsigned long cap = 0; cap <= 63; ++cap) {
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EINVAL)
                break; // past the kernel's last capability
            return Failure{Stage::DropCapabilities, errno, "PR_CAPBSET_DROP " + std::to_string(cap)};
        }
    }
    return std::nullopt;
}

// After this the process holds no capability in any set, and cannot regain one: the bounding set was
// emptied before the setup (prepareBeforeSetup()), and no_new_privs makes execve of a setuid or
// file-capability binary grant nothing.
std::optional<Failure> dropCapabilities()
{
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return Failure{Stage::DropCapabilities, errno, "PR_CAP_AMBIENT_CLEAR_ALL"};
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    if (::syscall(SYS_capset, &header, data) != 0)
        return Failure{Stage::DropCapabilities, errno, "capset"};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return Failure{Stage::NoNewPrivs, errno, "PR_SET_NO_NEW_PRIVS"};
    return std::nullopt;
}

std::optional<Failure> runSetup(const SetupRequest &request, const std::vector<int> &fds)
{
    // The engine mapped exactly one uid and gid; take them so that every file we create is owned by them.
    // setgroups is denied in an unprivileged user namespace, so supplementary groups stay as mapped (none).
    if (::setresgid(request.insideGid, request.insideGid, request.insideGid) != 0)
        return Failure{Stage::SetIds, errno, "setresgid"};
    if (::setresuid(request.insideUid, request.insideUid, request.insideUid) != 0)
        return Failure{Stage::SetIds, errno, "setresuid"};
    // The kernel clears the parent-death signal when the effective uid changes; the container must still die
    // with the engine.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);

    // Nothing we mount may propagate back to the host's mount namespace.
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return Failure{Stage::MakePrivate, errno, "/"};
    if (::mount("tmpfs", NewRoot, "tmpfs", MS_NOSUID | MS_NODEV, request.rootTmpfsOptions.c_str()) != 0)
        return Failure{Stage::MountRootTmpfs, errno, NewRoot};

    UniqueFd root(::open(NewRoot, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (root.get() < 0)
        return Failure{Stage::MountRootTmpfs, errno, NewRoot};
    MountCalls calls(request.classicMountCalls);
    for (const MountOp &op : request.mounts) {
        if (const int error = applyMountOp(root.get(), op, fds, calls); error != 0)
            return Failure{op.kind == MountOpKind::Restore ? Stage::RestoreWorkspace : Stage::MountOp, error,
                           op.target};
    }

    // pivot_root(".", ".") stacks the old root on top of the new one; detaching it leaves only the new tree.
    if (::chdir(NewRoot) != 0)
        return Failure{Stage::PivotRoot, errno, "chdir"};
    if (::syscall(SYS_pivot_root, ".", ".") != 0)
        return Failure{Stage::PivotRoot, errno, NewRoot};
    if (::umount2(".", MNT_DETACH) != 0)
        return Failure{Stage::DetachOldRoot, errno, "/"};
    if (::chdir("/") != 0)
        return Failure{Stage::DetachOldRoot, errno, "chdir /"};
    if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) != 0)
        return Failure{Stage::RemountRootReadOnly, errno, "/"};

    if (::sethostname(request.hostname.data(), request.hostname.size()) != 0)
        return Failure{Stage::SetHostname, errno, request.hostname};
    if (request.loopbackUp) {
        if (auto failure = bringLoopbackUp())
            return failure;
    }
    // The engine moved us into the container's cgroup before sending the request; a cgroup namespace rooted
    // there hides the host's hierarchy from /proc/self/cgroup.
    if (::unshare(CLONE_NEWCGROUP) != 0)
        return Failure{Stage::UnshareCgroup, errno, "CLONE_NEWCGROUP"};

    if (auto failure = dropCapabilities())
        return failure;
    // Non-dumpable: processes in the container run with our uid, and must not ptrace us or read /proc/1/mem.
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    return std::nullopt;
}

SetupReply replyFor(const std::optional<Failure> &failure)
{
    SetupReply reply;
    if (failure) {
        reply.stage = failure->stage;
        reply.error = failure->error;
        reply.detail = failure->detail;
    }
    return reply;
}

} // namespace

SetupReply prepareBeforeSetup()
{
    for (int signal = 1; signal < NSIG; ++signal) {
        if (signal != SIGKILL && signal != SIGSTOP)
            ::signal(signal, SIG_DFL);
    }
    return replyFor(dropBoundingSet());
}

SetupReply setUpContainer(const SetupRequest &request, const std::vector<int> &fds)
{
    return replyFor(runSetup(request, fds));
}

} // namespace Cordon::Isolation
