// SPDX-License-Identifier: MIT
// The daemon's end of a one-shot run's listener handoff (sandbox/listenerhandoff.h), on the event loop: waits
// until the client's process sends the descriptor on the handoff connection, or gives up after a few seconds,
// without ever blocking the loop for the other clients.
#pragma once

#include "core/result.h"
#include "sandbox/uniquefd.h"

#include <QObject>
#include <QSocketNotifier>
#include <QTimer>

#include <functional>
#include <sys/types.h>

namespace Cordon::Api {

class ListenerReceiver final : public QObject
{
    Q_OBJECT

public:
    static constexpr int TimeoutMs = 5000;
    using Done = std::function<void(Result<UniqueFd>)>;

    // Calls done exactly once, then deletes itself (later).
    static void start(UniqueFd connected, pid_t expectedPid, Done done, QObject *parent);

private:
    ListenerReceiver(UniqueFd connected, pid_t expectedPid, Done done, QObject *parent);
    void tryReceive();
    void finish(Result<UniqueFd> outcome);

    UniqueFd m_connected;
    pid_t m_expectedPid;
    Done m_done;
    QSocketNotifier m_notifier;
    QTimer m_timeout;
};

} // namespace Cordon::Api
