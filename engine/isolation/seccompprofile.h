// SPDX-License-Identifier: MIT
// The seccomp allowlist, compiled in the supervisor into a raw BPF program that cordon-init installs after
// fork.
#pragma once

#include "core/result.h"

#include <QByteArray>

namespace Cordon::Isolation {

struct SeccompOptions
{
    // Lets debuggers (gdb, strace) run inside the sandbox; process_vm_*, kcmp and pidfd_getfd stay denied.
    bool allowPtrace = false;
};

// Builds the allowlist filter with libseccomp and returns the raw BPF program (an array of struct
// sock_filter) exported with seccomp_export_bpf, ready to be installed after fork without libseccomp (see
// isolation/core/seccompinstall.h). Denied calls fail with EPERM, clone3 with ENOSYS, and any non-native
// architecture (i386 int $0x80, x32) kills the process. Errors: `seccomp.compile_failed` naming the
// libseccomp call and the negative errno it returned.
Cordon::Result<QByteArray> compileSeccompFilter(const SeccompOptions &options);

} // namespace Cordon::Isolation
