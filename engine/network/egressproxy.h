// SPDX-License-Identifier: MIT
// The egress proxy of the daemon: the only way out of a container whose network policy is an allowlist. Each
// container's cordon-init listens on 127.0.0.1:3128 inside the container's network namespace and hands the
// listening socket to the daemon, which accepts on it here, in its own event loop: every connection is known
// to come from that container, and no bytes go through an extra process (ARCHITECTURE.md, "Network without a
// relay"). The proxy enforces the container's allowlist and the organisation's on every connection and every
// request, resolves names itself, and guards the addresses it connects to. It never blocks the event loop.
#pragma once

#include "core/result.h"
#include "network/connectionrecord.h"
#include "network/orgpolicy.h"
#include "network/proxylimits.h"
#include "network/upstreamtrust.h"
#include "sandbox/policy/networkpolicy.h"

#include <QHash>
#include <QObject>
#include <QSslCertificate>
#include <QString>
#include <QTimer>

#include <memory>

namespace Cordon::Network {

struct ContainerContext;
class DomainSecrets;
class InterceptionAuthority;
class ProxyConnection;
class ProxyListener;
class Resolver;

class EgressProxy final : public QObject
{
    Q_OBJECT

public:
    // Resolves with the host's resolver (HostInfoResolver).
    explicit EgressProxy(QObject *parent = nullptr);
    // Resolves with resolver (tests count and script lookups).
    explicit EgressProxy(std::shared_ptr<Resolver> resolver, QObject *parent = nullptr);
    // Closes every listener and connection; open requests are recorded ("the proxy stopped").
    ~EgressProxy() override;

    // Takes ownership of listeningFd, a TCP socket in the listening state (in production created by
    // cordon-init inside the container's network namespace and passed with SCM_RIGHTS), and accepts on it for
    // containerId. The fd is closed on failure too. Until updatePolicy() is called for the container, every
    // request is denied. Errors: network.invalid_listener (not a listening TCP socket),
    // network.listener_exists.
    Result<void> addListener(const QString &containerId, int listeningFd);
    // Stops accepting for containerId, closes its connections (each open request is recorded) and forgets its
    // policy and limits.
    void removeListener(const QString &containerId);
    bool hasListener(const QString &containerId) const;

    // Replaces the container's network policy. New requests are checked against it at once; open tunnels and
    // exchanges whose host it no longer allows are closed with a record. The caller has already checked that
    // the policy narrows the organisation list (OrgPolicy::checkNarrows); the proxy checks both lists anyway.
    void updatePolicy(const QString &containerId, const Policy::NetworkPolicy &policy);
    // Replaces the organisation list for every container, with the same effect on open connections.
    void setOrgPolicy(const OrgPolicy &org);
    const OrgPolicy &orgPolicy() const { return *m_org; }
    // Limits for the container's connections accepted from now on; open ones keep their byte budget and pick
    // up the new timeouts the next time they start a timer.
    void setLimits(const QString &containerId, const ProxyLimits &limits);

    // The container's domain secrets and the authority whose certificates the proxy presents for their
    // domains (docs/secrets.md). Connections accepted from now on can be terminated; null or empty secrets
    // make every CONNECT a blind tunnel again (and every placeholder is then just text).
    void setDomainSecrets(const QString &containerId, std::shared_ptr<const DomainSecrets> secrets,
                          std::shared_ptr<InterceptionAuthority> authority);
    // The certificates upstreams of terminated TLS are verified against: the host's trust store (read at the
    // first such handshake) and `extra` (cordond --upstream-ca: a test CA, or an organisation's own).
    void setUpstreamTrust(const QList<QSslCertificate> &extra);

    // Client connections of the container now open.
    int connectionCount(const QString &containerId) const;

signals:
    // A request passed the allowlists and the proxy starts resolving and connecting for it.
    void connectionStarted(const Cordon::Network::ConnectionRecord &record);
    // Every request (every tunnel, every plain HTTP request on a keep-alive connection, every refusal) ends
    // with exactly one of these.
    void connectionFinished(const Cordon::Network::ConnectionRecord &record);

private:
    struct Container
    {
        std::shared_ptr<ContainerContext> context;
        ProxyListener *listener = nullptr;
        QList<ProxyConnection *> connections;
    };

    Container &containerFor(const QString &containerId);
    void accept(const QString &containerId, qintptr descriptor);
    void forget(const QString &containerId, ProxyConnection *connection);
    void recheck(Container &container);
    void connectionGone();

    std::shared_ptr<Resolver> m_resolver;
    std::shared_ptr<const OrgPolicy> m_org;
    std::shared_ptr<UpstreamTrust> m_upstreamTrust = std::make_shared<UpstreamTrust>();
    QHash<QString, Container> m_containers;
    quint64 m_nextConnectionId = 1;
    // ProxyConnection objects alive (refused ones too), and those accepted since the heap was last trimmed.
    qint64 m_live = 0;
    qint64 m_acceptedSinceTrim = 0;
    QTimer m_trimTimer;
};

} // namespace Cordon::Network
