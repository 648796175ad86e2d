// SPDX-License-Identifier: MIT
#include "sandbox/policy/domainrule.h"

#include "sandbox/quoteuntrusted.h"
#include "sandbox/utf8.h"

#include <arpa/inet.h>
#include <idn2.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>

namespace Cordon::Policy {

namespace {

// Longest raw entry we look at: a 253-character name plus brackets and ":65535", with room for Unicode
// spellings.
constexpr std::size_t MaxRawEntryLength = 512;

tl::unexpected<Error> invalid(std::string_view text, std::string_view why)
{
    return fail("policy.invalid_domain", quoteUntrusted(text) + ": " + std::string(why));
}

bool isAsciiDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isAsciiHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool allAsciiDigits(std::string_view text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), isAsciiDigit);
}

bool isAscii(std::string_view text)
{
    return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t end = text.find(separator, start);
        parts.push_back(
            text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            return parts;
        start = end + 1;
    }
}

void toLowerAscii(std::string &text)
{
    for (char &c : text) {
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
    }
}

// Characters refused anywhere in an entry, with the reason a person needs to fix it. They are checked before
// IDNA and again after it, because NFKC maps look-alikes ("＠", "／", full-width spaces) onto them.
Result<> checkHostCharacters(std::string_view text, std::string_view shown)
{
    if (!isValidUtf8(text))
        return invalid(shown, "contains an invalid character");
    if (text.find("://") != std::string_view::npos)
        return invalid(shown, "write the host name without a scheme (no \"https://\")");
    for (std::size_t pos = 0; pos < text.size();) {
        char32_t c = 0;
        pos += decodeUtf8(text, pos, &c);
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
            return invalid(shown, "contains a control character");
        if (c == ' ' || isSeparatorCharacter(c))
            return invalid(shown, "contains whitespace");
        if (isFormatCharacter(c))
            return invalid(shown, "contains an invisible formatting character");
        switch (c) {
        case '@':
            return invalid(shown, "user info (\"user@\") is not allowed");
        case '/':
            return invalid(shown, "paths are not allowed; use path_prefixes in the object form");
        case '\\':
            return invalid(shown, "backslashes are not allowed");
        case '%':
            return invalid(shown, "percent-encoding and IPv6 zone ids are not allowed");
        case '?':
        case '#':
            return invalid(shown, "queries and fragments are not allowed");
        default:
            break;
        }
    }
    return {};
}

// WHATWG URL: a host whose last label is a decimal or 0x-hex number is parsed as IPv4 by browsers and by
// inet_aton, which also accept "127.1", "0x7f000001", "2130706433" and "0177.0.0.1" for 127.0.0.1.
bool endsInNumber(std::string_view host)
{
    const std::size_t dot = host.rfind('.');
    const std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
    if (allAsciiDigits(last))
        return true;
    if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X'))
        return std::all_of(last.begin() + 2, last.end(), isAsciiHex);
    return false;
}

// Exactly four decimal octets 0..255 without leading zeros: the one spelling everyone parses the same way.
bool isCanonicalIpv4(std::string_view host)
{
    const std::vector<std::string_view> parts = split(host, '.');
    if (parts.size() != 4)
        return false;
    for (std::string_view part : parts) {
        if (!allAsciiDigits(part) || part.size() > 3 || (part.size() > 1 && part[0] == '0') ||
            std::stoi(std::string(part)) > 255)
            return false;
    }
    return true;
}

Result<std::string> normaliseIpv6(std::string_view text, std::string_view shown)
{
    if (!text.ends_with(']'))
        return invalid(shown, "missing \"]\" after an IPv6 address");
    const std::string inner(text.substr(1, text.size() - 2));
    std::array<unsigned char, 16> address{};
    const bool plain = !inner.empty() && std::all_of(inner.begin(), inner.end(), [](char c) {
        return isAsciiHex(c) || c == ':' || c == '.';
    });
    if (!plain || inet_pton(AF_INET6, inner.c_str(), address.data()) != 1)
        return invalid(shown, "is not a valid IPv6 address");
    const auto zero = [](unsigned char b) { return b == 0; };
    const bool firstTenZero = std::all_of(address.begin(), address.begin() + 10, zero);
    if (std::all_of(address.begin(), address.end(), zero))
        return invalid(shown, "the unspecified address cannot be a destination");
    // ::ffff:a.b.c.d and ::a.b.c.d are IPv4 addresses in disguise ("[::ffff:a9fe:a9fe]" is 169.254.169.254).
    if (firstTenZero && address[10] == 0xff && address[11] == 0xff)
        return invalid(shown, "IPv4-mapped IPv6 address: write the IPv4 address as a.b.c.d");
    if (firstTenZero && address[10] == 0 && address[11] == 0 &&
        !(address[12] == 0 && address[13] == 0 && address[14] == 0))
        return invalid(shown, "IPv4-compatible IPv6 address: write the IPv4 address as a.b.c.d");
    char buffer[INET6_ADDRSTRLEN] = {};
    if (!inet_ntop(AF_INET6, address.data(), buffer, sizeof buffer))
        return invalid(shown, "is not a valid IPv6 address");
    return "[" + std::string(buffer) + "]";
}

