// SPDX-License-Identifier: MIT
// One client connection of a container to its proxy, as a checklist (SECURITY.md 2.1): parse the head,
// normalise the target, match it against both allowlists by name (a name that is not allowed is never
// resolved), resolve on the host, refuse if any address is not public, connect to exactly that address; then
// a tunnel (CONNECT, with the TLS server name checked) or plain HTTP exchanges, each request on a keep-alive
// connection checked again. A CONNECT to a domain of the container's domain secrets is not a tunnel: the
// proxy terminates its TLS and checks and forwards each request inside (proxyconnectiontls.cpp). Anything
// unexpected closes the connection: fail closed.
#pragma once

#include "network/connectionrecord.h"
#include "network/hostmatch.h"
#include "network/httprequest.h"
#include "network/proxylimits.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QObject>
#include <QTimer>

#include <memory>

class QTcpSocket;

namespace Cordon::Network {

struct ContainerContext;
class HttpForward;
class Tunnel;
class UpstreamConnector;

class ProxyConnection final : public QObject
{
    Q_OBJECT

public:
    // Takes ownership of client, an accepted connection from the container.
    ProxyConnection(std::shared_ptr<ContainerContext> context, QTcpSocket *client, quint64 connectionId,
                    QObject *parent = nullptr);
    ~ProxyConnection() override;

    void start();
    // Answers status with reason and closes, without reading a request (the container is over its connection
    // limit).
    void reject(int status, const QString &reason);
    // Checks what the connection reaches against the lists in force now, and closes it when they no longer
    // allow it (an open tunnel to a host removed from the allowlist is cut at once).
    void recheckPolicy();
    // Closes at once; an open request is recorded with reason.
    void terminate(const QString &reason);

signals:
    void started(const Cordon::Network::ConnectionRecord &record);
    void finished(const Cordon::Network::ConnectionRecord &record);
    // The connection is over; the owner deletes it later. Emitted once.
    void closed();

private:
    enum class Phase
    {
        Head,
        Connecting,
        Handshaking, // TLS with the upstream, then with the client, for a terminated CONNECT
        Forwarding,
        Tunnelling,
        Closing,
        Closed,
    };

    void readHead();
    void headParsed();
    void upstreamConnected(QTcpSocket *socket, const QHostAddress &address);
    void upstreamFailed(int status, Decision decision, const QString &reason, const QHostAddress &address);
    void startTunnel();
    void startForward();
    // Domain secrets: m_outgoingHead is the head for the upstream with values put in; false when a
    // placeholder refused the request (already answered).
    bool applySecrets();
    // Whether the proxy terminates a CONNECT to this request's host (a domain secret may go there).
    bool interceptsTarget() const;
    void startInterception();
    void startUpstreamTls(void (ProxyConnection::*then)());
    void clientTlsReady();
    void endHandshake();
    void exchangeFinished(bool keepClient, bool keepUpstream);
    void exchangeFailed(int status, Decision decision, const QString &reason);
    void tunnelFinished(Decision decision, const QString &reason);
    void clientDisconnected();
    void idleTimeout();
    void headTimeout();

    void beginRecord();
    void collectBytes();
    void finishRecord(Decision decision, const QString &reason, int status);
    void refuse(int status, Decision decision, const QString &reason);
    // A client inside terminated TLS that speaks HTTP/2 is told to use HTTP/1.1, in HTTP/2 frames.
    void refuseHttp2();
    void stopHelpers();
    void dropUpstream();
    void closeGracefully();
    void closeNow();

    std::shared_ptr<ContainerContext> m_context;
    QTcpSocket *m_client;
    quint64 m_connectionId;
    std::unique_ptr<HttpRequestParser> m_parser = std::make_unique<HttpRequestParser>();
    QByteArray m_outgoingHead;
    // Inside TLS the proxy terminated: m_client and m_upstream are encrypted QSslSockets.
    bool m_intercepting = false;
    QList<QMetaObject::Connection> m_handshake;
    QByteArray m_pending;
    ByteBudget m_budget;
    Phase m_phase = Phase::Head;
    QTimer m_idleTimer;
    QTimer m_headTimer;

    Target m_target;
    UpstreamConnector *m_connector = nullptr;
    HttpForward *m_forward = nullptr;
    Tunnel *m_tunnel = nullptr;
    // Kept between keep-alive requests to the same host and port; always the one checked address.
    QTcpSocket *m_upstream = nullptr;
    Target m_upstreamTarget;
    QHostAddress m_upstreamAddress;

    ConnectionRecord m_record;
    bool m_recordOpen = false;
    bool m_anyRecord = false;
    QElapsedTimer m_clock;
    int m_requestIndex = 0;
};

} // namespace Cordon::Network
