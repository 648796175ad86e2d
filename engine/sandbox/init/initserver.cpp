// SPDX-License-Identifier: MIT
#include "sandbox/init/initserver.h"

#include "sandbox/init/containersetup.h"
#include "sandbox/init/runspawn.h"
#include "sandbox/init/seccompinstall.h"
#include "sandbox/initprotocol.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace Cordon::Isolation {

namespace {

constexpr std::size_t MaxConcurrentRuns = 64;

struct RunningProcess
{
    std::uint64_t runId;
    pid_t pid;
    bool endsContainer;
};

void closeAll(const std::vector<int> &fds)
{
    for (int fd : fds)
        ::close(fd);
}

// The session id is field 6 of /proc/<pid>/stat, after the parenthesised command name (which may itself
// contain spaces and parentheses, so parse from the last ')').
pid_t sessionOf(pid_t pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buffer[512];
    const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
    ::close(fd);
    if (n <= 0)
        return -1;
    buffer[n] = '\0';
    const char *close = std::strrchr(buffer, ')');
    if (!close)
        return -1;
    char state = 0;
    int ppid = 0, pgrp = 0, session = 0;
    if (std::sscanf(close + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session) != 4)
        return -1;
    return session;
}

// Signals every process of a run: its process group, and anything that left the group but not the session.
void signalRun(pid_t leader, int signal, bool wholeSession)
{
    ::kill(-leader, signal);
    ::kill(leader, signal);
    if (!wholeSession)
        return;
    DIR *proc = ::opendir("/proc");
    if (!proc)
        return;
    while (dirent *entry = ::readdir(proc)) {
        char *end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 1)
            continue;
        if (sessionOf(static_cast<pid_t>(pid)) == leader)
            ::kill(static_cast<pid_t>(pid), signal);
    }
    ::closedir(proc);
}

class InitServer
{
public:
    InitServer(int controlFd, int oomScoreFd) : m_control(controlFd), m_oomScore(oomScoreFd) {}

    int serve();

private:
    bool handleMessage();
    void handleSpawn(const std::vector<std::uint8_t> &message, std::vector<int> &fds);
    void handleKill(const std::vector<std::uint8_t> &message);
    // Reaps every child that exited and reports the runs among them; true once the run that ends the
    // container was reported and no process is left.
    bool reap();

    int m_control;
    int m_oomScore;
    std::vector<RunningProcess> m_runs;
    bool m_lastRunEnded = false;
};

int InitServer::serve()
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    ::sigprocmask(SIG_BLOCK, &mask, nullptr);
    const int signalFd = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (signalFd < 0)
        return 3;

    for (;;) {
        pollfd fds[2] = {{m_control, POLLIN, 0}, {signalFd, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return 4;
        }
        if (fds[1].revents & POLLIN) {
            signalfd_siginfo info;
            while (::read(signalFd, &info, sizeof info) == sizeof info) {
            }
            if (reap())
                return 0;
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (!handleMessage())
                return 0;
        }
    }
}

bool InitServer::handleMessage()
{
    std::vector<std::uint8_t> message;
    std::vector<int> fds;
    const long received = receiveMessage(m_control, message, fds);
    if (received <= 0)
        return received ==
               -EMSGSIZE; // EOF or a broken socket ends the container; an oversized message is dropped
    switch (peekType(message.data(), message.size()).value_or(MessageType::SetupReply)) {
    case MessageType::SpawnRequest:
        handleSpawn(message, fds);
        break;
    case MessageType::SpawnRequestInMemfd:
        // The request itself is in the last fd (a long argv or environment); the three before it are the
        // run's stdio as with an inline request.
        if (message.size() == 1 && fds.size() == 4) {
            const std::vector<std::uint8_t> request = readSpawnRequestMemfd(fds[3]);
            ::close(fds[3]);
            fds.pop_back();
            handleSpawn(request, fds);
        } else {
            handleSpawn({}, fds);
        }
        break;
    case MessageType::KillRequest:
        handleKill(message);
        break;
    default:
        break; // anything else is not for us after setup: ignore it
    }
    closeAll(fds);
    return true;
}

