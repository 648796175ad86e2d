// SPDX-License-Identifier: MIT
#include "sandbox/init/beneathroot.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string_view>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

constexpr int DirectoryFlags = O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC;

bool hasDotComponent(std::string_view path)
{
    std::size_t position = 0;
    while (position < path.size()) {
        const std::size_t end = std::min(path.find('/', position), path.size());
        const std::string_view component = path.substr(position, end - position);
        if (component == "." || component == "..")
            return true;
        position = end + 1;
    }
    return false;
}

// Splits a normalised path at its last slash: "/etc/hosts" -> {"/etc", "hosts"}, "/etc" -> {"/", "etc"}.
std::pair<std::string, std::string> splitParent(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    return {slash == 0 ? std::string("/") : path.substr(0, slash), path.substr(slash + 1)};
}

bool isAtOrBelow(const std::string &path, const std::string &mountPoint)
{
    if (mountPoint == "/")
        return true;
    return path.starts_with(mountPoint) &&
           (path.size() == mountPoint.size() || path[mountPoint.size()] == '/');
}

} // namespace

std::string normalizedPath(const std::string &path)
{
    std::string result;
    std::size_t position = 0;
    while (position < path.size()) {
        const std::size_t end = std::min(path.find('/', position), path.size());
        if (end > position) {
            result += '/';
            result.append(path, position, end - position);
        }
        position = end + 1;
    }
    return result.empty() ? std::string("/") : result;
}

// One openat2 call: beneath the root, with no symlink or magic link anywhere on the way. -ENOSYS before
// Linux 5.6, where the callers walk instead.
int BeneathRoot::resolveBeneath(const std::string &path, int flags) const
{
    open_how how{};
    how.flags = static_cast<std::uint64_t>(O_PATH | O_NOFOLLOW | O_CLOEXEC | flags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const char *relative = path == "/" ? "." : path.c_str() + 1;
    const long fd = ::syscall(SYS_openat2, m_root, relative, &how, sizeof how);
    return fd >= 0 ? static_cast<int>(fd) : -errno;
}

// Component by component from the root with O_NOFOLLOW, making missing directories when `create`.
int BeneathRoot::walkBeneath(const std::string &path, bool create, std::uint32_t mode) const
{
    UniqueFd current(::fcntl(m_root, F_DUPFD_CLOEXEC, 3));
    if (!current.isValid())
        return -errno;
    std::size_t position = 1;
    while (position < path.size()) {
        const std::size_t end = std::min(path.find('/', position), path.size());
        const std::string component = path.substr(position, end - position);
        position = end + 1;
        int next = ::openat(current.get(), component.c_str(), DirectoryFlags);
        if (next < 0 && errno == ENOENT && create) {
            if (::mkdirat(current.get(), component.c_str(), mode) != 0 && errno != EEXIST)
                return -errno;
            next = ::openat(current.get(), component.c_str(), DirectoryFlags);
        }
        if (next < 0)
            return -errno;
        current.reset(next);
    }
    return current.release();
}

// Made in its parent, found (or made, with the same mode) the same way: on the fresh root most targets are
// new. The new directory is opened with O_NOFOLLOW, so a symlink in its place fails the open.
int BeneathRoot::createDirectory(const std::string &path, std::uint32_t mode)
{
    const auto [parentPath, name] = splitParent(path);
    const int parent = directory(parentPath, true, mode);
    if (parent < 0)
        return parent;
    if (::mkdirat(parent, name.c_str(), mode) != 0 && errno != EEXIST)
        return -errno;
    const int fd = ::openat(parent, name.c_str(), DirectoryFlags);
    return fd < 0 ? -errno : fd;
}

int BeneathRoot::directory(const std::string &path, bool create, std::uint32_t mode)
{
    const std::string key = normalizedPath(path);
    if (key == "/")
        return m_root;
    if (hasDotComponent(key))
        return -EINVAL;
    if (const auto known = m_open.find(key); known != m_open.end())
        return known->second.get();

    int fd = -ENOENT;
    // Below a directory already open, a missing target takes two calls (mkdirat, openat) where looking
    // first takes three; one that exists takes two as well (EEXIST).
    const std::string parent = splitParent(key).first;
    if (!(create && (parent == "/" || m_open.contains(parent))))
        fd = m_walk ? -ENOSYS : resolveBeneath(key, O_DIRECTORY);
    if (fd == -ENOSYS) {
        m_walk = true;
        fd = walkBeneath(key, create, mode);
    } else if (fd == -ENOENT && create) {
        fd = createDirectory(key, mode);
    }
    if (fd < 0)
        return fd;
    m_open.emplace(key, UniqueFd(fd));
    return fd;
}

BeneathRoot::Parent BeneathRoot::parentOf(const std::string &path, bool create)
{
    const std::string key = normalizedPath(path);
    if (key == "/")
        return {m_root, {}};
    auto [parentPath, name] = splitParent(key);
    return {directory(parentPath, create, 0755), std::move(name)};
}

int BeneathRoot::file(const std::string &path, bool create, std::uint32_t mode)
{
    const std::string key = normalizedPath(path);
    if (hasDotComponent(key))
        return -EINVAL;
    if (!create && !m_walk) {
        const int fd = resolveBeneath(key, 0);
        if (fd != -ENOSYS)
            return fd;
        m_walk = true;
    }
    const Parent parent = parentOf(key, create);
    if (parent.fd < 0)
        return parent.fd;
    if (parent.name.empty())
        return -EISDIR;
    // O_NONBLOCK: a FIFO already in the target's place fails (ENXIO) instead of waiting for a reader.
    const int fd = create ? ::openat(parent.fd, parent.name.c_str(),
                                     O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
                          : ::openat(parent.fd, parent.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int BeneathRoot::reopen(const std::string &path, bool isDirectory)
{
    // A file's parent is not what a mount on the file covers, so the remembered one still leads to it.
    if (!isDirectory)
        return file(path, false, 0);
    const std::string key = normalizedPath(path);
    if (hasDotComponent(key))
        return -EINVAL;
    const int fd = m_walk ? -ENOSYS : resolveBeneath(key, O_DIRECTORY);
    return fd != -ENOSYS ? fd : walkBeneath(key, false, 0);
}

void BeneathRoot::mountedAt(const std::string &path)
{
    const std::string mountPoint = normalizedPath(path);
    std::erase_if(m_open, [&](const auto &entry) { return isAtOrBelow(entry.first, mountPoint); });
}

} // namespace Cordon::Isolation
