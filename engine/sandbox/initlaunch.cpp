// SPDX-License-Identifier: MIT
#include "sandbox/initlaunch.h"

#include "sandbox/files/filenames.h"
#include "sandbox/weakening.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

// A SIGKILL ends a pid namespace at once; what may take longer is the release of its mounts.
constexpr int AdoptedExitWaitMs = 5000;

constexpr std::uint32_t NobodyId = 65534;

Result<> writeProcFile(pid_t pid, const char *name, const std::string &contents)
{
    const std::string path = "/proc/" + std::to_string(pid) + '/' + name;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return failErrno("userns.id_map", "open `" + path + "`", errno);
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    const int error = errno;
    ::close(fd);
    if (written != static_cast<ssize_t>(contents.size()))
        return failErrno("userns.id_map", "write `" + path + "`", written < 0 ? error : EIO);
    return {};
}

Result<> writeIdMaps(pid_t pid, const IdMapping &ids)
{
    // setgroups must be denied before an unprivileged process may write gid_map (CVE-2014-8989: otherwise a
    // dropped supplementary group could be shed again inside).
    CORDON_TRY(writeProcFile(pid, "setgroups", "deny"));
    CORDON_TRY(writeProcFile(pid, "uid_map",
                             std::to_string(ids.insideUid) + ' ' + std::to_string(ids.hostUid) + " 1\n"));
    CORDON_TRY(writeProcFile(pid, "gid_map",
                             std::to_string(ids.insideGid) + ' ' + std::to_string(ids.hostGid) + " 1\n"));
    return {};
}

// The child holds every capability of its new user namespace, but execve would drop them all: its uid is not
// root there (it is 1000, or not even mapped yet). Raising them into the inheritable and ambient sets keeps
// them across the exec of cordon-init, which needs them for mounts and gives them all up before any run
// starts. Async-signal-safe: plain system calls on stack memory.
bool keepCapabilitiesAcrossExec()
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    for (auto &word : data)
        word.inheritable = word.permitted;
    if (::syscall(SYS_capset, &header, data) != 0)
        return false;
    // Only the capabilities the child holds, which are the ones this kernel knows: no call fails, so none
    // writes errno, which the child shares with the parent (CLONE_VM).
    for (unsigned long cap = 0; cap < 32 * _LINUX_CAPABILITY_U32S_3; ++cap) {
        if ((data[cap / 32].permitted & (1U << (cap % 32))) == 0)
            continue;
        if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0)
            return false;
    }
    return true;
}

// What the child needs between clone and execve, prepared by the parent: the child shares the parent's
// memory and may not allocate, lock or touch anything else in it.
struct ChildStart
{
    const char *initPath;
    char *const *argv;
    char *const *envp;
    int devNull;
    int controlEnd;
};

int startInitChild(void *argument)
{
    const auto *start = static_cast<const ChildStart *>(argument);
    const int control = ::fcntl(start->controlEnd, F_DUPFD, 10);
    if (control < 0 || ::dup2(start->devNull, 0) < 0 || ::dup2(start->devNull, 1) < 0 ||
        ::dup2(start->devNull, 2) < 0 || ::dup2(control, ControlFd) < 0)
        ::_exit(126);
    ::syscall(SYS_close_range, static_cast<unsigned>(ControlFd + 1), ~0U, 0U);
    if (!keepCapabilitiesAcrossExec())
        ::_exit(125);
    ::execve(start->initPath, start->argv, start->envp);
    ::_exit(127);
}

} // namespace

IdMapping idMappingFor(std::uint32_t callerUid, std::uint32_t callerGid)
{
    IdMapping ids;
    ids.hostUid = callerUid == 0 ? NobodyId : callerUid;
    ids.hostGid = callerUid == 0 ? NobodyId : callerGid;
    return ids;
}

std::vector<std::string> programCandidates(std::string_view name)
{
    std::string directory = ".";
    char path[PATH_MAX];
    if (const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1); n > 0) {
        const std::string self(path, static_cast<std::size_t>(n));
        directory = self.substr(0, self.rfind('/'));
    }
    return {directory + '/' + std::string(name), directory + "/../libexec/cordon/" + std::string(name)};
}

std::string locateInit()
{
    if (const char *fromEnv = std::getenv("CORDON_INIT"); fromEnv != nullptr && *fromEnv != '\0')
        return fromEnv;
    const std::vector<std::string> candidates = programCandidates("cordon-init");
    for (const std::string &candidate : candidates) {
        if (::access(candidate.c_str(), X_OK) == 0) {
            char resolved[PATH_MAX];
            return ::realpath(candidate.c_str(), resolved) != nullptr ? std::string(resolved) : candidate;
        }
    }
    return candidates.front();
}