void InitServer::handleSpawn(const std::vector<std::uint8_t> &message, std::vector<int> &fds)
{
    SpawnRequest request;
    SpawnReply reply;
    if (!decode(message.data(), message.size(), request) || fds.size() != 3) {
        reply.stage = Stage::SpawnFds;
        reply.error = EINVAL;
        reply.detail = "malformed spawn request";
        sendMessage(m_control, encode(reply));
        return;
    }
    reply.runId = request.runId;
    if (m_runs.size() >= MaxConcurrentRuns) {
        reply.stage = Stage::SpawnTooMany;
        reply.error = EAGAIN;
        sendMessage(m_control, encode(reply));
        return;
    }
    const SpawnResult result = spawnRun(request, fds[0], fds[1], fds[2], m_oomScore);
    reply.pid = result.pid;
    reply.stage = result.stage;
    reply.error = result.error;
    if (result.pid > 0 && result.stage == Stage::None)
        m_runs.push_back({request.runId, result.pid, request.endsContainer});
    sendMessage(m_control, encode(reply));
    // A run that failed before execve has already exited; its status is collected by reap() as an orphan.
}

void InitServer::handleKill(const std::vector<std::uint8_t> &message)
{
    KillRequest request;
    if (!decode(message.data(), message.size(), request))
        return;
    for (const RunningProcess &run : m_runs) {
        if (run.runId == request.runId)
            signalRun(run.pid, request.signal, request.wholeSession);
    }
}

bool InitServer::reap()
{
    for (;;) {
        int status = 0;
        rusage usage{};
        const pid_t pid = ::wait4(-1, &status, WNOHANG, &usage);
        if (pid < 0 && errno == ECHILD)
            return m_lastRunEnded; // every orphan of the container is reparented to us: none is left
        if (pid <= 0)
            return false;
        for (auto it = m_runs.begin(); it != m_runs.end(); ++it) {
            if (it->pid != pid)
                continue;
            ExitReport report;
            report.runId = it->runId;
            report.waitStatus = status;
            report.userMicros = static_cast<std::uint64_t>(usage.ru_utime.tv_sec) * 1000000u +
                                static_cast<std::uint64_t>(usage.ru_utime.tv_usec);
            report.systemMicros = static_cast<std::uint64_t>(usage.ru_stime.tv_sec) * 1000000u +
                                  static_cast<std::uint64_t>(usage.ru_stime.tv_usec);
            report.maxRssKiB = static_cast<std::uint64_t>(usage.ru_maxrss);
            m_lastRunEnded = m_lastRunEnded || it->endsContainer;
            m_runs.erase(it);
            sendMessage(m_control, encode(report));
            break;
        }
    }
}

// No SO_REUSEPORT: with it, a process in the container (same uid) could bind the same port and steal
// connections meant for the proxy.
int openProxyListener()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(ProxyPort);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0 ||
        ::listen(fd, 128) != 0) {
        const int error = errno;
        ::close(fd);
        return -error;
    }
    return fd;
}

// Opens each of `paths` with `flags` (O_PATH among them), in order; the first failure is reported at `stage`.
SetupReply openAll(const std::vector<std::string> &paths, int flags, Stage stage, std::vector<int> &fds)
{
    SetupReply reply;
    for (const std::string &path : paths) {
        const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
        if (fd < 0) {
            reply.stage = stage;
            reply.error = errno;
            reply.detail = path;
            return reply;
        }
        fds.push_back(fd);
    }
    return reply;
}

