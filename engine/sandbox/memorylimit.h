// SPDX-License-Identifier: MIT
// Memory limits in plain C++: the four named tiers, like a hosted code interpreter's, or an explicit byte
// count. The rules live here once; policy/memorylimit.h words their errors for the engine and the Qt CLI, and
// the Qt-free one-shot run of the `cordon` launcher reads --memory with them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace Cordon::Policy::Core {

inline constexpr std::int64_t MiB = 1024LL * 1024;
inline constexpr std::int64_t GiB = 1024LL * 1024 * 1024;
// Below 64 MiB an interpreter hardly starts; the top tier is the largest we let one container claim.
inline constexpr std::int64_t MinMemoryLimitBytes = 64 * MiB;
inline constexpr std::int64_t MaxMemoryLimitBytes = 64 * GiB;
inline constexpr int MemoryTiersGiB[] = {1, 4, 16, 64};

// "1g", "4g", "16g", "64g" (the g in either case), or a decimal byte count in [MinMemoryLimitBytes,
// MaxMemoryLimitBytes]; no signs, spaces, units or fractions. std::nullopt for anything else.
std::optional<std::int64_t> parseMemoryLimit(std::string_view text);

} // namespace Cordon::Policy::Core
