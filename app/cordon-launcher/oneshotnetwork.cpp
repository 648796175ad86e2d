// SPDX-License-Identifier: MIT
#include "oneshotnetwork.h"

#include "daemon/lite/socketpath.h"
#include "sandbox/listenerhandoff.h"

#include <cerrno>
#include <chrono>
#include <poll.h>
#include <unistd.h>

namespace Cordon::Launcher {

namespace {

// Removes the handoff socket's file whatever happens: the daemon connects once, nobody else should find it.
class UnlinkAtEnd
{
public:
    explicit UnlinkAtEnd(std::string path) : m_path(std::move(path)) {}
    UnlinkAtEnd(const UnlinkAtEnd &) = delete;
    UnlinkAtEnd &operator=(const UnlinkAtEnd &) = delete;
    ~UnlinkAtEnd() { ::unlink(m_path.c_str()); }

private:
    std::string m_path;
};

} // namespace

Result<> OneShotNetwork::connect()
{
    const Result<GreetedDaemon> greeted = connectStartingDaemon(m_connection, "cordon run");
    if (!greeted)
        return fail(greeted.error().wrap("the run's allowlist needs the daemon's egress proxy"));
    m_daemon = *greeted;
    return {};
}

Result<> OneShotNetwork::attach(const std::string &containerId, const Policy::ContainerPolicy &policy,
                                UniqueFd listener)
{
    // Beside the control socket, in the daemon's own 0700 directory.
    const std::string path = Lite::parentPath(m_daemon.socketPath) + '/' + Handoff::socketName(containerId);
    ::unlink(path.c_str()); // a socket file left by a launcher that was killed at this step
    Result<UniqueFd> handoff = Handoff::listenAt(path);
    if (!handoff)
        return fail(handoff.error());
    const UnlinkAtEnd removeSocket(path);

    const std::int64_t id = m_connection.send(
        "network.attach_one_shot",
        Json::object({{"container_id", containerId}, {"policy", policy.toJson()}, {"handoff", path}}));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(AttachTimeoutMs);
    bool sent = false;
    for (;;) {
        while (std::optional<Json> message = m_connection.buffered()) {
            if ((*message)["id"].toInteger(-1) != id || (*message)["id"].toInteger(-2) != id)
                continue;
            const std::optional<Answer> answer = readAnswer(*message);
            if (!answer)
                return fail("daemon.protocol", "the daemon's answer to network.attach_one_shot is malformed");
            if (!answer->ok)
                return fail(answer->code, answer->message);
            if (!sent)
                return fail("daemon.protocol", "the daemon accepted the network without taking the listener");
            m_containerId = containerId;
            return {};
        }
        if (m_connection.closed())
            return fail("daemon.disconnected",
                        "the daemon closed the connection while taking the run's network");
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return fail("daemon.timeout", "the daemon did not take the run's network within " +
                                              std::to_string(AttachTimeoutMs / 1000) + " s");
        pollfd fds[2] = {{m_connection.fd(), POLLIN, 0}, {handoff->get(), POLLIN, 0}};
        const int ready = ::poll(fds, sent ? 1 : 2, static_cast<int>(left.count()));
        if (ready < 0 && errno != EINTR)
            return failErrno("daemon.disconnected", "poll", errno);
        if (!sent && (fds[1].revents & POLLIN)) {
            const Result<bool> handed = Handoff::sendListener(handoff->get(), m_daemon.pid, listener.get());
            if (!handed)
                return fail(handed.error());
            sent = *handed;
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR))
            m_connection.receive();
    }
}

bool OneShotNetwork::detach(Counts &counts)
{
    if (m_containerId.empty())
        return false;
    const std::optional<Answer> answer = m_connection.call(
        "network.detach_one_shot", Json::object({{"container_id", m_containerId}}), AttachTimeoutMs);
    if (!answer || !answer->ok)
        return false;
    const Json &network = answer->result["network"];
    counts = {network["allowed"].toInteger(), network["denied"].toInteger(), network["errors"].toInteger()};
    return true;
}

} // namespace Cordon::Launcher
