// SPDX-License-Identifier: MIT
// cordon-probe NAME: makes one system call attempt and exits with the errno it got (0 when the call
// succeeded), printing "NAME: <errno name or ok>" on stderr. Exit 200 means an unknown probe name, 201 a
// probe that does not apply to this architecture; a probe killed by the seccomp filter dies of SIGSYS.
//
// Like bubblewrap's tests/try-syscall.c, the arguments are chosen so that the call, when it reaches the
// kernel, fails harmlessly (EFAULT, EINVAL, EBADF, ENOTTY) or changes only this process, even when run as
// root without a filter; under the sandbox filter the same call fails with EPERM (ENOSYS for clone3) before
// the kernel looks at the arguments or at privileges. Each probe's comment says what it returns without a
// filter.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef NETLINK_AUDIT
#define NETLINK_AUDIT 9
#endif

enum
{
    ExitUnknownProbe = 200,
    ExitNotApplicable = 201,
};

// A pointer the kernel cannot read: a call that gets past the filter fails with EFAULT.
#define BAD_POINTER ((void *)1)

// Raw syscalls throughout: the glibc wrappers of some calls are missing in older releases, and a wrapper must
// not pre-check arguments or retry with another call.
static int result(long rc)
{
    return rc < 0 ? errno : 0;
}

static const char *probeDir(void)
{
    const char *dir = getenv("PROBE_DIR");
    return dir != NULL && dir[0] != '\0' ? dir : "/tmp";
}

// --- namespaces: unshare, setns, clone with CLONE_NEW*, clone3 ---

static int probeUnshareUser(void)
{
    return result(syscall(SYS_unshare, CLONE_NEWUSER)); // 0 where unprivileged userns are enabled
}

static int probeUnshareNet(void)
{
    return result(syscall(SYS_unshare, CLONE_NEWNET)); // 0 as root, EPERM unprivileged
}

static int probeCloneNewuser(void)
{
    // Raw clone with no new stack behaves like fork: the child returns 0 here and leaves at once.
    const long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        return errno;
    waitpid((pid_t)pid, NULL, 0);
    return 0;
}

static int probeClone3(void)
{
    return result(syscall(SYS_clone3, NULL, 0)); // EINVAL: size 0 is below CLONE_ARGS_SIZE_VER0
}

static int probeSetns(void)
{
    return result(syscall(SYS_setns, -1, 0)); // EBADF
}

// --- the mount family ---

static int probeMount(void)
{
    return result(syscall(SYS_mount, "none", BAD_POINTER, "tmpfs", 0, NULL)); // EFAULT on the target path
}

static int probeUmount2(void)
{
    return result(syscall(SYS_umount2, "/nonexistent", 0x100)); // EINVAL: unknown flag, checked first
}

static int probePivotRoot(void)
{
    return result(syscall(SYS_pivot_root, BAD_POINTER, BAD_POINTER)); // EFAULT as root, EPERM unprivileged
}

static int probeChroot(void)
{
    return result(syscall(SYS_chroot, BAD_POINTER)); // EFAULT
}

static int probeFsopen(void)
{
    return result(syscall(SYS_fsopen, BAD_POINTER, 0)); // EFAULT as root, EPERM unprivileged
}

static int probeFsconfig(void)
{
    return result(syscall(SYS_fsconfig, -1, 0xff, NULL, NULL, 0)); // EINVAL or EBADF
}

static int probeFsmount(void)
{
    return result(syscall(SYS_fsmount, -1, 0, 0)); // EBADF as root, EPERM unprivileged
}

static int probeFspick(void)
{
    return result(syscall(SYS_fspick, -1, "x", 0xffff)); // EINVAL as root, EPERM unprivileged
}

static int probeOpenTree(void)
{
    return result(syscall(SYS_open_tree, -1, "x", 0)); // EBADF: relative path against fd -1
}

static int probeMoveMount(void)
{
    return result(syscall(SYS_move_mount, -1, "x", -1, "y", 0)); // EBADF as root, EPERM unprivileged
}

static int probeMountSetattr(void)
{
    return result(syscall(SYS_mount_setattr, -1, "x", 0, NULL, 0)); // EINVAL: size 0
}

