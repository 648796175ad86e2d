// SPDX-License-Identifier: MIT
// `cordon run`: a throw-away container for one command, i.e. create + exec + delete in this process. Copies
// inputs in, runs, copies outputs/ out safely and removes every trace (processes, mounts, cgroup, files).
// The run itself is the sandbox library's one-shot sequence (sandbox/oneshotrun.h), which the `cordon`
// launcher also runs directly; this adds what the Qt front end still does: a policy file's model, inputs and
// outputs copied with the plain tree copier (sandbox/files/safecopy.h) from the request's Qt paths, and the
// outcome in Qt types.
#pragma once

#include "containers/containerrun.h"
#include "containers/runoutcome.h"
#include "sandbox/oneshotrun.h"
#include "sandbox/policy/containerpolicy.h"

#include <QStringList>

#include <functional>
#include <optional>

namespace Cordon::Containers {

struct OneShotRequest
{
    Policy::ContainerPolicy policy;
    QStringList command;
    QStringList inputs;                  // host files copied into /mnt/data/inputs under their file names
    QString outputDirectory;             // where outputs/ is copied after the run; empty: not copied
    std::optional<QByteArray> stdinData; // without it the run's stdin is /dev/null
    bool allowDegraded = false;          // run without memory/pids limits when the host offers no cgroups
    int interruptFd = -1; // readable when the user asked to stop: the run ends as killed, "cancelled"
};

// Runs a request to the end (blocking, without an event loop); setup errors come back as a setup_failed
// outcome. `onOutput` gets the output as it arrives, within the policy's cap.
RunOutcome runToCompletion(OneShotRequest request,
                           const std::function<void(OutputStream, const QByteArray &)> &onOutput = {});

} // namespace Cordon::Containers
