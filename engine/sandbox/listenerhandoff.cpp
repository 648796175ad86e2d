// SPDX-License-Identifier: MIT
#include "sandbox/listenerhandoff.h"

#include "sandbox/initprotocol.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace Cordon::Handoff {

namespace {

constexpr std::string_view Prefix = "handoff-";
constexpr std::string_view Suffix = ".sock";
constexpr std::uint8_t ListenerMessage = 'L';

// A non-blocking SOCK_SEQPACKET socket and the address of `path`, for either end.
struct Endpoint
{
    sockaddr_un address = {};
    UniqueFd socket;
};

Result<Endpoint> endpointFor(const std::string &path)
{
    Endpoint endpoint;
    endpoint.address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof endpoint.address.sun_path)
        return fail("network.handoff", "the handoff socket path `" + path + "` is too long for a socket");
    std::memcpy(endpoint.address.sun_path, path.data(), path.size());
    endpoint.socket.reset(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!endpoint.socket.isValid())
        return failErrno("network.handoff", "socket", errno);
    return endpoint;
}

// The peer is the expected process of this user.
Result<> checkPeer(int fd, pid_t expectedPid)
{
    ucred peer{};
    socklen_t length = sizeof peer;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0)
        return failErrno("network.handoff", "read the handoff peer's credentials", errno);
    if (peer.uid != ::geteuid() || peer.pid != expectedPid)
        return fail("network.handoff", "the handoff peer is pid " + std::to_string(peer.pid) + " of uid " +
                                           std::to_string(peer.uid) + ", not pid " +
                                           std::to_string(expectedPid) + " of this user");
    return {};
}

} // namespace

std::string socketName(std::string_view containerId)
{
    return std::string(Prefix) + std::string(containerId) + std::string(Suffix);
}

bool isSocketName(std::string_view name)
{
    if (!name.starts_with(Prefix) || !name.ends_with(Suffix))
        return false;
    const std::string_view id = name.substr(Prefix.size(), name.size() - Prefix.size() - Suffix.size());
    if (id.empty() || id.size() > 64)
        return false;
    for (const char c : id) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

Result<UniqueFd> listenAt(const std::string &path)
{
    Result<Endpoint> endpoint = endpointFor(path);
    if (!endpoint)
        return fail(endpoint.error());
    UniqueFd &socket = endpoint->socket;
    // Only this user may connect, whatever the directory's mode.
    const mode_t previous = ::umask(0177);
    const int bound = ::bind(socket.get(), reinterpret_cast<const sockaddr *>(&endpoint->address),
                             sizeof endpoint->address);
    const int bindErrno = errno;
    ::umask(previous);
    if (bound != 0)
        return failErrno("network.handoff", "bind the handoff socket `" + path + "`", bindErrno);
    if (::listen(socket.get(), 1) != 0) {
        const int error = errno;
        ::unlink(path.c_str());
        return failErrno("network.handoff", "listen on the handoff socket", error);
    }
    return std::move(socket);
}

Result<bool> sendListener(int listening, pid_t expectedPid, int fd)
{
    UniqueFd connection(::accept4(listening, nullptr, nullptr, SOCK_CLOEXEC));
    if (!connection.isValid()) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return false;
        return failErrno("network.handoff", "accept the daemon on the handoff socket", errno);
    }
    CORDON_TRY(checkPeer(connection.get(), expectedPid));
    if (const int error = Isolation::sendMessage(connection.get(), {ListenerMessage}, &fd, 1); error != 0)
        return failErrno("network.handoff", "send the proxy listener to the daemon", error);
    return true;
}

Result<UniqueFd> connectTo(const std::string &path)
{
    Result<Endpoint> endpoint = endpointFor(path);
    if (!endpoint)
        return fail(endpoint.error());
    // A unix socket's connect completes at once, or fails (EAGAIN: the one-entry backlog is taken).
    if (::connect(endpoint->socket.get(), reinterpret_cast<const sockaddr *>(&endpoint->address),
                  sizeof endpoint->address) != 0)
        return failErrno("network.handoff", "connect to the handoff socket `" + path + "`", errno);
    return std::move(endpoint->socket);
}

Result<std::optional<UniqueFd>> receiveListener(int connected, pid_t expectedPid)
{
    CORDON_TRY(checkPeer(connected, expectedPid));
    std::vector<std::uint8_t> message;
    std::vector<int> fds;
    const long received = Isolation::receiveMessage(connected, message, fds);
    if (received == -EAGAIN || received == -EWOULDBLOCK)
        return std::optional<UniqueFd>();
    std::vector<UniqueFd> owned;
    for (int fd : fds)
        owned.emplace_back(fd);
    if (received < 0)
        return failErrno("network.handoff", "receive the proxy listener", static_cast<int>(-received));
    if (received == 0)
        return fail("network.handoff", "the client closed the handoff socket without sending the listener");
    if (message.size() != 1 || message[0] != ListenerMessage || owned.size() != 1)
        return fail("network.handoff", "the handoff message is not one proxy listener");
    return std::optional<UniqueFd>(std::move(owned.front()));
}

} // namespace Cordon::Handoff