// --- process inspection ---

static int probePtraceTraceme(void)
{
    return result(syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0)); // 0 unless already traced
}

static int probePtraceAttach1(void)
{
    // PTRACE_SEIZE with an unknown option fails with EIO before any access check: a real attach by root
    // without a filter would stop the host's init.
    return result(syscall(SYS_ptrace, PTRACE_SEIZE, 1, 0, 0x80000000UL));
}

static int probeProcessVmReadv(void)
{
    return result(syscall(SYS_process_vm_readv, getpid(), NULL, 0, NULL, 0, 1)); // EINVAL: flags must be 0
}

static int probeProcessVmWritev(void)
{
    return result(syscall(SYS_process_vm_writev, getpid(), NULL, 0, NULL, 0, 1)); // EINVAL
}

static int probeKcmp(void)
{
    return result(
        syscall(SYS_kcmp, getpid(), getpid(), 0xff, 0, 0)); // EINVAL: unknown type (ENOSYS: no kcmp)
}

static int probePidfdGetfd(void)
{
    return result(syscall(SYS_pidfd_getfd, -1, 0, 0)); // EBADF
}

static int probeProcessMadvise(void)
{
    return result(syscall(SYS_process_madvise, -1, NULL, 0, 0, 0)); // EBADF
}

// --- bpf, perf, userfaultfd, io_uring ---

static int probeBpf(void)
{
    return result(syscall(SYS_bpf, 0xffff, NULL, 0)); // EINVAL as root, EPERM unprivileged (sysctl)
}

static int probePerfEventOpen(void)
{
    return result(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0)); // EFAULT (ENOENT/ENOSYS: no perf)
}

static int probeUserfaultfd(void)
{
    // UFFD_USER_MODE_ONLY (1) passes the vm.unprivileged_userfaultfd check; O_RDWR (2) is not a valid flag.
    return result(syscall(SYS_userfaultfd, 1 | 2)); // EINVAL (ENOSYS: no userfaultfd)
}

static int probeIoUringSetup(void)
{
    return result(syscall(SYS_io_uring_setup, 0, NULL)); // EFAULT or EINVAL; EPERM when io_uring is disabled
}

static int probeIoUringEnter(void)
{
    return result(syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0)); // EBADF
}

static int probeIoUringRegister(void)
{
    return result(syscall(SYS_io_uring_register, -1, 0, NULL, 0)); // EBADF
}

// --- keyrings ---

static int probeKeyctl(void)
{
    return result(syscall(SYS_keyctl, -1, 0, 0, 0, 0)); // EOPNOTSUPP: unknown operation
}

static int probeAddKey(void)
{
    return result(syscall(SYS_add_key, NULL, NULL, NULL, 0, 0)); // EFAULT on the type
}

static int probeRequestKey(void)
{
    return result(syscall(SYS_request_key, NULL, NULL, NULL, 0)); // EFAULT on the type
}

// --- modules, kexec, reboot ---

static int probeInitModule(void)
{
    return result(syscall(SYS_init_module, BAD_POINTER, 0, "")); // ENOEXEC as root, EPERM unprivileged
}

static int probeFinitModule(void)
{
    return result(syscall(SYS_finit_module, -1, "", 0)); // EBADF as root, EPERM unprivileged
}

static int probeDeleteModule(void)
{
    return result(syscall(SYS_delete_module, "cordon_probe_none", O_NONBLOCK)); // ENOENT as root
}

static int probeKexecLoad(void)
{
    // An unknown flag and too many segments: EINVAL as root. Never nr_segments 0: that unloads the loaded
    // image.
    return result(syscall(SYS_kexec_load, 0, 1000, NULL, 0x80));
}

static int probeKexecFileLoad(void)
{
    return result(syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0x80000000UL)); // EINVAL as root
}

static int probeReboot(void)
{
    return result(syscall(SYS_reboot, 0, 0, 0, NULL)); // EINVAL as root (wrong magic), EPERM unprivileged
}

// --- host administration ---

static int probeAcct(void)
{
    return result(syscall(SYS_acct, BAD_POINTER)); // EFAULT as root, EPERM unprivileged
}

