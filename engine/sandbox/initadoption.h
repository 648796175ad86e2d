// SPDX-License-Identifier: MIT
// The engine's side of a container that outlives it (docs/architecture.md, "Containers outlive the daemon"):
// the adoption socket it gives cordon-init with the setup request, and the adoption of a cordon-init that an
// earlier engine started. Plain C++, like the rest of the start sequence.
#pragma once

#include "sandbox/error.h"
#include "sandbox/initlaunch.h"
#include "sandbox/initprotocol.h"
#include "sandbox/uniquefd.h"

#include <string>
#include <vector>

namespace Cordon::Isolation {

// Where in a container's host directory its cordon-init waits for the next engine.
inline constexpr const char *AdoptionSocketName = "init.sock";

// A SOCK_SEQPACKET socket bound at `directory`/init.sock (an old one is replaced), mode 0600, not yet
// listening: cordon-init calls listen() itself, so that the credentials an engine reads on a connection
// (SO_PEERCRED, taken at listen()) are cordon-init's, its pid among them. The directory is reached through a
// descriptor, so that its path may be longer than a socket address holds. Error: sandbox.adoption_socket.
Result<UniqueFd> bindAdoptionSocket(const std::string &directory);

struct AdoptedRun
{
    HeldRun state;
    UniqueFd stdoutRead; // the pipes' read ends still open (the stream did not end yet)
    UniqueFd stderrRead;
    std::string stdoutHeld; // what cordon-init read from them while no engine was connected
    std::string stderrHeld;
};

struct AdoptedInit
{
    InitProcess init; // pid in our pid namespace (from the connection's credentials), the connection
    std::uint32_t protocolVersion = 0;
    // The version is one this engine speaks: the runs were read and the connection serves as the control
    // socket. Otherwise only the directories were (to save the workspace before the container is ended).
    bool compatible = false;
    std::vector<UniqueFd> handedBack;
    UniqueFd proxyListener;
    std::vector<AdoptedRun> runs;
};

// Connects to the cordon-init waiting at `directory`/init.sock and takes over what it holds. Errors:
// sandbox.not_adoptable (no cordon-init waits there: no socket, or none listens on it: it ended, the machine
// restarted, or it was started before containers outlived the engine), sandbox.adoption_failed (one may be
// there, but the connection or its answer failed: a malformed or missing answer in `timeoutMs`).
Result<AdoptedInit> adoptInit(const std::string &directory, int timeoutMs);

// Tells cordon-init that the engine recorded a run's end, so it lets go of what it held for it.
int sendRunCollected(int controlFd, std::uint64_t runId);

} // namespace Cordon::Isolation
