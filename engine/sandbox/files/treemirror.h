// SPDX-License-Identifier: MIT
// Copying a container's workspace as it is, between the host and its in-memory workspace (a tmpfs whose size
// the kernel enforces; docs/architecture.md, "The workspace"): cordon-init restores the saved files into the
// tmpfs when the container starts, and the engine saves the tmpfs to the host when it stops. Unlike
// exportTree(), which hands single files to the user, a mirror keeps what a workspace needs to work again:
// directories, regular files with their permission bits, times and holes, and symlinks as links. Nothing is
// ever followed or resolved: every entry is opened beneath its parent's descriptor (openBeneath()). Set-id
// bits never travel; devices, FIFOs and sockets stay behind, and so does anything on another mount (the
// read-only inputs bind, the outputs mount, which is mirrored on its own).
#pragma once

#include "sandbox/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace Cordon::Files {

struct MirrorLimits
{
    std::int64_t maxBytes = 0;   // data bytes (holes are free); a file that would pass it is left out
    std::int64_t maxEntries = 0; // directories, files and links
    int maxDepth = 64;
    // Set: every entry made is handed to this owner (a root engine saving for the unprivileged uid inside).
    std::optional<std::pair<uid_t, gid_t>> owner;
    // Names at the top of the tree that are not copied, nor counted as left out: the workspace's inputs/ and
    // outputs/ mount points, which show the directories under them once the container's mounts are gone.
    std::vector<std::string> skipAtTop;
};

struct MirrorReport
{
    std::int64_t files = 0;
    std::int64_t directories = 0;
    std::int64_t symlinks = 0;
    std::int64_t bytes = 0;
    std::int64_t leftOut = 0;          // entries not copied: other types, other mounts, past a limit
    std::vector<std::string> examples; // the first few of them, relative and escaped for display
};

// Copies what is below `sourceDir` (any directory descriptor, O_PATH too) into `destinationDir` (an
// empty directory, opened O_RDONLY|O_DIRECTORY). Files with several links are linked again in the copy.
// Entries the sandbox can make unreadable (gone, swapped for a link or a mount, no permission) and names the
// destination cannot hold are left out and counted. Fatal, with the errno: files.mirror (the destination
// refused a write: ENOSPC when the tree does not fit, EDQUOT, EIO; or the engine could not read: EMFILE,
// ENOMEM, EIO), files.unreadable (`sourceDir` itself).
Result<MirrorReport> mirrorTree(int sourceDir, int destinationDir, const MirrorLimits &limits);

// The engine's side: saves the tree below `sourceDir` to the host directory `hostDir`, which it replaces as a
// whole (renameat2 RENAME_EXCHANGE with a sibling it filled first; where the file system has no exchange,
// two renames with the old copy kept as `<hostDir>.old` in between), so a save that fails part-way leaves the
// copy saved before it as it was. `hostDir`'s parent must not pass through a symlink. Errors: those of
// mirrorTree(), files.io (the sibling could not be made or swapped in).
Result<MirrorReport> saveTree(int sourceDir, const std::string &hostDir, const MirrorLimits &limits);

// Puts `<hostDir>.old` back when `hostDir` is missing: a save cut off between its two renames.
Result<> restoreInterruptedSave(const std::string &hostDir);

} // namespace Cordon::Files