static int probeSwapon(void)
{
    return result(syscall(SYS_swapon, BAD_POINTER, -1)); // EINVAL: unknown flags, checked first
}

static int probeSwapoff(void)
{
    return result(syscall(SYS_swapoff, BAD_POINTER)); // EFAULT as root, EPERM unprivileged
}

static int probeQuotactl(void)
{
    return result(syscall(SYS_quotactl, 0xff00, NULL, 0, NULL)); // ENODEV: no device given
}

static int probeSettimeofday(void)
{
    return result(syscall(SYS_settimeofday, NULL, BAD_POINTER)); // EFAULT on the timezone
}

static int probeClockSettime(void)
{
    return result(syscall(SYS_clock_settime, CLOCK_REALTIME, BAD_POINTER)); // EFAULT
}

static int probeClockAdjtime(void)
{
    return result(syscall(SYS_clock_adjtime, CLOCK_REALTIME, BAD_POINTER)); // EFAULT
}

static int probeAdjtimex(void)
{
    return result(syscall(SYS_adjtimex, BAD_POINTER)); // EFAULT
}

static int probeSyslog(void)
{
    return result(syscall(SYS_syslog, 0xff, NULL, 0)); // EINVAL as root, EPERM unprivileged
}

static int probeSethostname(void)
{
    return result(
        syscall(SYS_sethostname, BAD_POINTER, 1000)); // EINVAL as root (too long), EPERM unprivileged
}

static int probeSetdomainname(void)
{
    return result(syscall(SYS_setdomainname, BAD_POINTER, 1000)); // EINVAL as root, EPERM unprivileged
}

static int probeIopl(void)
{
#ifdef SYS_iopl
    return result(syscall(SYS_iopl, 4)); // EINVAL: level above 3, checked first (ENOSYS: no iopl)
#else
    return ExitNotApplicable;
#endif
}

static int probeIoperm(void)
{
#ifdef SYS_ioperm
    return result(syscall(SYS_ioperm, 0, 0, 1)); // EINVAL: empty range, checked first (ENOSYS: no ioperm)
#else
    return ExitNotApplicable;
#endif
}

// --- NUMA placement ---

static int probeMbind(void)
{
    return result(syscall(SYS_mbind, NULL, 0, 0xffff, NULL, 0, 0)); // EINVAL: unknown mode (ENOSYS: no NUMA)
}

static int probeSetMempolicy(void)
{
    return result(syscall(SYS_set_mempolicy, 0xffff, NULL, 0)); // EINVAL (ENOSYS: no NUMA)
}

static int probeMigratePages(void)
{
    return result(syscall(SYS_migrate_pages, 0, ~0UL, NULL, NULL)); // EINVAL: maxnode too large
}

static int probeMovePages(void)
{
    return result(syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0xff)); // EINVAL: unknown flags
}

// --- file handles, fanotify ---

static int probeOpenByHandleAt(void)
{
    return result(syscall(SYS_open_by_handle_at, -1, BAD_POINTER, 0)); // EBADF or EPERM, by kernel version
}

static int probeNameToHandleAt(void)
{
    return result(
        syscall(SYS_name_to_handle_at, AT_FDCWD, BAD_POINTER, BAD_POINTER, BAD_POINTER, 0)); // EFAULT
}

static int probeFanotifyInit(void)
{
    return result(syscall(SYS_fanotify_init, 0x80000000U, 0)); // EINVAL as root
}

// --- personality, LDT ---

static int probePersonalityAddrNoRandomize(void)
{
    return result(syscall(SYS_personality, ADDR_NO_RANDOMIZE)); // 0: returns the previous persona
}

static int probePersonalityQuery(void)
{
    return result(syscall(SYS_personality, 0xffffffffUL)); // 0: reads the persona, allowed by the filter
}

static int probeModifyLdt(void)
{
#ifdef SYS_modify_ldt
    return result(syscall(SYS_modify_ldt, 0, NULL, 0)); // 0: reads an empty LDT (ENOSYS: no modify_ldt)
#else
    return ExitNotApplicable;
#endif
}

// --- sockets ---

