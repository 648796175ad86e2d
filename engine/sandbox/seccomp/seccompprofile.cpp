// SPDX-License-Identifier: MIT
// The seccomp allowlist, compiled in the supervisor into a raw BPF program that cordon-init installs after
// fork. The reasons for each denial are in SECURITY.md section 1; an allowlist, because denylists break each
// time the kernel grows a syscall (flatpak CVE-2021-41133 missed the 2019 mount API).
#include "sandbox/seccomp/seccompprofile.h"

#include "sandbox/uniquefd.h"

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>

#include <linux/netlink.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

// Modelled on Docker's default profile (moby/profiles seccomp/default.json), minus what python3, node, sh,
// coreutils, curl and pip do not need. Names this libseccomp does not know are skipped: a syscall newer than
// the library stays denied. Everything absent here fails with EPERM, notably the whole of SECURITY.md section
// 1: unshare, setns, the mount family, ptrace (unless allowPtrace) and process_vm_*, kcmp, pidfd_getfd,
// process_madvise, bpf, perf_event_open, userfaultfd, io_uring_*, keyrings, modules, kexec, reboot, clock and
// host administration, NUMA placement, open_by_handle_at, name_to_handle_at, fanotify_init and modify_ldt.
// clang-format off
constexpr const char *AllowedSyscalls[] = {
    // Memory.
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync", "mlock", "mlock2",
    "mlockall", "munlock", "munlockall", "membarrier", "memfd_create", "pkey_alloc", "pkey_free",
    "pkey_mprotect", "remap_file_pages",
    // Processes and threads: fork and vfork; clone is allowed below without namespace flags.
    "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid", "kill", "tkill",
    "tgkill", "pidfd_open", "pidfd_send_signal", "process_mrelease", "set_tid_address", "set_robust_list",
    "get_robust_list", "rseq", "arch_prctl", "get_thread_area", "set_thread_area", "prctl", "capget",
    "capset", "getpid", "getppid", "gettid", "getpgid", "setpgid", "getpgrp", "getsid", "setsid", "getuid",
    "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups", "setuid", "setgid", "setreuid",
    "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups", "getpriority", "setpriority",
    "getrlimit", "setrlimit", "prlimit64", "getrusage", "times", "umask", "sched_yield", "sched_getaffinity",
    "sched_setaffinity", "sched_getparam", "sched_setparam", "sched_getscheduler", "sched_setscheduler",
    "sched_getattr", "sched_setattr", "sched_get_priority_max", "sched_get_priority_min",
    "sched_rr_get_interval", "ioprio_get", "ioprio_set", "getcpu",
    // Installing further filters only narrows what a process may do (no_new_privs is already set).
    "seccomp", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
    // Signals and timers.
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend", "rt_sigtimedwait",
    "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "signalfd", "signalfd4", "restart_syscall",
    "pause", "alarm", "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday",
    "time", "getitimer", "setitimer", "timer_create", "timer_delete", "timer_gettime", "timer_settime",
    "timer_getoverrun", "timerfd_create", "timerfd_gettime", "timerfd_settime",
    // Synchronisation and event loops.
    "futex", "futex_waitv", "futex_wait", "futex_wake", "futex_requeue", "eventfd", "eventfd2",
    "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "poll",
    "ppoll", "select", "pselect6", "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
    // Files and descriptors (open, creat, the chmod family, mknod and ioctl are allowed below with argument
    // checks).
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
    "close", "close_range", "dup", "dup2", "dup3", "pipe", "pipe2",
    "fcntl", "flock", "lseek", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs",
    "access", "faccessat", "faccessat2", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "rename",
    "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat", "unlink", "unlinkat", "symlink",
    "symlinkat", "readlink", "readlinkat", "chown", "fchown",
    "lchown", "fchownat", "utime", "utimes", "utimensat", "futimesat", "truncate", "ftruncate", "fallocate",
    "fadvise64", "readahead", "fsync", "fdatasync", "sync", "syncfs", "sync_file_range", "sendfile",
    "splice", "tee", "vmsplice", "copy_file_range", "cachestat", "getxattr", "lgetxattr", "fgetxattr",
    "setxattr", "lsetxattr", "fsetxattr", "listxattr", "llistxattr", "flistxattr", "removexattr",
    "lremovexattr", "fremovexattr",
    // Asynchronous I/O (not io_uring: it bypasses per-syscall filtering).
    "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
    // Sockets (socket and socketpair are allowed below per address family).
    "connect", "accept", "accept4", "bind", "listen", "getsockname", "getpeername", "sendto", "recvfrom",
    "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "setsockopt", "getsockopt",
    // System V and POSIX IPC, scoped by the IPC namespace.
    "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl", "msgget", "msgsnd",
    "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
    "mq_getsetattr",
    // System information.
    "uname", "sysinfo", "getrandom",
};
// clang-format on

