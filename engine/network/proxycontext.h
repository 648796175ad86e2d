// SPDX-License-Identifier: MIT
// What the proxy knows about one container, shared with that container's connections. The proxy replaces the
// policy and the organisation list in place; connections read them on every check.
#pragma once

#include "network/accesscheck.h"
#include "network/orgpolicy.h"
#include "network/proxylimits.h"
#include "network/upstreamtrust.h"
#include "sandbox/policy/networkpolicy.h"

#include <QString>

#include <memory>
#include <optional>

namespace Cordon::Network {

class DomainSecrets;
class InterceptionAuthority;
class Resolver;

struct ContainerContext
{
    QString containerId;
    // Unset until the daemon sets one: until then everything is denied.
    std::optional<Policy::NetworkPolicy> policy;
    std::shared_ptr<const OrgPolicy> org = std::make_shared<const OrgPolicy>();
    ProxyLimits limits;
    Resolver *resolver = nullptr;
    // Domain secrets (null: none): the proxy terminates TLS to their domains with certificates of the
    // container's authority, and verifies those upstreams against upstreamTrust.
    std::shared_ptr<const DomainSecrets> secrets;
    std::shared_ptr<InterceptionAuthority> authority;
    std::shared_ptr<UpstreamTrust> upstreamTrust;

    AccessVerdict check(const Target &target) const
    {
        return checkAccess(policy ? &*policy : nullptr, *org, target);
    }
};

} // namespace Cordon::Network
