// SPDX-License-Identifier: MIT
#include "sandbox/cgroup/cgroupbackend.h"

namespace Cordon::Cgroup {

namespace {

// The length a user counts (and the Qt layer used to): UTF-16 code units of the UTF-8 name.
size_t utf16Length(std::string_view text)
{
    size_t length = 0;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte & 0xC0) != 0x80)
            length += byte >= 0xF0 ? 2 : 1;
    }
    return length;
}

} // namespace

Result<> validateGroupName(std::string_view name)
{
    // The name becomes a path component under a directory the engine may write as root: no '/', no "..",
    // nothing that could collide with a control file ("memory.max") or the engine's own "engine.<pid>" leaf.
    constexpr size_t MaxLength = 64;
    if (name.empty() || utf16Length(name) > MaxLength)
        return fail("cgroup.invalid_name", "cgroup name `" + std::string(name) + "` must be 1 to " +
                                               std::to_string(MaxLength) + " characters long");
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '_' || c == '-';
        if (!ok)
            return fail("cgroup.invalid_name", "cgroup name `" + std::string(name) +
                                                   "` may only contain A-Z, a-z, 0-9, `_` and `-`");
    }
    return {};
}

} // namespace Cordon::Cgroup
