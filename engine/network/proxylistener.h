// SPDX-License-Identifier: MIT
// Accepts on a listening socket that someone else created (cordon-init, inside the container's network
// namespace) and hands each accepted descriptor on.
#pragma once

#include "core/result.h"

#include <QTcpServer>
#include <QTimer>

#include <functional>

namespace Cordon::Network {

// Checks that fd is a listening TCP socket (SO_ACCEPTCONN, SOCK_STREAM, AF_INET or AF_INET6). Errors:
// network.invalid_listener.
Result<void> checkListeningSocket(int fd);

class ProxyListener final : public QTcpServer
{
public:
    // onAccepted owns each descriptor it is given.
    ProxyListener(std::function<void(qintptr)> onAccepted, QObject *parent = nullptr);

    // Takes ownership of fd (closed on failure too).
    Result<void> adopt(int fd);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    std::function<void(qintptr)> m_onAccepted;
    QTimer m_retry;
};

} // namespace Cordon::Network
