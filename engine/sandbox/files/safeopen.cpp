// SPDX-License-Identifier: MIT
#include "sandbox/files/safeopen.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <string>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
// Linux 6.6; the number is the same on every architecture (syscalls after 424 are unified).
#define SYS_fchmodat2 452
#endif

namespace Cordon::Files {

namespace {

constexpr std::uint64_t BeneathResolve =
    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
constexpr std::uint64_t HostPathResolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

// Unknown until the first call; ENOSYS switches to the walk for the rest of the process.
std::atomic<bool> openat2Missing{false};
std::atomic<bool> openat2DisabledForTests{false};

bool useOpenat2()
{
    return !openat2Missing.load(std::memory_order_relaxed) &&
           !openat2DisabledForTests.load(std::memory_order_relaxed);
}

// Returns the descriptor, -1 with errno, or -2 when the kernel has no openat2 (the caller falls back).
int tryOpenat2(int dirFd, const char *path, int flags, std::uint64_t resolve)
{
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags);
    how.resolve = resolve;
    int fd;
    do {
        fd = static_cast<int>(::syscall(SYS_openat2, dirFd, path, &how, sizeof how));
    } while (fd < 0 && errno == EINTR);
    if (fd < 0 && errno == ENOSYS) {
        openat2Missing.store(true, std::memory_order_relaxed);
        return -2;
    }
    return fd;
}

int retryOpenat(int dirFd, const char *path, int flags)
{
    int fd;
    do {
        fd = ::openat(dirFd, path, flags);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

// O_PATH admits only O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC besides itself; openat2 rejects anything else.
int sanitizeFlags(int flags)
{
    flags |= O_NOFOLLOW | O_CLOEXEC;
    if (flags & O_PATH)
        flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    return flags;
}

bool isSingleComponent(std::string_view name)
{
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

// With O_DIRECTORY|O_NOFOLLOW the kernel reports a symlink as ENOTDIR; openat2 says ELOOP. Make the walk say
// ELOOP too, so that callers classify "symlink" the same way on both paths.
void symlinkAsEloop(int dirFd, const char *name)
{
    if (errno != ENOTDIR)
        return;
    struct stat st;
    if (::fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        errno = ELOOP;
}

// RESOLVE_NO_XDEV for the walk: the child must be on the parent's device and not be the root of a mount (a
// bind mount of the same file system keeps st_dev; STATX_ATTR_MOUNT_ROOT, Linux 5.8, catches it).
bool crossesMount(int dirFd, int childFd)
{
    struct stat parent;
    struct stat child;
    if (::fstat(dirFd, &parent) != 0 || ::fstat(childFd, &child) != 0)
        return true;
    if (parent.st_dev != child.st_dev)
        return true;
    struct statx sx;
    if (::statx(childFd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) == 0 &&
        (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
        return true;
    return false;
}

} // namespace

UniqueFd openBeneath(int dirFd, std::string_view name, int flags)
{
    if (!isSingleComponent(name)) {
        errno = EINVAL;
        return UniqueFd();
    }
    const std::string path(name);
    flags = sanitizeFlags(flags);
    // O_PATH|O_NOFOLLOW would hand back a symlink itself without RESOLVE_NO_SYMLINKS looking at it; without
    // O_NOFOLLOW the resolution refuses it with ELOOP, which is what we want.
    const int raw = useOpenat2()
                        ? tryOpenat2(dirFd, path.c_str(), (flags & O_PATH) ? (flags & ~O_NOFOLLOW) : flags,
                                     BeneathResolve)
                        : -2;
    UniqueFd fd;
    if (raw != -2) {
        fd = UniqueFd(raw);
    } else {
        // One component that is not "." or ".." cannot leave dirFd, and O_NOFOLLOW refuses a symlink (magic
        // links in /proc are symlinks too): that is RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
        // RESOLVE_NO_MAGICLINKS for a single step. RESOLVE_NO_XDEV is checked on the result.
        fd = UniqueFd(retryOpenat(dirFd, path.c_str(), flags));
        if (fd.isValid() && crossesMount(dirFd, fd.get())) {
            fd.reset();
            errno = EXDEV;
        }
    }
    if (!fd.isValid()) {
        if (flags & O_DIRECTORY)
            symlinkAsEloop(dirFd, path.c_str());
        return fd;
    }
    if (flags & O_PATH) {
        struct stat st;
        if (::fstat(fd.get(), &st) != 0 || S_ISLNK(st.st_mode)) {
            fd.reset();
            errno = ELOOP;
        }
    }
    return fd;
}

UniqueFd openNoSymlinks(std::string_view path, int flags)
{
    if (path.empty() || path.find('\0') != std::string_view::npos) {
        errno = EINVAL;
        return UniqueFd();
    }
    const std::string pathBytes(path);
    flags |= O_CLOEXEC;
    if (useOpenat2()) {
        const int fd = tryOpenat2(AT_FDCWD, pathBytes.c_str(), flags, HostPathResolve);
        if (fd != -2)
            return UniqueFd(fd);
    }
    // The walk: every component opened with O_NOFOLLOW from the one before it, so no symlink is ever
    // followed.
    UniqueFd current(
        retryOpenat(AT_FDCWD, path.front() == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!current.isValid())
        return current;
    std::vector<std::string> parts;
    for (std::size_t start = 0; start <= path.size();) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        const std::string_view part = path.substr(start, slash - start);
        if (!part.empty() && part != ".")
            parts.emplace_back(part);
        start = slash + 1;
    }
    if (parts.empty())
        return UniqueFd(retryOpenat(current.get(), ".", flags));
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const bool last = i == parts.size() - 1;
        const int stepFlags = last ? (flags | O_NOFOLLOW) : (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        UniqueFd next(retryOpenat(current.get(), parts[i].c_str(), stepFlags));
        if (!next.isValid()) {
            if (stepFlags & O_DIRECTORY)
                symlinkAsEloop(current.get(), parts[i].c_str());
            return next;
        }
        if (last && (flags & O_PATH)) {
            // O_PATH|O_NOFOLLOW opens a symlink itself instead of failing; openat2 would have said ELOOP.
            struct stat st;
            if (::fstat(next.get(), &st) == 0 && S_ISLNK(st.st_mode)) {
                errno = ELOOP;
                return UniqueFd();
            }
        }
        current = std::move(next);
    }
    return current;
}

bool changeModePinned(int pathFd, mode_t mode)
{
    if (::syscall(SYS_fchmodat2, pathFd, "", mode, AT_EMPTY_PATH) == 0)
        return true;
    if (errno != ENOSYS && errno != EINVAL && errno != EPERM)
        return false;
    // Before Linux 6.6: chmod() through the magic link reaches the pinned inode; we created the link, it is
    // not a name the sandbox controls.
    const std::string procPath = "/proc/self/fd/" + std::to_string(pathFd);
    return ::chmod(procPath.c_str(), mode) == 0;
}

bool readDirectoryNames(int dirFd, std::size_t max, std::vector<std::string> *names)
{
    names->clear();
    if (::lseek(dirFd, 0, SEEK_SET) < 0)
        return false;
    alignas(8) char buffer[32 * 1024];
    while (names->size() < max) {
        const ssize_t got = ::getdents64(dirFd, buffer, sizeof buffer);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (got == 0)
            break;
        for (ssize_t offset = 0; offset < got && names->size() < max;) {
            const auto *entry = reinterpret_cast<const dirent64 *>(buffer + offset);
            const std::string_view name(entry->d_name);
            if (name != "." && name != "..")
                names->emplace_back(name);
            offset += entry->d_reclen;
        }
    }
    return true;
}

namespace Detail {

void setOpenat2Disabled(bool disabled)
{
    openat2DisabledForTests.store(disabled, std::memory_order_relaxed);
}

} // namespace Detail

} // namespace Cordon::Files
