// SPDX-License-Identifier: MIT
#pragma once

#include "core/result.h"
#include "policy/containerpolicy.h"

namespace Cordon::Cli {

// Reads a --policy file strictly (docs/policy.md); an empty path is the default policy. Errors name the file.
Result<Policy::ContainerPolicy> loadPolicyFile(const QString &path);

} // namespace Cordon::Cli
