// SPDX-License-Identifier: MIT
// ProxyConnection: how a connection ends. Records, refusals, timeouts, policy changes and the lingering
// close.
#include "network/proxyconnection.h"

#include "network/addressguard.h"
#include "network/httpforward.h"
#include "network/proxycontext.h"
#include "network/proxyreply.h"
#include "network/tunnel.h"
#include "network/upstreamconnector.h"
#include "sandbox/quoteuntrusted.h"

#include <QTcpSocket>

#include <sys/socket.h>

namespace Cordon::Network {

namespace {

// How long a client gets to read the proxy's own answer before the connection is cut.
constexpr int CloseGraceMs = 5000;

} // namespace

void ProxyConnection::clientDisconnected()
{
    // During an exchange or a tunnel the helper sees the same signal and ends with its own reason.
    if (m_phase == Phase::Forwarding || m_phase == Phase::Tunnelling)
        return;
    if (m_phase == Phase::Closing) {
        closeNow();
        return;
    }
    if (m_phase == Phase::Connecting || m_phase == Phase::Handshaking) {
        endHandshake();
        finishRecord(Decision::Allowed,
                     QStringLiteral("the client closed the connection before the upstream answered"),
                     m_record.status);
    } else if (m_phase == Phase::Head && !m_anyRecord) {
        beginRecord();
        finishRecord(Decision::Error,
                     QStringLiteral("the client closed the connection without a complete request"), 0);
    }
    closeNow();
}

void ProxyConnection::idleTimeout()
{
    const QString reason = QStringLiteral("idle for %1 s").arg(m_context->limits.idleTimeoutMs / 1000.0);
    if (m_phase == Phase::Head && m_anyRecord) {
        // A keep-alive connection nobody uses any more: nothing to record.
        closeNow();
        return;
    }
    terminate(reason);
}

void ProxyConnection::headTimeout()
{
    if (m_phase != Phase::Head)
        return;
    beginRecord();
    finishRecord(
        Decision::Error,
        QStringLiteral("no complete request head within %1 s").arg(m_context->limits.headTimeoutMs / 1000.0),
        0);
    closeNow();
}

void ProxyConnection::recheckPolicy()
{
    if (m_phase == Phase::Closing || m_phase == Phase::Closed)
        return;
    if (m_phase == Phase::Head) {
        // An idle keep-alive upstream is simply not reused; the next request is checked anyway.
        dropUpstream();
        return;
    }
    const AccessVerdict verdict = m_context->check(m_target);
    QString reason;
    if (!verdict.allowed)
        reason = QStringLiteral("the policy changed: ") + verdict.reason;
    else if (m_upstream && !isAddressAllowed(m_upstreamAddress, verdict.allowPrivateAddresses))
        reason = QStringLiteral("the policy changed: %1 may no longer reach the private address %2")
                     .arg(m_target.host, m_upstreamAddress.toString());
    if (reason.isEmpty())
        return;
    if (m_phase == Phase::Connecting) {
        refuse(403, Decision::Denied, reason);
        return;
    }
    endHandshake();
    stopHelpers();
    finishRecord(Decision::Denied, reason, m_record.status);
    closeNow();
}

void ProxyConnection::terminate(const QString &reason)
{
    if (m_phase == Phase::Closed)
        return;
    stopHelpers();
    finishRecord(Decision::Allowed, reason, m_record.status);
    closeNow();
}

void ProxyConnection::beginRecord()
{
    if (m_recordOpen)
        return;
    const ConnectionRecord previous = m_record;
    m_record = ConnectionRecord();
    m_record.containerId = previous.containerId;
    m_record.connectionId = m_connectionId;
    m_record.requestIndex = m_requestIndex;
    m_record.startedAt = m_requestIndex == 0 ? previous.startedAt : QDateTime::currentDateTimeUtc();
    m_record.tlsTerminated = m_intercepting;
    if (m_parser->state() == HttpRequestParser::State::Body ||
        m_parser->state() == HttpRequestParser::State::Done) {
        m_record.host = m_target.host;
        m_record.port = m_target.port;
        m_record.method = m_target.method;
        m_record.path = m_target.path;
    }
    if (m_record.host.isEmpty()) {
        const QByteArray line = m_parser->requestLine();
        if (!line.isEmpty())
            m_record.target =
                QString::fromStdString(quoteUntrusted(std::string_view(line.data(), line.size())));
    }
    // Open requests count as allowed until something decides otherwise.
    m_record.decision = Decision::Allowed;
    m_recordOpen = true;
    m_clock.start();
}

void ProxyConnection::collectBytes()
{
    if (m_forward) {
        m_record.bytesUp = m_forward->bytesUp();
        m_record.bytesDown = m_forward->bytesDown();
        if (m_forward->status() != 0)
            m_record.status = m_forward->status();
    }
    if (m_tunnel) {
        m_record.bytesUp = m_tunnel->bytesUp();
        m_record.bytesDown = m_tunnel->bytesDown();
    }
}

void ProxyConnection::finishRecord(Decision decision, const QString &reason, int status)
{
    if (!m_recordOpen)
        return;
    m_recordOpen = false;
    m_anyRecord = true;
    m_record.decision = decision;
    m_record.reason = reason;
    m_record.status = status;
    m_record.durationMs = m_clock.elapsed();
    emit finished(m_record);
}

void ProxyConnection::refuse(int status, Decision decision, const QString &reason)
{
    stopHelpers();
    dropUpstream();
    finishRecord(decision, reason, status);
    if (m_client->state() == QAbstractSocket::ConnectedState)
        m_client->write(proxyReply(status, reason));
    closeGracefully();
}

void ProxyConnection::refuseHttp2()
{
    // Said in HTTP/2's own words, which such a client reads: the server's preface (an empty SETTINGS frame),
    // then GOAWAY with HTTP_1_1_REQUIRED (0xd), the code that tells it to try again with HTTP/1.1.
    const QByteArray said = "the proxy speaks HTTP/1.1 inside TLS it terminates for domain secrets";
    const QByteArray payload = QByteArray::fromHex("000000000000000d") + said;
    QByteArray frames = QByteArray::fromHex("000000040000000000");
    frames += char((payload.size() >> 16) & 0xff);
    frames += char((payload.size() >> 8) & 0xff);
    frames += char(payload.size() & 0xff);
    frames += QByteArray::fromHex("070000000000") + payload; // GOAWAY, no flags, stream 0
    stopHelpers();
    dropUpstream();
    finishRecord(
        Decision::Denied,
        QStringLiteral("the program spoke HTTP/2 to %1, which the proxy does not terminate; it was told "
                       "to use HTTP/1.1 (GOAWAY HTTP_1_1_REQUIRED)")
            .arg(m_target.host),
        0);
    if (m_client->state() == QAbstractSocket::ConnectedState)
        m_client->write(frames);
    closeGracefully();
}

void ProxyConnection::stopHelpers()
{
    collectBytes();
    delete m_connector;
    m_connector = nullptr;
    // Later, not now: we may be inside one of their signals.
    if (m_forward) {
        m_forward->abandon();
        m_forward->disconnect(this);
        m_forward->deleteLater();
        m_forward = nullptr;
    }
    if (m_tunnel) {
        m_tunnel->abandon();
        m_tunnel->disconnect(this);
        m_tunnel->deleteLater();
        m_tunnel = nullptr;
    }
}

void ProxyConnection::dropUpstream()
{
    if (!m_upstream)
        return;
    m_upstream->disconnect(this);
    m_upstream->abort();
    m_upstream->deleteLater();
    m_upstream = nullptr;
}

void ProxyConnection::closeGracefully()
{
    if (m_phase == Phase::Closing || m_phase == Phase::Closed)
        return;
    m_phase = Phase::Closing;
    m_headTimer.stop();
    dropUpstream();
    if (m_client->state() != QAbstractSocket::ConnectedState) {
        closeNow();
        return;
    }
    // A lingering close: closing a socket with unread input makes the kernel send a reset, which can destroy
    // our answer before the client read it (a 403 to a large POST would look like a network fault). So the
    // answer is flushed, our side is shut down for writing, and what the client still sends is read and
    // dropped until it closes, for at most CloseGraceMs without progress.
    m_idleTimer.start(CloseGraceMs);
    if (m_intercepting) {
        // Inside TLS: a close_notify after what is buffered, then the socket closes; a shutdown() of the
        // descriptor would cut the TLS stream short. What the client still sends is read and dropped
        // meanwhile.
        connect(m_client, &QTcpSocket::readyRead, this,
                [this] { m_client->skip(m_client->bytesAvailable()); });
        m_client->skip(m_client->bytesAvailable());
        m_client->disconnectFromHost();
        return;
    }
    connect(m_client, &QTcpSocket::readyRead, this, [this] { m_client->skip(m_client->bytesAvailable()); });
    connect(m_client, &QTcpSocket::bytesWritten, this, [this] {
        m_idleTimer.start(CloseGraceMs);
        if (m_client->bytesToWrite() == 0)
            ::shutdown(int(m_client->socketDescriptor()), SHUT_WR);
    });
    if (m_client->bytesToWrite() == 0)
        ::shutdown(int(m_client->socketDescriptor()), SHUT_WR);
    m_client->skip(m_client->bytesAvailable());
}

void ProxyConnection::closeNow()
{
    if (m_phase == Phase::Closed)
        return;
    m_phase = Phase::Closed;
    endHandshake();
    m_idleTimer.stop();
    m_headTimer.stop();
    stopHelpers();
    dropUpstream();
    m_client->disconnect(this);
    m_client->abort();
    // Queued: closed() may lead to this object's deletion, and we may be inside one of its slots.
    QMetaObject::invokeMethod(this, &ProxyConnection::closed, Qt::QueuedConnection);
}

} // namespace Cordon::Network
