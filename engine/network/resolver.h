// SPDX-License-Identifier: MIT
// Name resolution for the proxy, behind an interface so that tests can prove when the proxy resolves (never
// for a name the allowlist refuses: SECURITY.md 2.1, 2.11) and can answer like a rebinding attacker.
#pragma once

#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>

namespace Cordon::Network {

struct Resolution
{
    QList<QHostAddress> addresses;
    // Why there are none ("Host not found"); empty on success.
    QString error;
};

class Resolver
{
public:
    virtual ~Resolver() = default;
    // Resolves a normalised host name (never an IP literal) without blocking. done runs once, on context's
    // thread, unless context is destroyed first, in which case it never runs: a connection that gave up
    // (timeout, policy change) deletes its context and a late answer goes nowhere.
    virtual void lookup(const QString &host, QObject *context,
                        std::function<void(const Resolution &)> done) = 0;
};

// The host's resolver through QHostInfo (getaddrinfo on Qt's thread pool). A name with a dot is looked up as
// an absolute name ("example.com."), so that the search domains of resolv.conf cannot turn an allowed name
// into an internal one; a single label ("localhost") is looked up as it is, since /etc/hosts knows no
// trailing dot.
class HostInfoResolver final : public Resolver
{
public:
    void lookup(const QString &host, QObject *context, std::function<void(const Resolution &)> done) override;
};

} // namespace Cordon::Network
