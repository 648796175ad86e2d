// SPDX-License-Identifier: MIT
// The seccomp allowlist, compiled with libseccomp into a raw BPF program that cordon-init installs after
// fork. Only the build-time generator and tst_seccomp compile it; containers install the prebuilt programs
// (sandbox/seccompfilters.h).
#pragma once

#include "sandbox/error.h"

#include <string>

namespace Cordon::Isolation {

struct SeccompOptions
{
    // Lets debuggers (gdb, strace) run inside the sandbox; process_vm_*, kcmp and pidfd_getfd stay denied.
    bool allowPtrace = false;
};

// Builds the allowlist filter with libseccomp and returns the raw BPF program (an array of struct
// sock_filter) exported with seccomp_export_bpf, ready to be installed after fork without libseccomp (see
// sandbox/init/seccompinstall.h). Denied calls fail with EPERM, clone3 and openat2 with ENOSYS, and any
// non-native architecture (i386 int $0x80, x32) kills the process. Errors: `seccomp.compile_failed` naming
// the libseccomp call and the negative errno it returned.
Result<std::string> compileSeccompFilter(const SeccompOptions &options);

} // namespace Cordon::Isolation