// Why IDNA refused a name, in words; libidn2's own names for its errors are for programmers.
std::string aceFailureReason(std::string_view text)
{
    std::string_view name = text;
    if (name.ends_with('.'))
        name.remove_suffix(1);
    if (codePointCount(name) > MaxHostNameLength)
        return "is longer than " + std::to_string(MaxHostNameLength) + " characters";
    for (std::string_view label : split(name, '.')) {
        if (label.empty())
            return "has an empty label";
        if (codePointCount(label) > MaxLabelLength)
            return "has a label longer than " + std::to_string(MaxLabelLength) + " characters";
        if (label.starts_with('-') || label.ends_with('-'))
            return "has a label that starts or ends with \"-\"";
    }
    return "is not a valid internationalised domain name";
}

// IDNA2008 to ASCII with the UTS #46 mapping (lower-casing, full-width dots and digits, NFC), as browsers
// resolve names. An ASCII name only needs lower-casing, and its "xn--" labels must be valid Punycode;
// libidn2 is not asked about the rest, because it refuses ASCII labels such as "ab--c" that DNS serves.
std::optional<std::string> toAce(std::string_view text)
{
    const std::string input(text);
    if (isAscii(input)) {
        std::string host = input;
        toLowerAscii(host);
        for (std::string_view label : split(host, '.')) {
            if (!label.starts_with("xn--"))
                continue;
            char *decoded = nullptr;
            const int status = idn2_to_unicode_8z8z(std::string(label).c_str(), &decoded, 0);
            std::free(decoded);
            if (status != IDN2_OK || label.size() == 4)
                return std::nullopt;
        }
        return host;
    }
    char *ace = nullptr;
    const int status = idn2_to_ascii_8z(input.c_str(), &ace, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
    const std::unique_ptr<char, decltype(&std::free)> owned(ace, &std::free);
    if (status != IDN2_OK || !ace)
        return std::nullopt;
    std::string host(ace);
    toLowerAscii(host);
    return host;
}

bool isPathCharacter(char c)
{
    // RFC 3986 pchar and "/": unreserved, sub-delims, ":", "@" (percent-encoding is checked separately).
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return std::string_view("-._~!$&'()*+,;=:@/").find(c) != std::string_view::npos;
}

// shown is the whole entry as the person wrote it, so that messages quote what they typed.
Result<std::string> normaliseHostFor(std::string_view text, std::string_view shown)
{
    if (text.empty())
        return invalid(shown, "the host name is empty");
    if (codePointCount(text) > MaxRawEntryLength)
        return invalid(shown, "is longer than " + std::to_string(MaxRawEntryLength) + " characters");
    CORDON_TRY(checkHostCharacters(text, shown));
    if (text.starts_with('['))
        return normaliseIpv6(text, shown);
    if (text.find_first_of("[]") != std::string_view::npos)
        return invalid(shown, "brackets are only allowed around a whole IPv6 address");
    if (text.find('*') != std::string_view::npos)
        return invalid(shown,
                       "a wildcard is only allowed as a whole leftmost label, as in \"*.example.org\"");
    if (text.find(':') != std::string_view::npos)
        return invalid(shown, "write IPv6 addresses in brackets, as in \"[2001:db8::1]\"");

    const bool ascii = isAscii(text);
    std::optional<std::string> ace = toAce(text);
    if (!ace || ace->empty())
        return invalid(shown, aceFailureReason(text));
    std::string host = std::move(*ace);
    if (host.ends_with('.'))
        host.pop_back();
    CORDON_TRY(checkHostCharacters(host, shown));

    for (std::string_view label : split(host, '.')) {
        if (label.empty())
            return invalid(shown, "has an empty label");
        if (label.size() > MaxLabelLength)
            return invalid(shown,
                           "has a label longer than " + std::to_string(MaxLabelLength) + " characters");
        if (label.starts_with('-') || label.ends_with('-'))
            return invalid(shown, "has a label that starts or ends with \"-\"");
        for (char c : label) {
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
                return invalid(shown, "contains the character " + quoteUntrusted(std::string_view(&c, 1)) +
                                          ", not allowed in a host name");
        }
    }
    if (host.size() > MaxHostNameLength)
        return invalid(shown, "is longer than " + std::to_string(MaxHostNameLength) + " characters");

    if (endsInNumber(host)) {
        if (!isCanonicalIpv4(host))
            return invalid(shown,
                           "is not a canonical IPv4 address (alternate encodings such as 127.1, "
                           "0x7f000001, 2130706433 or 0177.0.0.1 are refused; write a.b.c.d in decimal)");
        if (!ascii)
            return invalid(shown, "IPv4 addresses must be written with ASCII digits and dots");
        if (host == "0.0.0.0")
            return invalid(shown, "the unspecified address cannot be a destination");
    }
    return host;
}

} // namespace

