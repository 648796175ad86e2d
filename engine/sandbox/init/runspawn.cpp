// SPDX-License-Identifier: MIT
#include "sandbox/init/runspawn.h"

#include "sandbox/init/seccompinstall.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

struct ChildFailure
{
    std::uint32_t stage;
    std::int32_t error;
};

[[noreturn]] void failChild(int reportFd, Stage stage, int error)
{
    const ChildFailure failure{static_cast<std::uint32_t>(stage), error};
    [[maybe_unused]] const ssize_t ignored = ::write(reportFd, &failure, sizeof failure);
    ::_exit(127);
}

const char *findPath(char *const *envp)
{
    for (char *const *entry = envp; *entry; ++entry) {
        if (std::strncmp(*entry, "PATH=", 5) == 0)
            return *entry + 5;
    }
    return "/usr/local/bin:/usr/bin:/bin";
}

// execvpe() would search the PATH of *our* environment; the run's PATH is in envp.
int execSearch(const char *file, char *const *argv, char *const *envp)
{
    if (std::strchr(file, '/')) {
        ::execve(file, argv, envp);
        return errno;
    }
    int lastError = ENOENT;
    const char *path = findPath(envp);
    char candidate[4096];
    while (*path) {
        const char *colon = std::strchr(path, ':');
        const std::size_t length = colon ? static_cast<std::size_t>(colon - path) : std::strlen(path);
        if (length > 0 && length + 1 + std::strlen(file) + 1 < sizeof candidate) {
            std::memcpy(candidate, path, length);
            candidate[length] = '/';
            std::strcpy(candidate + length + 1, file);
            ::execve(candidate, argv, envp);
            if (errno != ENOENT && errno != ENOTDIR)
                lastError = errno;
        }
        path += length + (colon ? 1 : 0);
    }
    return lastError;
}

[[noreturn]] void runChild(const SpawnRequest &request, char *const *argv, char *const *envp, int stdinFd,
                           int stdoutFd, int stderrFd, int reportFd)
{
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int signal = 1; signal < NSIG; ++signal)
        ::signal(signal, SIG_DFL);

    // A session of its own: no controlling terminal, and a process group the engine can kill as a whole.
    if (::setsid() < 0)
        failChild(reportFd, Stage::SpawnSetsid, errno);
    if (::dup2(stdinFd, 0) < 0 || ::dup2(stdoutFd, 1) < 0 || ::dup2(stderrFd, 2) < 0)
        failChild(reportFd, Stage::SpawnFds, errno);
    // Every other descriptor (the control socket above all) closes at execve; the report pipe too, which is
    // how the parent learns that execve succeeded.
    if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
        failChild(reportFd, Stage::SpawnFds, errno);
    if (::chdir(request.cwd.c_str()) != 0)
        failChild(reportFd, Stage::SpawnChdir, errno);
    for (const ResourceLimit &limit : request.rlimits) {
        const rlimit value{limit.soft, limit.hard};
        if (::setrlimit(static_cast<__rlimit_resource>(limit.resource), &value) != 0)
            failChild(reportFd, Stage::SpawnRlimits, errno);
    }
    if (request.raiseOomScore) {
        // The OOM killer should pick the run, not PID 1. Raising our own score needs no privilege.
        const int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            [[maybe_unused]] const ssize_t ignored = ::write(fd, "1000", 4);
            ::close(fd);
        }
    }
    ::umask(022);
    // Last thing before execve, so the filter does not have to allow anything the setup above needed.
    if (const int error = installSeccompFilter(request.seccompBpf.data(), request.seccompBpf.size());
        error != 0)
        failChild(reportFd, Stage::SpawnSeccomp, error);
    failChild(reportFd, Stage::SpawnExec, execSearch(argv[0], argv, envp));
}

} // namespace

SpawnResult spawnRun(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd)
{
    // Everything the child needs is prepared before fork, so the child only makes system calls.
    std::vector<char *> argv;
    for (const std::string &arg : request.argv)
        argv.push_back(const_cast<char *>(arg.c_str()));
    argv.push_back(nullptr);
    std::vector<char *> envp;
    for (const std::string &entry : request.env)
        envp.push_back(const_cast<char *>(entry.c_str()));
    envp.push_back(nullptr);

    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0)
        return {-1, Stage::SpawnFork, errno};
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        ::close(report[0]);
        ::close(report[1]);
        return {-1, Stage::SpawnFork, error};
    }
    if (pid == 0) {
        ::close(report[0]);
        runChild(request, argv.data(), envp.data(), stdinFd, stdoutFd, stderrFd, report[1]);
    }
    ::close(report[1]);
    ChildFailure failure{};
    ssize_t n;
    do {
        n = ::read(report[0], &failure, sizeof failure);
    } while (n < 0 && errno == EINTR);
    ::close(report[0]);
    if (n == static_cast<ssize_t>(sizeof failure))
        return {pid, static_cast<Stage>(failure.stage), failure.error};
    return {pid, Stage::None, 0};
}

} // namespace Cordon::Isolation
