// SPDX-License-Identifier: MIT
// Memory limits in plain C++: the four named tiers, like a hosted code interpreter's, or an explicit byte
// count. The rules and their wording live here once: the policy reader, the Qt CLI's --memory and the
// launcher's one-shot run all use them.
#pragma once

#include "sandbox/error.h"
#include <cstdint>

#include <string>
#include <string_view>

namespace Cordon::Policy {

inline constexpr std::int64_t MiB = 1024LL * 1024;
inline constexpr std::int64_t GiB = 1024LL * 1024 * 1024;
// Below 64 MiB an interpreter hardly starts; the top tier is the largest we let one container claim.
inline constexpr std::int64_t MinMemoryLimitBytes = 64 * MiB;
inline constexpr std::int64_t MaxMemoryLimitBytes = 64 * GiB;
inline constexpr int MemoryTiersGiB[] = {1, 4, 16, 64};

// "1g", "4g", "16g", "64g" (the g in either case), or a decimal byte count in [MinMemoryLimitBytes,
// MaxMemoryLimitBytes]; no signs, spaces, units or fractions. Anything else: `policy.invalid_memory_limit`,
// whose message gives the rule and the text as a JSON string.
Result<std::int64_t> parseMemoryLimit(std::string_view text);
// "must be one of 1g, 4g, 16g, 64g, or a byte count between 67108864 and 68719476736".
std::string memoryLimitRule();
bool isMemoryTier(std::int64_t bytes);
// A tier as its name ("4g"), any other size as a byte count; parseMemoryLimit() reads it back.
std::string formatMemoryLimit(std::int64_t bytes);

} // namespace Cordon::Policy
