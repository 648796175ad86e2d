// SPDX-License-Identifier: MIT
// One entry of a network allowlist, and the single host normalisation that both the allowlist and the egress
// proxy apply (normalising only one side is how "PYPI.ORG." or "pypi．org" slip past a matcher).
#pragma once

#include "sandbox/error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Policy {

constexpr std::size_t MaxHostNameLength = 253;
constexpr std::size_t MaxLabelLength = 63;
constexpr std::size_t MaxRulePorts = 64;
constexpr std::size_t MaxRuleMethods = 7;
constexpr std::size_t MaxRulePathPrefixes = 64;
constexpr std::size_t MaxPathPrefixLength = 1024;

struct DomainRule
{
    // Lower-case ASCII (IDNA2008 with UTS #46 mapping, by libidn2), one trailing dot stripped; for a
    // wildcard, the suffix without "*.". IP literals are canonical dotted-quad IPv4 ("192.0.2.1") or
    // bracketed RFC 5952 IPv6 ("[2001:db8::1]").
    std::string host;
    // "*.example.org": subdomains only, never example.org itself, never evilexample.org.
    bool wildcard = false;
    // Sorted, unique; empty means the default {80, 443}.
    std::vector<std::uint16_t> ports;
    // Sorted, unique, upper-case; empty means any. Plain HTTP only: inside a CONNECT tunnel they cannot be
    // seen.
    std::vector<std::string> methods;
    // Sorted, unique, each starting with "/"; empty means any. Plain HTTP only, like methods.
    std::vector<std::string> pathPrefixes;
    // Lets the proxy connect to loopback and private addresses this rule resolves to. Dangerous (it opens the
    // host's own services and the cloud metadata endpoint to the sandbox); tests need it for local upstreams.
    bool allowPrivateAddresses = false;

    // Exact match, or for a wildcard a proper subdomain: the host ends with "." + host and has a label before
    // it. normalisedHost must come from normaliseHost(); matching never lower-cases or strips dots itself.
    bool matchesHost(std::string_view normalisedHost) const;
    // The listed ports, or 80 and 443 when none are listed.
    std::vector<std::uint16_t> effectivePorts() const;
    bool matchesPort(std::uint16_t port) const;
    // True when host is an IPv4 or IPv6 literal (a rule that names an address explicitly).
    bool isIpLiteral() const;
    // "*.pythonhosted.org", "pypi.org", "[::1]": the host part as a person writes it.
    std::string pattern() const;

    bool operator==(const DomainRule &other) const = default;
};

// The host normalisation shared by allowlist and proxy (UTF-8 in, ASCII out): reject control characters,
// whitespace, invisible formatting characters, "@", "/", "\", "%", "?", "#", "*" and ":" outside brackets;
// IDNA to ASCII (UTS #46 non-transitional mapping, then Punycode; failure is an error); lower-case; strip
// exactly one trailing dot; reject empty labels, labels over 63 and names over 253 characters, and any name
// whose last label is a number unless it is a canonical dotted-quad IPv4 address ("127.1", "0x7f000001",
// "2130706433", "0177.0.0.1" are refused, as are IPv4 addresses spelled with non-ASCII digits or dots).
// "[v6]" is accepted in brackets and returned in RFC 5952 form; IPv4-mapped and IPv4-compatible IPv6 and the
// unspecified addresses are refused. Errors: policy.invalid_domain.
Result<std::string> normaliseHost(std::string_view host);

// An allowlist entry or a proxy authority cut at its port: "host", "host:port", "[v6]", "[v6]:port". The
// views point into the text. port is absent when there is none and empty for "host:". The one splitter for
// both, so the proxy and the allowlist read "[::1]:80" the same way.
struct HostPortText
{
    std::string_view host;
    std::optional<std::string_view> port;
};

// Errors (policy.invalid_domain, the reason alone, for the caller to put after what it quotes): "[" without
// "]", anything but ":port" after "]", an IPv6 address without brackets.
Result<HostPortText> splitHostPort(std::string_view text);

// A port as written in an entry or an authority: plain decimal 1..65535, no sign, no leading zero, ASCII
// digits only.
std::optional<std::uint16_t> parsePortNumber(std::string_view text);

// The string form of an allowlist entry: "pypi.org", "*.pythonhosted.org", "example.com:8443", "[::1]",
// "[::1]:8080". Errors: policy.invalid_domain, with a message that says what is wrong and how to write it.
Result<DomainRule> parseDomainRule(std::string_view entry);

// Re-validates every part of a rule built in code or read from JSON, upper-cases methods, and sorts ports,
// methods and path prefixes so that equal rules compare and hash equal. Duplicates are errors.
Result<DomainRule> normaliseDomainRule(DomainRule rule);

// A path prefix for plain-HTTP rules: starts with "/", at most MaxPathPrefixLength characters of RFC 3986
// path characters (valid %XX escapes allowed), no "." or ".." segments. Errors: policy.invalid_domain.
Result<std::string> checkPathPrefix(std::string_view prefix);

// GET HEAD POST PUT PATCH DELETE OPTIONS: the methods a rule may name. CONNECT and TRACE are never needed.
const std::vector<std::string> &knownHttpMethods();

} // namespace Cordon::Policy
