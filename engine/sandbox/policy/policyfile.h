// SPDX-License-Identifier: MIT
// Reading a policy file a user names (`cordon run --policy`, `cordon create --policy`): the one way, so that
// every command refuses the same things with the same words.
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"
#include "sandbox/policy/fields.h"

#include <cstddef>
#include <string>

namespace Cordon::Policy {

// Twice a policy document's own limit, so that an oversized document gets the reader's clear error
// (policy.too_large with a line and column) and a file far larger is refused before it is read whole.
constexpr std::size_t MaxPolicyFileBytes = 2 * DocumentLimits.maxBytes;

// The document in the file at `path`, read with readRegularFile() and Fields::readDocument(): a FIFO, a
// device or a socket named by mistake (or by a hostile script) is refused at once instead of hanging the
// command. Errors name the file:
// cli.policy_unreadable (cannot be opened, or is not a regular file), cli.read, policy.too_large, and the
// reader's own codes.
Result<Json> readPolicyFile(const std::string &path);

} // namespace Cordon::Policy