// Namespaces regain every capability over fresh namespaces and expose netfilter, mount and fs-context code
// (CVE-2022-0185, CVE-2016-3135, CVE-2022-0492). CLONE_NEWTIME (0x80) shares its bit with clone()'s
// exit-signal byte; a signal number >= 128 is invalid anyway, so including it refuses nothing legitimate.
constexpr std::uint64_t NamespaceCloneFlags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
                                              CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;

// personality(2) values Docker allows: PER_LINUX, PER_LINUX32, UNAME26 variants and the query 0xffffffff.
// ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC stay denied: they help exploits.
constexpr std::uint64_t AllowedPersonalities[] = {0x0, 0x8, 0x20000, 0x20008, 0xffffffff};

// Set-user-id and set-group-id bits on a file the sandbox made would stay on the host, where the workspace
// lives: a set-uid binary owned by the user (or by root, for a root daemon) waiting to be run outside. The
// kernel lets a file's owner set them, capabilities or not, so they are refused where a mode is given.
constexpr std::uint64_t SetIdBits = S_ISUID | S_ISGID;
// open(2)'s mode is read only with O_CREAT or O_TMPFILE; otherwise the register holds whatever the caller
// left there, so a call without them is allowed whatever its mode.
constexpr std::uint64_t CreatingOpenFlags = O_CREAT | __O_TMPFILE;

// Terminal injection (CVE-2017-5226) and line disciplines (n_hdlc CVE-2017-2636).
constexpr std::uint32_t DeniedIoctls[] = {0x5412 /* TIOCSTI */, 0x541C /* TIOCLINUX */,
                                          0x5423 /* TIOCSETD */};

// The kernel reads these arguments as 32-bit int / unsigned int; comparing only the low word matches what the
// kernel sees, so setting bit 32 neither bypasses a check nor refuses a call the kernel would accept.
constexpr std::uint64_t Low32 = 0xffffffffULL;
// socket(2) ORs SOCK_CLOEXEC and SOCK_NONBLOCK into the type; the kernel masks the type with SOCK_TYPE_MASK.
constexpr std::uint64_t SocketTypeMask = 0xf;

class FilterContext
{
public:
    explicit FilterContext(std::uint32_t defaultAction) : m_ctx(seccomp_init(defaultAction)) {}
    ~FilterContext()
    {
        if (m_ctx != nullptr)
            seccomp_release(m_ctx);
    }
    FilterContext(const FilterContext &) = delete;
    FilterContext &operator=(const FilterContext &) = delete;

    scmp_filter_ctx get() const { return m_ctx; }

private:
    scmp_filter_ctx m_ctx;
};

// Every rule here compares with a mask: (argument & mask) == value. libseccomp's SCMP_A*_64 macros are C
// compound literals; this is the same struct, built the C++ way.
constexpr scmp_arg_cmp maskedEq(unsigned argIndex, std::uint64_t mask, std::uint64_t value)
{
    return scmp_arg_cmp{argIndex, SCMP_CMP_MASKED_EQ, mask, value};
}

// libseccomp returns a negative errno; the message names the call so a failure can be traced to one rule.
tl::unexpected<Error> compileFailure(const std::string &call, int rc)
{
    return fail("seccomp.compile_failed", call + " returned " + std::to_string(rc), -rc);
}

class FilterBuilder
{
public:
    explicit FilterBuilder(scmp_filter_ctx ctx) : m_ctx(ctx) {}

