// SPDX-License-Identifier: MIT
#include "network/tunnel.h"

#include "core/plainbridge.h"
#include "network/tlssni.h"
#include "sandbox/policy/domainrule.h"
#include "sandbox/quoteuntrusted.h"

#include <QTcpSocket>

namespace Cordon::Network {

Tunnel::Tunnel(QTcpSocket *client, QTcpSocket *upstream, QByteArray early, QString expectedHost,
               bool ipLiteral, ByteBudget &budget, const ProxyLimits &limits, QObject *parent)
    : QObject(parent), m_client(client), m_upstream(upstream), m_hello(std::move(early)),
      m_expectedHost(std::move(expectedHost)), m_ipLiteral(ipLiteral), m_budget(budget), m_limits(limits)
{
    m_helloTimer.setSingleShot(true);
}

void Tunnel::start()
{
    connect(m_client, &QTcpSocket::readyRead, this, [this] {
        if (m_spliced)
            pump(m_client, m_upstream, m_bytesUp);
        else
            readHello();
    });
    connect(m_upstream, &QTcpSocket::readyRead, this, [this] {
        // Until the ClientHello passed, whatever the upstream says stays in its buffer.
        if (m_spliced)
            pump(m_upstream, m_client, m_bytesDown);
    });
    // Room on one side lets the other side's reading resume.
    connect(m_client, &QTcpSocket::bytesWritten, this, [this] {
        if (m_spliced)
            pump(m_upstream, m_client, m_bytesDown);
    });
    connect(m_upstream, &QTcpSocket::bytesWritten, this, [this] {
        if (m_spliced)
            pump(m_client, m_upstream, m_bytesUp);
    });
    connect(m_client, &QTcpSocket::disconnected, this, [this] {
        if (m_spliced)
            pumpAll();
        else
            finish(Decision::Allowed,
                   QStringLiteral("the client closed the tunnel before its TLS ClientHello"));
    });
    connect(m_upstream, &QTcpSocket::disconnected, this, [this] {
        if (m_spliced)
            pumpAll();
        else
            finish(Decision::Error,
                   QStringLiteral("the upstream closed the tunnel before the TLS handshake"));
    });
    connect(&m_helloTimer, &QTimer::timeout, this, [this] {
        finish(Decision::Denied,
               QStringLiteral("no complete TLS ClientHello within %1 s (the tunnel only carries "
                              "TLS, whose server name is checked)")
                   .arg(m_limits.clientHelloTimeoutMs / 1000.0));
    });
    m_helloTimer.start(m_limits.clientHelloTimeoutMs);
    readHello();
}

void Tunnel::readHello()
{
    if (m_finished)
        return;
    const qint64 room = MaxClientHelloBytes + 1 - m_hello.size();
    if (room > 0)
        m_hello += m_client->read(room);
    checkHello();
}

void Tunnel::checkHello()
{
    if (m_hello.isEmpty())
        return;
    const Result<ClientHelloSni> hello = parseClientHelloSni(m_hello);
    if (!hello) {
        finish(Decision::Denied,
               toQt(hello.error().message()) + QStringLiteral(" (the tunnel only carries TLS)"));
        return;
    }
    if (hello->status == ClientHelloSni::Status::Incomplete) {
        if (m_hello.size() > MaxClientHelloBytes)
            finish(Decision::Denied,
                   QStringLiteral("TLS ClientHello larger than %1 bytes").arg(MaxClientHelloBytes));
        return;
    }
    if (hello->status == ClientHelloSni::Status::Absent) {
        if (!m_ipLiteral) {
            finish(
                Decision::Denied,
                QStringLiteral("the TLS ClientHello names no server; it must name %1").arg(m_expectedHost));
            return;
        }
    } else {
        // Normalised like the CONNECT host, so that "PyPI.org." and "pypi.org" agree; anything else is a
        // tunnel to an allowed host carrying a session for another (domain fronting through the proxy).
        const std::string serverName = toPlain(hello->serverName);
        const Result<std::string> name = Policy::normaliseHost(serverName);
        if (m_ipLiteral || !name || toQt(*name) != m_expectedHost) {
            finish(Decision::Denied,
                   QStringLiteral("the TLS server name %1 does not match the CONNECT host %2")
                       .arg(toQt(quoteUntrusted(serverName)), m_expectedHost));
            return;
        }
    }
    m_helloTimer.stop();
    if (!m_budget.spend(m_hello.size())) {
        finish(Decision::Denied,
               QStringLiteral("more than %1 bytes on one connection (limit)").arg(m_budget.limit()));
        return;
    }
    m_spliced = true;
    m_upstream->write(m_hello);
    m_bytesUp += m_hello.size();
    m_hello.clear();
    emit activity();
    pumpAll();
}

void Tunnel::pump(QTcpSocket *from, QTcpSocket *to, qint64 &counter)
{
    if (m_finished)
        return;
    bool moved = false;
    while (from->bytesAvailable() > 0) {
        if (to->state() != QAbstractSocket::ConnectedState) {
            // Nobody left to deliver to.
            from->readAll();
            break;
        }
        if (to->bytesToWrite() >= HighWaterBytes)
            break;
        const QByteArray chunk = readChunk(*from);
        if (!m_budget.spend(chunk.size())) {
            finish(Decision::Denied,
                   QStringLiteral("more than %1 bytes on one connection (limit)").arg(m_budget.limit()));
            return;
        }
        to->write(chunk);
        counter += chunk.size();
        moved = true;
    }
    if (moved)
        emit activity();
    settle();
}

void Tunnel::pumpAll()
{
    pump(m_client, m_upstream, m_bytesUp);
    pump(m_upstream, m_client, m_bytesDown);
}

void Tunnel::settle()
{
    if (m_finished)
        return;
    // Qt cannot half-close: once one side has closed and everything it sent was passed on, the other side is
    // closed too, after its pending writes are flushed.
    const auto closed = [](QTcpSocket *socket) {
        return socket->state() == QAbstractSocket::UnconnectedState;
    };
    if (closed(m_client) && m_client->bytesAvailable() == 0 && !m_upstreamShut) {
        m_upstreamShut = true;
        m_upstream->disconnectFromHost(); // may emit disconnected, and finish, right here
    }
    if (m_finished)
        return;
    if (closed(m_upstream) && m_upstream->bytesAvailable() == 0 && !m_clientShut) {
        m_clientShut = true;
        m_client->disconnectFromHost();
    }
    if (!m_finished && closed(m_client) && closed(m_upstream))
        finish(Decision::Allowed, QString());
}

void Tunnel::abandon()
{
    m_finished = true;
    m_helloTimer.stop();
    m_client->disconnect(this);
    m_upstream->disconnect(this);
}

void Tunnel::finish(Decision decision, const QString &reason)
{
    if (m_finished)
        return;
    abandon();
    emit finished(decision, reason);
}

} // namespace Cordon::Network
