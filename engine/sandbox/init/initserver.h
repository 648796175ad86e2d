// SPDX-License-Identifier: MIT
// cordon-init's life as PID 1: read the setup request, build the container, then serve spawn and kill
// requests, reap every process (orphans are re-parented to us), and report each run's exit. When the control
// socket closes (the engine went away), a one-shot container ends: we exit, and the kernel kills everything
// left in the pid namespace. A container that outlives the engine (SetupRequest::survivesEngine) goes on
// instead: its runs keep running, we drain and keep what they write (init/heldruns.h) and kill those past
// their deadline, and wait on the adoption socket for the next engine.
#pragma once

namespace Cordon::Isolation {

// The control socket is fd `controlFd`. Returns the process exit code.
int runInit(int controlFd);

} // namespace Cordon::Isolation
