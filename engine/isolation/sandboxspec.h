// SPDX-License-Identifier: MIT
// The engine's side of a container's plan, in Qt types: where its workspace is. The mount plan itself is
// plain C++ (isolation/core/mountplan.h), built by every container start (containers/oneshot/
// containerlaunch.h); tst_sandboxspec checks it without starting a container.
#pragma once

#include "sandbox/initlaunch.h"
#include "sandbox/initprotocol.h"
#include "sandbox/mountplan.h"

#include <QString>

namespace Cordon::Isolation {

struct WorkspacePaths
{
    QString work;    // mounted at /mnt/data, writable
    QString inputs;  // mounted at /mnt/data/inputs, read-only
    QString outputs; // mounted at /mnt/data/outputs, writable, noexec
    QString code; // optional: mounted read-only at /mnt/code, where the engine writes code runs' source files
};

} // namespace Cordon::Isolation
