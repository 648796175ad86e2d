// SPDX-License-Identifier: MIT
// ProxyConnection: from the accepted socket to a tunnel or an exchange, in the order of the checklist. How a
// connection ends is in proxyconnectionend.cpp.
#include "network/proxyconnection.h"

#include "network/addressguard.h"
#include "network/httpforward.h"
#include "network/proxycontext.h"
#include "network/proxyreply.h"
#include "network/tunnel.h"
#include "network/upstreamconnector.h"

#include <QTcpSocket>

namespace Cordon::Network {

namespace {

bool sameEndpoint(const Target &a, const Target &b)
{
    return a.host == b.host && a.port == b.port;
}

} // namespace

ProxyConnection::ProxyConnection(std::shared_ptr<ContainerContext> context, QTcpSocket *client,
                                 quint64 connectionId, QObject *parent)
    : QObject(parent), m_context(std::move(context)), m_client(client), m_connectionId(connectionId),
      m_budget(m_context->limits.maxBytesPerConnection)
{
    m_client->setParent(this);
    m_client->setReadBufferSize(ReadBufferBytes);
    m_idleTimer.setSingleShot(true);
    m_headTimer.setSingleShot(true);
    connect(&m_idleTimer, &QTimer::timeout, this, &ProxyConnection::idleTimeout);
    connect(&m_headTimer, &QTimer::timeout, this, &ProxyConnection::headTimeout);
    m_record.containerId = m_context->containerId;
    m_record.connectionId = m_connectionId;
    m_record.startedAt = QDateTime::currentDateTimeUtc();
    m_clock.start();
}

ProxyConnection::~ProxyConnection()
{
    // Helpers hold references into this object; they go first.
    delete m_connector;
    delete m_forward;
    delete m_tunnel;
}

void ProxyConnection::start()
{
    connect(m_client, &QTcpSocket::readyRead, this, [this] {
        if (m_phase != Phase::Head)
            return;
        m_idleTimer.start(m_context->limits.idleTimeoutMs);
        readHead();
    });
    connect(m_client, &QTcpSocket::disconnected, this, &ProxyConnection::clientDisconnected);
    m_idleTimer.start(m_context->limits.idleTimeoutMs);
    m_headTimer.start(m_context->limits.headTimeoutMs);
    readHead();
}

void ProxyConnection::reject(int status, const QString &reason)
{
    connect(m_client, &QTcpSocket::disconnected, this, &ProxyConnection::clientDisconnected);
    beginRecord();
    refuse(status, Decision::Denied, reason);
}

void ProxyConnection::readHead()
{
    while (m_phase == Phase::Head) {
        if (m_pending.isEmpty()) {
            m_pending = readChunk(*m_client);
            if (m_pending.isEmpty()) {
                if (m_client->state() == QAbstractSocket::UnconnectedState)
                    clientDisconnected();
                return;
            }
        }
        if (!m_headTimer.isActive())
            m_headTimer.start(m_context->limits.headTimeoutMs);
        // Inside terminated TLS, a client that speaks only HTTP/2 starts with its preface (RFC 9113, 3.4).
        const bool http2 = m_intercepting && m_pending.startsWith("PRI * HTTP/2.0");
        const qsizetype used = m_parser->feed(m_pending);
        // All of it, as a rule (a head, or a part of one): let the block go rather than keep it for the
        // connection's life.
        if (used == m_pending.size())
            m_pending.clear();
        else
            m_pending.remove(0, used);
        switch (m_parser->state()) {
        case HttpRequestParser::State::Head:
            continue;
        case HttpRequestParser::State::Failed:
            beginRecord();
            if (http2) {
                refuseHttp2();
                return;
            }
            refuse(statusForError(m_parser->error()),
                   statusForError(m_parser->error()) == 403 ? Decision::Denied : Decision::Error,
                   toQt(m_parser->error().message()));
            return;
        case HttpRequestParser::State::Body:
        case HttpRequestParser::State::Done:
            headParsed();
            return;
        }
    }
}

void ProxyConnection::headParsed()
{
    m_headTimer.stop();
    const HttpRequestHead &head = m_parser->head();
    m_target = head.policyTarget();
    m_target.terminated = head.isConnect() && interceptsTarget();
    beginRecord();
    // The name decides first; a name that is not allowed is never resolved, or the proxy itself would be a
    // DNS exfiltration channel ("CONNECT <secret>.attacker.tld", SECURITY.md 2.1 and 2.11).
    const AccessVerdict verdict = m_context->check(m_target);
    if (!verdict.allowed) {
        refuse(403, Decision::Denied, verdict.reason);
        return;
    }
    if (!applySecrets())
        return;
    emit started(m_record);
    if (m_upstream && !head.isConnect() && sameEndpoint(m_target, m_upstreamTarget) &&
        m_upstream->state() == QAbstractSocket::ConnectedState &&
        isAddressAllowed(m_upstreamAddress, verdict.allowPrivateAddresses)) {
        m_record.address = m_upstreamAddress;
        startForward();
        return;
    }
    dropUpstream();
    m_phase = Phase::Connecting;
    m_connector = new UpstreamConnector(*m_context->resolver, m_context->limits, this);
    connect(m_connector, &UpstreamConnector::connected, this, &ProxyConnection::upstreamConnected);
    connect(m_connector, &UpstreamConnector::failed, this, &ProxyConnection::upstreamFailed);
    m_connector->start(m_target, verdict.allowPrivateAddresses, m_target.terminated || m_intercepting);
}

void ProxyConnection::upstreamConnected(QTcpSocket *socket, const QHostAddress &address)
{
    m_connector->deleteLater();
    m_connector = nullptr;
    m_upstream = socket;
    m_upstream->setParent(this);
    m_upstream->setReadBufferSize(ReadBufferBytes);
    m_upstreamTarget = m_target;
    m_upstreamAddress = address;
    m_record.address = address;
    // The lists may have changed while we resolved and connected.
    const AccessVerdict verdict = m_context->check(m_target);
    if (!verdict.allowed || !isAddressAllowed(address, verdict.allowPrivateAddresses)) {
        refuse(403, Decision::Denied,
               verdict.allowed
                   ? QStringLiteral("%1 may no longer reach %2").arg(m_target.host, address.toString())
                   : verdict.reason);
        return;
    }
    if (m_intercepting)
        startUpstreamTls(&ProxyConnection::startForward);
    else if (m_parser->head().isConnect() && m_target.terminated)
        startInterception();
    else if (m_parser->head().isConnect())
        startTunnel();
    else
        startForward();
}

void ProxyConnection::upstreamFailed(int status, Decision decision, const QString &reason,
                                     const QHostAddress &address)
{
    m_connector->deleteLater();
    m_connector = nullptr;
    m_record.address = address;
    refuse(status, decision, reason);
}

void ProxyConnection::startTunnel()
{
    m_phase = Phase::Tunnelling;
    m_record.status = 200;
    m_client->write("HTTP/1.1 200 Connection established\r\n\r\n");
    const QByteArray early = std::exchange(m_pending, QByteArray());
    m_tunnel = new Tunnel(m_client, m_upstream, early, m_target.host,
                          Authority{m_target.host, 1}.isIpLiteral(), m_budget, m_context->limits, this);
    connect(m_tunnel, &Tunnel::finished, this, &ProxyConnection::tunnelFinished);
    connect(m_tunnel, &Tunnel::activity, this,
            [this] { m_idleTimer.start(m_context->limits.idleTimeoutMs); });
    m_tunnel->start();
}

void ProxyConnection::startForward()
{
    m_phase = Phase::Forwarding;
    m_forward = new HttpForward(m_client, m_upstream, *m_parser, std::exchange(m_outgoingHead, QByteArray()),
                                m_pending, m_budget, this);
    if (m_intercepting && m_context->secrets)
        m_forward->scrubResponse(m_context->secrets->echoMasker(),
                                 !m_record.secretsSent.isEmpty() && !m_context->secrets->allowsCompressed(
                                                                        m_target.host, m_record.secretsSent));
    connect(m_forward, &HttpForward::finished, this, &ProxyConnection::exchangeFinished);
    connect(m_forward, &HttpForward::failed, this, &ProxyConnection::exchangeFailed);
    connect(m_forward, &HttpForward::activity, this,
            [this] { m_idleTimer.start(m_context->limits.idleTimeoutMs); });
    m_forward->start();
}

void ProxyConnection::exchangeFinished(bool keepClient, bool keepUpstream)
{
    collectBytes();
    m_forward->deleteLater();
    m_forward = nullptr;
    finishRecord(Decision::Allowed, QString(), m_record.status);
    if (!keepUpstream)
        dropUpstream();
    if (!keepClient) {
        closeGracefully();
        return;
    }
    // The next request on this connection is parsed and checked from scratch.
    m_parser->next();
    ++m_requestIndex;
    m_phase = Phase::Head;
    QMetaObject::invokeMethod(this, &ProxyConnection::readHead, Qt::QueuedConnection);
}

void ProxyConnection::exchangeFailed(int status, Decision decision, const QString &reason)
{
    collectBytes();
    m_forward->deleteLater();
    m_forward = nullptr;
    dropUpstream();
    if (status != 0) {
        refuse(status, decision, reason);
        return;
    }
    finishRecord(decision, reason, m_record.status);
    closeNow();
}

void ProxyConnection::tunnelFinished(Decision decision, const QString &reason)
{
    collectBytes();
    m_tunnel->deleteLater();
    m_tunnel = nullptr;
    finishRecord(decision, reason, m_record.status);
    // Graceful even for a refused tunnel: the "200" the client was sent goes out before the close, so that it
    // sees a tunnel that was cut, not a proxy that broke.
    closeGracefully();
}

} // namespace Cordon::Network
