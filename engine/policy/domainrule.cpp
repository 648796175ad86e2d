// SPDX-License-Identifier: MIT
#include "policy/domainrule.h"

#include "policy/jsonfields.h"

#include <QUrl>

#include <arpa/inet.h>

#include <algorithm>
#include <array>

namespace Cordon::Policy {

namespace {

// Longest raw entry we look at: a 253-character name plus brackets and ":65535", with room for Unicode
// spellings.
constexpr qsizetype MaxRawEntryLength = 512;

tl::unexpected<Error> invalid(const QString &text, const QString &why)
{
    return fail(QStringLiteral("policy.invalid_domain"), Json::quoted(text) + QStringLiteral(": ") + why);
}

bool isAsciiDigit(QChar c)
{
    return c.unicode() >= u'0' && c.unicode() <= u'9';
}

bool isAsciiHex(QChar c)
{
    // isxdigit() is undefined for values outside unsigned char, and QChar::isDigit() accepts non-ASCII
    // digits.
    const char16_t u = c.unicode();
    return (u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'f') || (u >= u'A' && u <= u'F');
}

bool allAsciiDigits(QStringView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), isAsciiDigit);
}

// Characters refused anywhere in an entry, with the reason a person needs to fix it. They are checked before
// IDNA and again after it, because NFKC maps look-alikes ("＠", "／", full-width spaces) onto them.
Result<void> checkHostCharacters(const QString &text, const QString &shown)
{
    if (!QStringView(text).isValidUtf16())
        return invalid(shown, QStringLiteral("contains an invalid character"));
    if (text.contains(QLatin1StringView("://")))
        return invalid(shown, QStringLiteral("write the host name without a scheme (no \"https://\")"));
    for (QChar c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || (u >= 0x7f && u <= 0x9f))
            return invalid(shown, QStringLiteral("contains a control character"));
        if (c.isSpace() || c.category() == QChar::Separator_Space || c.category() == QChar::Separator_Line ||
            c.category() == QChar::Separator_Paragraph)
            return invalid(shown, QStringLiteral("contains whitespace"));
        if (c.category() == QChar::Other_Format)
            return invalid(shown, QStringLiteral("contains an invisible formatting character"));
        switch (u) {
        case u'@':
            return invalid(shown, QStringLiteral("user info (\"user@\") is not allowed"));
        case u'/':
            return invalid(shown,
                           QStringLiteral("paths are not allowed; use path_prefixes in the object form"));
        case u'\\':
            return invalid(shown, QStringLiteral("backslashes are not allowed"));
        case u'%':
            return invalid(shown, QStringLiteral("percent-encoding and IPv6 zone ids are not allowed"));
        case u'?':
        case u'#':
            return invalid(shown, QStringLiteral("queries and fragments are not allowed"));
        default:
            break;
        }
    }
    return {};
}

// WHATWG URL: a host whose last label is a decimal or 0x-hex number is parsed as IPv4 by browsers and by
// inet_aton, which also accept "127.1", "0x7f000001", "2130706433" and "0177.0.0.1" for 127.0.0.1.
bool endsInNumber(const QString &host)
{
    const QStringView last = QStringView(host).sliced(host.lastIndexOf(u'.') + 1);
    if (allAsciiDigits(last))
        return true;
    if (last.size() >= 2 && last[0] == u'0' && (last[1] == u'x' || last[1] == u'X'))
        return std::all_of(last.begin() + 2, last.end(), isAsciiHex);
    return false;
}

// Exactly four decimal octets 0..255 without leading zeros: the one spelling everyone parses the same way.
bool isCanonicalIpv4(const QString &host)
{
    const QStringList parts = host.split(u'.');
    if (parts.size() != 4)
        return false;
    for (const QString &part : parts) {
        if (!allAsciiDigits(part) || part.size() > 3 || (part.size() > 1 && part.startsWith(u'0')) ||
            part.toInt() > 255)
            return false;
    }
    return true;
}

