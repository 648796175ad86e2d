// SPDX-License-Identifier: MIT
// Driving libhttp-parser: the raw line checks it lacks, pausing at the end of the head and of the body, and
// re-framing chunked bodies. The head's meaning is checked in httprequesthead.cpp.
#include "network/httprequest.h"

#include "network/chunkframing.h"
#include "network/httprequesthead_p.h"

#include <http_parser.h>

namespace Cordon::Network {

namespace {

tl::unexpected<Error> badRequest(const QString &why)
{
    return fail(QStringLiteral("network.bad_request"), why);
}

} // namespace

// What libhttp-parser 2.9.4 accepts that a proxy must not (checked by tst_httprequest): bare LF as a line
// end, obs-fold continuation lines, whitespace in field names, a bare LF ending a chunk extension (which
// shifts its chunk boundaries: the CVE-2025-55315 class). The first three are caught here on the raw head,
// line by line, before the parser sees the bytes; the last one on the raw chunk framing between body
// callbacks.
struct HttpRequestParser::Impl
{
    http_parser parser{};
    http_parser_settings settings{};

    // Raw line checks over the head.
    qsizetype headBytes = 0;
    qsizetype lineBytes = 0;
    int leadingEmptyLines = 0;
    int fieldLines = 0;
    bool pendingCr = false;
    bool lineStart = true;
    bool requestLineSeen = false;
    QByteArray requestLine;

    // Collected by the callbacks.
    RawHead raw;
    bool lastWasValue = false;
    bool headComplete = false;
    bool messageComplete = false;

    // Body: chunked bodies are re-framed into *forward; bodySpans are the on_body ranges of the current
    // execute call, so that the framing bytes between them can be checked.
    QByteArray *forward = nullptr;
    const char *base = nullptr;
    QList<std::pair<qsizetype, qsizetype>> bodySpans;
    bool chunked = false;
    ChunkFramingCheck framing;

    Impl()
    {
        http_parser_init(&parser, HTTP_REQUEST);
        parser.data = this;
        http_parser_settings_init(&settings);
        settings.on_url = [](http_parser *p, const char *at, size_t length) {
            self(p)->raw.url.append(at, qsizetype(length));
            return 0;
        };
        settings.on_header_field = [](http_parser *p, const char *at, size_t length) {
            Impl *impl = self(p);
            if (impl->lastWasValue || impl->raw.headers.isEmpty())
                impl->raw.headers.append(HttpHeader());
            impl->lastWasValue = false;
            impl->raw.headers.last().name.append(at, qsizetype(length));
            return 0;
        };
        settings.on_header_value = [](http_parser *p, const char *at, size_t length) {
            Impl *impl = self(p);
            impl->lastWasValue = true;
            impl->raw.headers.last().value.append(at, qsizetype(length));
            return 0;
        };
        settings.on_headers_complete = [](http_parser *p) {
            self(p)->headComplete = true;
            http_parser_pause(p, 1);
            return 0;
        };
        settings.on_body = [](http_parser *p, const char *at, size_t length) {
            Impl *impl = self(p);
            impl->bodySpans.append({at - impl->base, qsizetype(length)});
            if (!impl->forward)
                return 0;
            if (impl->chunked)
                impl->forward->append(QByteArray::number(qulonglong(length), 16) + "\r\n");
            impl->forward->append(at, qsizetype(length));
            if (impl->chunked)
                impl->forward->append("\r\n");
            return 0;
        };
        settings.on_message_complete = [](http_parser *p) {
            Impl *impl = self(p);
            impl->messageComplete = true;
            // Trailers are dropped: the re-framed body ends with the last chunk alone.
            if (impl->chunked && impl->forward)
                impl->forward->append("0\r\n\r\n");
            http_parser_pause(p, 1);
            return 0;
        };
    }

    static Impl *self(http_parser *p) { return static_cast<Impl *>(p->data); }

    size_t execute(QByteArrayView data)
    {
        base = data.data();
        bodySpans.clear();
        return http_parser_execute(&parser, &settings, data.data(), size_t(data.size()));
    }

