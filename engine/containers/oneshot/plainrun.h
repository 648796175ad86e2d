// SPDX-License-Identifier: MIT
// A one-shot run without Qt: the plain `cordon run -- CMD` that the `cordon` launcher does itself, so that
// the commonest sandbox run does not pay for loading Qt (about 2 ms, docs/benchmarks.md). It starts a
// container the way the engine's Container does (cordon-init cloned first; cgroup, workspace and mount plan
// made while it is exec-ed; the spawn queued behind the setup request), runs the command under the policy's
// default limits, and tears everything down. Every building block is the engine's own plain core: the cgroup
// backend, the workspace, the mount plan, the init protocol, the prebuilt seccomp program, the output cap and
// the outcome rules. What it does not do (a policy file, inputs, outputs, stdin, JSON) `cordon-run` does.
#pragma once

#include "daemon/lite/runreport.h"
#include "policy/core/defaults.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Containers::OneShot {

struct PlainRunRequest
{
    std::vector<std::string> command;
    bool allowDegraded = false; // run without memory and pids limits when the host offers no cgroups
    std::int64_t memoryLimitBytes = Policy::Defaults::MemoryLimitBytes;
    int runTimeoutS = Policy::Defaults::RunTimeoutS;
    // Readable when the user asked to stop (Ctrl-C): the run is killed, the container removed as after any
    // run, and the run ends as `killed` with the note "cancelled". -1: none.
    int interruptFd = -1;
};

// What a run ends with: everything its summary shows, and what the failed step was.
struct PlainRunOutcome : Lite::OneShotSummary
{
    std::int64_t oomKills = 0;
    std::string setupStage; // for setup_failed: the error code of the step that failed
    int setupErrno = 0;
};

// Output as it arrives: stream 1 is stdout, 2 stderr; only what is kept under the output cap.
using OutputSink = std::function<void(int stream, std::string_view chunk)>;

// A --timeout in milliseconds as the whole seconds of limits.run_timeout_s: rounded up, at least 1.
int timeoutSeconds(std::int64_t millis);

PlainRunOutcome runPlain(const PlainRunRequest &request, const OutputSink &onOutput);

} // namespace Cordon::Containers::OneShot
