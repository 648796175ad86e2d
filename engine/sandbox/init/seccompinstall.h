// SPDX-License-Identifier: MIT
// Installs a seccomp BPF program compiled by the supervisor: cordon-init on itself once its setup is done, so
// that every run inherits the filter. No Qt and no allocation.
#pragma once

#include <cstddef>

namespace Cordon::Isolation {

// Sets PR_SET_NO_NEW_PRIVS and installs the BPF program (an array of struct sock_filter, byteLength bytes)
// with seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC). Call it after the last call the filter
// denies.
// Async-signal-safe: no allocation. Returns 0 or the errno (EINVAL for a malformed program, before any
// change).
int installSeccompFilter(const void *bpfProgram, std::size_t byteLength) noexcept;

} // namespace Cordon::Isolation
