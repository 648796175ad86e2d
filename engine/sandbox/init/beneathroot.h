// SPDX-License-Identifier: MIT
// Where the mount plan's targets are found and made: inside the new root, every path resolved beneath the
// root's descriptor with no symlink or magic link on the way (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
// or a walk with O_NOFOLLOW before Linux 5.6). A symlink that code in the container planted in its workspace
// (/mnt/data/outputs -> /usr) can never redirect a mount: the open fails instead.
//
// Directories stay open for the whole setup: most of a plan's 40 or so operations share a parent (/etc, /dev,
// /proc), and each open and close costs the kernel about 3 us. A directory's descriptor names the directory
// that was there when it was opened, so a mount at a path must be reported (mountedAt()): what was opened at
// or below it is forgotten, and the next lookup finds the mount's root.
#pragma once

#include "sandbox/uniquefd.h"

#include <cstdint>
#include <map>
#include <string>

namespace Cordon::Isolation {

class BeneathRoot
{
public:
    explicit BeneathRoot(int rootFd) : m_root(rootFd) {}

    // The directory at `path` (absolute inside the new root), made with `mode` where missing when `create`
    // (its missing parents too). Borrowed: valid until mountedAt() of it or an ancestor, or the end of this
    // object. -errno on failure: -EINVAL for a "." or ".." component, -ELOOP for a symlink on the way.
    int directory(const std::string &path, bool create, std::uint32_t mode);

    // A regular file at `path` to mount on or write to: created with `mode` when `create` and opened for
    // writing (a symlink in its place fails with ELOOP), otherwise opened O_PATH. Owned by the caller.
    int file(const std::string &path, bool create, std::uint32_t mode);

    // The directory or file at `path` opened again, O_PATH: the second mount route remounts what a bind put
    // there, which the target's earlier descriptor does not reach. A directory is looked up past anything
    // remembered; a file through its remembered parent, which the bind does not cover. Owned.
    int reopen(const std::string &path, bool isDirectory);

    // A mount was attached at `path`: forgets the descriptors of it and of everything below it.
    void mountedAt(const std::string &path);

    // `path` split at its last slash, with the parent opened (and made, when `create`). The name is empty
    // when path is "/"; parent is -errno on failure.
    struct Parent
    {
        int fd;
        std::string name;
    };
    Parent parentOf(const std::string &path, bool create);

private:
    int resolveBeneath(const std::string &path, int flags) const;
    int walkBeneath(const std::string &path, bool create, std::uint32_t mode) const;
    int createDirectory(const std::string &path, std::uint32_t mode);

    int m_root;
    std::map<std::string, UniqueFd> m_open;
    // Set by the first ENOSYS from openat2 (before Linux 5.6): every lookup walks from then on.
    bool m_walk = false;
};

// `path` with repeated and trailing slashes removed ("/" stays "/"); the key under which a directory is kept.
std::string normalizedPath(const std::string &path);

} // namespace Cordon::Isolation
