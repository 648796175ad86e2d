// SPDX-License-Identifier: MIT
#include "sandbox/policy/memorylimit.h"

#include "sandbox/json.h"

#include <optional>
#include <string>

namespace Cordon::Policy {

namespace {

std::optional<std::int64_t> tierOrBytes(std::string_view text)
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

} // namespace

Result<std::int64_t> parseMemoryLimit(std::string_view text)
{
    if (const auto bytes = tierOrBytes(text))
        return *bytes;
    return fail("policy.invalid_memory_limit", memoryLimitRule() + ", got " + jsonQuote(text));
}

std::string memoryLimitRule()
{
    return "must be one of 1g, 4g, 16g, 64g, or a byte count between " + std::to_string(MinMemoryLimitBytes) +
           " and " + std::to_string(MaxMemoryLimitBytes);
}

bool isMemoryTier(std::int64_t bytes)
{
    for (int tier : MemoryTiersGiB) {
        if (bytes == tier * GiB)
            return true;
    }
    return false;
}

std::string formatMemoryLimit(std::int64_t bytes)
{
    for (int tier : MemoryTiersGiB) {
        if (bytes == tier * GiB)
            return std::to_string(tier) + 'g';
    }
    return std::to_string(bytes);
}

} // namespace Cordon::Policy