    bool failedParse() const
    {
        const auto code = HTTP_PARSER_ERRNO(&parser);
        return code != HPE_OK && code != HPE_PAUSED;
    }

    QString parseError() const
    {
        const auto code = HTTP_PARSER_ERRNO(&parser);
        return QStringLiteral("malformed request: ") + QString::fromLatin1(http_errno_description(code));
    }

    void resetHead()
    {
        headBytes = lineBytes = 0;
        leadingEmptyLines = fieldLines = 0;
        pendingCr = false;
        lineStart = true;
        requestLineSeen = false;
        requestLine.clear();
        raw = RawHead();
        lastWasValue = headComplete = messageComplete = chunked = false;
        framing = ChunkFramingCheck();
    }

    // Scans head bytes line by line. Returns the length of the head within data when its empty line is there,
    // -1 when more is needed, or an error.
    Result<qsizetype> scanHead(QByteArrayView data)
    {
        for (qsizetype i = 0; i < data.size(); ++i) {
            const char c = data[i];
            if (++headBytes > MaxHeadBytes)
                return badRequest(
                    QStringLiteral("the request head is larger than %1 bytes").arg(MaxHeadBytes));
            if (pendingCr) {
                if (c != '\n')
                    return badRequest(QStringLiteral("CR without LF in the request head"));
                pendingCr = false;
            } else if (c == '\r') {
                pendingCr = true;
                continue;
            } else if (c == '\n') {
                // Parsers that accept a bare LF disagree with those that do not about where a line ends
                // (h11 CVE-2025-43859, fasthttp#1899).
                return badRequest(QStringLiteral("bare LF line ending in the request head"));
            } else {
                // A field line starting with whitespace continues the previous one (obs-fold, RFC 9112 5.2):
                // proxies that unfold and servers that do not see different fields.
                if (lineStart && requestLineSeen && (c == ' ' || c == '\t'))
                    return badRequest(QStringLiteral("obsolete line folding in the request head"));
                lineStart = false;
                if (++lineBytes > MaxLineBytes)
                    return badRequest(QStringLiteral("a line of the request head is longer than %1 bytes")
                                          .arg(MaxLineBytes));
                if (!requestLineSeen)
                    requestLine.append(c);
                continue;
            }
            // End of a line.
            if (lineBytes == 0) {
                if (requestLineSeen)
                    return i + 1;
                // RFC 9112 2.2 allows ignoring an empty line before the request line, sent by some clients
                // after a body.
                if (++leadingEmptyLines > 1)
                    return badRequest(QStringLiteral("empty lines before the request line"));
            } else if (!requestLineSeen) {
                requestLineSeen = true;
            } else if (++fieldLines > MaxHeaderFields) {
                return badRequest(QStringLiteral("more than %1 header fields").arg(MaxHeaderFields));
            }
            lineBytes = 0;
            lineStart = true;
        }
        return qsizetype(-1);
    }

