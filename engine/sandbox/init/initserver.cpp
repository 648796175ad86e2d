// SPDX-License-Identifier: MIT
#include "sandbox/init/initserver.h"

#include "sandbox/init/containersetup.h"
#include "sandbox/init/heldruns.h"
#include "sandbox/init/runspawn.h"
#include "sandbox/init/seccompinstall.h"
#include "sandbox/initprotocol.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace Cordon::Isolation {

namespace {

constexpr std::size_t MaxConcurrentRuns = 64;

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

std::uint64_t monotonicMs()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<std::uint64_t>(now.tv_sec) * 1000u +
           static_cast<std::uint64_t>(now.tv_nsec) / 1000000u;
}

class InitServer
{
public:
    InitServer(int controlFd, int oomScoreFd, AdoptionHandles adoption)
        : m_control(controlFd), m_oomScore(oomScoreFd), m_adoption(std::move(adoption))
    {}

    int serve();

private:
    bool survivesEngine() const { return m_adoption.listener >= 0; }
    // False when the container ends: the control socket closed and no engine may adopt it.
    bool handleMessage();
    void handleSpawn(const std::vector<std::uint8_t> &message, std::vector<int> &fds);
    void handleKill(const std::vector<std::uint8_t> &message);
    void handleCollected(const std::vector<std::uint8_t> &message);
    // Kills every process of the container but us and reaps them all, then says so: the engine saves the
    // workspace while we keep it (and wait for a next engine, should this one end during the save).
    void endProcesses();
    // Reaps every child that exited (with untilNoneLeft, waits until every one has) and reports the runs
    // among them; true once the run that ends the container was reported and no process is left.
    bool reap(bool untilNoneLeft = false);
    void detach();
    void drainHeldOutput(const std::vector<pollfd> &ready);
    void killPastDeadline();
    int pollTimeoutMs() const;
    void acceptEngine();

    int m_control;
    int m_oomScore;
    AdoptionHandles m_adoption;
    std::vector<HeldProcess> m_runs;
    HeldOutputBudget m_budget;
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

