// SPDX-License-Identifier: MIT
// The seccomp allowlist as raw BPF, compiled once at build time (isolation/generator) from the same profile
// that compileSeccompFilter() builds at run time: a container start or a one-shot run installs it without
// paying for libseccomp's compile. tst_seccomp checks that both are the same program, byte for byte. Plain
// C++, so that the Qt-free one-shot run of the `cordon` launcher installs the same program.
#pragma once

#include <string_view>

namespace Cordon::Isolation {

// With `allowPtrace`, the variant for policies with allow_ptrace (SeccompOptions::allowPtrace).
std::string_view prebuiltSeccompFilter(bool allowPtrace);

} // namespace Cordon::Isolation
