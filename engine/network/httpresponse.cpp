// SPDX-License-Identifier: MIT
#include "network/httpresponse.h"

#include <http_parser.h>

namespace Cordon::Network {

struct HttpResponseFramer::Impl
{
    HttpResponseFramer *owner = nullptr;
    http_parser parser{};
    http_parser_settings settings{};
    bool head = false;
    bool interim = false;

    explicit Impl(HttpResponseFramer *framer, bool isHead) : owner(framer), head(isHead)
    {
        http_parser_init(&parser, HTTP_RESPONSE);
        parser.data = this;
        http_parser_settings_init(&settings);
        settings.on_headers_complete = [](http_parser *p) {
            Impl *impl = static_cast<Impl *>(p->data);
            const int status = int(p->status_code);
            // 101 would switch the connection to another protocol, which we never asked for.
            if (status == 101)
                return -1;
            impl->interim = status >= 100 && status < 200;
            if (!impl->interim) {
                impl->owner->m_status = status;
                impl->owner->m_keepAlive = http_should_keep_alive(p) != 0;
            }
            // 1: no body follows (the answer to HEAD has the fields of a GET but no body).
            return impl->head && !impl->interim ? 1 : 0;
        };
        settings.on_message_complete = [](http_parser *p) {
            Impl *impl = static_cast<Impl *>(p->data);
            if (impl->interim) {
                impl->interim = false;
                return 0;
            }
            impl->owner->m_complete = true;
            // A close-delimited body ends only with the connection; such a response cannot keep it.
            impl->owner->m_keepAlive = impl->owner->m_keepAlive && http_should_keep_alive(p) != 0;
            http_parser_pause(p, 1);
            return 0;
        };
    }
};

HttpResponseFramer::HttpResponseFramer(QByteArrayView requestMethod)
    : m_impl(std::make_unique<Impl>(this, requestMethod == "HEAD"))
{}

HttpResponseFramer::~HttpResponseFramer() = default;

qsizetype HttpResponseFramer::feed(QByteArrayView data)
{
    if (m_complete || m_failed || data.isEmpty())
        return 0;
    const size_t consumed =
        http_parser_execute(&m_impl->parser, &m_impl->settings, data.data(), size_t(data.size()));
    const auto code = HTTP_PARSER_ERRNO(&m_impl->parser);
    if (code != HPE_OK && code != HPE_PAUSED) {
        m_failed = true;
        m_error = makeError(QStringLiteral("network.bad_response"),
                            QStringLiteral("malformed response from the upstream: ") +
                                QString::fromLatin1(http_errno_description(code)));
        return 0;
    }
    return qsizetype(consumed);
}

void HttpResponseFramer::finish()
{
    if (m_complete || m_failed)
        return;
    http_parser_execute(&m_impl->parser, &m_impl->settings, nullptr, 0);
    if (!m_complete) {
        m_failed = true;
        m_error =
            makeError(QStringLiteral("network.bad_response"),
                      QStringLiteral("the upstream closed the connection before the response was complete"));
    }
}

} // namespace Cordon::Network