    std::vector<pollfd> fds;
    for (;;) {
        const bool detached = m_control < 0;
        fds.clear();
        fds.push_back({detached ? m_adoption.listener : m_control, POLLIN, 0});
        fds.push_back({signalFd, POLLIN, 0});
        // With no engine to read them, the runs' output pipes are ours to drain, so that no run blocks on
        // a full pipe and what they write is kept for the next engine.
        if (detached)
            watchHeldOutput(m_runs, fds);
        if (::poll(fds.data(), fds.size(), detached ? pollTimeoutMs() : -1) < 0) {
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
        if (detached) {
            drainHeldOutput(fds);
            killPastDeadline();
            if (fds[0].revents & POLLIN)
                acceptEngine();
        } else if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
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
    if (received == -EMSGSIZE)
        return true; // an oversized message is dropped
    if (received <= 0) {
        // The engine went away (a crash, a kill, an upgrade). A container that outlives it waits for the
        // next one; any other ends, and the kernel kills what is left in the pid namespace.
        if (!survivesEngine())
            return false;
        detach();
        return true;
    }
    switch (peekType(message.data(), message.size()).value_or(MessageType::SetupReply)) {
    case MessageType::SpawnRequest:
        handleSpawn(message, fds);
        break;
    case MessageType::SpawnRequestInMemfd:
        // The request itself is in the last fd (a long argv or environment); the ones before it are the
        // run's stdio (and the held read ends) as with an inline request.
        if (message.size() == 1 && (fds.size() == 4 || fds.size() == 6)) {
            const std::vector<std::uint8_t> request = readSpawnRequestMemfd(fds.back());
            ::close(fds.back());
            fds.pop_back();
            handleSpawn(request, fds);
        } else {
            handleSpawn({}, fds);
        }
        break;
    case MessageType::KillRequest:
        handleKill(message);
        break;
    case MessageType::RunCollected:
        handleCollected(message);
        break;
    case MessageType::EndProcesses:
        endProcesses();
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
    if (!decode(message.data(), message.size(), request) || fds.size() != (request.holdOutput ? 5u : 3u)) {
        reply.stage = Stage::SpawnFds;
        reply.error = EINVAL;
        reply.detail = "malformed spawn request";
        sendMessage(m_control, encode(reply));
        return;
    }
    reply.runId = request.runId;
    if (liveRuns(m_runs) >= MaxConcurrentRuns) {
        reply.stage = Stage::SpawnTooMany;
        reply.error = EAGAIN;
        sendMessage(m_control, encode(reply));
        return;
    }
    const SpawnResult result = spawnRun(request, fds[0], fds[1], fds[2], m_oomScore);
    reply.pid = result.pid;
    reply.stage = result.stage;
    reply.error = result.error;
    if (result.pid > 0 && result.stage == Stage::None) {
        HeldProcess run;
        run.runId = request.runId;
        run.tag = request.tag;
        run.pid = result.pid;
        run.endsContainer = request.endsContainer;
        run.deadlineMonotonicMs = request.deadlineMonotonicMs;
        if (request.holdOutput) {
            // Ours from now on (closed when the engine collects the run): taken out of the list closed below.
            run.output[0].fd = std::exchange(fds[3], -1);
            run.output[1].fd = std::exchange(fds[4], -1);
            fds.resize(3);
        }
        m_runs.push_back(std::move(run));
    }
    sendMessage(m_control, encode(reply));
    // A run that failed before execve has already exited; its status is collected by reap() as an orphan.
}

void InitServer::handleKill(const std::vector<std::uint8_t> &message)
{
    KillRequest request;
    if (!decode(message.data(), message.size(), request))
        return;
    for (const HeldProcess &run : m_runs) {
        // An ended run's pid may belong to another process by now.
        if (run.runId == request.runId && !run.exited)
            signalRun(run.pid, request.signal, request.wholeSession);
    }
}

void InitServer::handleCollected(const std::vector<std::uint8_t> &message)
{
    RunCollected collected;
    if (decode(message.data(), message.size(), collected))
        forgetRun(m_runs, collected.runId, m_budget);
}

void InitServer::endProcesses()
{
    // From PID 1 of a pid namespace, -1 is every other process in it; none can ignore SIGKILL.
    ::kill(-1, SIGKILL);
    reap(true);
    sendMessage(m_control, encode(ProcessesEnded{}));
}

bool InitServer::reap(bool untilNoneLeft)
{
    for (;;) {
        int status = 0;
        rusage usage{};
        const pid_t pid = ::wait4(-1, &status, untilNoneLeft ? 0 : WNOHANG, &usage);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0 && errno == ECHILD)
            return m_lastRunEnded; // every orphan of the container is reparented to us: none is left
        if (pid <= 0)
            return false;
        HeldProcess *run = findLiveRun(m_runs, pid);
        if (!run)
            continue;
        run->exited = true;
        run->waitStatus = status;
        run->userMicros = static_cast<std::uint64_t>(usage.ru_utime.tv_sec) * 1000000u +
                          static_cast<std::uint64_t>(usage.ru_utime.tv_usec);
        run->systemMicros = static_cast<std::uint64_t>(usage.ru_stime.tv_sec) * 1000000u +
                            static_cast<std::uint64_t>(usage.ru_stime.tv_usec);
        run->maxRssKiB = static_cast<std::uint64_t>(usage.ru_maxrss);
        m_lastRunEnded = m_lastRunEnded || run->endsContainer;
        if (m_control >= 0) {
            ExitReport report;
            report.runId = run->runId;
            report.waitStatus = run->waitStatus;
            report.userMicros = run->userMicros;
            report.systemMicros = run->systemMicros;
            report.maxRssKiB = run->maxRssKiB;
            sendMessage(m_control, encode(report));
        }
        // A container that outlives its engine keeps the ended run until an engine says it recorded it
        // (RunCollected): an engine that dies before then hears of it from us again.
        if (!survivesEngine())
            forgetRun(m_runs, run->runId, m_budget);
    }
}

void InitServer::detach()
{
    ::close(m_control);
    m_control = -1;
}

void InitServer::drainHeldOutput(const std::vector<pollfd> &ready)
{
    readHeldOutput(m_runs, ready, m_budget);
}

// While no engine is connected its wall-time timers are gone; the deadline it gave each run still holds.
void InitServer::killPastDeadline()
{
    const std::uint64_t now = monotonicMs();
    for (HeldProcess &run : m_runs) {
        if (run.exited || run.timedOut || run.deadlineMonotonicMs == 0 || now < run.deadlineMonotonicMs)
            continue;
        run.timedOut = true;
        signalRun(run.pid, SIGKILL, true);
    }
}

int InitServer::pollTimeoutMs() const
{
    const std::uint64_t now = monotonicMs();
    std::uint64_t earliest = 0;
    for (const HeldProcess &run : m_runs) {
        if (run.exited || run.timedOut || run.deadlineMonotonicMs == 0)
            continue;
        if (earliest == 0 || run.deadlineMonotonicMs < earliest)
            earliest = run.deadlineMonotonicMs;
    }
    if (earliest == 0)
        return -1;
    return earliest <= now ? 0 : static_cast<int>(std::min<std::uint64_t>(earliest - now, 60000));
}

void InitServer::acceptEngine()
{
    const int connection = ::accept4(m_adoption.listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0)
        return;
    if (!isOurEngine(connection, m_adoption.engineUid) ||
        !handOver(connection, m_adoption, m_runs, m_budget)) {
        ::close(connection);
        return;
    }
    m_control = connection;
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

// The engine's uid as this user namespace sees it, for the check of a later engine's connection.
std::uint32_t engineUidOf(int controlFd)
{
    ucred peer{};
    socklen_t length = sizeof peer;
    if (::getsockopt(controlFd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0)
        return static_cast<std::uint32_t>(-1);
    return peer.uid;
}

// The adoption socket comes bound, and we listen on it ourselves: a connection's credentials are those of
// whoever called listen(), and an engine that connects must learn our pid from them.
bool listenForEngines(int fd)
{
    int domain = 0;
    socklen_t domainLength = sizeof domain;
    int type = 0;
    socklen_t typeLength = sizeof type;
    return ::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &domainLength) == 0 && domain == AF_UNIX &&
           ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &typeLength) == 0 && type == SOCK_SEQPACKET &&
           ::listen(fd, 4) == 0;
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
    AdoptionHandles adoption;
    if (received <= 0 || !decode(message.data(), message.size(), request) ||
        fds.size() != (request.survivesEngine ? 1u : 0u) ||
        (request.survivesEngine && !listenForEngines(fds[0]))) {
        reply.stage = Stage::ReadSetup;
        reply.error = received < 0 ? static_cast<int>(-received) : EINVAL;
        reply.detail = "malformed setup request";
    } else {
        // The only descriptor a setup request carries is the adoption socket of a container that outlives
        // the engine.
        if (request.survivesEngine) {
            adoption.listener = fds[0];
            adoption.engineUid = engineUidOf(controlFd);
        }
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
    // A container that outlives the engine no longer dies with its parent (setUpContainer() set the
    // parent-death signal again after taking the inside uid, which clears it): from here on, only a kill
    // or the end of its runs' need ends it. Before the filter, which need not allow prctl's options.
    if (reply.stage == Stage::None && adoption.listener >= 0)
        ::prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
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
    if (reply.stage != Stage::None) {
        if (adoption.listener >= 0)
            ::close(adoption.listener);
        return 2;
    }
    // The engine holds them now: nothing in the container can bind the proxy port again, and the workspace
    // lives on in the engine's descriptors. A container that outlives the engine keeps its own copies, to
    // pass them to the next engine.
    if (adoption.listener >= 0) {
        const std::size_t directories = request.handBack.size();
        adoption.handBack.assign(passed.begin(), passed.begin() + static_cast<long>(directories));
        if (passed.size() > directories)
            adoption.proxyListener = passed[directories];
    } else {
        closeAll(passed);
    }
    // The setup request is the largest message init gets; it lives as long as the container, so give its copy
    // back.
    std::vector<std::uint8_t>().swap(message);
    return InitServer(controlFd, oomScore, std::move(adoption)).serve();
}

} // namespace Cordon::Isolation