bool DomainRule::matchesHost(std::string_view normalisedHost) const
{
    if (host.empty())
        return false;
    if (!wildcard)
        return normalisedHost == host;
    // Never ends_with(host) alone: "*.example.org" must not match "evilexample.org" or "example.org".
    if (normalisedHost.size() < host.size() + 2)
        return false;
    const std::size_t dot = normalisedHost.size() - host.size() - 1;
    return normalisedHost.ends_with(host) && normalisedHost[dot] == '.';
}

std::vector<std::uint16_t> DomainRule::effectivePorts() const
{
    return ports.empty() ? std::vector<std::uint16_t>{80, 443} : ports;
}

bool DomainRule::matchesPort(std::uint16_t port) const
{
    const std::vector<std::uint16_t> allowed = effectivePorts();
    return std::find(allowed.begin(), allowed.end(), port) != allowed.end();
}

bool DomainRule::isIpLiteral() const
{
    return host.starts_with('[') || isCanonicalIpv4(host);
}

std::string DomainRule::pattern() const
{
    return wildcard ? "*." + host : host;
}

const std::vector<std::string> &knownHttpMethods()
{
    static const std::vector<std::string> Methods = {"GET",   "HEAD",   "POST",   "PUT",
                                                     "PATCH", "DELETE", "OPTIONS"};
    return Methods;
}

Result<std::string> normaliseHost(std::string_view host)
{
    return normaliseHostFor(host, host);
}

Result<HostPortText> splitHostPort(std::string_view text)
{
    const auto refuse = [](std::string_view why) { return fail("policy.invalid_domain", std::string(why)); };
    if (text.starts_with('[')) {
        const std::size_t close = text.find(']');
        if (close == std::string_view::npos)
            return refuse("missing \"]\" after an IPv6 address");
        const std::string_view rest = text.substr(close + 1);
        if (!rest.empty() && !rest.starts_with(':'))
            return refuse("only \":port\" may follow \"]\"");
        HostPortText split{text.substr(0, close + 1), std::nullopt};
        if (!rest.empty())
            split.port = rest.substr(1);
        return split;
    }
    const std::size_t colons = static_cast<std::size_t>(std::count(text.begin(), text.end(), ':'));
    if (colons > 1)
        return refuse("write IPv6 addresses in brackets, as in \"[2001:db8::1]\"");
    if (colons == 0)
        return HostPortText{text, std::nullopt};
    const std::size_t colon = text.find(':');
    return HostPortText{text.substr(0, colon), text.substr(colon + 1)};
}

std::optional<std::uint16_t> parsePortNumber(std::string_view text)
{
    if (!allAsciiDigits(text) || text.size() > 5 || text[0] == '0')
        return std::nullopt;
    const int port = std::stoi(std::string(text));
    if (port > 65535)
        return std::nullopt;
    return static_cast<std::uint16_t>(port);
}

