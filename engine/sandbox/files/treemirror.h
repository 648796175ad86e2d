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
#include <unordered_map>
#include <vector>

#include <sys/types.h>
#include <time.h>

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
    // saveTree() only: the new copy reaches the disk (syncfs) before it is swapped in, and the swap itself
    // (fsync of the parent) after. Without it a power loss shortly after a save can leave empty or missing
    // files under the new name, which defeats a checkpoint; checkpoints of a running container set it. The
    // cost is mostly the disk's wait, not CPU: docs/benchmarks.md, "Workspace checkpoints".
    bool durable = false;
};

struct MirrorReport
{
    std::int64_t files = 0;
    std::int64_t directories = 0;
    std::int64_t symlinks = 0;
    std::int64_t bytes = 0;            // data bytes in the copy, linked files included (what maxBytes counts)
    std::int64_t linkedFiles = 0;      // of `files`: unchanged since the previous save, linked from its copy
    std::int64_t copiedBytes = 0;      // of `bytes`: written by this save
    std::int64_t leftOut = 0;          // entries not copied: other types, other mounts, past a limit
    std::vector<std::string> examples; // the first few of them, relative and escaped for display
};

// What a save wrote, for the next save of the same tree into the same host directory: a regular file whose
// source is unchanged since then is hard-linked from the saved copy instead of copied again (files in a saved
// copy are never changed in place, so generations can share them). The caller keeps it in memory between
// saves of one running container; a new tmpfs (a restart, another daemon) never matches it.
struct MirrorManifest
{
    struct File
    {
        // The source as the save saw it before reading it. The change time is what proves it unchanged: no
        // call sets it, and every write, truncation, chmod or utimensat moves it on, so a program that forges
        // the size and the modification time back still gets its file copied again.
        dev_t sourceDevice = 0;
        ino_t sourceInode = 0;
        timespec sourceChanged{};  // st_ctim
        timespec sourceModified{}; // st_mtim
        off_t size = 0;
        std::int64_t bytes = 0; // what MirrorReport::bytes counted for it
        // The copy it became, checked again (inode, size, mode, time) before it is linked.
        ino_t hostInode = 0;
    };
    dev_t hostDevice = 0;
    bool durable = false; // written with MirrorLimits::durable: a durable save links only from such a copy
    std::unordered_map<std::string, File> files; // by path relative to the tree
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
// copy saved before it as it was. `hostDir`'s parent must not pass through a symlink. With `manifest`, it
// goes in as what the previous save of this tree to `hostDir` recorded (empty: copy everything) and comes
// back as what this one wrote; a failed save leaves it alone, as it leaves the copy it describes. Errors:
// those of mirrorTree(), files.io (the sibling could not be made, written durably or swapped in).
Result<MirrorReport> saveTree(int sourceDir, const std::string &hostDir, const MirrorLimits &limits,
                              MirrorManifest *manifest = nullptr);

// Puts `<hostDir>.old` back when `hostDir` is missing: a save cut off between its two renames.
Result<> restoreInterruptedSave(const std::string &hostDir);

} // namespace Cordon::Files
