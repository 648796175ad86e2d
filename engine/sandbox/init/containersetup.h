// SPDX-License-Identifier: MIT
// What cordon-init does once, as PID 1 of fresh namespaces, before it serves runs: take the uid/gid the
// engine mapped, execute the mount plan into a new root, pivot_root, set hostname and loopback, enter a
// cgroup namespace, and give up every capability. Plain C++ without Qt; runs in a single-threaded process.
#pragma once

#include "sandbox/initprotocol.h"

#include <vector>

namespace Cordon::Isolation {

// Returns a reply whose stage is Stage::None on success, or the step that failed with its errno.
SetupReply setUpContainer(const SetupRequest &request, const std::vector<int> &fds);

} // namespace Cordon::Isolation
