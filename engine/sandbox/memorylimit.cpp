// SPDX-License-Identifier: MIT
#include "sandbox/memorylimit.h"

#include <string>

namespace Cordon::Policy::Core {

std::optional<std::int64_t> parseMemoryLimit(std::string_view text)
{
    for (int tier : MemoryTiersGiB) {
        const std::string name = std::to_string(tier);
        if (text.size() == name.size() + 1 && text.starts_with(name) &&
            (text.back() == 'g' || text.back() == 'G'))
            return tier * GiB;
    }
    // At most 11 digits (64 GiB has 11), ASCII only.
    if (text.empty() || text.size() > 11)
        return std::nullopt;
    std::int64_t bytes = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        bytes = bytes * 10 + (c - '0');
    }
    if (bytes < MinMemoryLimitBytes || bytes > MaxMemoryLimitBytes)
        return std::nullopt;
    return bytes;
}

} // namespace Cordon::Policy::Core
