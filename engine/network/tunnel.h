// SPDX-License-Identifier: MIT
// A CONNECT tunnel after "200 Connection established": first the TLS ClientHello is read and its server name
// must be the CONNECT host (a tunnel to an allowed host must not carry a session for another:
// SECURITY.md 2.6), then bytes are spliced both ways with back-pressure. The TLS itself is the client's
// business; nothing is decrypted.
#pragma once

#include "network/connectionrecord.h"
#include "network/proxylimits.h"

#include <QByteArray>
#include <QObject>
#include <QTimer>

class QTcpSocket;

namespace Cordon::Network {

class Tunnel final : public QObject
{
    Q_OBJECT

public:
    // early: bytes the client sent after the CONNECT head, before the answer. expectedHost: the CONNECT host
    // in normaliseHost() form; for an IP literal the ClientHello must name no server (clients send no SNI for
    // addresses), and any name it does carry is refused. The sockets stay owned by the caller.
    Tunnel(QTcpSocket *client, QTcpSocket *upstream, QByteArray early, QString expectedHost, bool ipLiteral,
           ByteBudget &budget, const ProxyLimits &limits, QObject *parent = nullptr);

    void start();
    // Stops at once without finished(): the owner is closing the connection itself.
    void abandon();
    qint64 bytesUp() const { return m_bytesUp; }
    qint64 bytesDown() const { return m_bytesDown; }

signals:
    // Once, when both sides are closed (Allowed) or the tunnel was refused or cut (Denied); after it the
    // tunnel no longer touches the sockets.
    void finished(Cordon::Network::Decision decision, const QString &reason);
    // Bytes moved; the owner's idle timer restarts on it.
    void activity();

private:
    void readHello();
    void checkHello();
    void pump(QTcpSocket *from, QTcpSocket *to, qint64 &counter);
    void pumpAll();
    void settle();
    void finish(Decision decision, const QString &reason);

    QTcpSocket *m_client;
    QTcpSocket *m_upstream;
    QByteArray m_hello;
    QString m_expectedHost;
    bool m_ipLiteral;
    ByteBudget &m_budget;
    ProxyLimits m_limits;
    QTimer m_helloTimer;
    bool m_spliced = false;
    bool m_finished = false;
    bool m_clientShut = false;
    bool m_upstreamShut = false;
    qint64 m_bytesUp = 0;
    qint64 m_bytesDown = 0;
};

} // namespace Cordon::Network
