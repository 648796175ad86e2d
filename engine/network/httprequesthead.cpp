// SPDX-License-Identifier: MIT
// What a request head must be for the proxy to act on it, and the head it sends upstream.
#include "network/httprequesthead_p.h"

#include "core/plainbridge.h"
#include "sandbox/quoteuntrusted.h"

#include <QSet>

#include <http_parser.h>

namespace Cordon::Network {

namespace {

// Longest Content-Length we read: 18 digits stay below 2^63.
constexpr qsizetype MaxContentLengthDigits = 18;

tl::unexpected<Error> badRequest(const QString &why)
{
    return fail(QStringLiteral("network.bad_request"), why);
}

tl::unexpected<Error> refused(const QString &why)
{
    return fail(QStringLiteral("network.request_refused"), why);
}

QString shown(QByteArrayView bytes)
{
    return toQt(quoteUntrusted(toPlain(bytes)));
}

bool isTchar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

QByteArray trimmedValue(QByteArrayView value)
{
    qsizetype begin = 0;
    qsizetype end = value.size();
    while (begin < end && (value[begin] == ' ' || value[begin] == '\t'))
        ++begin;
    while (end > begin && (value[end - 1] == ' ' || value[end - 1] == '\t'))
        --end;
    return value.sliced(begin, end - begin).toByteArray();
}

bool sameIgnoringCase(QByteArrayView a, QByteArrayView b)
{
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

// Fields that describe one hop, not the request; the upstream gets its own. Host and the framing fields are
// rebuilt from what was checked.
const QSet<QByteArray> &hopByHopFields()
{
    static const QSet<QByteArray> fields{"connection",
                                         "proxy-connection",
                                         "keep-alive",
                                         "te",
                                         "trailer",
                                         "upgrade",
                                         "host",
                                         "transfer-encoding",
                                         "content-length",
                                         "proxy-authorization",
                                         "proxy-authenticate"};
    return fields;
}

Result<void> checkAgainstUrlParser(const QByteArray &url, const Authority &authority)
{
    // A second opinion from libhttp-parser's own URL parser: if it splits the URI differently from
    // parseAuthority (userinfo, an odd character), the URI is ambiguous and refused.
    http_parser_url parts;
    http_parser_url_init(&parts);
    if (http_parser_parse_url(url.constData(), size_t(url.size()), 0, &parts) != 0)
        return badRequest(QStringLiteral("malformed request URI ") + shown(url));
    if (parts.field_set & (1 << UF_USERINFO))
        return refused(QStringLiteral("user info in the request URI is not allowed"));
    if (!(parts.field_set & (1 << UF_HOST)))
        return badRequest(QStringLiteral("the request URI has no host"));
    QString host = QString::fromLatin1(url.mid(parts.field_data[UF_HOST].off, parts.field_data[UF_HOST].len));
    if (host.contains(u':'))
        host = u'[' + host + u']';
    const Result<std::string> normalised = Policy::normaliseHost(toPlain(host));
    const quint16 port = (parts.field_set & (1 << UF_PORT)) ? parts.port : 80;
    if (!normalised || toQt(*normalised) != authority.host || port != authority.port)
        return badRequest(QStringLiteral("ambiguous request URI ") + shown(url));
    return {};
}

Result<void> checkHostField(const std::optional<QByteArray> &value, const Authority &authority,
                            quint16 defaultPort, const QString &against)
{
    if (!value)
        return {};
    // Routing by Host instead of the target let scripts reach arbitrary hosts through proxies (CVE-2009-0801,
    // Squid host_verify_strict).
    const Result<Authority> host = parseAuthority(*value, defaultPort);
    if (!host || *host != authority)
        return refused(QStringLiteral("the Host field %1 disagrees with the %2 %3")
                           .arg(shown(*value), against, authority.toString()));
    return {};
}

// A request inside a terminated tunnel: "/path?query" to the tunnel's host, which its Host field must name.
Result<HttpRequestHead> checkTunnelledHead(HttpRequestHead head, const RawHead &raw,
                                           const std::optional<QByteArray> &host, const Authority &tunnel)
{
    if (head.isConnect())
        return refused(QStringLiteral("CONNECT inside a tunnel is not allowed"));
    if (!raw.url.startsWith('/'))
        return badRequest(
            QStringLiteral("request target %1 inside the tunnel to %2: send origin-form (/path)")
                .arg(shown(raw.url), tunnel.toString()));
    if (raw.url.contains('#'))
        return badRequest(QStringLiteral("a fragment in the request target"));
    if (!host && head.versionMinor == 1)
        return badRequest(QStringLiteral("an HTTP/1.1 request without a Host field"));
    CORDON_TRY(checkHostField(host, tunnel, 443, QStringLiteral("tunnel to")));
    head.authority = tunnel;
    head.defaultPort = 443;
    head.originForm = raw.url;
    const qsizetype query = raw.url.indexOf('?');
    head.path = QString::fromLatin1(query < 0 ? raw.url : raw.url.left(query));
    return head;
}

} // namespace

Result<HttpRequestHead> checkRequestHead(const RawHead &raw, const std::optional<Authority> &tunnel)
{
    if (raw.versionMajor != 1 || raw.versionMinor > 1)
        return badRequest(QStringLiteral("HTTP version %1.%2 is not supported (only HTTP/1.0 and HTTP/1.1)")
                              .arg(raw.versionMajor)
                              .arg(raw.versionMinor));
    // libhttp-parser accepts several spaces between the parts and a tab inside the target; the request line
    // must be exactly "METHOD SP target SP HTTP/1.x".
    const QByteArray expected =
        raw.method + ' ' + raw.url + " HTTP/1." + QByteArray::number(raw.versionMinor);
    if (raw.requestLine != expected)
        return badRequest(QStringLiteral("malformed request line ") + shown(raw.requestLine));
    for (char c : raw.url) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f)
            return badRequest(
                QStringLiteral("control character, space or non-ASCII byte in the request target"));
        if (c == '\\')
            return badRequest(QStringLiteral("backslash in the request target"));
    }

