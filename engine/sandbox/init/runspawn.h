// SPDX-License-Identifier: MIT
// Starts one run inside a ready container: fork, new session, the given stdio, every other fd closed, cwd,
// rlimits, and the seccomp filter installed as the very last step before execve.
#pragma once

#include "sandbox/initprotocol.h"

#include <sys/types.h>

namespace Cordon::Isolation {

struct SpawnResult
{
    pid_t pid = -1;
    Stage stage = Stage::None;
    int error = 0;
};

SpawnResult spawnRun(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd);

} // namespace Cordon::Isolation