static int probeSocket(long family, long type, long protocol)
{
    const long fd = syscall(SYS_socket, family, type, protocol);
    if (fd < 0)
        return errno;
    close((int)fd);
    return 0;
}

static int probeSocketPacket(void)
{
    return probeSocket(AF_PACKET, SOCK_RAW, 0); // 0 as root, EPERM unprivileged
}

static int probeSocketAlg(void)
{
    return probeSocket(AF_ALG, SOCK_SEQPACKET, 0); // 0 (EAFNOSUPPORT: no AF_ALG)
}

static int probeSocketVsock(void)
{
    return probeSocket(AF_VSOCK, SOCK_STREAM, 0); // 0 (EAFNOSUPPORT: no vsock)
}

static int probeSocketRawInet(void)
{
    // SOCK_CLOEXEC is OR-ed into the type: the filter must mask it off to see SOCK_RAW.
    return probeSocket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP); // 0 as root, EPERM unprivileged
}

static int probeSocketRawInet6(void)
{
    return probeSocket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK, IPPROTO_ICMPV6); // 0 as root, EPERM unprivileged
}

static int probeSocketNetlinkAudit(void)
{
    return probeSocket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT); // 0
}

static int probeSocketUnix(void)
{
    return probeSocket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // 0
}

static int probeSocketInetStream(void)
{
    return probeSocket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0); // 0
}

static int probeSocketInet6Dgram(void)
{
    return probeSocket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0); // 0
}

static int probeSocketInetHighbit(void)
{
    // The kernel reads the family as an int: bit 32 is dropped, and the filter must agree (0 both ways).
    return probeSocket((long)((1UL << 32) | AF_INET), SOCK_STREAM, 0);
}

static int probeSocketNetlinkRoute(void)
{
    return probeSocket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE); // 0: what getaddrinfo opens
}

static int probeSocketpairUnix(void)
{
    int fds[2];
    return result(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)); // 0
}

// --- terminal ioctls ---

// /dev/null is not a terminal: an ioctl that reaches the driver fails with ENOTTY, so nothing is ever
// injected into a real terminal. The filter decides on the request number alone, before any driver.
static int probeIoctl(unsigned long request)
{
    const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    char byte = 'x';
    const int err = result(syscall(SYS_ioctl, fd, request, &byte));
    close(fd);
    return err;
}

static int probeIoctlTiocsti(void)
{
    return probeIoctl(TIOCSTI); // ENOTTY
}

static int probeIoctlTiocstiHighbit(void)
{
    // The kernel takes cmd as unsigned int, so this is TIOCSTI to the driver (CVE-2019-10063).
    return probeIoctl(0x100000000UL | TIOCSTI); // ENOTTY
}

static int probeIoctlTioclinux(void)
{
    return probeIoctl(TIOCLINUX); // ENOTTY
}

static int probeIoctlTiocsetd(void)
{
    return probeIoctl(TIOCSETD); // ENOTTY
}

static int probeIoctlTiocgwinsz(void)
{
    return probeIoctl(TIOCGWINSZ); // ENOTTY: a neighbouring request the filter allows
}

static int probeIoctlFionread(void)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return errno;
    int available = 0;
    const int err = result(syscall(SYS_ioctl, fds[0], FIONREAD, &available)); // 0
    close(fds[0]);
    close(fds[1]);
    return err;
}

// --- device nodes ---

static int probeMknod(const char *kind, mode_t mode, dev_t device)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cordon-probe-%s-%d", probeDir(), kind, (int)getpid());
    const int err = result(syscall(SYS_mknod, path, mode, device));
    if (err == 0)
        unlink(path);
    return err;
}

static int probeMknodChar(void)
{
    return probeMknod("char", S_IFCHR | 0600, makedev(1, 3)); // 0 as root, EPERM unprivileged
}

static int probeMknodatBlock(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cordon-probe-block-%d", probeDir(), (int)getpid());
    const int err = result(syscall(SYS_mknodat, AT_FDCWD, path, S_IFBLK | 0600, makedev(7, 0)));
    if (err == 0)
        unlink(path);
    return err; // 0 as root, EPERM unprivileged
}

static int probeMknodFifo(void)
{
    return probeMknod("fifo", S_IFIFO | 0600, 0); // 0
}

