// SPDX-License-Identifier: MIT
#include "network/upstreamconnector.h"

#include "network/addressguard.h"
#include "network/resolver.h"

#include <QSslSocket>

namespace Cordon::Network {

QHostAddress chooseAddress(const QList<QHostAddress> &addresses)
{
    for (const QHostAddress &address : addresses) {
        if (address.protocol() == QAbstractSocket::IPv4Protocol)
            return address;
    }
    return addresses.isEmpty() ? QHostAddress() : addresses.first();
}

UpstreamConnector::UpstreamConnector(Resolver &resolver, const ProxyLimits &limits, QObject *parent)
    : QObject(parent), m_resolver(resolver), m_limits(limits)
{
    m_timer.setSingleShot(true);
}

UpstreamConnector::~UpstreamConnector()
{
    delete m_lookupContext;
    delete m_socket;
}

void UpstreamConnector::start(const Target &target, bool allowPrivateAddresses, bool tls)
{
    m_tls = tls;
    m_target = target;
    m_allowPrivate = allowPrivateAddresses;
    // An IP literal reached this point only because a rule names it; there is nothing to resolve.
    if (Authority{target.host, target.port}.isIpLiteral()) {
        QString literal = target.host;
        if (literal.startsWith(u'['))
            literal = literal.mid(1, literal.size() - 2);
        const QList<QHostAddress> addresses{QHostAddress(literal)};
        QTimer::singleShot(0, this, [this, addresses] { resolved(addresses, QString()); });
        return;
    }
    m_lookupContext = new QObject(this);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        giveUp(502, Decision::Error,
               QStringLiteral("DNS failure: resolving %1 took longer than %2 s")
                   .arg(m_target.host)
                   .arg(m_limits.resolveTimeoutMs / 1000.0));
    });
    m_timer.start(m_limits.resolveTimeoutMs);
    // Queued, so that a resolver answering from within lookup() cannot make start() emit.
    m_resolver.lookup(target.host, m_lookupContext, [this](const Resolution &answer) {
        QMetaObject::invokeMethod(
            this, [this, answer] { resolved(answer.addresses, answer.error); }, Qt::QueuedConnection);
    });
}

void UpstreamConnector::resolved(const QList<QHostAddress> &addresses, const QString &error)
{
    if (m_done)
        return;
    m_timer.stop();
    m_timer.disconnect(this);
    if (addresses.isEmpty()) {
        giveUp(502, Decision::Error,
               QStringLiteral("DNS failure: %1 could not be resolved (%2)")
                   .arg(m_target.host, error.isEmpty() ? QStringLiteral("no addresses") : error));
        return;
    }
    // Every address, not only the one we would dial: a name with one public and one internal address is
    // the rebinding set-up, and the resolver's order is not ours to trust.
    for (const QHostAddress &address : addresses) {
        const AddressVerdict verdict = checkAddress(address);
        if (verdict.isPublic() || (m_allowPrivate && verdict.isAllowedWithPrivate()))
            continue;
        m_address = address;
        giveUp(403, Decision::Denied,
               QStringLiteral("%1 resolved to a private address (%2: %3)")
                   .arg(m_target.host, address.toString(), verdict.reason));
        return;
    }
    dial(chooseAddress(addresses));
}

void UpstreamConnector::dial(const QHostAddress &address)
{
    m_address = address;
    m_socket = m_tls ? new QSslSocket() : new QTcpSocket();
    // Nagle would hold back small writes (a TLS handshake record) while we wait for nothing.
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    connect(m_socket, &QTcpSocket::connected, this, [this] {
        m_timer.stop();
        m_done = true;
        QTcpSocket *socket = m_socket;
        m_socket = nullptr;
        socket->disconnect(this);
        emit connected(socket, m_address);
    });
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
        giveUp(502, Decision::Error,
               QStringLiteral("cannot connect to %1 (%2): %3")
                   .arg(m_target.host, m_address.toString(), m_socket->errorString()));
    });
    connect(&m_timer, &QTimer::timeout, this, [this] {
        giveUp(502, Decision::Error,
               QStringLiteral("cannot connect to %1 (%2): timed out after %3 s")
                   .arg(m_target.host, m_address.toString())
                   .arg(m_limits.connectTimeoutMs / 1000.0));
    });
    m_timer.start(m_limits.connectTimeoutMs);
    // A QHostAddress, never the name: Qt does no lookup of its own here.
    m_socket->connectToHost(address, m_target.port);
}

void UpstreamConnector::giveUp(int status, Decision decision, const QString &reason)
{
    if (m_done)
        return;
    m_done = true;
    m_timer.stop();
    delete m_lookupContext;
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
        m_socket->deleteLater();
        m_socket = nullptr;
    }
    emit failed(status, decision, reason, m_address);
}

} // namespace Cordon::Network
