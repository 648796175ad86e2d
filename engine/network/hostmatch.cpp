// SPDX-License-Identifier: MIT
#include "network/hostmatch.h"

#include "sandbox/quoteuntrusted.h"
#include "sandbox/utf8.h"

namespace Cordon::Network {

namespace {

// A 253-character name, brackets, ":65535", with room for a Unicode spelling that IDNA shortens.
constexpr qsizetype MaxAuthorityBytes = 512;

tl::unexpected<Error> badAuthority(QByteArrayView text, const QString &why)
{
    return fail(QStringLiteral("network.bad_authority"),
                toQt(quoteUntrusted(toPlain(text))) + QStringLiteral(": ") + why);
}

// Segments a server may resolve after the proxy compared the path: "..", ".", their percent-encoded forms,
// Tomcat's "..;x" path parameters, encoded separators and NUL.
bool isAmbiguousPath(const QString &path)
{
    const QString lower = path.toLower();
    if (lower.contains(u'\\') || lower.contains(QLatin1StringView("%2f")) ||
        lower.contains(QLatin1StringView("%5c")) || lower.contains(QLatin1StringView("%00")))
        return true;
    for (QString segment : lower.split(u'/')) {
        const qsizetype parameters = segment.indexOf(u';');
        if (parameters >= 0)
            segment.truncate(parameters);
        segment.replace(QLatin1StringView("%2e"), QLatin1StringView("."));
        if (segment == u"." || segment == u"..")
            return true;
    }
    return false;
}

} // namespace

bool Authority::isIpLiteral() const
{
    Policy::DomainRule rule;
    rule.host = toPlain(host);
    return rule.isIpLiteral();
}

QString Authority::toString() const
{
    return host + u':' + QString::number(port);
}

QString Authority::hostHeader(quint16 defaultPort) const
{
    return port == defaultPort ? host : toString();
}

Result<Authority> parseAuthority(QByteArrayView text, std::optional<quint16> defaultPort)
{
    if (text.isEmpty())
        return badAuthority(text, QStringLiteral("the host is empty"));
    if (text.size() > MaxAuthorityBytes)
        return badAuthority(text, QStringLiteral("is longer than %1 bytes").arg(MaxAuthorityBytes));
    // Checked on the raw bytes, before anything decodes them: "allowed@evil", "evil\@allowed" and "%2e" are
    // where URL parsers disagree (Orange Tsai, "A New Era of SSRF"; CVE-2026-46526).
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f)
            return badAuthority(text, QStringLiteral("contains a control character"));
        switch (c) {
        case ' ':
            return badAuthority(text, QStringLiteral("contains whitespace"));
        case '@':
            return badAuthority(text, QStringLiteral("user info (\"user@\") is not allowed"));
        case '\\':
            return badAuthority(text, QStringLiteral("backslashes are not allowed"));
        case '%':
            return badAuthority(text, QStringLiteral("percent-encoding and zone ids are not allowed"));
        case '/':
        case '?':
        case '#':
            return badAuthority(text, QStringLiteral("is not a bare host and port"));
        default:
            break;
        }
    }
    const std::string_view utf8 = toPlain(text);
    if (!isValidUtf8(utf8))
        return badAuthority(text, QStringLiteral("is not valid UTF-8"));

    const Result<Policy::HostPortText> split = Policy::splitHostPort(utf8);
    if (!split)
        return badAuthority(text, toQt(split.error().message()));

    Authority authority;
    if (!split->port) {
        if (!defaultPort)
            return badAuthority(text, QStringLiteral("a port is required (host:port)"));
        authority.port = *defaultPort;
    } else {
        const std::optional<quint16> port = Policy::parsePortNumber(*split->port);
        if (!port)
            return badAuthority(text, QStringLiteral("the port must be a number between 1 and 65535"));
        authority.port = *port;
    }

    if (split->host.empty())
        return badAuthority(text, QStringLiteral("the host is empty"));
    const Result<std::string> host = Policy::normaliseHost(split->host);
    if (!host)
        return fail(QStringLiteral("network.bad_authority"), toQt(host.error().message()));
    authority.host = QString::fromLatin1(host->data(), static_cast<qsizetype>(host->size()));
    return authority;
}

bool ruleMatches(const Policy::DomainRule &rule, const Target &target)
{
    if (target.host.isEmpty() || target.port == 0)
        return false;
    // An IP literal is only ever matched by a rule that names exactly that address (Infisical cli#335,
    // langchain docs#5943): never by a wildcard, never by a name that resolves to it.
    Policy::DomainRule literal;
    literal.host = toPlain(target.host);
    if (literal.isIpLiteral() && (rule.wildcard || rule.host != literal.host))
        return false;
    if (!rule.matchesHost(literal.host) || !rule.matchesPort(target.port))
        return false;
    if (target.isTunnel())
        return target.terminated || (rule.methods.empty() && rule.pathPrefixes.empty());
    if (!rule.methods.empty() &&
        std::find(rule.methods.begin(), rule.methods.end(), toPlain(target.method)) == rule.methods.end())
        return false;
    if (rule.pathPrefixes.empty())
        return true;
    const QString path = target.path.isEmpty() ? QStringLiteral("/") : target.path;
    if (isAmbiguousPath(path))
        return false;
    const std::string plainPath = toPlain(path);
    return std::any_of(rule.pathPrefixes.begin(), rule.pathPrefixes.end(),
                       [&](const std::string &prefix) { return plainPath.starts_with(prefix); });
}

const Policy::DomainRule *findMatchingRule(const std::vector<Policy::DomainRule> &rules, const Target &target)
{
    for (const Policy::DomainRule &rule : rules) {
        if (ruleMatches(rule, target))
            return &rule;
    }
    return nullptr;
}

} // namespace Cordon::Network
