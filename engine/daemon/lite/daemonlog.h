// SPDX-License-Identifier: MIT
// The log of a daemon that a client starts: <socket>.log, appended to. A daemon that exits at once (a
// damaged history, another daemon holding the lock, no cgroups) says why on its stderr; every client that
// starts one sends that there, and quotes what this start added when the daemon is gone instead of waiting
// out its start timeout.
#pragma once

#include <string>
#include <string_view>
#include <sys/types.h>

namespace Cordon::Lite {

std::string daemonLogPath(std::string_view socketPath);

// The log opened for appending (0600), its descriptor close-on-exec, and its size now, where what the new
// daemon writes will begin. The socket's directory is made (0700) when it is missing and its parent exists.
// fd is -1 when the log cannot be opened; the daemon's output then goes nowhere.
struct DaemonLog
{
    int fd = -1;
    off_t startOffset = 0;
};
DaemonLog openDaemonLog(std::string_view socketPath);

// The last `maxLines` lines of what the log holds from `offset` on, at most 4 KiB of it, trimmed; empty when
// nothing was written.
std::string daemonLogTail(std::string_view socketPath, off_t offset, int maxLines = 5);

// Whether a daemon holds <socket>.lock: one that exited at once may have lost the race to it, and that one
// is worth waiting for.
bool daemonLockHeld(std::string_view socketPath);

// Whether process `pid` has exited: gone, or a zombie nobody has reaped yet (a detached daemon's parent may
// be a service manager that reaps late).
bool processHasExited(pid_t pid);

} // namespace Cordon::Lite