    HttpRequestHead head;
    head.method = raw.method;
    head.target = raw.url;
    head.versionMinor = raw.versionMinor;
    head.keepAlive = raw.keepAlive;
    const bool connect = head.isConnect();
    const std::vector<std::string> &methods = Policy::knownHttpMethods();
    if (!connect && std::find(methods.begin(), methods.end(), raw.method.toStdString()) == methods.end())
        return refused(QStringLiteral("method %1 not allowed through the sandbox proxy")
                           .arg(QString::fromLatin1(raw.method)));

    std::optional<QByteArray> host;
    std::optional<QByteArray> contentLength;
    std::optional<QByteArray> transferEncoding;
    bool upgradeField = false;
    for (const HttpHeader &field : raw.headers) {
        if (field.name.isEmpty() || !std::all_of(field.name.begin(), field.name.end(), isTchar))
            return badRequest(QStringLiteral("malformed header field name ") + shown(field.name));
        const QByteArray value = trimmedValue(field.value);
        for (char c : value) {
            const auto u = static_cast<unsigned char>(c);
            if ((u < 0x20 && c != '\t') || u == 0x7f)
                return badRequest(QStringLiteral("control character in header field ") + shown(field.name));
        }
        const QByteArray name = field.name.toLower();
        const auto once = [&](std::optional<QByteArray> &slot) -> Result<void> {
            if (slot)
                return badRequest(
                    QStringLiteral("more than one %1 field").arg(QString::fromLatin1(field.name)));
            slot = value;
            return {};
        };
        if (name == "host")
            CORDON_TRY(once(host));
        else if (name == "content-length")
            CORDON_TRY(once(contentLength));
        else if (name == "transfer-encoding")
            CORDON_TRY(once(transferEncoding));
        else if (name == "upgrade")
            upgradeField = true;
        head.headers.append({field.name, value});
    }

