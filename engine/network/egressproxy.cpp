// SPDX-License-Identifier: MIT
#include "network/egressproxy.h"

#include "network/domainsecrets.h"
#include "network/proxyconnection.h"
#include "network/proxycontext.h"
#include "network/proxylistener.h"
#include "network/resolver.h"

#include <QSslSocket>

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <unistd.h>

namespace Cordon::Network {

namespace {

// After a burst of connections (at least TrimAfterConnections accepted) and TrimQuietMs without any open,
// the heap is trimmed. A connection's objects are freed when it ends, but glibc keeps the freed memory:
// 20,000 attempts, 500 at a time, left cordond at 39 MiB instead of 18, and malloc_trim(0) brought it back to
// 21 (docs/benchmarks.md, "Proxy connection floods"). Not after every connection: trimming walks the heap.
constexpr qint64 TrimAfterConnections = 256;
constexpr int TrimQuietMs = 2000;

} // namespace

EgressProxy::EgressProxy(QObject *parent) : EgressProxy(std::make_shared<HostInfoResolver>(), parent) {}

EgressProxy::EgressProxy(std::shared_ptr<Resolver> resolver, QObject *parent)
    : QObject(parent), m_resolver(std::move(resolver)), m_org(std::make_shared<const OrgPolicy>())
{
    qRegisterMetaType<Cordon::Network::ConnectionRecord>();
    m_trimTimer.setSingleShot(true);
    connect(&m_trimTimer, &QTimer::timeout, this, [this] {
        if (m_live > 0)
            return;
        m_acceptedSinceTrim = 0;
#ifdef __GLIBC__
        ::malloc_trim(0);
#endif
    });
}

EgressProxy::~EgressProxy()
{
    const QStringList ids = m_containers.keys();
    for (const QString &id : ids)
        removeListener(id);
    // Connections hold the resolver by reference; they go before it does, not with QObject's children.
    qDeleteAll(findChildren<ProxyConnection *>(Qt::FindDirectChildrenOnly));
}

EgressProxy::Container &EgressProxy::containerFor(const QString &containerId)
{
    auto it = m_containers.find(containerId);
    if (it == m_containers.end()) {
        Container container;
        container.context = std::make_shared<ContainerContext>();
        container.context->containerId = containerId;
        container.context->org = m_org;
        container.context->resolver = m_resolver.get();
        container.context->upstreamTrust = m_upstreamTrust;
        it = m_containers.insert(containerId, container);
    }
    return *it;
}

Result<void> EgressProxy::addListener(const QString &containerId, int listeningFd)
{
    if (m_containers.contains(containerId) && m_containers[containerId].listener) {
        if (listeningFd >= 0)
            ::close(listeningFd);
        return fail(QStringLiteral("network.listener_exists"),
                    QStringLiteral("container %1 already has a proxy listener").arg(containerId));
    }
    auto *listener =
        new ProxyListener([this, containerId](qintptr descriptor) { accept(containerId, descriptor); }, this);
    if (const Result<void> adopted = listener->adopt(listeningFd); !adopted) {
        delete listener;
        return adopted;
    }
    containerFor(containerId).listener = listener;
    return {};
}

void EgressProxy::removeListener(const QString &containerId)
{
    auto it = m_containers.find(containerId);
    if (it == m_containers.end())
        return;
    Container container = std::move(*it);
    m_containers.erase(it);
    delete container.listener;
    for (ProxyConnection *connection : std::as_const(container.connections)) {
        // terminate() records the open request through our signals; only then is it cut off.
        connection->terminate(QStringLiteral("the container's proxy was removed"));
        connection->disconnect(this);
        connection->deleteLater();
        connectionGone();
    }
}

bool EgressProxy::hasListener(const QString &containerId) const
{
    const auto it = m_containers.constFind(containerId);
    return it != m_containers.constEnd() && it->listener;
}

void EgressProxy::updatePolicy(const QString &containerId, const Policy::NetworkPolicy &policy)
{
    Container &container = containerFor(containerId);
    container.context->policy = policy;
    recheck(container);
}

void EgressProxy::setOrgPolicy(const OrgPolicy &org)
{
    m_org = std::make_shared<const OrgPolicy>(org);
    for (Container &container : m_containers) {
        container.context->org = m_org;
        recheck(container);
    }
}

void EgressProxy::setLimits(const QString &containerId, const ProxyLimits &limits)
{
    containerFor(containerId).context->limits = limits;
}

void EgressProxy::setDomainSecrets(const QString &containerId, std::shared_ptr<const DomainSecrets> secrets,
                                   std::shared_ptr<InterceptionAuthority> authority)
{
    ContainerContext &context = *containerFor(containerId).context;
    context.secrets = std::move(secrets);
    context.authority = std::move(authority);
}

void EgressProxy::setUpstreamTrust(const QList<QSslCertificate> &extra)
{
    m_upstreamTrust = std::make_shared<UpstreamTrust>(extra);
    for (Container &container : m_containers)
        container.context->upstreamTrust = m_upstreamTrust;
}

int EgressProxy::connectionCount(const QString &containerId) const
{
    const auto it = m_containers.constFind(containerId);
    return it == m_containers.constEnd() ? 0 : int(it->connections.size());
}

void EgressProxy::recheck(Container &container)
{
    // A copy: rechecking may close connections, which leave the list later (queued) but not during the loop.
    const QList<ProxyConnection *> connections = container.connections;
    for (ProxyConnection *connection : connections)
        connection->recheckPolicy();
}

void EgressProxy::accept(const QString &containerId, qintptr descriptor)
{
    Container &container = containerFor(containerId);
    // A QSslSocket is plain TCP until the proxy starts TLS on it, which it does only for a CONNECT to a
    // domain of the container's domain secrets.
    const bool mayTerminate = container.context->secrets && !container.context->secrets->isEmpty();
    QTcpSocket *socket = mayTerminate ? new QSslSocket() : new QTcpSocket();
    if (!socket->setSocketDescriptor(descriptor)) {
        ::close(int(descriptor));
        delete socket;
        return;
    }
    // Without it, Nagle holds the second small segment of a TLS 1.3 server's first flight (tickets, then the
    // response) until the client's delayed ACK: 40 ms on every new connection (docs/benchmarks.md).
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    // Connections over the limit are answered and closed, but still pass through a ProxyConnection so that
    // they are recorded like every other refusal. They do not count against the limit themselves.
    const bool overLimit = container.connections.size() >= container.context->limits.maxConnections;
    auto *connection = new ProxyConnection(container.context, socket, m_nextConnectionId++, this);
    ++m_live;
    ++m_acceptedSinceTrim;
    m_trimTimer.stop();
    connect(connection, &ProxyConnection::started, this, &EgressProxy::connectionStarted);
    connect(connection, &ProxyConnection::finished, this, &EgressProxy::connectionFinished);
    connect(connection, &ProxyConnection::closed, this,
            [this, containerId, connection] { forget(containerId, connection); });
    if (overLimit) {
        connection->reject(429, QStringLiteral("too many concurrent connections (limit %1)")
                                    .arg(container.context->limits.maxConnections));
        return;
    }
    container.connections.append(connection);
    connection->start();
}

void EgressProxy::forget(const QString &containerId, ProxyConnection *connection)
{
    if (auto it = m_containers.find(containerId); it != m_containers.end())
        it->connections.removeOne(connection);
    connection->deleteLater();
    connectionGone();
}

void EgressProxy::connectionGone()
{
    --m_live;
    if (m_live == 0 && m_acceptedSinceTrim >= TrimAfterConnections)
        m_trimTimer.start(TrimQuietMs);
}

} // namespace Cordon::Network
