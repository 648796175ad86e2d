// SPDX-License-Identifier: MIT
// Installs a seccomp BPF program compiled by the supervisor; runs in a forked child, so no Qt and no
// allocation.
#include "sandbox/init/seccompinstall.h"

#include <cerrno>
#include <climits>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace Cordon::Isolation {

int installSeccompFilter(const void *bpfProgram, std::size_t byteLength) noexcept
{
    // Validate before changing anything, so a caller's mistake leaves the process as it was. The kernel
    // rejects programs longer than BPF_MAXINSNS itself; sock_fprog.len is an unsigned short.
    if (bpfProgram == nullptr || byteLength == 0 || byteLength % sizeof(sock_filter) != 0 ||
        byteLength / sizeof(sock_filter) > USHRT_MAX)
        return EINVAL;

    // Without no_new_privs an unprivileged process may not install a filter at all, and with it a setuid
    // binary exec'd later cannot gain privileges that the filter's author did not foresee.
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;

    sock_fprog program{};
    program.len = static_cast<unsigned short>(byteLength / sizeof(sock_filter));
    // The kernel copies the program and never writes through this pointer.
    program.filter = static_cast<sock_filter *>(const_cast<void *>(bpfProgram));

    // TSYNC applies the filter to every thread of the process, so no thread is left unfiltered. The glibc
    // seccomp() wrapper does not exist in every libc; the raw syscall does.
    const long result = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
    if (result < 0)
        return errno;
    // A positive result is the id of a thread that could not be synchronised (it has a diverging filter);
    // the filter was not installed.
    if (result > 0)
        return ESRCH;
    return 0;
}

} // namespace Cordon::Isolation
