// SPDX-License-Identifier: MIT
// The one parser for the authorities the proxy routes by (a CONNECT target, the authority of an absolute URI,
// a Host header) and the one matcher of a request against an allowlist rule. Hosts go through the policy
// module's normaliseHost(), so the proxy and the allowlist normalise the same way (SECURITY.md 2.4).
#pragma once

#include "core/plainbridge.h"
#include "core/result.h"
#include "sandbox/policy/domainrule.h"

#include <QByteArrayView>
#include <QString>

namespace Cordon::Network {

struct Authority
{
    // normaliseHost() form: lower-case ASCII, no trailing dot, canonical dotted-quad IPv4 or bracketed RFC
    // 5952 IPv6.
    QString host;
    quint16 port = 0;

    // True for "192.0.2.1" and "[2001:db8::1]": it must be named exactly by a rule and is never resolved.
    bool isIpLiteral() const;
    // "example.com:443", "[::1]:8080".
    QString toString() const;
    // The Host header value for a plain HTTP request: the port only when it is not the scheme's default.
    QString hostHeader(quint16 defaultPort) const;

    bool operator==(const Authority &other) const = default;
};

// Parses "host:port" (or "host" when defaultPort is given). Errors (network.bad_authority): empty host,
// userinfo ("user@host"), backslashes, percent-encoding, control characters, whitespace, bytes that are not
// UTF-8, an empty or non-decimal or out-of-range port, a port with leading zeros, unbracketed IPv6, zone ids,
// and every host normaliseHost() refuses: empty labels, names IDNA refuses, and every alternate IPv4
// spelling ("127.1", "0x7f000001", "2130706433", "0177.0.0.1", full-width digits), IPv4-mapped IPv6.
Result<Authority> parseAuthority(QByteArrayView text, std::optional<quint16> defaultPort = std::nullopt);

// What the proxy is asked to reach. method is "CONNECT" for a tunnel (then path is empty: neither the method
// nor the path of requests inside the tunnel can be seen), otherwise the request method of a plain HTTP
// request and path its path without the query, as sent (percent-encoded).
struct Target
{
    QString host; // normaliseHost() form
    quint16 port = 0;
    QString method;
    QString path;
    // A CONNECT the proxy terminates (domain secrets): each request inside is checked on its own, so a rule
    // that lists methods or paths may allow the tunnel itself.
    bool terminated = false;

    bool isTunnel() const { return method == QLatin1StringView("CONNECT"); }
};

// Whether one rule allows target: the host (exact, or a proper subdomain for a wildcard; an IP literal only
// by a rule that names exactly that address), the port (80 and 443 when the rule lists none), the method and
// the path prefix. A rule that restricts methods or paths never allows a tunnel, since inside it neither can
// be checked. A rule with path prefixes only matches paths without ambiguity: no "." or ".." segments (also
// percent-encoded), no encoded "/" or "\", because servers resolve them after we compared
// ("/simple/%2e%2e/admin").
bool ruleMatches(const Policy::DomainRule &rule, const Target &target);

// The first rule of rules that matches target, or nullptr.
const Policy::DomainRule *findMatchingRule(const std::vector<Policy::DomainRule> &rules,
                                           const Target &target);

} // namespace Cordon::Network
