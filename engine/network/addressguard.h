// SPDX-License-Identifier: MIT
// The address guard: whether the proxy may connect to an address a name resolved to. It runs after the name
// passed the allowlist and after resolution, on every address, because an allowed name can resolve to the
// host's own services or the cloud metadata endpoint (SSRF, DNS rebinding: SECURITY.md 2.2).
#pragma once

#include <QHostAddress>
#include <QString>

namespace Cordon::Network {

enum class AddressClass
{
    Public,
    Unspecified,   // 0.0.0.0/8, ::/128: connect() to them reaches the host itself on Linux
    Loopback,      // 127/8, ::1
    Private,       // RFC 1918, fc00::/7 (unique local, AWS fd00:ec2::254)
    SharedCgnat,   // 100.64/10 (Alibaba's metadata service is 100.100.100.200)
    LinkLocal,     // 169.254/16 (169.254.169.254), fe80::/10
    Multicast,     // 224/4, ff00::/8
    Broadcast,     // 255.255.255.255
    Documentation, // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
    Reserved,      // 240/4, 192.0.0/24, 198.18/15, Teredo, NAT64 local use, everything outside 2000::/3 ...
};

struct AddressVerdict
{
    AddressClass addressClass = AddressClass::Reserved;
    // For IPv6 forms that carry an IPv4 address (v4-mapped, v4-compatible, NAT64, 6to4), the embedded address
    // that was judged; null otherwise.
    QHostAddress embeddedIpv4;
    // "loopback address", "private address (RFC 1918)" ...; empty for Public.
    QString reason;

    bool isPublic() const { return addressClass == AddressClass::Public; }
    // What a rule with allow_private_addresses may reach in addition to public addresses: the host's own
    // loopback and the private, shared and link-local ranges. Never the unspecified, multicast, broadcast,
    // documentation or reserved ranges: no legitimate upstream lives there.
    bool isAllowedWithPrivate() const;
};

// Classifies one address. A null or non-IP address (QHostAddress::Any ...) is Reserved: fail closed.
AddressVerdict checkAddress(const QHostAddress &address);

// True when the proxy may connect to address: public, or allowPrivate and a private class (see above).
bool isAddressAllowed(const QHostAddress &address, bool allowPrivate);

} // namespace Cordon::Network
