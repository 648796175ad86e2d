// SPDX-License-Identifier: MIT
// Opening paths that untrusted code can change under us without following anything it planted: openat2(2)
// with RESOLVE_* flags, and an equivalent openat(O_NOFOLLOW) walk where the kernel (< 5.6) or a seccomp
// filter lacks it. The engine's file copies and the `cordon` launcher's one-shot run use it.
#pragma once

#include "sandbox/uniquefd.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace Cordon::Files {

// These behave like the syscalls they wrap: an invalid UniqueFd means failure and errno says why. They are
// the only places that resolve names; everything above them works on the descriptors they return.

// Opens one directory entry `name` below `dirFd` with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV. `name` must be a single component: "", ".", ".." and anything with
// a '/' or a NUL fail with EINVAL. O_NOFOLLOW and O_CLOEXEC are always added. A symlink fails with ELOOP
// (or ENOTDIR with O_DIRECTORY), an entry on another mount with EXDEV.
UniqueFd openBeneath(int dirFd, std::string_view name, int flags);

// Opens a host path with RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS (SECURITY.md section 3, step 2): no
// component of the path may be a symlink, the last one included. O_CLOEXEC is always added.
UniqueFd openNoSymlinks(std::string_view path, int flags);

// chmod on the inode an O_PATH descriptor pins, so that a name swapped for a symlink between our check and
// the chmod cannot redirect it (fchmodat() follows symlinks). fchmodat2(AT_EMPTY_PATH) on Linux >= 6.6, else
// the /proc/self/fd/N path. Returns false with errno set.
bool changeModePinned(int pathFd, mode_t mode);

// Reads up to `max` entry names of the directory `dirFd` (opened O_RDONLY|O_DIRECTORY) from its beginning
// with getdents64, skipping "." and "..". The names are whatever bytes the directory holds. False with errno
// set.
bool readDirectoryNames(int dirFd, std::size_t max, std::vector<std::string> *names);

namespace Detail {
// The openat(O_NOFOLLOW) walk is what runs under seccomp filters that answer ENOSYS for openat2 and on
// kernels before 5.6. Tests switch openat2 off here so that the walk is exercised on hosts that do have
// openat2.
void setOpenat2Disabled(bool disabled);
} // namespace Detail

} // namespace Cordon::Files
