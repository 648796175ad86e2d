// SPDX-License-Identifier: MIT
// Whether a report given for signing is the one the history holds: a signature must prove that an audit ran,
// so only a report the daemon kept is signed, never a file whose id, rows or evidence were made up.
#pragma once

#include "sandbox/json.h"

#include <string>

namespace Cordon::Audit {

// The first way `given` differs from `held` (two reports' JSON), said for a reviewer ("it has 4 rows, the
// history's record has 21", "row network.refused is Go here, No-Go in the history's record"); empty when they
// are the same report. The sign-off and the signature are not compared: signing replaces them.
std::string differenceFromHeld(const Json &held, const Json &given);

} // namespace Cordon::Audit
