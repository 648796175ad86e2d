// SPDX-License-Identifier: MIT
// Starts one run inside a ready container: clone (CLONE_VM, CLONE_VFORK), new session, the given stdio, every
// other fd closed, cwd, rlimits, execve. The seccomp filter is cordon-init's, installed once at the end of
// its setup and inherited by every run.
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

// cordon-init's own /proc/self/oom_score_adj, opened read-write while it still may: before the setup makes
// it non-dumpable, after which its /proc files belong to root. -1 where it cannot be opened.
int openOwnOomScore();

// `oomScoreFd` is openOwnOomScore()'s: a run whose request asks for it (raiseOomScore) starts with
// oom_score_adj 1000, so that the OOM killer picks it before PID 1.
SpawnResult spawnRun(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd, int oomScoreFd);

} // namespace Cordon::Isolation
