// SPDX-License-Identifier: MIT
#include "sandbox/initadoption.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

// `directory`/init.sock as a socket address that does not depend on the directory's path length.
struct SocketAddress
{
    UniqueFd directory;
    sockaddr_un address{};
    std::string path;
};

Result<SocketAddress> socketAddress(const std::string &directory, const char *code)
{
    SocketAddress where;
    where.directory.reset(::open(directory.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!where.directory.isValid())
        return failErrno(code, "open " + directory, errno);
    where.path = "/proc/self/fd/" + std::to_string(where.directory.get()) + '/' + AdoptionSocketName;
    where.address.sun_family = AF_UNIX;
    std::memcpy(where.address.sun_path, where.path.c_str(), where.path.size() + 1);
    return where;
}

// Waits for one message and receives it; false with `error` set on a timeout, an end or a failure.
bool receiveWithin(int fd, std::chrono::steady_clock::time_point deadline, std::vector<std::uint8_t> &message,
                   std::vector<UniqueFd> &passed, std::string &error)
{
    passed.clear();
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd entry{fd, POLLIN, 0};
    int ready;
    do {
        ready = ::poll(&entry, 1, static_cast<int>(std::max<std::int64_t>(0, left.count())));
    } while (ready < 0 && errno == EINTR);
    if (ready <= 0) {
        error = "cordon-init did not answer in time";
        return false;
    }
    std::vector<int> fds;
    const long received = receiveMessage(fd, message, fds);
    for (int passedFd : fds)
        passed.emplace_back(passedFd);
    if (received <= 0) {
        error =
            received == 0 ? "cordon-init closed the connection" : std::strerror(static_cast<int>(-received));
        return false;
    }
    return true;
}

Error protocolError(const std::string &what)
{
    return Error("sandbox.adoption_failed", "adopting the container's cordon-init: " + what);
}

} // namespace

Result<UniqueFd> bindAdoptionSocket(const std::string &directory)
{
    auto where = socketAddress(directory, "sandbox.adoption_socket");
    if (!where)
        return fail(where.error());
    (void)::unlinkat(where->directory.get(), AdoptionSocketName, 0);
    UniqueFd listener(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (!listener.isValid())
        return failErrno("sandbox.adoption_socket", "socket", errno);
    if (::bind(listener.get(), reinterpret_cast<const sockaddr *>(&where->address), sizeof where->address) !=
        0)
        return failErrno("sandbox.adoption_socket", "bind " + directory + '/' + AdoptionSocketName, errno);
    if (::fchmodat(where->directory.get(), AdoptionSocketName, 0600, 0) != 0)
        return failErrno("sandbox.adoption_socket", "chmod " + directory + '/' + AdoptionSocketName, errno);
    return listener;
}

Result<AdoptedInit> adoptInit(const std::string &directory, int timeoutMs)
{
    auto where = socketAddress(directory, "sandbox.not_adoptable");
    if (!where)
        return fail(where.error());
    UniqueFd connection(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    if (!connection.isValid())
        return failErrno("sandbox.socket", "socket", errno);
    if (::connect(connection.get(), reinterpret_cast<const sockaddr *>(&where->address),
                  sizeof where->address) != 0) {
        // Only these say that no cordon-init is there; anything else may be a live one we failed to reach.
        const int error = errno;
        const bool gone = error == ENOENT || error == ECONNREFUSED;
        return failErrno(gone ? "sandbox.not_adoptable" : "sandbox.adoption_failed",
                         "connect to " + directory + '/' + AdoptionSocketName, error);
    }
    ucred peer{};
    socklen_t length = sizeof peer;
    if (::getsockopt(connection.get(), SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.pid <= 0)
        return failErrno("sandbox.adoption_failed", "the credentials of the container's cordon-init", errno);

    // Not our child: a pidfd is how it is killed and waited for. Opened before the exchange, so that a
    // cordon-init that ended meanwhile (its pid free for another process) fails the exchange instead.
    UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, peer.pid, 0)));
    if (!pidfd.isValid())
        return failErrno("sandbox.adoption_failed", "pidfd_open of the container's cordon-init", errno);

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    if (const int error = sendMessage(connection.get(), encode(Adopt{})); error != 0)
        return failErrno("sandbox.adoption_failed", "send the adoption request", error);
    std::vector<std::uint8_t> message;
    std::vector<UniqueFd> passed;
    std::string error;
    if (!receiveWithin(connection.get(), deadline, message, passed, error))
        return fail(protocolError(error));
    AdoptReply reply;
    if (!decode(message.data(), message.size(), reply) || passed.size() < reply.handBackCount)
        return fail(protocolError("a malformed reply"));
    AdoptedInit adopted;
    adopted.protocolVersion = reply.protocolVersion;
    for (std::size_t i = 0; i < passed.size(); ++i) {
        if (i < reply.handBackCount)
            adopted.handedBack.push_back(std::move(passed[i]));
        else if (i == reply.handBackCount && reply.proxyListener)
            adopted.proxyListener = std::move(passed[i]);
    }
    adopted.compatible =
        reply.protocolVersion >= MinAdoptableProtocol && reply.protocolVersion <= InitProtocolVersion;
    if (adopted.compatible) {
        for (;;) {
            if (!receiveWithin(connection.get(), deadline, message, passed, error))
                return fail(protocolError(error));
            const auto type = peekType(message.data(), message.size());
            if (type == MessageType::AdoptDone)
                break;
            if (type == MessageType::HeldRun) {
                AdoptedRun run;
                if (!decode(message.data(), message.size(), run.state) ||
                    passed.size() != std::size_t(run.state.stdoutOpen) + std::size_t(run.state.stderrOpen))
                    return fail(protocolError("a malformed run"));
                std::size_t next = 0;
                if (run.state.stdoutOpen)
                    run.stdoutRead = std::move(passed[next++]);
                if (run.state.stderrOpen)
                    run.stderrRead = std::move(passed[next++]);
                adopted.runs.push_back(std::move(run));
                continue;
            }
            HeldOutput chunk;
            if (type != MessageType::HeldOutput || !decode(message.data(), message.size(), chunk) ||
                adopted.runs.empty() || adopted.runs.back().state.runId != chunk.runId)
                return fail(protocolError("an unexpected message"));
            (chunk.stream == 1 ? adopted.runs.back().stdoutHeld : adopted.runs.back().stderrHeld) +=
                chunk.bytes;
        }
        if (adopted.runs.size() != reply.heldRuns)
            return fail(protocolError("fewer runs than announced"));
    }
    adopted.init.pidfd = pidfd.release();
    adopted.init.pid = peer.pid;
    adopted.init.control = connection.release();
    return adopted;
}

int sendRunCollected(int controlFd, std::uint64_t runId)
{
    RunCollected collected;
    collected.runId = runId;
    return sendMessage(controlFd, encode(collected));
}

} // namespace Cordon::Isolation
