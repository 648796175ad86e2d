// SPDX-License-Identifier: MIT
#include "network/addressguard.h"

#include <array>
#include <cstdint>

namespace Cordon::Network {

namespace {

struct V4Range
{
    quint32 network;
    int prefixLength;
    AddressClass addressClass;
    const char *reason;
};

constexpr quint32 v4(int a, int b, int c, int d)
{
    return (quint32(a) << 24) | (quint32(b) << 16) | (quint32(c) << 8) | quint32(d);
}

// The IANA IPv4 special-purpose registry, reduced to what a proxy must never dial. Order matters only where
// ranges nest (255.255.255.255 inside 240/4).
constexpr V4Range V4Ranges[] = {
    {v4(0, 0, 0, 0), 8, AddressClass::Unspecified, "unspecified address (0.0.0.0/8 reaches the host itself)"},
    {v4(10, 0, 0, 0), 8, AddressClass::Private, "private address (RFC 1918)"},
    {v4(100, 64, 0, 0), 10, AddressClass::SharedCgnat, "shared address space (100.64.0.0/10, CGNAT)"},
    {v4(127, 0, 0, 0), 8, AddressClass::Loopback, "loopback address"},
    {v4(169, 254, 0, 0), 16, AddressClass::LinkLocal, "link-local address (cloud metadata lives here)"},
    {v4(172, 16, 0, 0), 12, AddressClass::Private, "private address (RFC 1918)"},
    {v4(192, 0, 0, 0), 24, AddressClass::Reserved, "reserved address (IETF protocol assignments)"},
    {v4(192, 0, 2, 0), 24, AddressClass::Documentation, "documentation address (TEST-NET-1)"},
    {v4(192, 88, 99, 0), 24, AddressClass::Reserved, "reserved address (6to4 relay anycast)"},
    {v4(192, 168, 0, 0), 16, AddressClass::Private, "private address (RFC 1918)"},
    {v4(198, 18, 0, 0), 15, AddressClass::Reserved, "reserved address (benchmarking, RFC 2544)"},
    {v4(198, 51, 100, 0), 24, AddressClass::Documentation, "documentation address (TEST-NET-2)"},
    {v4(203, 0, 113, 0), 24, AddressClass::Documentation, "documentation address (TEST-NET-3)"},
    {v4(224, 0, 0, 0), 4, AddressClass::Multicast, "multicast address"},
    {v4(255, 255, 255, 255), 32, AddressClass::Broadcast, "broadcast address"},
    {v4(240, 0, 0, 0), 4, AddressClass::Reserved, "reserved address (240.0.0.0/4)"},
};

AddressVerdict verdict(AddressClass addressClass, const char *reason)
{
    return {addressClass, QHostAddress(),
            addressClass == AddressClass::Public ? QString() : QString::fromLatin1(reason)};
}

AddressVerdict checkIpv4(quint32 address)
{
    for (const V4Range &range : V4Ranges) {
        const quint32 mask = range.prefixLength == 0 ? 0 : ~quint32(0) << (32 - range.prefixLength);
        if ((address & mask) == range.network)
            return verdict(range.addressClass, range.reason);
    }
    return verdict(AddressClass::Public, "");
}

using V6 = std::array<quint8, 16>;

bool zero(const V6 &a, int from, int to)
{
    for (int i = from; i < to; ++i) {
        if (a[i] != 0)
            return false;
    }
    return true;
}

quint32 embeddedAt(const V6 &a, int offset)
{
    return (quint32(a[offset]) << 24) | (quint32(a[offset + 1]) << 16) | (quint32(a[offset + 2]) << 8) |
           quint32(a[offset + 3]);
}

// An IPv6 form that carries an IPv4 address is judged by that address: "[::ffff:a9fe:a9fe]" is
// 169.254.169.254 to the kernel (menna.website SSRF write-up), 64:ff9b::7f00:1 is 127.0.0.1 behind a NAT64.
AddressVerdict judgeEmbedded(quint32 embedded, const char *form, bool publicAllowed)
{
    AddressVerdict inner = checkIpv4(embedded);
    inner.embeddedIpv4 = QHostAddress(embedded);
    if (inner.isPublic()) {
        if (publicAllowed)
            return inner;
        inner.addressClass = AddressClass::Reserved;
        inner.reason = QString::fromLatin1(form) + QStringLiteral(" (deprecated)");
        return inner;
    }
    inner.reason = QString::fromLatin1(form) + QStringLiteral(" of ") + inner.embeddedIpv4.toString() +
                   QStringLiteral(", a ") + inner.reason;
    return inner;
}

AddressVerdict checkIpv6(const V6 &a)
{
    if (zero(a, 0, 16))
        return verdict(AddressClass::Unspecified, "unspecified address (::)");
    if (zero(a, 0, 15) && a[15] == 1)
        return verdict(AddressClass::Loopback, "loopback address (::1)");
    if (zero(a, 0, 10) && a[10] == 0xff && a[11] == 0xff)
        return judgeEmbedded(embeddedAt(a, 12), "IPv4-mapped address", true);
    if (zero(a, 0, 12))
        return judgeEmbedded(embeddedAt(a, 12), "IPv4-compatible address", false);
    // ::ffff:0:a.b.c.d (SIIT, RFC 2765): never a real destination.
    if (zero(a, 0, 8) && a[8] == 0xff && a[9] == 0xff && a[10] == 0 && a[11] == 0)
        return verdict(AddressClass::Reserved, "reserved address (IPv4-translated)");
    // 64:ff9b::/96, the well-known NAT64 prefix: the gateway connects to the embedded IPv4 address.
    if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b && zero(a, 4, 12))
        return judgeEmbedded(embeddedAt(a, 12), "NAT64 address", true);
    if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b && a[4] == 0x00 && a[5] == 0x01)
        return verdict(AddressClass::Reserved, "reserved address (local-use NAT64, 64:ff9b:1::/48)");
    if ((a[0] & 0xfe) == 0xfc)
        return verdict(AddressClass::Private, "unique local address (fc00::/7)");
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
        return verdict(AddressClass::LinkLocal, "link-local address (fe80::/10)");
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
        return verdict(AddressClass::Private, "site-local address (fec0::/10)");
    if (a[0] == 0xff)
        return verdict(AddressClass::Multicast, "multicast address (ff00::/8)");
    // Teredo embeds an obfuscated IPv4 server and client; a tunnel endpoint is never a legitimate upstream.
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x00 && a[3] == 0x00)
        return verdict(AddressClass::Reserved, "Teredo address (2001::/32)");
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
        return verdict(AddressClass::Documentation, "documentation address (2001:db8::/32)");
    if (a[0] == 0x3f && a[1] == 0xff && (a[2] & 0xf0) == 0x00)
        return verdict(AddressClass::Documentation, "documentation address (3fff::/20)");
    // 2001::/23: IETF protocol assignments (benchmarking 2001:2::/48, ORCHID 2001:10::/28 ...).
    if (a[0] == 0x20 && a[1] == 0x01 && (a[2] & 0xfe) == 0x00)
        return verdict(AddressClass::Reserved, "reserved address (IETF protocol assignments, 2001::/23)");
    // 6to4: the relay forwards to the IPv4 address in bits 16..47.
    if (a[0] == 0x20 && a[1] == 0x02)
        return judgeEmbedded(embeddedAt(a, 2), "6to4 address", true);
    if (a[0] == 0x5f && a[1] == 0x00)
        return verdict(AddressClass::Reserved, "reserved address (SRv6 SIDs, 5f00::/16)");
    // Only 2000::/3 is allocated as global unicast; everything else (100::/64 discard, unassigned space) is
    // not a destination on the internet.
    if ((a[0] & 0xe0) != 0x20)
        return verdict(AddressClass::Reserved, "reserved address (outside 2000::/3)");
    return verdict(AddressClass::Public, "");
}

} // namespace

