// SPDX-License-Identifier: MIT
// From an allowed name to one connected socket, in the order SECURITY.md 2.1 asks for: resolve on the host
// (only names that passed the allowlist get here), refuse if any address is not public (unless the rule
// allows private ones), connect to exactly one checked address. There is no second lookup, so a rebinding
// answer cannot slip in between check and connect (SECURITY.md 2.2).
#pragma once

#include "network/connectionrecord.h"
#include "network/hostmatch.h"
#include "network/proxylimits.h"

#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QTimer>

class QTcpSocket;

namespace Cordon::Network {

class Resolver;

// Picks the address to dial: the first IPv4 address, else the first IPv6 one. Only called once every address
// has passed the guard.
QHostAddress chooseAddress(const QList<QHostAddress> &addresses);

class UpstreamConnector final : public QObject
{
    Q_OBJECT

public:
    UpstreamConnector(Resolver &resolver, const ProxyLimits &limits, QObject *parent = nullptr);
    ~UpstreamConnector() override;

    // Starts; emits exactly one of connected() or failed(), later (never from within start()). With tls the
    // socket is a QSslSocket, still unencrypted, for the caller to start TLS on.
    void start(const Target &target, bool allowPrivateAddresses, bool tls = false);

signals:
    // The socket is connected and now belongs to the receiver (it has no parent).
    void connected(QTcpSocket *socket, const QHostAddress &address);
    // status 403 (a forbidden address) or 502 (DNS failure, refused, unreachable, timeout); address is the
    // one that was refused or dialled, when there was one.
    void failed(int status, Cordon::Network::Decision decision, const QString &reason,
                const QHostAddress &address);

private:
    void resolved(const QList<QHostAddress> &addresses, const QString &error);
    void dial(const QHostAddress &address);
    void giveUp(int status, Decision decision, const QString &reason);

    Resolver &m_resolver;
    ProxyLimits m_limits;
    Target m_target;
    bool m_allowPrivate = false;
    bool m_tls = false;
    QHostAddress m_address;
    QTimer m_timer;
    // Resolver callbacks are bound to this context; deleting it drops a late answer.
    QPointer<QObject> m_lookupContext;
    QTcpSocket *m_socket = nullptr;
    bool m_done = false;
};

} // namespace Cordon::Network