    // Both framings in one message is the classic smuggling vector (RFC 9112 6.3: a proxy must not forward
    // it; CL.TE and TE.CL desync).
    if (contentLength && transferEncoding)
        return badRequest(QStringLiteral("both Content-Length and Transfer-Encoding (request smuggling)"));
    if (transferEncoding) {
        if (!sameIgnoringCase(*transferEncoding, "chunked") || !raw.parserChunked)
            return badRequest(QStringLiteral("Transfer-Encoding %1 is not supported (only chunked)")
                                  .arg(shown(*transferEncoding)));
        head.body = HttpRequestHead::Body::Chunked;
    }
    if (contentLength) {
        const bool digits = std::all_of(contentLength->begin(), contentLength->end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
        if (contentLength->isEmpty() || !digits || contentLength->size() > MaxContentLengthDigits)
            return badRequest(QStringLiteral("invalid Content-Length ") + shown(*contentLength));
        head.body = HttpRequestHead::Body::ContentLength;
        head.contentLength = contentLength->toULongLong();
    }
    if (!connect && (raw.upgrade || upgradeField))
        return refused(
            QStringLiteral("protocol upgrades (Upgrade: websocket) are not supported; use wss:// or "
                           "https://, which go through CONNECT"));

    if (tunnel)
        return checkTunnelledHead(std::move(head), raw, host, *tunnel);
    if (connect) {
        if (head.body != HttpRequestHead::Body::None)
            return badRequest(QStringLiteral("a CONNECT request must not have a body"));
        Result<Authority> authority = parseAuthority(raw.url);
        if (!authority)
            return fail(authority.error());
        head.authority = *authority;
        CORDON_TRY(
            checkHostField(host, head.authority, head.authority.port, QStringLiteral("CONNECT target")));
        return head;
    }

    if (raw.url.startsWith('/') || raw.url == "*")
        return badRequest(
            QStringLiteral("origin-form request target %1: this is a proxy, send the absolute URI "
                           "(http://host/path)")
                .arg(shown(raw.url)));
    const qsizetype schemeEnd = raw.url.indexOf("://");
    if (schemeEnd <= 0)
        return badRequest(
            QStringLiteral("the request target %1 is not an absolute http:// URI").arg(shown(raw.url)));
    const QByteArray scheme = raw.url.left(schemeEnd).toLower();
    if (scheme == "https")
        return refused(
            QStringLiteral("https:// URIs are not fetched by the proxy; HTTPS goes through CONNECT"));
    if (scheme != "http")
        return refused(QStringLiteral("scheme %1 not allowed (only http:// and CONNECT)").arg(shown(scheme)));
    const QByteArray rest = raw.url.mid(schemeEnd + 3);
    qsizetype authorityEnd = rest.size();
    for (char stop : {'/', '?', '#'}) {
        const qsizetype at = rest.indexOf(stop);
        if (at >= 0)
            authorityEnd = std::min(authorityEnd, at);
    }
    QByteArray originForm = rest.mid(authorityEnd);
    if (originForm.contains('#'))
        return badRequest(QStringLiteral("a fragment in the request target"));
    Result<Authority> authority = parseAuthority(QByteArrayView(rest).first(authorityEnd), quint16(80));
    if (!authority)
        return fail(authority.error());
    head.authority = *authority;
    CORDON_TRY(checkAgainstUrlParser(raw.url, head.authority));
    if (originForm.isEmpty() || originForm.startsWith('?'))
        originForm.prepend('/');
    head.originForm = originForm;
    const qsizetype query = originForm.indexOf('?');
    head.path = QString::fromLatin1(query < 0 ? originForm : originForm.left(query));
    CORDON_TRY(checkHostField(host, head.authority, 80, QStringLiteral("request URI authority")));
    return head;
}

Target HttpRequestHead::policyTarget() const
{
    return Target{authority.host, authority.port, QString::fromLatin1(method), path};
}

QByteArray HttpRequestHead::upstreamHead() const
{
    QSet<QByteArray> dropped = hopByHopFields();
    for (const HttpHeader &field : headers) {
        if (sameIgnoringCase(field.name, "connection")) {
            for (const QByteArray &token : field.value.split(','))
                dropped.insert(trimmedValue(token).toLower());
        }
    }
    QByteArray out = method + ' ' + originForm + " HTTP/1." + QByteArray::number(versionMinor) + "\r\n";
    out += "Host: " + authority.hostHeader(defaultPort).toLatin1() + "\r\n";
    for (const HttpHeader &field : headers) {
        if (!dropped.contains(field.name.toLower()))
            out += field.name + ": " + field.value + "\r\n";
    }
    if (body == Body::ContentLength)
        out += "Content-Length: " + QByteArray::number(contentLength) + "\r\n";
    else if (body == Body::Chunked)
        out += "Transfer-Encoding: chunked\r\n";
    if (!keepAlive && versionMinor == 1)
        out += "Connection: close\r\n";
    out += "\r\n";
    return out;
}

} // namespace Cordon::Network
