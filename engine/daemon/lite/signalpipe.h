// SPDX-License-Identifier: MIT
// SIGINT, SIGTERM and SIGHUP as bytes on a pipe, for commands that must finish their work when interrupted
// (cancel a run, stop following events) instead of dying: the handler only writes a byte, which is
// async-signal-safe, and whatever loop watches the read end does the rest.
#pragma once

namespace Cordon::Lite {

// Installs the handlers (once) and returns the pipe's read end, non-blocking and close-on-exec; -1 with errno
// set when no pipe could be made, and then the signals keep their default action.
int interruptSignalPipe();
// Reads away the bytes that have arrived.
void drainSignalPipe(int fd);

} // namespace Cordon::Lite
