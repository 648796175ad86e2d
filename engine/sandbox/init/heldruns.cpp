// SPDX-License-Identifier: MIT
#include "sandbox/init/heldruns.h"

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace Cordon::Isolation {

std::uint32_t answeredProtocolVersion = InitProtocolVersion;

namespace {

constexpr int HandOverTimeoutSeconds = 5;
constexpr std::size_t ReadChunk = 64 * 1024;

void closeStream(HeldStream &stream, HeldOutputBudget &budget)
{
    if (stream.fd >= 0)
        ::close(stream.fd);
    stream.fd = -1;
    budget.used -= std::min(budget.used, stream.buffered.size());
    std::string().swap(stream.buffered);
}

HeldStream *findStream(std::vector<HeldProcess> &runs, int fd)
{
    for (HeldProcess &run : runs) {
        for (HeldStream &stream : run.output) {
            if (stream.fd == fd)
                return &stream;
        }
    }
    return nullptr;
}

void keep(HeldStream &stream, const char *data, std::size_t length, HeldOutputBudget &budget)
{
    const std::size_t streamRoom =
        MaxHeldOutputPerStream - std::min(MaxHeldOutputPerStream, stream.buffered.size());
    const std::size_t totalRoom = MaxHeldOutputTotal - std::min(MaxHeldOutputTotal, budget.used);
    const std::size_t kept = std::min({length, streamRoom, totalRoom});
    stream.buffered.append(data, kept);
    budget.used += kept;
    stream.dropped += length - kept;
}

bool setTimeouts(int connection)
{
    const timeval timeout{HandOverTimeoutSeconds, 0};
    return ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0 &&
           ::setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout) == 0;
}

bool sendRun(int connection, const HeldProcess &run)
{
    HeldRun held;
    held.runId = run.runId;
    held.tag = run.tag;
    held.pid = run.pid;
    held.exited = run.exited;
    held.waitStatus = run.waitStatus;
    held.userMicros = run.userMicros;
    held.systemMicros = run.systemMicros;
    held.maxRssKiB = run.maxRssKiB;
    held.timedOut = run.timedOut;
    held.deadlineMonotonicMs = run.deadlineMonotonicMs;
    held.stdoutDropped = run.output[0].dropped;
    held.stderrDropped = run.output[1].dropped;
    held.stdoutOpen = run.output[0].fd >= 0;
    held.stderrOpen = run.output[1].fd >= 0;
    int fds[2];
    int count = 0;
    for (const HeldStream &stream : run.output) {
        if (stream.fd >= 0)
            fds[count++] = stream.fd;
    }
    if (sendMessage(connection, encode(held), count > 0 ? fds : nullptr, count) != 0)
        return false;
    for (std::uint8_t stream = 1; stream <= 2; ++stream) {
        const std::string &buffered = run.output[stream - 1].buffered;
        for (std::size_t offset = 0; offset < buffered.size(); offset += MaxHeldOutputChunk) {
            HeldOutput chunk;
            chunk.runId = run.runId;
            chunk.stream = stream;
            chunk.bytes = buffered.substr(offset, MaxHeldOutputChunk);
            if (sendMessage(connection, encode(chunk)) != 0)
                return false;
        }
    }
    return true;
}

} // namespace

std::size_t liveRuns(const std::vector<HeldProcess> &runs)
{
    return static_cast<std::size_t>(
        std::count_if(runs.begin(), runs.end(), [](const HeldProcess &run) { return !run.exited; }));
}

HeldProcess *findLiveRun(std::vector<HeldProcess> &runs, pid_t pid)
{
    for (HeldProcess &run : runs) {
        if (run.pid == pid && !run.exited)
            return &run;
    }
    return nullptr;
}

void forgetRun(std::vector<HeldProcess> &runs, std::uint64_t runId, HeldOutputBudget &budget)
{
    for (auto it = runs.begin(); it != runs.end(); ++it) {
        if (it->runId != runId)
            continue;
        for (HeldStream &stream : it->output)
            closeStream(stream, budget);
        runs.erase(it);
        return;
    }
}

void watchHeldOutput(const std::vector<HeldProcess> &runs, std::vector<pollfd> &fds)
{
    for (const HeldProcess &run : runs) {
        for (const HeldStream &stream : run.output) {
            if (stream.fd >= 0)
                fds.push_back({stream.fd, POLLIN, 0});
        }
    }
}

void readHeldOutput(std::vector<HeldProcess> &runs, const std::vector<pollfd> &fds, HeldOutputBudget &budget)
{
    char chunk[ReadChunk];
    for (const pollfd &entry : fds) {
        if (!(entry.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        HeldStream *stream = findStream(runs, entry.fd);
        if (!stream)
            continue;
        const ssize_t n = ::read(stream->fd, chunk, sizeof chunk);
        if (n > 0) {
            keep(*stream, chunk, static_cast<std::size_t>(n), budget);
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            // Every writer is gone: what was buffered stays for the engine, the read end goes.
            ::close(stream->fd);
            stream->fd = -1;
        }
    }
}

bool isOurEngine(int connection, std::uint32_t engineUid)
{
    ucred peer{};
    socklen_t length = sizeof peer;
    if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0)
        return false;
    return peer.uid == engineUid && peer.pid == 0;
}

bool handOver(int connection, const AdoptionHandles &adoption, std::vector<HeldProcess> &runs,
              HeldOutputBudget &budget)
{
    if (!setTimeouts(connection))
        return false;
    std::vector<std::uint8_t> message;
    std::vector<int> passed;
    const long received = receiveMessage(connection, message, passed);
    const bool passedFds = !passed.empty();
    for (int fd : passed)
        ::close(fd);
    Adopt adopt;
    if (received <= 0 || passedFds || !decode(message.data(), message.size(), adopt))
        return false;
    // Whatever version the engine speaks, the reply starts the same way; an engine of another version
    // reads the directories, saves the workspace and ends the container.
    AdoptReply reply;
    reply.protocolVersion = answeredProtocolVersion;
    reply.handBackCount = static_cast<std::uint32_t>(adoption.handBack.size());
    reply.proxyListener = adoption.proxyListener >= 0;
    reply.heldRuns = static_cast<std::uint32_t>(runs.size());
    std::vector<int> fds = adoption.handBack;
    if (adoption.proxyListener >= 0)
        fds.push_back(adoption.proxyListener);
    if (sendMessage(connection, encode(reply), fds.empty() ? nullptr : fds.data(), int(fds.size())) != 0)
        return false;
    for (const HeldProcess &run : runs) {
        if (!sendRun(connection, run))
            return false;
    }
    if (sendMessage(connection, encode(AdoptDone{})) != 0)
        return false;
    // The connection is the control socket from here on, which waits as the first one did: a daemon busy
    // for a few seconds must not cost it an exit report.
    const timeval none{0, 0};
    (void)::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
    (void)::setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
    // The engine has it all now; from here on it reads the pipes itself.
    for (HeldProcess &run : runs) {
        for (HeldStream &stream : run.output) {
            budget.used -= std::min(budget.used, stream.buffered.size());
            std::string().swap(stream.buffered);
            stream.dropped = 0;
        }
    }
    return true;
}

} // namespace Cordon::Isolation
