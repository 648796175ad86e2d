// SPDX-License-Identifier: MIT
// Starting a container, in plain C++: the one start sequence of every container, the one-shot run's
// (oneshotrun.h) and the daemon's long-lived ones (containers/container.h). cordon-init is cloned while the
// workspace and mount plan are made on a thread of their own (on a disk the workspace's mkdirs are the
// slowest step of a start, and the plan checks about 30 host paths); then the setup request is sent, and the
// cgroup is made and cordon-init moved into it while cordon-init applies the plan (about 0.5 ms against 2 ms,
// on another core). A CgroupJoined message tells it so; it waits for that before restoring a saved
// workspace (whose pages the cgroup must be charged for), before its cgroup namespace, and so before any
// run.
#pragma once

#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/error.h"
#include "sandbox/initlaunch.h"
#include "sandbox/mountplan.h"
#include "sandbox/workspace.h"

#include <functional>
#include <optional>
#include <string>

namespace Cordon::Containers::OneShot {

struct LaunchRequest
{
    std::string id; // the container's id: its workspace's and its cgroup's name
    Isolation::IdMapping ids;
    Workspace::Layout layout = Workspace::Layout::OneShot;
    Cgroup::CgroupBackend *cgroup = nullptr; // null: degraded, accepted by the caller
    Cgroup::ResourceLimits limits;
    // A long-lived container's id may name a group that a killed daemon left; a fresh random id cannot.
    bool replaceStaleGroup = false;
    // The mount plan's input without the workspace, which this fills in.
    Isolation::MountPlanInput plan;
    // When set, written to the workspace root as ca-certificates.crt and mounted read-only at
    // Isolation::InsideTrustBundle (domain secrets: the system's CAs and the container's authority).
    std::string trustBundlePem;
    // The seccomp program every process of the container runs under (SetupRequest::seccompBpf): cordon-init
    // installs it at the end of its setup and refuses to go on without one.
    std::string seccompBpf;
    // The container outlives its engine (a daemon's containers): cordon-init gets an adoption socket in the
    // workspace's root directory with the setup request (initadoption.h).
    bool survivesEngine = false;
    // Called on the workspace thread once the workspace exists, before the plan (inputs are copied in here).
    std::function<Result<>(const WorkspacePaths &)> prepareWorkspace;
};

// What was started, so far as it got: the caller owns it and removes it (also after a failure).
struct LaunchedContainer
{
    Isolation::InitProcess init;
    std::optional<Workspace> workspace;
    bool cgroupCreated = false;
};

// Starts cordon-init, sends it the setup request (CORDON_CLASSIC_MOUNTS=1 asks for the mount route of
// kernels before 5.12, a test knob), and with a cgroup backend makes the cgroup, moves cordon-init in and
// says so. A failure leaves in `launched` whatever needs to be removed.
Result<> launchContainer(const LaunchRequest &request, LaunchedContainer &launched);

} // namespace Cordon::Containers::OneShot
