// SPDX-License-Identifier: MIT
// The request reader of the forward proxy: libhttp-parser (Debian's libhttp-parser-dev) parses the grammar,
// and this class adds what a proxy needs on top and what that parser lets through: it refuses bare LF line
// endings, obs-fold, field names with whitespace before the colon ("Transfer-Encoding : chunked"), transfer
// codings other than chunked, Content-Length with Transfer-Encoding, duplicate or odd Content-Length, lines
// over 8 KiB, heads over 64 KiB or 100 fields, HTTP/0.9 and 2.0, origin-form targets, schemes other than
// http, and a Host header that disagrees with the target (SECURITY.md 2.6, 2.8, 2.9). Bodies are re-framed
// for the upstream from what this parser understood, so the upstream never sees framing we did not.
// Pure: bytes in, values out; no sockets.
#pragma once

#include "core/result.h"
#include "network/hostmatch.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <memory>
#include <optional>

namespace Cordon::Network {

constexpr qsizetype MaxHeadBytes = 64 * 1024;
constexpr qsizetype MaxLineBytes = 8 * 1024;
constexpr int MaxHeaderFields = 100;

struct HttpHeader
{
    QByteArray name;  // as sent: a token
    QByteArray value; // without leading and trailing whitespace
};

struct HttpRequestHead
{
    enum class Body
    {
        None,
        ContentLength,
        Chunked,
    };

    QByteArray method; // "GET", "CONNECT"
    QByteArray target; // the request-target as sent
    int versionMinor = 1;
    QList<HttpHeader> headers;
    // The CONNECT target, or the authority of the absolute URI (port 80 when it names none).
    Authority authority;
    // "/path?query" for the upstream; empty for CONNECT.
    QByteArray originForm;
    // The path without the query, as sent (percent-encoded), for path-prefix rules; empty for CONNECT.
    QString path;
    Body body = Body::None;
    quint64 contentLength = 0;
    // The port the scheme implies: 80, or 443 inside a terminated tunnel (Host leaves it out).
    quint16 defaultPort = 80;
    // The client lets the connection stay open after this exchange (HTTP/1.1 without "Connection: close").
    bool keepAlive = false;

    bool isConnect() const { return method == "CONNECT"; }
    // What the allowlist is asked about.
    Target policyTarget() const;
    // The head for the upstream in origin-form: the request line, Host from the checked authority, the
    // end-to-end fields in their order, and the framing of the re-framed body. Hop-by-hop fields (Connection
    // and the fields it names, Keep-Alive, Proxy-*, TE, Trailer, Upgrade) are dropped: Proxy-Authorization
    // would hand the sandbox's proxy credentials to the upstream.
    QByteArray upstreamHead() const;
};

class HttpRequestParser
{
public:
    enum class State
    {
        Head,   // reading a request head
        Body,   // head() is valid; reading its body
        Done,   // the request is complete; for keep-alive call next()
        Failed, // error() says why; the connection must be closed
    };

    HttpRequestParser();
    // A parser for the requests inside TLS that the proxy terminated for `tunnel`: origin-form targets, a
    // Host field naming the tunnel's authority, no CONNECT.
    explicit HttpRequestParser(const Authority &tunnel);
    ~HttpRequestParser();
    HttpRequestParser(const HttpRequestParser &) = delete;
    HttpRequestParser &operator=(const HttpRequestParser &) = delete;

    // Parses from the start of data and returns how many bytes it consumed; what it did not consume belongs
    // to a later state (body bytes after a head, the next request after a body, tunnel bytes after CONNECT).
    // Head: consumes up to the end of the head, then stops (Body, or Done without a body) or fails. Body:
    // consumes body bytes and appends them, framed again, to *forward; stops at the end of the body (Done).
    // Done and Failed consume nothing.
    qsizetype feed(QByteArrayView data, QByteArray *forward = nullptr);

    State state() const { return m_state; }
    // Valid in Body and Done.
    const HttpRequestHead &head() const { return m_head; }
    // Valid in Failed: network.bad_request (answer 400) for malformed and ambiguous messages,
    // network.request_refused or network.bad_authority (answer 403) for what policy forbids.
    const Error &error() const { return m_error; }
    // The request line as read so far (all of it once its line ended, at most the line-length limit), in
    // any state: what a record shows of a request that could not be parsed.
    QByteArray requestLine() const;
    // Starts the next request on a keep-alive connection. Only in Done, never after CONNECT.
    void next();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::optional<Authority> m_tunnel;
    State m_state = State::Head;
    HttpRequestHead m_head;
    Error m_error;

    qsizetype feedHead(QByteArrayView data);
    qsizetype feedBody(QByteArrayView data, QByteArray *forward);
    void failWith(Error error);
};

} // namespace Cordon::Network