    // All conditions of one rule must hold; several rules for one syscall are alternatives.
    Result<> add(std::uint32_t action, const char *name, std::initializer_list<scmp_arg_cmp> conditions = {})
    {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR)
            return compileFailure("seccomp_syscall_resolve_name(" + std::string(name) + ")", -EINVAL);
        return addResolved(action, name, nr, conditions);
    }

    // An allowlist entry this libseccomp does not know (a syscall newer than the library) is skipped, so the
    // syscall stays denied.
    Result<> allowIfKnown(const char *name, std::initializer_list<scmp_arg_cmp> conditions = {})
    {
        const int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR)
            return {};
        return addResolved(SCMP_ACT_ALLOW, name, nr, conditions);
    }

    // Allows the syscall unless the low 32 bits of argument argIndex are one of denied. libseccomp refuses a
    // rule whose action equals the default (EPERM) and allows one comparison per argument per rule, so "not
    // in" is written as allow rules covering the complement: walking the bits from the top, every subtree
    // that holds no denied value becomes one masked-equal rule (at most 32 rules per denied value, fewer for
    // shared prefixes).
    Result<> allowUnlessLow32In(const char *name, unsigned argIndex, std::span<const std::uint32_t> denied)
    {
        return allowComplement(name, argIndex, denied, 0, 0);
    }

private:
    Result<> addResolved(std::uint32_t action, const char *name, int nr,
                         std::initializer_list<scmp_arg_cmp> conditions)
    {
        const int rc = seccomp_rule_add_array(m_ctx, action, nr, static_cast<unsigned>(conditions.size()),
                                              conditions.begin());
        if (rc < 0)
            return compileFailure("seccomp_rule_add(" + std::string(name) + ")", rc);
        return {};
    }

    Result<> allowComplement(const char *name, unsigned argIndex, std::span<const std::uint32_t> denied,
                             int fixedBits, std::uint32_t prefix)
    {
        const std::uint32_t mask = fixedBits == 0 ? 0 : ~std::uint32_t{0} << (32 - fixedBits);
        bool holdsDenied = false;
        for (const std::uint32_t value : denied)
            holdsDenied = holdsDenied || (value & mask) == prefix;
        if (!holdsDenied)
            return add(SCMP_ACT_ALLOW, name, {maskedEq(argIndex, mask, prefix)});
        if (fixedBits == 32)
            return {};
        const std::uint32_t nextBit = std::uint32_t{1} << (31 - fixedBits);
        CORDON_TRY(allowComplement(name, argIndex, denied, fixedBits + 1, prefix));
        return allowComplement(name, argIndex, denied, fixedBits + 1, prefix | nextBit);
    }

    scmp_filter_ctx m_ctx;
};

Result<> addRules(FilterBuilder &filter, const SeccompOptions &options)
{
    for (const char *name : AllowedSyscalls)
        CORDON_TRY(filter.allowIfKnown(name));

    // Threads and fork use clone without namespace flags.
    CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "clone", {maskedEq(0, NamespaceCloneFlags, 0)}));
    // clone3 passes its flags behind a pointer, which seccomp cannot read. ENOSYS (not EPERM) makes glibc
    // fall back to clone, where the flags are checked above.
    CORDON_TRY(filter.add(SCMP_ACT_ERRNO(ENOSYS), "clone3", {}));

    for (const std::uint64_t persona : AllowedPersonalities)
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "personality", {maskedEq(0, Low32, persona)}));

    // Every other family is refused: AF_PACKET sniffing and LPEs (CVE-2016-8655, CVE-2017-7308,
    // CVE-2020-14386), AF_ALG, AF_VSOCK reaching the hypervisor host, and module autoload of rarely-audited
    // protocol code. SOCK_RAW is refused for inet (spoofing, sniffing); netlink only for NETLINK_ROUTE, which
    // getaddrinfo uses.
    for (const char *name : {"socket", "socketpair"}) {
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, name, {maskedEq(0, Low32, AF_UNIX)}));
        for (const std::uint64_t family : {AF_INET, AF_INET6}) {
            for (const std::uint64_t type : {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET})
                CORDON_TRY(filter.add(SCMP_ACT_ALLOW, name,
                                      {maskedEq(0, Low32, family), maskedEq(1, SocketTypeMask, type)}));
        }
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, name,
                              {maskedEq(0, Low32, AF_NETLINK), maskedEq(2, Low32, NETLINK_ROUTE)}));
    }

    // ioctl's cmd is an unsigned int: a plain 64-bit comparison is bypassed by setting bit 32
    // (CVE-2019-10063 flatpak, CVE-2019-7303 snapd), hence the low-word comparison.
    CORDON_TRY(filter.allowUnlessLow32In("ioctl", 1, DeniedIoctls));

    // Device nodes would reach host devices through a writable directory; FIFOs, sockets and regular files
    // are fine, without set-id bits. The kernel takes mode as umode_t, so only its S_IFMT bits decide the
    // type; 0 means a regular file.
    for (const std::uint64_t fileType : std::initializer_list<std::uint64_t>{0, S_IFREG, S_IFIFO, S_IFSOCK}) {
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "mknod", {maskedEq(1, S_IFMT | SetIdBits, fileType)}));
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "mknodat", {maskedEq(2, S_IFMT | SetIdBits, fileType)}));
    }

    // Modes without set-id bits (SetIdBits); mode is an int or umode_t, hence the low word.
    CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "chmod", {maskedEq(1, SetIdBits, 0)}));
    CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "fchmod", {maskedEq(1, SetIdBits, 0)}));
    CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "fchmodat", {maskedEq(2, SetIdBits, 0)}));
    CORDON_TRY(filter.allowIfKnown("fchmodat2", {maskedEq(2, SetIdBits, 0)}));
    CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "creat", {maskedEq(1, SetIdBits, 0)}));
    for (const auto &[name, flagsIndex] : {std::pair{"open", 1U}, std::pair{"openat", 2U}}) {
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, name, {maskedEq(flagsIndex, CreatingOpenFlags, 0)}));
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, name, {maskedEq(flagsIndex + 1, SetIdBits, 0)}));
    }
    // openat2 passes its mode behind a pointer, which seccomp cannot read. ENOSYS, as for clone3: callers
    // fall back to openat, where the mode is checked above (glibc's open() never uses openat2).
    CORDON_TRY(filter.add(SCMP_ACT_ERRNO(ENOSYS), "openat2", {}));

    // ptrace bypassed seccomp before Linux 4.8; on 6.x the tracer stays under its own filter.
    if (options.allowPtrace)
        CORDON_TRY(filter.add(SCMP_ACT_ALLOW, "ptrace", {}));
    return {};
}