Result<DomainRule> parseDomainRule(std::string_view entry)
{
    if (codePointCount(entry) > MaxRawEntryLength)
        return invalid(entry, "is longer than " + std::to_string(MaxRawEntryLength) + " characters");
    CORDON_TRY(checkHostCharacters(entry, entry));

    const Result<HostPortText> split = splitHostPort(entry);
    if (!split)
        return invalid(entry, split.error().message());
    std::string_view hostText = split->host;

    DomainRule rule;
    if (entry.starts_with(':') || (split->port && split->port->empty()))
        return invalid(entry, "expected host:port");
    if (split->port) {
        const std::optional<std::uint16_t> port = parsePortNumber(*split->port);
        if (!port)
            return invalid(entry, "the port must be a number between 1 and 65535");
        rule.ports = {*port};
    }

    if (hostText == "*")
        return invalid(entry, "a bare \"*\" would allow every host; list the domains instead");
    if (hostText.starts_with("*.")) {
        rule.wildcard = true;
        hostText.remove_prefix(2);
        if (hostText.empty())
            return invalid(entry, "\"*.\" needs a domain after it");
    }
    Result<std::string> host = normaliseHostFor(hostText, entry);
    if (!host)
        return fail(host.error());
    rule.host = std::move(*host);
    if (rule.wildcard && rule.isIpLiteral())
        return invalid(entry, "a wildcard cannot apply to an IP address");
    if (rule.wildcard && rule.host.find('.') == std::string::npos)
        return invalid(entry, "a wildcard needs at least two labels after \"*.\", as in \"*.example.org\"");
    return rule;
}

Result<std::string> checkPathPrefix(std::string_view prefix)
{
    const auto bad = [&](std::string_view why) {
        return fail("policy.invalid_domain",
                    "path prefix " + quoteUntrusted(prefix) + ": " + std::string(why));
    };
    if (!prefix.starts_with('/'))
        return bad("must start with \"/\"");
    if (codePointCount(prefix) > MaxPathPrefixLength)
        return bad("must be at most " + std::to_string(MaxPathPrefixLength) + " characters");
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        const char c = prefix[i];
        if (c == '%') {
            if (i + 2 >= prefix.size() || !isAsciiHex(prefix[i + 1]) || !isAsciiHex(prefix[i + 2]))
                return bad("\"%\" must start a %XX escape");
            continue;
        }
        if (!isPathCharacter(c))
            return bad("may only contain URL path characters (no spaces, \"?\", \"#\", \"\\\" or non-ASCII)");
    }
    // "/simple/../admin" starts with "/simple/" as a string but not as a path.
    for (std::string_view segment : split(prefix, '/')) {
        if (segment == "." || segment == "..")
            return bad("must not contain \".\" or \"..\" segments");
    }
    return std::string(prefix);
}

Result<DomainRule> normaliseDomainRule(DomainRule rule)
{
    const std::string shown = rule.pattern();
    const Result<DomainRule> parsed = parseDomainRule(shown);
    if (!parsed)
        return fail(parsed.error());
    if (!parsed->ports.empty())
        return invalid(shown, "put the port in \"ports\", not in the domain");
    rule.host = parsed->host;
    rule.wildcard = parsed->wildcard;

    if (rule.ports.size() > MaxRulePorts)
        return invalid(shown, "at most " + std::to_string(MaxRulePorts) + " ports");
    if (std::find(rule.ports.begin(), rule.ports.end(), 0) != rule.ports.end())
        return invalid(shown, "the port must be a number between 1 and 65535");
    std::sort(rule.ports.begin(), rule.ports.end());
    if (const auto repeated = std::adjacent_find(rule.ports.begin(), rule.ports.end());
        repeated != rule.ports.end())
        return invalid(shown, "port " + std::to_string(*repeated) + " is listed twice");

    const std::vector<std::string> &known = knownHttpMethods();
    for (std::string &method : rule.methods) {
        std::string upper = method;
        for (char &c : upper) {
            if (c >= 'a' && c <= 'z')
                c = static_cast<char>(c - 'a' + 'A');
        }
        if (std::find(known.begin(), known.end(), upper) == known.end()) {
            std::string list;
            for (const std::string &name : known)
                list += (list.empty() ? "" : ", ") + name;
            return invalid(shown, "unknown HTTP method " + quoteUntrusted(method) + " (known: " + list + ")");
        }
        method = std::move(upper);
    }
    std::sort(rule.methods.begin(), rule.methods.end());
    if (std::adjacent_find(rule.methods.begin(), rule.methods.end()) != rule.methods.end())
        return invalid(shown, "an HTTP method is listed twice");

    if (rule.pathPrefixes.size() > MaxRulePathPrefixes)
        return invalid(shown, "at most " + std::to_string(MaxRulePathPrefixes) + " path prefixes");
    for (const std::string &prefix : rule.pathPrefixes) {
        const Result<std::string> checked = checkPathPrefix(prefix);
        if (!checked)
            return invalid(shown, checked.error().message());
    }
    std::sort(rule.pathPrefixes.begin(), rule.pathPrefixes.end());
    if (std::adjacent_find(rule.pathPrefixes.begin(), rule.pathPrefixes.end()) != rule.pathPrefixes.end())
        return invalid(shown, "a path prefix is listed twice");
    return rule;
}

} // namespace Cordon::Policy
