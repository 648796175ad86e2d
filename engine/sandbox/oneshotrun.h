// SPDX-License-Identifier: MIT
// A one-shot run (`cordon run`), start to finish, in plain C++: the one sequence every one-shot run takes.
// The `cordon` launcher calls it for every `cordon run`, so that no sandbox run pays for loading Qt (about
// 2 ms, docs/benchmarks.md); `cordon doctor`, `cordon demo` and the tests call it through
// Containers::runToCompletion() (containers/oneshotrun.h), which gives the outcome in Qt types.
//
// It starts a container the way the engine's Container does (cordon-init cloned first; the cgroup, the
// workspace and the mount plan made while it is exec-ed; the spawn request queued behind the setup request),
// supervises the run with one poll(2) loop (output under the cap, the wall-time limit, Ctrl-C, cordon-init's
// reports) and tears everything down. Every building block is the engine's own plain core: the cgroup
// backend, the workspace, the mount plan, the init protocol, the prebuilt seccomp program, the output cap and
// the outcome rules.
#pragma once

#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/error.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/mountplan.h"
#include "sandbox/outcome.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/secrets/secretinjection.h"
#include "sandbox/uniquefd.h"
#include "sandbox/workspace.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Containers::OneShot {

struct PlainRunRequest
{
    std::vector<std::string> command;
    Policy::ContainerPolicy policy;
    bool allowDegraded = false; // run without memory and pids limits when the host offers no cgroups
    std::optional<std::string> stdinData; // without it the run's stdin is /dev/null
    // Readable when the user asked to stop (Ctrl-C): the run is killed, the container removed as after any
    // run, and the run ends as `killed` with the note "cancelled". -1: none.
    int interruptFd = -1;
    // Called with the workspace once it exists, before the container is set up: inputs are copied in here.
    // A failure fails the run's setup.
    std::function<Result<>(const WorkspacePaths &)> prepareWorkspace;
    // Called after the run with /mnt/data/outputs, once every process of the container is gone and before
    // the workspace is removed: outputs are copied out here. Without it, the workspace is removed on a thread
    // while the kernel tears the container down.
    std::function<void(const Files::SourceRoot &outputs)> collectOutputs;
    // Called with the container's id and the egress proxy's listener that cordon-init made inside it (a
    // policy with an allowlist), once the container is set up and before the run starts: the launcher hands
    // it to the daemon's egress proxy, which serves it under the run's allowlist and the organisation's. A
    // failure fails the run's setup. Without it the listener is closed, so that the run's connections to the
    // proxy are refused at once instead of waiting for an answer that never comes.
    std::function<Result<>(const std::string &containerId, UniqueFd listener)> attachNetwork;
    // The policy's secrets with their values: set in the run's environment, and masked in the output passed
    // to the sink, the output kept and the message.
    std::vector<Secrets::ResolvedSecret> secrets;
    // Names the user in the advice of a cgroup error; null: /etc/passwd (all a static program can read).
    Cgroup::UserNameLookup userName = nullptr;
};

// What a run ends with: everything its summary shows, the output kept, and what the failed step was.
struct PlainRunOutcome : Cordon::OneShotSummary
{
    std::int64_t oomKills = 0;
    std::string stdoutData; // at most the output cap
    std::string stderrData;
    std::string setupStage; // for setup_failed: the error code of the step that failed
    int setupErrno = 0;
};

// The timing rules of every run (the one-shot run's and ContainerRun's): after the run's exit, processes
// left in the container may hold its output pipes open for this long; a killed run whose exit report does
// not come is ended regardless after this long.
inline constexpr int OutputGraceMs = 150;
inline constexpr int KillBackstopMs = 3000;

// Output as it arrives: stream 1 is stdout, 2 stderr; only what is kept under the output cap.
using OutputSink = std::function<void(int stream, std::string_view chunk)>;

// The spawn request of a run under `policy`, for every run of every container: its argv, its whole
// environment (runEnvironment(): nothing of the caller's), /mnt/data as its working directory, its resource
// limits (no core dumps, 4096 open files, no file larger than workspace_mb) and the seccomp program.
Isolation::SpawnRequest spawnRequestFor(const Policy::ContainerPolicy &policy, std::uint64_t runId,
                                        std::vector<std::string> argv);

// The mount plan's input for a policy (without the workspace and the ids, which the launch fills in).
Isolation::MountPlanInput mountPlanInput(const Policy::ContainerPolicy &policy);

PlainRunOutcome runPlain(const PlainRunRequest &request, const OutputSink &onOutput);

} // namespace Cordon::Containers::OneShot
