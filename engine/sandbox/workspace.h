// SPDX-License-Identifier: MIT
// A container's files on the host: <data>/containers/<id>/ with work/ and outputs/ (what /mnt/data and
// /mnt/data/outputs held when the container last stopped), inputs/ (uploads, bound read-only at
// /mnt/data/inputs) and code/ (source files of code runs). While the container runs, /mnt/data is a tmpfs of
// workspace_mb inside it, filled from work/ and outputs/ at the start and saved back to them at the stop
// (mountplan.h). They live exactly as long as the container. Every container start makes it
// (containerlaunch.h); the daemon's file methods and deletion use it too.
#pragma once

#include "sandbox/error.h"
#include "sandbox/files/treemirror.h"

#include <string>
#include <string_view>

#include <sys/types.h>

namespace Cordon::Containers {

// $CORDON_DATA_DIR when set and not empty; else what QStandardPaths::GenericDataLocation is on Linux plus
// "/cordon": $XDG_DATA_HOME/cordon when set and not empty (taken as it is), else
// <$HOME, cleaned like QDir::cleanPath, "/" when unset or empty>/.local/share/cordon. Reads the environment
// only: no passwd lookup, so a static binary gives the same answer as the Qt programs.
std::string dataDirectory();

// A fresh random id from getrandom(2): 16 lower-case hex characters, usable as a directory and cgroup name.
std::string newContainerId();

// Where the directories of a workspace are on the host.
struct WorkspacePaths
{
    std::string work;    // /mnt/data as saved at the last stop (without inputs/ and outputs/)
    std::string inputs;  // mounted at /mnt/data/inputs, read-only
    std::string outputs; // /mnt/data/outputs as saved at the last stop
    std::string code;    // mounted read-only at /mnt/code; empty with Layout::OneShot
};

// What the last save of a running container wrote (Files::MirrorManifest), one per saved tree.
struct WorkspaceManifest
{
    Files::MirrorManifest work;
    Files::MirrorManifest outputs;
};

class Workspace final
{
public:
    // A long-lived container has code/ (the source files of code runs, mounted read-only at /mnt/code) and
    // the saved copy of its workspace in work/ and outputs/. A one-shot run takes no code runs and starts
    // from an empty workspace that is never saved: it has inputs/ only.
    enum class Layout
    {
        Container,
        OneShot,
    };

    // Creates the directories, or reuses them for a container that starts again (a symlink or file that an
    // older Cordon's workspace left at work/inputs or work/outputs is removed: the restore would put it in
    // the way of the mounts). When `ownerUid` is not our effective uid (the caller is root and code inside
    // runs as an unprivileged host uid), work/ and outputs/ are handed to `ownerUid`:`ownerGid`. Failures:
    // `workspace.io`, or what removing a planted entry reported.
    static Result<Workspace> create(std::string_view containerId, uid_t ownerUid, gid_t ownerGid,
                                    Layout layout = Layout::Container);
    // The workspace of an existing container, without changing the disk.
    static Workspace at(std::string_view containerId);

    const std::string &root() const { return m_root; }
    // With Layout::OneShot, `code` is empty (work/ and outputs/ are named but not made).
    WorkspacePaths paths(Layout layout = Layout::Container) const;

    // Saves a running container's in-memory workspace to work/ and outputs/, each replaced whole
    // (Files::saveTree()): `workspaceDir` and `outputsDir` are the /mnt/data and /mnt/data/outputs that
    // cordon-init handed back. The two reports are added up. A failure keeps what was saved before. With
    // `manifest` (a checkpoint of a running container: the caller keeps it from one save to the next of the
    // same tmpfs), files unchanged since the previous save are linked from it instead of copied, and it is
    // updated for each tree saved (Files::saveTree()).
    Result<Files::MirrorReport> save(int workspaceDir, int outputsDir, const Files::MirrorLimits &limits,
                                     WorkspaceManifest *manifest = nullptr) const;

    // Deletes everything below root without following anything the sandbox left (symlinks, odd modes).
    Result<> remove() const;

private:
    std::string m_root;
};

} // namespace Cordon::Containers