// Still with the caller's host credentials (setUpContainer() takes the inside uid later) and already in the
// container's mount namespace: each source is opened as the engine would open it, following symlinks the
// host has (a symlinked /home) exactly as before.
SetupReply openBindSources(const std::vector<std::string> &paths, std::vector<int> &fds)
{
    return openAll(paths, O_PATH, Stage::OpenBindSource, fds);
}

// After the pivot: the directories the engine asked for, as the container sees them (no symlink followed).
SetupReply openHandBack(const std::vector<std::string> &paths, std::vector<int> &fds)
{
    return openAll(paths, O_PATH | O_DIRECTORY | O_NOFOLLOW, Stage::HandBack, fds);
}

// The engine's word that we are in the container's cgroup: the one message it sends between the setup request
// and our reply. Anything else (or nothing: the engine gave up) fails the setup.
int awaitCgroupJoined(int controlFd)
{
    std::vector<std::uint8_t> message;
    std::vector<int> fds;
    const long received = receiveMessage(controlFd, message, fds);
    const bool passedFds = !fds.empty();
    closeAll(fds);
    if (received < 0)
        return static_cast<int>(-received);
    if (received == 0)
        return ECONNRESET;
    CgroupJoined joined;
    return !passedFds && decode(message.data(), message.size(), joined) ? 0 : EPROTO;
}

} // namespace

int runInit(int controlFd)
{
    const int oomScore = openOwnOomScore();           // now, while our /proc files are still ours
    const SetupReply prepared = prepareBeforeSetup(); // while the engine is still making the request
    std::vector<std::uint8_t> message;
    std::vector<int> fds;
    const long received = receiveMessage(controlFd, message, fds);
    SetupRequest request;
    SetupReply reply;
    if (received <= 0 || !decode(message.data(), message.size(), request)) {
        reply.stage = Stage::ReadSetup;
        reply.error = received < 0 ? static_cast<int>(-received) : EINVAL;
        reply.detail = "malformed setup request";
    } else {
        closeAll(fds); // nothing is passed with the setup request
        fds.clear();
        reply = prepared.stage != Stage::None ? prepared : openBindSources(request.bindSources, fds);
        if (reply.stage == Stage::None)
            reply = setUpContainer(request, fds, [controlFd] { return awaitCgroupJoined(controlFd); });
    }
    closeAll(fds);
    // Passed back in the order the engine expects: the directories it asked for, then the listener.
    std::vector<int> passed;
    if (reply.stage == Stage::None)
        reply = openHandBack(request.handBack, passed);
    if (reply.stage == Stage::None && request.proxyListener) {
        const int listener = openProxyListener();
        if (listener < 0) {
            reply.stage = Stage::ProxyListener;
            reply.error = -listener;
            reply.detail = "127.0.0.1:" + std::to_string(ProxyPort);
        } else {
            passed.push_back(listener);
        }
    }
    // Last of the setup, so that the filter need not allow what the setup did (mounts, pivot_root); from here
    // on cordon-init itself runs under the container's filter, and every run inherits it at the clone.
    if (reply.stage == Stage::None) {
        if (const int error = installSeccompFilter(request.seccompBpf.data(), request.seccompBpf.size());
            error != 0) {
            reply.stage = Stage::Seccomp;
            reply.error = error;
            reply.detail = std::to_string(request.seccompBpf.size()) + " bytes of BPF";
        }
    }
    if (reply.stage != Stage::None) {
        closeAll(passed);
        passed.clear();
    }
    sendMessage(controlFd, encode(reply), passed.empty() ? nullptr : passed.data(), int(passed.size()));
    // The engine holds them now: nothing in the container can bind the proxy port again, and the workspace
    // lives on in the engine's descriptors.
    closeAll(passed);
    if (reply.stage != Stage::None)
        return 2;
    // The setup request is the largest message init gets; it lives as long as the container, so give its copy
    // back.
    std::vector<std::uint8_t>().swap(message);
    return InitServer(controlFd, oomScore).serve();
}

} // namespace Cordon::Isolation
