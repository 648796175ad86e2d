// SPDX-License-Identifier: MIT
// Wiping a directory tree that untrusted code wrote into (a container workspace being deleted).
#pragma once

#include "sandbox/error.h"

#include <string>
#include <string_view>

namespace Cordon::Files {

// Removes `path` (bytes, as the kernel takes them) and everything below it; ok when it does not exist. Works
// by descriptor with unlinkat(2), so no symlink is ever followed (a link to $HOME loses the link, not $HOME;
// CVE-2022-21658, Rust's remove_dir_all) and ".." is never walked (CVE-2002-0435, rm -r led above the tree by
// a directory moved up mid-removal). No path is longer than one name however deep the tree: past 64 levels
// subtrees are moved up to the top of the tree with renameat2 instead of holding a descriptor per level.
// Does not cross mount points: one below `path` is left in place and reported as `files.mount_point`.
// Directories the sandbox made unwritable or unsearchable (chmod 000) are made u+rwx first, through a pinned
// descriptor. If `path` itself is a symlink or a file, that entry alone is removed. Components above the last
// one of `path` must not be symlinks (files.symlink). Other failures: `files.remove` with the errno of the
// first entry that could not be removed; everything else is still removed.
Result<> removeTree(std::string_view path);

// The same for the entry `name` (one component) of the directory `parentFd` (any directory descriptor, O_PATH
// too): what removeTree() does once it holds the parent. `shown` names the entry in messages (bytes).
Result<> removeEntry(int parentFd, const std::string &name, const std::string &shown);

} // namespace Cordon::Files