Result<QString> normaliseIpv6(const QString &text, const QString &shown)
{
    if (!text.endsWith(u']'))
        return invalid(shown, QStringLiteral("missing \"]\" after an IPv6 address"));
    const QString inner = text.mid(1, text.size() - 2);
    std::array<unsigned char, 16> address{};
    const QByteArray latin = inner.toLatin1();
    bool plain = !inner.isEmpty();
    for (QChar c : inner)
        plain = plain && (isAsciiHex(c) || c == u':' || c == u'.');
    if (!plain || inet_pton(AF_INET6, latin.constData(), address.data()) != 1)
        return invalid(shown, QStringLiteral("is not a valid IPv6 address"));
    const bool firstTenZero =
        std::all_of(address.begin(), address.begin() + 10, [](unsigned char b) { return b == 0; });
    if (std::all_of(address.begin(), address.end(), [](unsigned char b) { return b == 0; }))
        return invalid(shown, QStringLiteral("the unspecified address cannot be a destination"));
    // ::ffff:a.b.c.d and ::a.b.c.d are IPv4 addresses in disguise ("[::ffff:a9fe:a9fe]" is 169.254.169.254).
    if (firstTenZero && address[10] == 0xff && address[11] == 0xff)
        return invalid(shown, QStringLiteral("IPv4-mapped IPv6 address: write the IPv4 address as a.b.c.d"));
    if (firstTenZero && address[10] == 0 && address[11] == 0 &&
        !(address[12] == 0 && address[13] == 0 && address[14] == 0))
        return invalid(shown,
                       QStringLiteral("IPv4-compatible IPv6 address: write the IPv4 address as a.b.c.d"));
    char buffer[INET6_ADDRSTRLEN] = {};
    if (!inet_ntop(AF_INET6, address.data(), buffer, sizeof buffer))
        return invalid(shown, QStringLiteral("is not a valid IPv6 address"));
    return u'[' + QString::fromLatin1(buffer) + u']';
}

// Why QUrl::toAce refused a name, in words; it only says "no".
QString aceFailureReason(const QString &text)
{
    QString name = text;
    if (name.endsWith(u'.'))
        name.chop(1);
    if (name.size() > MaxHostNameLength)
        return QStringLiteral("is longer than %1 characters").arg(MaxHostNameLength);
    for (const QString &label : name.split(u'.')) {
        if (label.isEmpty())
            return QStringLiteral("has an empty label");
        if (label.size() > MaxLabelLength)
            return QStringLiteral("has a label longer than %1 characters").arg(MaxLabelLength);
        if (label.startsWith(u'-') || label.endsWith(u'-'))
            return QStringLiteral("has a label that starts or ends with \"-\"");
    }
    return QStringLiteral("is not a valid internationalised domain name");
}

