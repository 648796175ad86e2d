// SPDX-License-Identifier: MIT
// systemd's socket activation for cordond (sd_listen_fds(3)): the service manager binds the control socket,
// starts cordond on the first connection and passes the listening socket as fd 3, naming the receiver in
// LISTEN_PID and the count in LISTEN_FDS. packaging/systemd/cordond.socket is the unit that does it.
#pragma once

#include "core/result.h"

#include <QString>

namespace Cordon::Daemon {

struct Activation
{
    int fd = -1;     // the listening socket the service manager passed (close-on-exec, non-blocking), or -1
    QString ignored; // why variables that were set are not used (meant for another process), else empty
};

// Reads LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES once and removes them from the environment, so that no
// process the daemon starts takes them for its own. Not activated (fd -1): the variables are absent, or
// LISTEN_PID names another process (`ignored` says so; a parent that exec'ed us without clearing them). An
// error (`daemon.activation`) when they are meant for this process but what they pass is unusable: a count
// other than 1, or fd 3 not a listening unix stream socket.
Result<Activation> takeActivation();

} // namespace Cordon::Daemon
