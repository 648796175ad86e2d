// SPDX-License-Identifier: MIT
// Handing a one-shot run's proxy listener to the daemon. The control socket's frames are read as a byte
// stream (by QLocalSocket in the daemon), which drops any descriptor sent beside them, so the listener takes
// a side path: the launcher listens on a private socket in the daemon's own 0700 directory, names it in its
// `network.attach_one_shot` request, and the daemon connects there and receives the descriptor. Each end
// checks the other with SO_PEERCRED: the launcher gives the listener only to the pid that answered its
// `hello`, and the daemon takes it only from the pid of the client that asked.
#pragma once

#include "sandbox/error.h"
#include "sandbox/uniquefd.h"

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace Cordon::Handoff {

// The file name of a handoff socket for a container, and whether a name is one (the daemon connects to
// nothing else).
std::string socketName(std::string_view containerId);
bool isSocketName(std::string_view name);

// The launcher's end: a non-blocking SOCK_SEQPACKET socket listening at `path` (mode 0600). Errors:
// network.handoff.
Result<UniqueFd> listenAt(const std::string &path);
// Accepts the daemon's connection on `listening`, checks that it comes from `expectedPid` and this user, and
// sends `fd` over it. False: nobody has connected yet. Errors: network.handoff (a peer other than
// the daemon is refused, and its connection closed).
Result<bool> sendListener(int listening, pid_t expectedPid, int fd);

// The daemon's end: a non-blocking connection to the handoff socket at `path`. Errors: network.handoff.
Result<UniqueFd> connectTo(const std::string &path);
// Receives the descriptor on `connected` once `expectedPid` (of this user) sent it. std::nullopt: nothing
// yet. Errors: network.handoff (another peer, no descriptor, the peer closed).
Result<std::optional<UniqueFd>> receiveListener(int connected, pid_t expectedPid);

} // namespace Cordon::Handoff
