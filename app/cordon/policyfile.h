// SPDX-License-Identifier: MIT
#pragma once

#include "core/result.h"
#include "sandbox/policy/containerpolicy.h"

namespace Cordon::Cli {

// Reads a --policy file strictly (docs/policy.md); an empty path is the default policy. Errors name the file.
// givesName, when not null, is set to whether the file names the container: without a name the daemon
// chooses a readable one, so the default name must not be sent in its place.
Result<Policy::ContainerPolicy> loadPolicyFile(const QString &path, bool *givesName = nullptr);

} // namespace Cordon::Cli