// --- set-user-id and set-group-id bits: files the sandbox writes live on the host ---

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

// A fresh path in the probe directory for `kind`; removed again by each probe.
static const char *setIdPath(const char *kind)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/cordon-probe-%s-%d", probeDir(), kind, (int)getpid());
    return path;
}

// Makes a plain file at `path` (mode 0600), so that chmod has something to change.
static int makePlainFile(const char *path)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

// chmod(2) of a file this process owns: 0 without a filter, root or not.
static int probeChmod(const char *kind, mode_t mode)
{
    const char *path = setIdPath(kind);
    const int made = makePlainFile(path);
    if (made != 0)
        return made;
    const int err = result(syscall(SYS_chmod, path, mode));
    unlink(path);
    return err;
}

static int probeChmodSetuid(void)
{
    return probeChmod("chmod-setuid", 04755);
}

static int probeChmodSetgid(void)
{
    return probeChmod("chmod-setgid", 02755);
}

static int probeChmodPlain(void)
{
    return probeChmod("chmod-plain", 0755); // 0, filtered too
}

static int probeFchmodSetuid(void)
{
    const char *path = setIdPath("fchmod-setuid");
    const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    const int err = result(syscall(SYS_fchmod, fd, 04755));
    close(fd);
    unlink(path);
    return err;
}

static int probeFchmodatSetgid(void)
{
    const char *path = setIdPath("fchmodat-setgid");
    const int made = makePlainFile(path);
    if (made != 0)
        return made;
    const int err = result(syscall(SYS_fchmodat, AT_FDCWD, path, 02755));
    unlink(path);
    return err;
}

static int probeFchmodat2Setuid(void)
{
    const char *path = setIdPath("fchmodat2-setuid");
    const int made = makePlainFile(path);
    if (made != 0)
        return made;
    const int err = result(syscall(SYS_fchmodat2, AT_FDCWD, path, 04755, 0)); // ENOSYS before Linux 6.6
    unlink(path);
    return err;
}

// open(2), openat(2), creat(2) and mknod(2) making a file with a set-id mode: 0 without a filter.
static int probeCreated(const char *path, long rc)
{
    const int err = result(rc);
    if (rc >= 0)
        close((int)rc);
    unlink(path);
    return err;
}

static int probeOpenCreatSetuid(void)
{
    const char *path = setIdPath("open-setuid");
    return probeCreated(path, syscall(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 04755));
}

static int probeOpenatCreatSetgid(void)
{
    const char *path = setIdPath("openat-setgid");
    return probeCreated(path,
                        syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 02755));
}

static int probeCreatSetuid(void)
{
    const char *path = setIdPath("creat-setuid");
    return probeCreated(path, syscall(SYS_creat, path, 04755));
}

static int probeOpenatTmpfileSetuid(void)
{
    // An unnamed file that linkat(2) could give a name later.
    return probeCreated(setIdPath("tmpfile-setuid"),
                        syscall(SYS_openat, AT_FDCWD, probeDir(), O_TMPFILE | O_RDWR | O_CLOEXEC, 04755));
}

static int probeMknodRegularSetuid(void)
{
    const char *path = setIdPath("mknod-setuid");
    const int err = result(syscall(SYS_mknod, path, S_IFREG | 04755, 0));
    unlink(path);
    return err;
}

// The mode of open(2) without O_CREAT is whatever the caller's register held: never a reason to refuse.
static int probeOpenStrayMode(void)
{
    return probeCreated("", syscall(SYS_open, "/dev/null", O_RDONLY | O_CLOEXEC, 06777)); // 0, filtered too
}

static int probeOpenCreatPlain(void)
{
    const char *path = setIdPath("open-plain");
    return probeCreated(path, syscall(SYS_open, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)); // 0
}

static int probeOpenat2(void)
{
    // struct open_how {flags, mode, resolve}: a plain read of /dev/null; 0 without a filter.
    const uint64_t how[3] = {O_RDONLY | O_CLOEXEC, 0, 0};
    return probeCreated("", syscall(SYS_openat2, AT_FDCWD, "/dev/null", how, sizeof how));
}

