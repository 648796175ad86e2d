// SPDX-License-Identifier: MIT
// The canonical serialisation that policy versions are hashed over. It must never change for a given value:
// stored runs refer to policies by the sha256 of these bytes.
#pragma once

#include "sandbox/json.h"

#include <string>

namespace Cordon::Policy {

// RFC 8785 (JSON Canonicalization Scheme) for the values a policy holds: no whitespace, object keys sorted by
// UTF-16 code units, strings as UTF-8 with only '"', '\' and control characters escaped (jsonQuote()),
// integers in plain decimal. Written here rather than by Json::serialize(), whose member order is the
// document's.
std::string toCanonicalJson(const Json &value);

} // namespace Cordon::Policy
