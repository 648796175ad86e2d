// SPDX-License-Identifier: MIT
#include "sandbox/init/runspawn.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
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
    // Every disposition is the default already (prepareBeforeSetup()); the mask is cordon-init's.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);

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
    ::umask(022);
    // The seccomp filter is cordon-init's own, inherited at the clone (initserver.cpp): everything above is
    // a call the filter allows.
    failChild(reportFd, Stage::SpawnExec, execSearch(argv[0], argv, envp));
}

struct RunStart
{
    const SpawnRequest *request;
    char *const *argv;
    char *const *envp;
    int stdinFd;
    int stdoutFd;
    int stderrFd;
    int reportRead;
    int reportWrite;
};

int startRun(void *argument)
{
    const auto *start = static_cast<const RunStart *>(argument);
    ::close(start->reportRead);
    runChild(*start->request, start->argv, start->envp, start->stdinFd, start->stdoutFd, start->stderrFd,
             start->reportWrite);
}

// The run inherits oom_score_adj at the clone, so ours is 1000 for that moment. The child cannot raise its
// own: until its exec it shares our memory, which is not dumpable, so its /proc files belong to root.
// Setting ours back needs no privilege either: it only has to stay above the floor a privileged process
// may have set (oom_score_adj_min), where it was.
class OomScoreRaised
{
public:
    OomScoreRaised(int fd, bool raise)
    {
        if (!raise || fd < 0)
            return;
        const ssize_t n = ::pread(fd, m_original, sizeof m_original, 0);
        if (n <= 0 || ::pwrite(fd, "1000", 4, 0) != 4)
            return;
        m_fd = fd;
        m_length = static_cast<std::size_t>(n);
    }
    OomScoreRaised(const OomScoreRaised &) = delete;
    OomScoreRaised &operator=(const OomScoreRaised &) = delete;
    ~OomScoreRaised()
    {
        if (m_fd < 0)
            return;
        // Should it fail, cordon-init stays at 1000 like its runs: the OOM killer then picks the largest.
        [[maybe_unused]] const ssize_t ignored = ::pwrite(m_fd, m_original, m_length, 0);
    }

private:
    int m_fd = -1;
    char m_original[16] = {};
    std::size_t m_length = 0;
};

} // namespace

int openOwnOomScore()
{
    return ::open("/proc/self/oom_score_adj", O_RDWR | O_CLOEXEC);
}

SpawnResult spawnRun(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd, int oomScoreFd)
{
    // Everything the child needs is prepared before the clone, so the child only makes system calls.
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
    // CLONE_VM | CLONE_VFORK, as posix_spawn does: the child runs on a stack in this frame and shares our
    // memory until its execve, so that neither the clone nor its exec copies or tears down our page tables.
    // We are suspended until then, and would wait for the report anyway; the child has its own descriptors,
    // signal handlers and limits, our seccomp filter (shared, not compiled again), and (a vfork child) its
    // own OOM score.
    RunStart start{&request, argv.data(), envp.data(), stdinFd, stdoutFd, stderrFd, report[0], report[1]};
    alignas(16) char childStack[64 * 1024];
    const OomScoreRaised oomScore(oomScoreFd, request.raiseOomScore);
    const pid_t pid =
        ::clone(startRun, childStack + sizeof childStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
    if (pid < 0) {
        const int error = errno;
        ::close(report[0]);
        ::close(report[1]);
        return {-1, Stage::SpawnFork, error};
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