bool AddressVerdict::isAllowedWithPrivate() const
{
    switch (addressClass) {
    case AddressClass::Public:
    case AddressClass::Loopback:
    case AddressClass::Private:
    case AddressClass::SharedCgnat:
    case AddressClass::LinkLocal:
        return true;
    case AddressClass::Unspecified:
    case AddressClass::Multicast:
    case AddressClass::Broadcast:
    case AddressClass::Documentation:
    case AddressClass::Reserved:
        return false;
    }
    return false;
}

AddressVerdict checkAddress(const QHostAddress &address)
{
    if (address.protocol() == QAbstractSocket::IPv4Protocol)
        return checkIpv4(address.toIPv4Address());
    if (address.protocol() == QAbstractSocket::IPv6Protocol) {
        const Q_IPV6ADDR raw = address.toIPv6Address();
        V6 bytes{};
        for (int i = 0; i < 16; ++i)
            bytes[i] = raw[i];
        const AddressVerdict result = checkIpv6(bytes);
        // A scope id only makes sense for link-local addresses; a scoped global address is odd enough to
        // refuse.
        if (!address.scopeId().isEmpty() && result.addressClass != AddressClass::LinkLocal)
            return verdict(AddressClass::Reserved, "scoped IPv6 address");
        return result;
    }
    return verdict(AddressClass::Reserved, "not an IP address");
}

bool isAddressAllowed(const QHostAddress &address, bool allowPrivate)
{
    const AddressVerdict result = checkAddress(address);
    return result.isPublic() || (allowPrivate && result.isAllowedWithPrivate());
}

} // namespace Cordon::Network
