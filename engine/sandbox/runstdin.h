// SPDX-License-Identifier: MIT
// A run's stdin when it is given up front: all of it in a memfd, which the run reads at its own pace (we
// never block writing), or /dev/null. ContainerRun and the one-shot run both open it here.
#pragma once

#include "sandbox/error.h"

#include <string_view>

namespace Cordon::Containers {

// A close-on-exec memfd holding `data`, positioned at its start; `run.stdin` on failure.
Result<int> stdinMemfd(std::string_view data);
// /dev/null, read-only and close-on-exec; `run.stdin` on failure.
Result<int> openDevNull();

} // namespace Cordon::Containers
