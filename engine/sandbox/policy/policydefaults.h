// SPDX-License-Identifier: MIT
// The container policy's defaults, in plain C++: ContainerPolicy (policy/containerpolicy.h) starts from them,
// and so does the Qt-free one-shot run, which takes no policy file. docs/policy.md documents each.
#pragma once

#include <cstdint>

namespace Cordon::Policy::Defaults {

inline constexpr std::int64_t MemoryLimitBytes = 1024LL * 1024 * 1024; // the 1g tier
inline constexpr int RunTimeoutS = 300;
inline constexpr int Pids = 256;
inline constexpr int TmpMb = 512;
inline constexpr int WorkspaceMb = 2048;
inline constexpr int OutputMb = 16;

} // namespace Cordon::Policy::Defaults
