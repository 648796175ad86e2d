// SPDX-License-Identifier: MIT
// The decision on a name, before anything is resolved: a target must be allowed by the container's allowlist
// and by the organisation's, both read at the moment of the check (a list narrowed while a container runs
// applies to its next connection, and the proxy re-checks open ones).
#pragma once

#include "network/hostmatch.h"
#include "network/orgpolicy.h"
#include "sandbox/policy/networkpolicy.h"

#include <QString>

namespace Cordon::Network {

struct AccessVerdict
{
    bool allowed = false;
    // For a denial, the sentence after "blocked by sandbox policy: ": "example.com is not in this container's
    // allowlist", "method DELETE not allowed for example.com", "port 22 is not allowed for example.com".
    QString reason;
    // Both a matching container rule and a matching organisation rule allow private addresses.
    bool allowPrivateAddresses = false;
};

// container is nullptr when the proxy knows no policy for the container (yet): everything is denied. A
// disabled network policy denies everything too.
AccessVerdict checkAccess(const Policy::NetworkPolicy *container, const OrgPolicy &org, const Target &target);

} // namespace Cordon::Network
