// SPDX-License-Identifier: MIT
// The network of a one-shot `cordon run` whose policy has an allowlist. The run's container has no route out;
// cordon-init listens on 127.0.0.1:3128 inside it, and the daemon's egress proxy serves that listener, as it
// does for every container: the same allowlists (the run's may only narrow the organisation's), the same
// address guards, every decision recorded in the history under the run's container id. The daemon is started
// when none is running. The connection to it stays open for the run: when it closes (the run ended, or this
// program died), the daemon stops serving the listener.
#pragma once

#include "daemonconnection.h"

#include "sandbox/error.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/uniquefd.h"

#include <cstdint>
#include <optional>
#include <string>

namespace Cordon::Launcher {

class OneShotNetwork
{
public:
    // How long the daemon may take to take the listener and answer.
    static constexpr int AttachTimeoutMs = 10000;

    // Connects to the daemon, starting it if needed: before the container starts, so that a run whose network
    // cannot be served fails before it runs.
    Result<> connect();
    // Hands `listener` to the daemon for `containerId` under `policy`'s network and waits for its answer.
    // Errors: the daemon's (for example network.domain_not_allowed when the allowlist is wider than the
    // organisation's), network.handoff, daemon.disconnected, daemon.timeout.
    Result<> attach(const std::string &containerId, const Policy::ContainerPolicy &policy, UniqueFd listener);
    // After the run: the daemon stops serving and counts what the run tried. False when attach() never
    // succeeded or the daemon did not answer.
    struct Counts
    {
        std::int64_t allowed = 0;
        std::int64_t denied = 0;
        std::int64_t errors = 0;
    };
    bool detach(Counts &counts);
    // The run's container id, once attached: its decisions are recorded under it.
    const std::string &containerId() const { return m_containerId; }

private:
    DaemonConnection m_connection;
    GreetedDaemon m_daemon;
    std::string m_containerId; // once attached
};

} // namespace Cordon::Launcher