Result<std::string> exportBpf(scmp_filter_ctx ctx)
{
    // libseccomp 2.5 exports only to a file descriptor; a memfd keeps the program out of any file system path
    // (firejail#2718 let jailed code rewrite a filter file used later).
    const UniqueFd memfd(memfd_create("cordon-seccomp-bpf", MFD_CLOEXEC));
    if (memfd.get() < 0)
        return failErrno("seccomp.compile_failed", "memfd_create", errno);
    const int rc = seccomp_export_bpf(ctx, memfd.get());
    if (rc < 0)
        return compileFailure("seccomp_export_bpf", rc);

    const off_t size = lseek(memfd.get(), 0, SEEK_END);
    if (size < 0)
        return failErrno("seccomp.compile_failed", "lseek on the BPF memfd", errno);
    std::string program(static_cast<std::size_t>(size), '\0');
    std::size_t done = 0;
    while (done < program.size()) {
        const ssize_t n =
            pread(memfd.get(), program.data() + done, program.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failErrno("seccomp.compile_failed", "read the BPF memfd", errno);
        if (n == 0)
            return fail("seccomp.compile_failed", "seccomp_export_bpf: the BPF memfd ended early");
        done += static_cast<std::size_t>(n);
    }
    return program;
}

} // namespace

Result<std::string> compileSeccompFilter(const SeccompOptions &options)
{
    const FilterContext ctx(SCMP_ACT_ERRNO(EPERM));
    if (ctx.get() == nullptr)
        return fail("seccomp.compile_failed", "seccomp_init returned NULL");

    // seccomp_init adds only the native architecture. Any other (i386 via int $0x80, and on x86_64 the x32
    // ABI, whose numbers libseccomp's native filter sends to the bad-arch action) kills the process: 32-bit
    // numbers differ, and denylist filters were bypassed through x32 (firejail#87, kafel#19).
    int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc < 0)
        return compileFailure("seccomp_attr_set(SCMP_FLTATR_ACT_BADARCH)", rc);
    // A binary search over ~300 allowed syscalls instead of a linear list on every syscall.
    rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2);
    if (rc < 0)
        return compileFailure("seccomp_attr_set(SCMP_FLTATR_CTL_OPTIMIZE)", rc);

    FilterBuilder filter(ctx.get());
    CORDON_TRY(addRules(filter, options));
    return exportBpf(ctx.get());
}

} // namespace Cordon::Isolation
