// SPDX-License-Identifier: MIT
// Where the per-user daemon listens, and the lock that keeps it to one instance per user.
#pragma once

#include "core/result.h"

#include <QString>

namespace Cordon::Daemon {

// $XDG_RUNTIME_DIR/cordon when the runtime dir is set, exists, is ours and is not group/world writable;
// otherwise $XDG_STATE_HOME/cordon or ~/.local/state/cordon. With CORDON_SOCKET set (tests), its directory.
QString socketDirectory();
// CORDON_SOCKET when set, else socketDirectory()/cordond.sock.
QString socketPath();
// Beside the socket: socketPath() + ".lock".
QString lockPath();

// Creates the socket directory with mode 0700 (parents as needed) and checks it: a real directory, not a
// symlink, owned by us. A directory of ours with a wider mode is narrowed to 0700. Error `daemon.socket_dir`.
Result<> ensureSocketDirectory();

// Held for the daemon's lifetime: an flock on lockPath(), with our pid written into the file so that a second
// daemon can name the first. The kernel drops the lock when the process dies, so a crash leaves nothing
// stale.
class InstanceLock final
{
public:
    // ensureSocketDirectory(), then the lock; `daemon.already_running` names the pid of the holder.
    static Result<InstanceLock> acquire();

    InstanceLock(InstanceLock &&other) noexcept;
    InstanceLock &operator=(InstanceLock &&other) noexcept;
    InstanceLock(const InstanceLock &) = delete;
    InstanceLock &operator=(const InstanceLock &) = delete;
    ~InstanceLock();

    const QString &path() const { return m_path; }

private:
    InstanceLock(int fd, QString path);
    void release();

    int m_fd = -1;
    QString m_path;
};

} // namespace Cordon::Daemon
