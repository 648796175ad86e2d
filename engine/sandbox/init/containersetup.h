// SPDX-License-Identifier: MIT
// What cordon-init does once, as PID 1 of fresh namespaces, before it serves runs: take the uid/gid the
// engine mapped, execute the mount plan into a new root, pivot_root, set hostname and loopback, enter a
// cgroup namespace, and give up every capability. Plain C++ without Qt; runs in a single-threaded process.
#pragma once

#include "sandbox/initprotocol.h"

#include <functional>
#include <vector>

namespace Cordon::Isolation {

// What needs no request, done while the engine is still preparing it (the setup request is read after):
// empties the capability bounding set (it only limits what an execve may grant, and cordon-init never execs;
// its own capabilities stay for the mounts), and sets every signal's disposition to the default (the engine's
// ignored ones are inherited across the exec), so that a run's child has only its mask to reset.
// Returns a reply whose stage is Stage::None on success, or the step that failed with its errno.
SetupReply prepareBeforeSetup();

// Blocks until the engine says cordon-init is in the container's cgroup (SetupRequest::awaitCgroup); 0 or an
// errno.
using AwaitCgroup = std::function<int()>;

// Returns a reply whose stage is Stage::None on success, or the step that failed with its errno. With
// request.awaitCgroup, `awaitCgroup` is called once, before the first step the container's cgroup must see:
// restoring a saved workspace, or else rooting the cgroup namespace.
SetupReply setUpContainer(const SetupRequest &request, const std::vector<int> &fds,
                          const AwaitCgroup &awaitCgroup);

} // namespace Cordon::Isolation
