// SPDX-License-Identifier: MIT
// Fuzzes the proxy's request reader the way a connection drives it: bytes in pieces (the first input byte
// picks the piece size), keep-alive requests one after another, bodies re-framed. Besides memory errors it
// checks what the upstream would receive: a head with CRLF line ends only and no empty line before its end,
// and a re-framed chunked body that ends with the last chunk; inside a terminated tunnel, requests only to
// the tunnel's host. The response framer reads the same bytes.
#include "network/httprequest.h"
#include "network/httpresponse.h"

#include <cstdint>
#include <cstdlib>

using namespace Cordon::Network;

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

void checkUpstreamHead(const QByteArray &head)
{
    check(head.endsWith("\r\n\r\n"));
    check(head.indexOf("\r\n\r\n") == head.size() - 4);
    for (qsizetype i = 0; i < head.size(); ++i) {
        if (head[i] == '\n')
            check(i > 0 && head[i - 1] == '\r');
        if (head[i] == '\r')
            check(i + 1 < head.size() && head[i + 1] == '\n');
        check(head[i] != '\0');
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const qsizetype step = 1 + data[0] % 64;
    const QByteArrayView input(reinterpret_cast<const char *>(data) + 1, qsizetype(size) - 1);

    // The top bit picks the reader of requests inside a tunnel the proxy terminates (domain secrets).
    const bool tunnelled = (data[0] & 0x80) != 0;
    HttpRequestParser parser = tunnelled
                                   ? HttpRequestParser(Authority{QStringLiteral("api.example.com"), 443})
                                   : HttpRequestParser();
    QByteArray pending;
    QByteArray body;
    qsizetype offered = 0;
    for (int requests = 0; requests < 8;) {
        if (pending.isEmpty()) {
            if (offered >= input.size())
                break;
            const qsizetype take = std::min(step, input.size() - offered);
            pending = input.sliced(offered, take).toByteArray();
            offered += take;
        }
        const qsizetype used = parser.feed(pending, &body);
        check(used >= 0 && used <= pending.size());
        pending.remove(0, used);
        if (parser.state() == HttpRequestParser::State::Failed) {
            check(!parser.error().code().empty());
            break;
        }
        if (parser.state() == HttpRequestParser::State::Body && used == 0 && !pending.isEmpty())
            std::abort(); // a body state that makes no progress would hang a connection
        if (parser.state() == HttpRequestParser::State::Done) {
            const HttpRequestHead &head = parser.head();
            check(!head.authority.host.isEmpty() && head.authority.port != 0);
            // Inside a tunnel every request goes to the tunnel's own host, in origin-form.
            if (tunnelled)
                check(head.authority.host == QLatin1String("api.example.com") &&
                      head.originForm.startsWith('/') && !head.isConnect());
            checkUpstreamHead(head.upstreamHead());
            if (head.body == HttpRequestHead::Body::Chunked)
                check(body.endsWith("0\r\n\r\n"));
            if (head.body == HttpRequestHead::Body::ContentLength)
                check(quint64(body.size()) == head.contentLength);
            if (head.isConnect())
                break;
            body.clear();
            parser.next();
            ++requests;
        }
    }

    HttpResponseFramer framer(data[0] & 1 ? "HEAD" : "GET");
    const qsizetype used = framer.feed(input);
    check(used >= 0 && used <= input.size());
    if (!framer.isComplete() && !framer.hasFailed())
        framer.finish();
    return 0;
}
