// SPDX-License-Identifier: MIT
// What cordon-init keeps of its runs so that a container outlives the engine: each run until an engine has
// recorded its end, its exit status, and, while no engine is connected, what it writes (bounded, the excess
// counted); and the hand-over of all of it to the next engine that connects to the adoption socket.
#pragma once

#include "sandbox/initprotocol.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

struct pollfd;

namespace Cordon::Isolation {

// What cordon-init keeps of one output stream while no engine reads it (MaxHeldOutputPerStream).
struct HeldStream
{
    int fd = -1; // the engine's read end, held by us; -1 once the stream ended (or it was never held)
    std::string buffered;
    std::uint64_t dropped = 0;
};

struct HeldProcess
{
    std::uint64_t runId = 0;
    std::string tag;
    pid_t pid = -1;
    bool endsContainer = false;
    std::uint64_t deadlineMonotonicMs = 0;
    bool exited = false;
    bool timedOut = false;
    std::int32_t waitStatus = 0;
    std::uint64_t userMicros = 0;
    std::uint64_t systemMicros = 0;
    std::uint64_t maxRssKiB = 0;
    HeldStream output[2]; // stdout, stderr
};

struct HeldOutputBudget
{
    std::size_t used = 0;
};

// What a container that outlives the engine keeps for the next one.
struct AdoptionHandles
{
    int listener = -1;           // the adoption socket the engine passed with the setup request
    std::uint32_t engineUid = 0; // the engine's uid as our user namespace sees it (SO_PEERCRED)
    std::vector<int> handBack;   // the workspace directories, as passed back after the setup
    int proxyListener = -1;
};

std::size_t liveRuns(const std::vector<HeldProcess> &runs);
HeldProcess *findLiveRun(std::vector<HeldProcess> &runs, pid_t pid);
// Closes what is held for the run and lets its buffered output go.
void forgetRun(std::vector<HeldProcess> &runs, std::uint64_t runId, HeldOutputBudget &budget);

// Adds every held read end still open to `fds` (after what is there).
void watchHeldOutput(const std::vector<HeldProcess> &runs, std::vector<pollfd> &fds);
// Reads once from each held read end `fds` says is ready, keeping what the bounds allow; an end of file
// closes the read end.
void readHeldOutput(std::vector<HeldProcess> &runs, const std::vector<pollfd> &fds, HeldOutputBudget &budget);

// The peer on `connection` has the engine's uid and lives outside the container's pid namespace (a process
// inside could never reach the socket's path; this holds even if it did).
bool isOurEngine(int connection, std::uint32_t engineUid);

// The version handOver() answers with: InitProtocolVersion, except in the test build that stands in for
// another package's cordon-init (tests/upgrade/CMakeLists.txt).
extern std::uint32_t answeredProtocolVersion;
// Reads the engine's Adopt and sends it everything: AdoptReply with the directories and the proxy
// listener, each run with its open read ends and buffered output, AdoptDone. A send that takes longer than a
// few seconds fails it: cordon-init must go back to reaping. On success the buffers are let go.
bool handOver(int connection, const AdoptionHandles &adoption, std::vector<HeldProcess> &runs,
              HeldOutputBudget &budget);

} // namespace Cordon::Isolation
