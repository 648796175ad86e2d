// SPDX-License-Identifier: MIT
#include "sandbox/init/containersetup.h"

#include "sandbox/files/treemirror.h"
#include "sandbox/init/beneathroot.h"
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
#include <net/if.h>
#include <sched.h>
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

// What the operations of one plan share.
struct PlanState
{
    BeneathRoot tree;
    MountCalls calls;
    // Called before the first operation whose memory the container must pay for; 0 or an errno.
    std::function<int()> enterCgroup;
    // The first masked directory's empty read-only tmpfs, bound onto the others: one superblock to make and
    // to tear down instead of one each. Read-only from its superblock up, so sharing it shares nothing.
    UniqueFd emptyMask;
};

constexpr unsigned long MaskFlags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

// Applies one operation of the plan; 0 or an errno. Every descriptor of a target is borrowed from the
// state's tree, which is told of each mount so that it forgets the directories the mount hides.
int applyMountOp(PlanState &state, const MountOp &op, const std::vector<int> &fds)
{
    BeneathRoot &tree = state.tree;
    MountCalls &calls = state.calls;
    const unsigned long flags = static_cast<unsigned long>(op.flags);
    auto sourceFd = [&]() {
        return op.fdIndex >= 0 && static_cast<std::size_t>(op.fdIndex) < fds.size()
                   ? fds[static_cast<std::size_t>(op.fdIndex)]
                   : -1;
    };
    // The target's directory, and a mount on it reported to `tree` whatever its outcome. Without `create` a
    // missing target is skipped: masks and read-only marks apply where the host's /proc has the entry.
    auto mountOnDirectory = [&](bool create, std::uint32_t mode, auto &&mount) {
        const int target = tree.directory(op.target, create, mode);
        if (target < 0)
            return (target == -ENOENT && !create) ? 0 : -target;
        const int error = mount(target);
        tree.mountedAt(op.target);
        return error;
    };
    auto reopenDirectory = [&] { return tree.reopen(op.target, true); };
    switch (op.kind) {
    case MountOpKind::Dir: {
        const int fd = tree.directory(op.target, true, op.mode);
        return fd < 0 ? -fd : 0;
    }
    case MountOpKind::File: {
        const BeneathRoot::Parent parent = tree.parentOf(op.target, true);
        if (parent.fd < 0)
            return -parent.fd;
        UniqueFd file(::openat(parent.fd, parent.name.c_str(),
                               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, op.mode));
        if (file.get() < 0)
            return errno;
        return writeFully(file.get(), op.contents);
    }
    case MountOpKind::Symlink: {
        const BeneathRoot::Parent parent = tree.parentOf(op.target, true);
        if (parent.fd < 0)
            return -parent.fd;
        return ::symlinkat(op.contents.c_str(), parent.fd, parent.name.c_str()) == 0 ? 0 : errno;
    }
    case MountOpKind::Tmpfs:
        return mountOnDirectory(
            true, 0755, [&](int target) { return calls.newFilesystem(target, "tmpfs", op.contents, flags); });
    case MountOpKind::BindFd: {
        const int source = sourceFd();
        if (source < 0)
            return EBADF;
        if (isDirectoryFd(source)) {
            return mountOnDirectory(true, 0755, [&](int target) {
                return calls.bind(source, target, op.recursive, flags & BindRemountFlags, reopenDirectory);
            });
        }
        UniqueFd target(tree.file(op.target, true, 0644));
        if (target.get() < 0)
            return -target.get();
        return calls.bind(source, target.get(), op.recursive, flags & BindRemountFlags,
                          [&] { return tree.reopen(op.target, false); });
    }
    case MountOpKind::Proc:
        return mountOnDirectory(true, 0555, [&](int target) {
            return calls.newFilesystem(target, "proc", {}, MS_NOSUID | MS_NODEV | MS_NOEXEC);
        });
    case MountOpKind::Devpts:
        return mountOnDirectory(true, 0755, [&](int target) {
            return calls.newFilesystem(target, "devpts", "newinstance,ptmxmode=0666,mode=0620",
                                       MS_NOSUID | MS_NOEXEC);
        });
    case MountOpKind::MaskFile: {
        const int source = sourceFd();
        if (source < 0)
            return EBADF;
        UniqueFd target(tree.file(op.target, false, 0));
        if (target.get() < 0)
            return target.get() == -ENOENT ? 0 : -target.get();
        return calls.bind(source, target.get(), false, 0, [] { return -EINVAL; });
    }
    case MountOpKind::MaskDir:
        return mountOnDirectory(false, 0, [&](int target) {
            if (state.emptyMask.isValid())
                return calls.bind(state.emptyMask.get(), target, false, MaskFlags, reopenDirectory);
            const int error = calls.newFilesystem(target, "tmpfs", "size=0,mode=0555", MaskFlags);
            // The new mount's root, for the next masks; if it cannot be opened, they make their own.
            if (const int mounted = error == 0 ? tree.reopen(op.target, true) : -1; mounted >= 0)
                state.emptyMask.reset(mounted);
            return error;
        });
    case MountOpKind::SelfBind:
        return mountOnDirectory(true, 0755, [&](int target) {
            return calls.bind(target, target, false, flags & BindRemountFlags, reopenDirectory);
        });
    case MountOpKind::Restore: {
        const int source = sourceFd();
        if (source < 0)
            return EBADF;
        if (const int error = state.enterCgroup(); error != 0)
            return error;
        const int target = tree.directory(op.target, true, 0755);
        if (target < 0)
            return -target;
        // Bounded by the workspace tmpfs itself: what does not fit ends the setup with ENOSPC, and the saved
        // files stay on the host as they were.
        Files::MirrorLimits limits;
        limits.maxBytes = INT64_MAX;
        limits.maxEntries = INT64_MAX;
        auto restored = Files::mirrorTree(source, target, limits);
        return restored ? 0 : (restored.error().sysErrno() != 0 ? restored.error().sysErrno() : EIO);
    }
    case MountOpKind::ReadOnly: {
        constexpr unsigned long Restricted = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
        // A mount of the plan's own (/dev) is made read-only in place. Any other directory (/proc/sys) is
        // bound onto itself with every mount below it, and the new top mount made read-only.
        return mountOnDirectory(false, 0, [&](int target) {
            if (isMountRoot(target))
                return calls.restrictInPlace(target, Restricted);
            return calls.bind(target, target, true, Restricted, reopenDirectory);
        });
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

std::optional<Failure> runSetup(const SetupRequest &request, const std::vector<int> &fds,
                                const AwaitCgroup &awaitCgroup)
{
    // Once, and only when the engine said it would move us: the plan's other operations and the steps up to
    // the cgroup namespace need not wait, and run while the engine makes the cgroup.
    bool inCgroup = !request.awaitCgroup;
    int awaitError = 0;
    auto enterCgroup = [&]() {
        if (!inCgroup) {
            inCgroup = true;
            awaitError = awaitCgroup ? awaitCgroup() : EINVAL;
        }
        return awaitError;
    };

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

    {
        UniqueFd root(::open(NewRoot, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (root.get() < 0)
            return Failure{Stage::MountRootTmpfs, errno, NewRoot};
        PlanState state{BeneathRoot(root.get()), MountCalls(request.classicMountCalls), enterCgroup, {}};
        for (const MountOp &op : request.mounts) {
            if (const int error = applyMountOp(state, op, fds); error != 0) {
                if (awaitError != 0)
                    return Failure{Stage::AwaitCgroup, awaitError, "before " + op.target};
                return Failure{op.kind == MountOpKind::Restore ? Stage::RestoreWorkspace : Stage::MountOp,
                               error, op.target};
            }
        }
    } // every directory of the new root closed before it becomes "/"

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
    // A cgroup namespace rooted at the container's cgroup hides the host's hierarchy from /proc/self/cgroup;
    // the engine has moved us there (or is about to, and says when).
    if (const int error = enterCgroup(); error != 0)
        return Failure{Stage::AwaitCgroup, error, "before the cgroup namespace"};
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

SetupReply setUpContainer(const SetupRequest &request, const std::vector<int> &fds,
                          const AwaitCgroup &awaitCgroup)
{
    return replyFor(runSetup(request, fds, awaitCgroup));
}

} // namespace Cordon::Isolation