Result<InitProcess> launchInit(const std::string &initPath, const IdMapping &ids)
{
    // Everything the child touches between clone and execve is prepared here: it may not allocate or lock.
    if (::access(initPath.c_str(), X_OK) != 0)
        return failErrno("sandbox.init_missing", "cordon-init at `" + initPath + "`", errno);

    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        return failErrno("sandbox.socket", "socketpair", errno);
    const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devNull < 0) {
        const int error = errno;
        ::close(pair[0]);
        ::close(pair[1]);
        return failErrno("sandbox.devnull", "open /dev/null", error);
    }
    char argv0[] = "cordon-init";
    char *const argv[] = {argv0, nullptr};
    char *const envp[] = {nullptr};

    // The child shares the parent's memory until its execve (CLONE_VM, CLONE_VFORK, as posix_spawn does), so
    // that neither the clone nor the exec copies or tears down the parent's page tables; the parent is
    // suspended until the exec has replaced the child's memory. Every signal stays blocked across the clone,
    // so that no handler of the parent's runs in the child; cordon-init sets its own mask. The cgroup
    // namespace comes later, from cordon-init itself, after it was moved into its cgroup.
    const int flags = CLONE_VM | CLONE_VFORK | CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
                      (weakened(Guarantee::NetworkNamespace) ? 0 : CLONE_NEWNET) | CLONE_NEWIPC |
                      CLONE_NEWUTS | SIGCHLD;
    ChildStart start{initPath.c_str(), argv, envp, devNull, pair[1]};
    alignas(16) char childStack[32 * 1024]; // the parent waits, so its frame outlives the child's use
    sigset_t all;
    sigset_t previous;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous);
    const int pid = ::clone(startInitChild, childStack + sizeof childStack, flags, &start);
    const int cloneError = errno;
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    ::close(devNull);
    ::close(pair[1]);
    if (pid < 0) {
        ::close(pair[0]);
        const bool refused = cloneError == EPERM || cloneError == ENOSPC;
        return failErrno(refused ? "userns.unavailable" : "sandbox.clone", "clone new namespaces",
                         cloneError);
    }
    InitProcess init{static_cast<pid_t>(pid), pair[0]};
    if (auto written = writeIdMaps(init.pid, ids); !written) {
        killAndReap(init);
        return fail(written.error());
    }
    return init;
}

Result<SetupReply> awaitSetupReply(InitProcess &init, int timeoutMs, std::size_t handBackCount,
                                   SetupHandles &handles)
{
    pollfd entry{init.control, POLLIN, 0};
    int ready;
    do {
        ready = ::poll(&entry, 1, timeoutMs);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0)
        return fail("sandbox.setup_timeout",
                    "cordon-init did not answer the setup request in " + std::to_string(timeoutMs) + " ms");
    std::vector<std::uint8_t> message;
    std::vector<int> fds;
    const long received = receiveMessage(init.control, message, fds);
    std::vector<UniqueFd> passed;
    for (int fd : fds)
        passed.emplace_back(fd);
    if (received == 0) {
        int status = 0;
        const bool reaped = ::waitpid(init.pid, &status, 0) == init.pid;
        init.pid = -1;
        return fail("sandbox.setup_failed",
                    "cordon-init exited before finishing setup (" +
                        (reaped && WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                                     : std::string("killed")) +
                        ")");
    }
    SetupReply reply;
    if (received < 0 || !decode(message.data(), message.size(), reply))
        return fail("sandbox.protocol", "malformed setup reply from cordon-init");
    if (reply.stage != Stage::None)
        return reply;
    if (passed.size() < handBackCount)
        return fail("sandbox.protocol", "cordon-init passed back " + std::to_string(passed.size()) + " of " +
                                            std::to_string(handBackCount) + " workspace directories");
    for (std::size_t i = 0; i < passed.size(); ++i) {
        if (i < handBackCount)
            handles.handedBack.push_back(std::move(passed[i]));
        else if (i == handBackCount)
            handles.proxyListener = std::move(passed[i]); // anything after it is closed
    }
    return reply;
}

Error setupFailure(const SetupReply &reply)
{
    std::string what = std::string("container setup failed at ") + stageName(reply.stage);
    // The detail is often a host path (a mount's source), which a user, or a program that named a file,
    // chose: a newline in it must not start a line of its own ("cordon: ok ...") in a terminal or a log.
    if (!reply.detail.empty())
        what += " (" + Files::escapeForDisplay(reply.detail) + ")";
    return failErrno("sandbox.setup_failed", what, reply.error).value();
}

void killAndReap(InitProcess &init)
{
    if (init.pidfd >= 0) {
        (void)::syscall(SYS_pidfd_send_signal, init.pidfd, SIGKILL, nullptr, 0);
        pollfd ended{init.pidfd, POLLIN, 0};
        while (::poll(&ended, 1, AdoptedExitWaitMs) < 0 && errno == EINTR) {
        }
        ::close(init.pidfd);
        init.pidfd = -1;
        init.pid = -1;
    }
    if (init.pid > 0) {
        ::kill(init.pid, SIGKILL);
        int status = 0;
        while (::waitpid(init.pid, &status, 0) < 0 && errno == EINTR) {
        }
        init.pid = -1;
    }
    if (init.control >= 0) {
        ::close(init.control);
        init.control = -1;
    }
}

InitMessage readInitMessage(int controlFd)
{
    std::vector<std::uint8_t> message;
    std::vector<int> fds;
    const long received = receiveMessage(controlFd, message, fds);
    for (int fd : fds)
        ::close(fd);
    InitMessage read;
    if (received == -EAGAIN)
        return read;
    if (received <= 0) {
        read.kind = InitMessage::Kind::Gone;
        return read;
    }
    read.kind = InitMessage::Kind::Malformed;
    switch (peekType(message.data(), message.size()).value_or(MessageType::SetupRequest)) {
    case MessageType::SpawnReply:
        if (decode(message.data(), message.size(), read.spawn))
            read.kind = InitMessage::Kind::Spawned;
        break;
    case MessageType::ExitReport:
        if (decode(message.data(), message.size(), read.exit))
            read.kind = InitMessage::Kind::Exited;
        break;
    case MessageType::ProcessesEnded: {
        ProcessesEnded ended;
        if (decode(message.data(), message.size(), ended))
            read.kind = InitMessage::Kind::ProcessesEnded;
        break;
    }
    default:
        break;
    }
    return read;
}

} // namespace Cordon::Isolation