// --- other ABIs: the filter kills (SIGSYS) instead of returning ---

static int probeX32Getpid(void)
{
#ifdef __x86_64__
    // An x32 syscall number is the x86_64 number with bit 30 set; getpid is 39 in both tables. Without a
    // filter: 0 where the kernel has CONFIG_X86_X32_ABI, ENOSYS elsewhere. Under the filter: killed by
    // SIGSYS.
    return result(syscall(0x40000000L | SYS_getpid));
#else
    return ExitNotApplicable;
#endif
}

static int probeI386Int80(void)
{
#ifdef __x86_64__
    // int $0x80 enters the kernel's i386 table (getpid is 20 there), whatever the bitness of the caller.
    // Without a filter: 0 where IA32 emulation is on, SIGSEGV where it is off. Under the filter: SIGSYS.
    long rc = 20;
    __asm__ volatile("int $0x80" : "+a"(rc) : : "memory", "r8", "r9", "r10", "r11");
    return rc < 0 ? (int)-rc : 0;
#else
    return ExitNotApplicable;
#endif
}

// --- what every workload needs ---

static int probeFork(void)
{
    const pid_t pid = fork(); // glibc's fork is clone(SIGCHLD | CLONE_CHILD_*), no namespace flags
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        return errno;
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return errno;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}

static int probeVfork(void)
{
    const pid_t pid = vfork();
    if (pid == 0)
        _exit(0);
    if (pid < 0)
        return errno;
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return errno;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}

static void *threadMain(void *arg)
{
    return arg;
}

static int probeThread(void)
{
    // glibc >= 2.34 tries clone3 first and falls back to clone only on ENOSYS.
    pthread_t thread;
    const int err = pthread_create(&thread, NULL, threadMain, NULL);
    if (err != 0)
        return err;
    return pthread_join(thread, NULL);
}

static int probeMemfdCreate(void)
{
    return result(syscall(SYS_memfd_create, "cordon-probe", MFD_CLOEXEC)); // 0
}

struct Probe
{
    const char *name;
    int (*run)(void);
};

