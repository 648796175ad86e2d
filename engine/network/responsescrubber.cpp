// SPDX-License-Identifier: MIT
#include "network/responsescrubber.h"

#include <QList>
#include <QPair>

#include <http_parser.h>

#include <utility>

namespace Cordon::Network {

namespace {

// Whether a Content-Encoding value names anything but identity ("gzip", "br, identity" ...).
bool compressed(const QByteArray &contentEncoding)
{
    for (const QByteArray &coding : contentEncoding.split(',')) {
        const QByteArray name = coding.trimmed().toLower();
        if (!name.isEmpty() && name != "identity")
            return true;
    }
    return false;
}

} // namespace

struct ResponseScrubber::Impl
{
    ResponseScrubber *owner = nullptr;
    Secrets::SecretMasker masker;
    http_parser parser{};
    http_parser_settings settings{};
    bool head = false;
    bool refuseCompressed = false;
    bool interim = false;
    bool chunked = false;
    bool complete = false;
    QByteArray reason;
    QList<QPair<QByteArray, QByteArray>> fields; // of the head, then of the trailers
    bool lastWasValue = false;
    QByteArray out;

    Impl(ResponseScrubber *scrubber, Secrets::SecretMasker secrets, bool isHead, bool refuse)
        : owner(scrubber), masker(std::move(secrets)), head(isHead), refuseCompressed(refuse)
    {
        http_parser_init(&parser, HTTP_RESPONSE);
        parser.data = this;
        http_parser_settings_init(&settings);
        settings.on_message_begin = [](http_parser *p) {
            Impl *impl = of(p);
            impl->reason.clear();
            impl->fields.clear();
            impl->lastWasValue = false;
            return 0;
        };
        settings.on_status = [](http_parser *p, const char *at, size_t length) {
            of(p)->reason.append(at, qsizetype(length));
            return 0;
        };
        settings.on_header_field = [](http_parser *p, const char *at, size_t length) {
            Impl *impl = of(p);
            if (impl->lastWasValue || impl->fields.isEmpty())
                impl->fields.append(QPair<QByteArray, QByteArray>());
            impl->fields.last().first.append(at, qsizetype(length));
            impl->lastWasValue = false;
            return 0;
        };
        settings.on_header_value = [](http_parser *p, const char *at, size_t length) {
            Impl *impl = of(p);
            if (impl->fields.isEmpty())
                impl->fields.append(QPair<QByteArray, QByteArray>());
            impl->fields.last().second.append(at, qsizetype(length));
            impl->lastWasValue = true;
            return 0;
        };
        settings.on_headers_complete = [](http_parser *p) { return of(p)->headersComplete(); };
        settings.on_body = [](http_parser *p, const char *at, size_t length) {
            Impl *impl = of(p);
            impl->body(impl->masker.feed(std::string_view(at, length)));
            return 0;
        };
        settings.on_message_complete = [](http_parser *p) {
            Impl *impl = of(p);
            if (std::exchange(impl->interim, false))
                return 0;
            impl->body(impl->masker.finish());
            if (impl->chunked)
                impl->out += "0\r\n" + impl->maskedText(impl->fieldLines()) + "\r\n";
            impl->complete = true;
            http_parser_pause(p, 1);
            return 0;
        };
    }

    static Impl *of(http_parser *p) { return static_cast<Impl *>(p->data); }

    int headersComplete()
    {
        const int status = int(parser.status_code);
        if (status == 101)
            return -1; // a switch of protocols that was never asked for: the framer fails it too
        interim = status >= 100 && status < 200;
        if (!interim) {
            chunked = (parser.flags & F_CHUNKED) != 0;
            for (const auto &[name, value] : std::as_const(fields)) {
                if (name.compare("content-encoding", Qt::CaseInsensitive) == 0 && compressed(value) &&
                    refuseCompressed) {
                    owner->m_refusal =
                        QStringLiteral("the answer to a request that carried a domain secret is compressed "
                                       "(%1): the proxy cannot look into it for the secret's value, so it is "
                                       "not passed on. Send `Accept-Encoding: identity`, or allow compressed "
                                       "responses for this domain in the policy (allow_compressed_responses)")
                            .arg(QString::fromLatin1(value.trimmed().left(40)));
                    return -1;
                }
            }
        }
        QByteArray text = "HTTP/" + QByteArray::number(parser.http_major) + '.' +
                          QByteArray::number(parser.http_minor) + ' ' + QByteArray::number(status);
        if (!reason.isEmpty())
            text += ' ' + reason;
        text += "\r\n" + fieldLines() + "\r\n";
        out += maskedText(text);
        // 1: no body follows (the answer to HEAD has the fields of a GET but no body).
        return head && !interim ? 1 : 0;
    }

    QByteArray fieldLines()
    {
        QByteArray text;
        for (const auto &[name, value] : std::as_const(fields))
            text += name + ": " + value + "\r\n";
        fields.clear();
        lastWasValue = false;
        return text;
    }

    QByteArray maskedText(const QByteArray &text) const
    {
        return QByteArray::fromStdString(masker.maskAll(text.toStdString()));
    }

    // Body bytes the masker let through, framed as the head said.
    void body(const std::string &passed)
    {
        if (passed.empty())
            return;
        if (chunked)
            out += QByteArray::number(qulonglong(passed.size()), 16) + "\r\n";
        out.append(passed.data(), qsizetype(passed.size()));
        if (chunked)
            out += "\r\n";
    }
};

ResponseScrubber::ResponseScrubber(Secrets::SecretMasker masker, QByteArrayView requestMethod,
                                   bool refuseCompressed)
    : m_impl(std::make_unique<Impl>(this, std::move(masker), requestMethod == "HEAD", refuseCompressed))
{}

ResponseScrubber::~ResponseScrubber() = default;

QByteArray ResponseScrubber::feed(QByteArrayView data)
{
    if (m_impl->complete || m_failed || !m_refusal.isEmpty() || data.isEmpty())
        return {};
    http_parser_execute(&m_impl->parser, &m_impl->settings, data.data(), size_t(data.size()));
    const auto code = HTTP_PARSER_ERRNO(&m_impl->parser);
    if (!m_refusal.isEmpty())
        return {};
    if (code != HPE_OK && code != HPE_PAUSED) {
        m_failed = true;
        return {};
    }
    return std::exchange(m_impl->out, QByteArray());
}

QByteArray ResponseScrubber::finish()
{
    if (!m_impl->complete && !m_failed && m_refusal.isEmpty())
        http_parser_execute(&m_impl->parser, &m_impl->settings, nullptr, 0);
    return std::exchange(m_impl->out, QByteArray());
}

} // namespace Cordon::Network
