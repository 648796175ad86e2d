// SPDX-License-Identifier: MIT
// The container policy's defaults, in plain C++: ContainerPolicy (policy/containerpolicy.h) starts from them,
// and so does the Qt-free one-shot run, which takes no policy file. docs/policy.md documents each.
#pragma once

#include <algorithm>
#include <cstdint>

namespace Cordon::Policy::Defaults {

inline constexpr std::int64_t MemoryLimitBytes = 1024LL * 1024 * 1024; // the 1g tier
inline constexpr int RunTimeoutS = 300;
inline constexpr int Pids = 256;
inline constexpr int OutputMb = 16;

// /mnt/data and /tmp are tmpfs, and their pages count against the container's memory limit. Left to their
// defaults they take at most half and a quarter of it, so that filling them ends with ENOSPC ("workspace
// full") while the writer still has memory, never with the memory limit killing it and every run after.
inline constexpr int workspaceMbFor(std::int64_t memoryLimitBytes)
{
    return static_cast<int>(std::min<std::int64_t>(2048, memoryLimitBytes / 2 / (1024 * 1024)));
}
inline constexpr int tmpMbFor(std::int64_t memoryLimitBytes)
{
    return static_cast<int>(std::min<std::int64_t>(512, memoryLimitBytes / 4 / (1024 * 1024)));
}
inline constexpr int WorkspaceMb = workspaceMbFor(MemoryLimitBytes);
inline constexpr int TmpMb = tmpMbFor(MemoryLimitBytes);

} // namespace Cordon::Policy::Defaults
