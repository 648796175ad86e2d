// SPDX-License-Identifier: MIT
// The mount primitives a container's mount plan is made of, by one of two routes:
// - the file-descriptor mount API (open_tree, fsopen/fsmount, mount_setattr, move_mount; Linux 5.12): each
//   mount is built detached, gets its flags there and is attached to the target's O_PATH descriptor in one
//   move. No path is resolved, and a read-only bind is never visible writable, not even between two calls.
// - mount(2) on /proc/self/fd/N paths, for older kernels: a bind and then a remount for its flags.
// Each /proc/self/fd path costs the kernel about 8 us to resolve, a third of a read-only bind by the second
// route; a container's plan has about 40 mounts (docs/benchmarks.md). The first ENOSYS switches to the second
// route for the rest of the plan; tests force it with SetupRequest::classicMountCalls.
#pragma once

#include <functional>
#include <string>

namespace Cordon::Isolation {

class MountCalls
{
public:
    explicit MountCalls(bool classic) : m_classic(classic) {}

    // A new filesystem of `type` on the directory `targetFd` pins. `options` is mount(2)'s comma-separated
    // data ("mode=0755,size=64k"); msFlags are MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC. 0 or an errno.
    int newFilesystem(int targetFd, const char *type, const std::string &options, unsigned long msFlags);

    // Binds what `sourceFd` pins (recursively: with the mounts below it) onto `targetFd`, with msFlags
    // (MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC) on the new mount. The second route needs the target opened
    // again after the bind to remount the new mount; `reopenTarget` does that (an O_PATH fd or -errno).
    int bind(int sourceFd, int targetFd, bool recursive, unsigned long msFlags,
             const std::function<int()> &reopenTarget);

    // Adds msFlags (MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC) to the mount whose root `targetFd` pins, in
    // place: no new mount, nothing below it copied. 0 or an errno.
    int restrictInPlace(int targetFd, unsigned long msFlags);

    bool classic() const { return m_classic; }

private:
    int classicNewFilesystem(int targetFd, const char *type, const std::string &options,
                             unsigned long msFlags);
    int classicRestrict(int targetFd, unsigned long msFlags);
    int classicBind(int sourceFd, int targetFd, bool recursive, unsigned long msFlags,
                    const std::function<int()> &reopenTarget);

    bool m_classic;
};

} // namespace Cordon::Isolation