    // In a chunked body every byte outside the on_body spans is framing, checked by ChunkFramingCheck.
    Result<void> checkChunkFraming(QByteArrayView consumed)
    {
        qsizetype span = 0;
        for (qsizetype i = 0; i < consumed.size(); ++i) {
            if (span < bodySpans.size() && i == bodySpans[span].first) {
                i += bodySpans[span].second - 1;
                ++span;
                CORDON_TRY(framing.data());
                continue;
            }
            CORDON_TRY(framing.framing(consumed[i]));
        }
        return {};
    }
};

HttpRequestParser::HttpRequestParser() : m_impl(std::make_unique<Impl>()) {}

HttpRequestParser::HttpRequestParser(const Authority &tunnel)
    : m_impl(std::make_unique<Impl>()), m_tunnel(tunnel)
{}

HttpRequestParser::~HttpRequestParser() = default;

void HttpRequestParser::failWith(Error error)
{
    m_state = State::Failed;
    m_error = std::move(error);
}

qsizetype HttpRequestParser::feed(QByteArrayView data, QByteArray *forward)
{
    switch (m_state) {
    case State::Head:
        return feedHead(data);
    case State::Body:
        return feedBody(data, forward);
    case State::Done:
    case State::Failed:
        break;
    }
    return 0;
}

QByteArray HttpRequestParser::requestLine() const
{
    return m_impl->requestLine;
}

qsizetype HttpRequestParser::feedHead(QByteArrayView data)
{
    const Result<qsizetype> headEnd = m_impl->scanHead(data);
    if (!headEnd) {
        failWith(headEnd.error());
        return 0;
    }
    const QByteArrayView head = *headEnd < 0 ? data : data.first(*headEnd);
    const size_t parsed = m_impl->execute(head);
    if (m_impl->failedParse()) {
        failWith(makeError(QStringLiteral("network.bad_request"), m_impl->parseError()));
        return 0;
    }
    if (!m_impl->headComplete) {
        if (*headEnd >= 0) {
            failWith(
                makeError(QStringLiteral("network.bad_request"),
                          QStringLiteral("malformed request: the head did not end where its empty line is")));
            return 0;
        }
        return data.size();
    }
    // libhttp-parser pauses on the head's last LF; finish it, which reaches the end of the message when there
    // is no body. The parser's end of the head must be the line scanner's: two opinions are one too many.
    http_parser_pause(&m_impl->parser, 0);
    const size_t rest = m_impl->execute(head.sliced(qsizetype(parsed)));
    if (m_impl->failedParse()) {
        failWith(makeError(QStringLiteral("network.bad_request"), m_impl->parseError()));
        return 0;
    }
    if (qsizetype(parsed + rest) != *headEnd) {
        failWith(
            makeError(QStringLiteral("network.bad_request"),
                      QStringLiteral("malformed request: the head did not end where its empty line is")));
        return 0;
    }

    m_impl->raw.requestLine = m_impl->requestLine;
    m_impl->raw.method = QByteArray(http_method_str(static_cast<http_method>(m_impl->parser.method)));
    m_impl->raw.versionMajor = m_impl->parser.http_major;
    m_impl->raw.versionMinor = m_impl->parser.http_minor;
    m_impl->raw.upgrade = m_impl->parser.upgrade != 0;
    m_impl->raw.keepAlive = http_should_keep_alive(&m_impl->parser) != 0;
    m_impl->raw.parserChunked = (m_impl->parser.flags & F_CHUNKED) != 0;
    Result<HttpRequestHead> checked = checkRequestHead(m_impl->raw, m_tunnel);
    if (!checked) {
        failWith(checked.error());
        return 0;
    }
    m_head = std::move(*checked);
    m_impl->chunked = m_head.body == HttpRequestHead::Body::Chunked;
    m_state = m_impl->messageComplete ? State::Done : State::Body;
    // A CONNECT has no body whatever its fields say; they were refused above anyway.
    if (m_head.isConnect())
        m_state = State::Done;
    return *headEnd;
}

qsizetype HttpRequestParser::feedBody(QByteArrayView data, QByteArray *forward)
{
    // Re-framed bytes are handed out only once the raw framing they came from has passed its check.
    QByteArray reframed;
    m_impl->forward = &reframed;
    const size_t consumed = m_impl->execute(data);
    m_impl->forward = nullptr;
    if (m_impl->failedParse()) {
        failWith(makeError(QStringLiteral("network.bad_request"), m_impl->parseError()));
        return 0;
    }
    if (m_impl->chunked) {
        if (const Result<void> framing = m_impl->checkChunkFraming(data.first(qsizetype(consumed)));
            !framing) {
            failWith(framing.error());
            return 0;
        }
    }
    if (m_impl->chunked && m_impl->messageComplete && !m_impl->framing.isComplete()) {
        failWith(makeError(QStringLiteral("network.bad_request"),
                           QStringLiteral("malformed chunked body framing")));
        return 0;
    }
    if (forward)
        forward->append(reframed);
    if (m_impl->messageComplete)
        m_state = State::Done;
    return qsizetype(consumed);
}

void HttpRequestParser::next()
{
    if (m_state != State::Done || m_head.isConnect())
        return;
    m_impl->resetHead();
    m_head = HttpRequestHead();
    http_parser_pause(&m_impl->parser, 0);
    m_state = State::Head;
}

} // namespace Cordon::Network
