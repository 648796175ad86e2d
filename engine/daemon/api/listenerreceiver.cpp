// SPDX-License-Identifier: MIT
#include "daemon/api/listenerreceiver.h"

#include "sandbox/listenerhandoff.h"

namespace Cordon::Api {

void ListenerReceiver::start(UniqueFd connected, pid_t expectedPid, Done done, QObject *parent)
{
    auto *receiver = new ListenerReceiver(std::move(connected), expectedPid, std::move(done), parent);
    receiver->tryReceive();
}

ListenerReceiver::ListenerReceiver(UniqueFd connected, pid_t expectedPid, Done done, QObject *parent)
    : QObject(parent), m_connected(std::move(connected)), m_expectedPid(expectedPid), m_done(std::move(done)),
      m_notifier(m_connected.get(), QSocketNotifier::Read)
{
    connect(&m_notifier, &QSocketNotifier::activated, this, &ListenerReceiver::tryReceive);
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        finish(fail(
            QStringLiteral("network.handoff"),
            QStringLiteral("the client did not send the proxy listener within %1 s").arg(TimeoutMs / 1000)));
    });
    m_timeout.start(TimeoutMs);
}

void ListenerReceiver::tryReceive()
{
    if (!m_done)
        return;
    Result<std::optional<UniqueFd>> received = Handoff::receiveListener(m_connected.get(), m_expectedPid);
    if (!received)
        return finish(fail(received.error()));
    if (*received)
        finish(std::move(**received));
}

void ListenerReceiver::finish(Result<UniqueFd> outcome)
{
    if (!m_done)
        return;
    m_notifier.setEnabled(false);
    m_timeout.stop();
    const Done done = std::exchange(m_done, nullptr);
    deleteLater();
    done(std::move(outcome));
}

} // namespace Cordon::Api