bool isPathCharacter(QChar c)
{
    // RFC 3986 pchar and "/": unreserved, sub-delims, ":", "@" (percent-encoding is checked separately).
    const char16_t u = c.unicode();
    if ((u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9'))
        return true;
    return u < 0x80 && QByteArrayView("-._~!$&'()*+,;=:@/").contains(char(u));
}

// shown is the whole entry as the person wrote it, so that messages quote what they typed.
Result<QString> normaliseHostFor(const QString &text, const QString &shown)
{
    if (text.isEmpty())
        return invalid(shown, QStringLiteral("the host name is empty"));
    if (text.size() > MaxRawEntryLength)
        return invalid(shown, QStringLiteral("is longer than %1 characters").arg(MaxRawEntryLength));
    CORDON_TRY(checkHostCharacters(text, shown));
    if (text.startsWith(u'['))
        return normaliseIpv6(text, shown);
    if (text.contains(u'[') || text.contains(u']'))
        return invalid(shown, QStringLiteral("brackets are only allowed around a whole IPv6 address"));
    if (text.contains(u'*'))
        return invalid(
            shown,
            QStringLiteral("a wildcard is only allowed as a whole leftmost label, as in \"*.example.org\""));
    if (text.contains(u':'))
        return invalid(shown, QStringLiteral("write IPv6 addresses in brackets, as in \"[2001:db8::1]\""));

    const bool ascii = std::all_of(text.begin(), text.end(), [](QChar c) { return c.unicode() < 0x80; });
    // UTS #46 mapping and Punycode; it lower-cases, maps full-width dots and digits, and refuses what IDNA
    // refuses.
    const QByteArray ace = QUrl::toAce(text);
    if (ace.isEmpty())
        return invalid(shown, aceFailureReason(text));
    QString host = QString::fromLatin1(ace).toLower();
    if (host.endsWith(u'.'))
        host.chop(1);
    CORDON_TRY(checkHostCharacters(host, shown));

    const QStringList labels = host.split(u'.');
    for (const QString &label : labels) {
        if (label.isEmpty())
            return invalid(shown, QStringLiteral("has an empty label"));
        if (label.size() > MaxLabelLength)
            return invalid(shown,
                           QStringLiteral("has a label longer than %1 characters").arg(MaxLabelLength));
        if (label.startsWith(u'-') || label.endsWith(u'-'))
            return invalid(shown, QStringLiteral("has a label that starts or ends with \"-\""));
        for (QChar c : label) {
            const char16_t u = c.unicode();
            if (!((u >= u'a' && u <= u'z') || (u >= u'0' && u <= u'9') || u == u'-' || u == u'_'))
                return invalid(shown, QStringLiteral("contains the character %1, not allowed in a host name")
                                          .arg(Json::quoted(QString(c))));
        }
    }
    if (host.size() > MaxHostNameLength)
        return invalid(shown, QStringLiteral("is longer than %1 characters").arg(MaxHostNameLength));

    if (endsInNumber(host)) {
        if (!isCanonicalIpv4(host))
            return invalid(
                shown, QStringLiteral("is not a canonical IPv4 address (alternate encodings such as 127.1, "
                                      "0x7f000001, 2130706433 or 0177.0.0.1 are refused; write a.b.c.d "
                                      "in decimal)"));
        if (!ascii)
            return invalid(shown,
                           QStringLiteral("IPv4 addresses must be written with ASCII digits and dots"));
        if (host == u"0.0.0.0")
            return invalid(shown, QStringLiteral("the unspecified address cannot be a destination"));
    }
    return host;
}

} // namespace

bool DomainRule::matchesHost(const QString &normalisedHost) const
{
    if (host.isEmpty())
        return false;
    if (!wildcard)
        return normalisedHost == host;
    // Never endsWith(host) alone: "*.example.org" must not match "evilexample.org" or "example.org".
    const qsizetype dot = normalisedHost.size() - host.size() - 1;
    return dot > 0 && normalisedHost.endsWith(host) && normalisedHost.at(dot) == u'.';
}

QList<quint16> DomainRule::effectivePorts() const
{
    return ports.isEmpty() ? QList<quint16>{80, 443} : ports;
}

bool DomainRule::matchesPort(quint16 port) const
{
    return effectivePorts().contains(port);
}

bool DomainRule::isIpLiteral() const
{
    return host.startsWith(u'[') || isCanonicalIpv4(host);
}

QString DomainRule::pattern() const
{
    return wildcard ? QStringLiteral("*.") + host : host;
}

QStringList knownHttpMethods()
{
    return {QStringLiteral("GET"),    QStringLiteral("HEAD"),  QStringLiteral("POST"),
            QStringLiteral("PUT"),    QStringLiteral("PATCH"), QStringLiteral("DELETE"),
            QStringLiteral("OPTIONS")};
}

Result<QString> normaliseHost(const QString &host)
{
    return normaliseHostFor(host, host);
}

Result<HostPortText> splitHostPort(QStringView text)
{
    const auto refuse = [](const QString &why) { return fail(QStringLiteral("policy.invalid_domain"), why); };
    if (text.startsWith(u'[')) {
        const qsizetype close = text.indexOf(u']');
        if (close < 0)
            return refuse(QStringLiteral("missing \"]\" after an IPv6 address"));
        const QStringView rest = text.sliced(close + 1);
        if (!rest.isEmpty() && !rest.startsWith(u':'))
            return refuse(QStringLiteral("only \":port\" may follow \"]\""));
        return HostPortText{text.first(close + 1), rest.isEmpty() ? QStringView() : rest.sliced(1)};
    }
    const qsizetype colons = text.count(u':');
    if (colons > 1)
        return refuse(QStringLiteral("write IPv6 addresses in brackets, as in \"[2001:db8::1]\""));
    if (colons == 0)
        return HostPortText{text, QStringView()};
    const qsizetype colon = text.indexOf(u':');
    // sliced() of the end is empty but not null: "host:" has an empty port, "host" none.
    return HostPortText{text.first(colon), text.sliced(colon + 1)};
}

std::optional<quint16> parsePortNumber(QStringView text)
{
    if (!allAsciiDigits(text) || text.size() > 5 || text.startsWith(u'0') || text.toInt() > 65535)
        return std::nullopt;
    return static_cast<quint16>(text.toInt());
}

Result<DomainRule> parseDomainRule(const QString &entry)
{
    if (entry.size() > MaxRawEntryLength)
        return invalid(entry, QStringLiteral("is longer than %1 characters").arg(MaxRawEntryLength));
    CORDON_TRY(checkHostCharacters(entry, entry));

    const Result<HostPortText> split = splitHostPort(entry);
    if (!split)
        return invalid(entry, toQt(split.error().message()));
    QString hostText = split->host.toString();
    const QStringView portText = split->port;

    DomainRule rule;
    if (entry.startsWith(u':') || (!portText.isNull() && portText.isEmpty()))
        return invalid(entry, QStringLiteral("expected host:port"));
    if (!portText.isNull()) {
        const std::optional<quint16> port = parsePortNumber(portText);
        if (!port)
            return invalid(entry, QStringLiteral("the port must be a number between 1 and 65535"));
        rule.ports = {*port};
    }

    if (hostText == u"*")
        return invalid(entry,
                       QStringLiteral("a bare \"*\" would allow every host; list the domains instead"));
    if (hostText.startsWith(QLatin1StringView("*."))) {
        rule.wildcard = true;
        hostText = hostText.sliced(2);
        if (hostText.isEmpty())
            return invalid(entry, QStringLiteral("\"*.\" needs a domain after it"));
    }
    const Result<QString> host = normaliseHostFor(hostText, entry);
    if (!host)
        return fail(host.error());
    rule.host = *host;
    if (rule.wildcard && rule.isIpLiteral())
        return invalid(entry, QStringLiteral("a wildcard cannot apply to an IP address"));
    if (rule.wildcard && !rule.host.contains(u'.'))
        return invalid(
            entry,
            QStringLiteral("a wildcard needs at least two labels after \"*.\", as in \"*.example.org\""));
    return rule;
}

Result<QString> checkPathPrefix(const QString &prefix)
{
    auto bad = [&](const QString &why) {
        return fail(QStringLiteral("policy.invalid_domain"),
                    QStringLiteral("path prefix ") + Json::quoted(prefix) + QStringLiteral(": ") + why);
    };
    if (!prefix.startsWith(u'/'))
        return bad(QStringLiteral("must start with \"/\""));
    if (prefix.size() > MaxPathPrefixLength)
        return bad(QStringLiteral("must be at most %1 characters").arg(MaxPathPrefixLength));
    for (qsizetype i = 0; i < prefix.size(); ++i) {
        const QChar c = prefix.at(i);
        if (c == u'%') {
            if (i + 2 >= prefix.size() || !isAsciiHex(prefix.at(i + 1)) || !isAsciiHex(prefix.at(i + 2)))
                return bad(QStringLiteral("\"%\" must start a %XX escape"));
            continue;
        }
        if (!isPathCharacter(c))
            return bad(QStringLiteral(
                "may only contain URL path characters (no spaces, \"?\", \"#\", \"\\\" or non-ASCII)"));
    }
    // "/simple/../admin" starts with "/simple/" as a string but not as a path.
    for (const QString &segment : prefix.split(u'/')) {
        if (segment == u"." || segment == u"..")
            return bad(QStringLiteral("must not contain \".\" or \"..\" segments"));
    }
    return prefix;
}

Result<DomainRule> normaliseDomainRule(DomainRule rule)
{
    const QString shown = rule.pattern();
    const Result<DomainRule> parsed = parseDomainRule(shown);
    if (!parsed)
        return fail(parsed.error());
    if (!parsed->ports.isEmpty())
        return invalid(shown, QStringLiteral("put the port in \"ports\", not in the domain"));
    rule.host = parsed->host;
    rule.wildcard = parsed->wildcard;

    if (rule.ports.size() > MaxRulePorts)
        return invalid(shown, QStringLiteral("at most %1 ports").arg(MaxRulePorts));
    for (quint16 port : std::as_const(rule.ports)) {
        if (port == 0)
            return invalid(shown, QStringLiteral("the port must be a number between 1 and 65535"));
    }
    std::sort(rule.ports.begin(), rule.ports.end());
    if (std::adjacent_find(rule.ports.begin(), rule.ports.end()) != rule.ports.end())
        return invalid(shown, QStringLiteral("port %1 is listed twice")
                                  .arg(*std::adjacent_find(rule.ports.begin(), rule.ports.end())));

    const QStringList known = knownHttpMethods();
    for (QString &method : rule.methods) {
        const QString upper = method.toUpper();
        if (!known.contains(upper))
            return invalid(shown, QStringLiteral("unknown HTTP method %1 (known: %2)")
                                      .arg(Json::quoted(method), known.join(QStringLiteral(", "))));
        method = upper;
    }
    rule.methods.sort();
    if (rule.methods.removeDuplicates() > 0)
        return invalid(shown, QStringLiteral("an HTTP method is listed twice"));

    if (rule.pathPrefixes.size() > MaxRulePathPrefixes)
        return invalid(shown, QStringLiteral("at most %1 path prefixes").arg(MaxRulePathPrefixes));
    for (const QString &prefix : std::as_const(rule.pathPrefixes)) {
        const Result<QString> checked = checkPathPrefix(prefix);
        if (!checked)
            return invalid(shown, toQt(checked.error().message()));
    }
    rule.pathPrefixes.sort();
    if (rule.pathPrefixes.removeDuplicates() > 0)
        return invalid(shown, QStringLiteral("a path prefix is listed twice"));
    return rule;
}

} // namespace Cordon::Policy