static const struct Probe Probes[] = {
    {"unshare-user", probeUnshareUser},
    {"unshare-net", probeUnshareNet},
    {"clone-newuser", probeCloneNewuser},
    {"clone3", probeClone3},
    {"setns", probeSetns},
    {"mount", probeMount},
    {"umount2", probeUmount2},
    {"pivot_root", probePivotRoot},
    {"chroot", probeChroot},
    {"fsopen", probeFsopen},
    {"fsconfig", probeFsconfig},
    {"fsmount", probeFsmount},
    {"fspick", probeFspick},
    {"open_tree", probeOpenTree},
    {"move_mount", probeMoveMount},
    {"mount_setattr", probeMountSetattr},
    {"ptrace-traceme", probePtraceTraceme},
    {"ptrace-attach-1", probePtraceAttach1},
    {"process_vm_readv", probeProcessVmReadv},
    {"process_vm_writev", probeProcessVmWritev},
    {"kcmp", probeKcmp},
    {"pidfd_getfd", probePidfdGetfd},
    {"process_madvise", probeProcessMadvise},
    {"bpf", probeBpf},
    {"perf_event_open", probePerfEventOpen},
    {"userfaultfd", probeUserfaultfd},
    {"io_uring_setup", probeIoUringSetup},
    {"io_uring_enter", probeIoUringEnter},
    {"io_uring_register", probeIoUringRegister},
    {"keyctl", probeKeyctl},
    {"add_key", probeAddKey},
    {"request_key", probeRequestKey},
    {"init_module", probeInitModule},
    {"finit_module", probeFinitModule},
    {"delete_module", probeDeleteModule},
    {"kexec_load", probeKexecLoad},
    {"kexec_file_load", probeKexecFileLoad},
    {"reboot", probeReboot},
    {"acct", probeAcct},
    {"swapon", probeSwapon},
    {"swapoff", probeSwapoff},
    {"quotactl", probeQuotactl},
    {"settimeofday", probeSettimeofday},
    {"clock_settime", probeClockSettime},
    {"clock_adjtime", probeClockAdjtime},
    {"adjtimex", probeAdjtimex},
    {"syslog", probeSyslog},
    {"sethostname", probeSethostname},
    {"setdomainname", probeSetdomainname},
    {"iopl", probeIopl},
    {"ioperm", probeIoperm},
    {"mbind", probeMbind},
    {"set_mempolicy", probeSetMempolicy},
    {"migrate_pages", probeMigratePages},
    {"move_pages", probeMovePages},
    {"open_by_handle_at", probeOpenByHandleAt},
    {"name_to_handle_at", probeNameToHandleAt},
    {"fanotify_init", probeFanotifyInit},
    {"personality-addr-no-randomize", probePersonalityAddrNoRandomize},
    {"personality-query", probePersonalityQuery},
    {"modify_ldt", probeModifyLdt},
    {"socket-packet", probeSocketPacket},
    {"socket-alg", probeSocketAlg},
    {"socket-vsock", probeSocketVsock},
    {"socket-raw-inet", probeSocketRawInet},
    {"socket-raw-inet6", probeSocketRawInet6},
    {"socket-netlink-audit", probeSocketNetlinkAudit},
    {"socket-unix", probeSocketUnix},
    {"socket-inet-stream", probeSocketInetStream},
    {"socket-inet6-dgram", probeSocketInet6Dgram},
    {"socket-inet-highbit", probeSocketInetHighbit},
    {"socket-netlink-route", probeSocketNetlinkRoute},
    {"socketpair-unix", probeSocketpairUnix},
    {"ioctl-tiocsti", probeIoctlTiocsti},
    {"ioctl-tiocsti-highbit", probeIoctlTiocstiHighbit},
    {"ioctl-tioclinux", probeIoctlTioclinux},
    {"ioctl-tiocsetd", probeIoctlTiocsetd},
    {"ioctl-tiocgwinsz", probeIoctlTiocgwinsz},
    {"ioctl-fionread", probeIoctlFionread},
    {"mknod-char", probeMknodChar},
    {"mknodat-block", probeMknodatBlock},
    {"mknod-fifo", probeMknodFifo},
    {"chmod-setuid", probeChmodSetuid},
    {"chmod-setgid", probeChmodSetgid},
    {"chmod-plain", probeChmodPlain},
    {"fchmod-setuid", probeFchmodSetuid},
    {"fchmodat-setgid", probeFchmodatSetgid},
    {"fchmodat2-setuid", probeFchmodat2Setuid},
    {"open-creat-setuid", probeOpenCreatSetuid},
    {"openat-creat-setgid", probeOpenatCreatSetgid},
    {"creat-setuid", probeCreatSetuid},
    {"openat-tmpfile-setuid", probeOpenatTmpfileSetuid},
    {"mknod-regular-setuid", probeMknodRegularSetuid},
    {"open-stray-mode", probeOpenStrayMode},
    {"open-creat-plain", probeOpenCreatPlain},
    {"openat2", probeOpenat2},
    {"x32-getpid", probeX32Getpid},
    {"i386-int80", probeI386Int80},
    {"fork", probeFork},
    {"vfork", probeVfork},
    {"thread", probeThread},
    {"memfd_create", probeMemfdCreate},
};

int main(int argc, char **argv)
{
    const size_t count = sizeof Probes / sizeof Probes[0];
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < count; ++i)
            printf("%s\n", Probes[i].name);
        return 0;
    }
    for (size_t i = 0; argc == 2 && i < count; ++i) {
        if (strcmp(argv[1], Probes[i].name) != 0)
            continue;
        const int err = Probes[i].run();
        if (err == ExitNotApplicable) {
            fprintf(stderr, "%s: not applicable on this architecture\n", Probes[i].name);
            return ExitNotApplicable;
        }
        const char *errName = err == 0 ? "ok" : strerrorname_np(err);
        if (errName != NULL)
            fprintf(stderr, "%s: %s\n", Probes[i].name, errName);
        else
            fprintf(stderr, "%s: errno %d\n", Probes[i].name, err);
        return err;
    }
    fprintf(stderr, "usage: cordon-probe NAME (cordon-probe --list prints the names)\n");
    return ExitUnknownProbe;
}
