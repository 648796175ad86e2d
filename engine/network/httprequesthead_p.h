// SPDX-License-Identifier: MIT
// Between the parser driver and the head checks: what libhttp-parser reported, unchecked.
#pragma once

#include "core/result.h"
#include "network/httprequest.h"

#include <optional>

namespace Cordon::Network {

struct RawHead
{
    QByteArray requestLine; // as sent, without CRLF
    QByteArray method;      // http_method_str() of what the parser recognised
    QByteArray url;
    int versionMajor = 0;
    int versionMinor = 0;
    QList<HttpHeader> headers; // names and values exactly as the parser delimited them
    bool upgrade = false;
    bool keepAlive = false;
    bool parserChunked = false;
};

// The proxy's rules for a request head (see httprequest.h); the result has trimmed values and a checked
// authority. With `tunnel` (a request inside TLS the proxy terminated for that authority) the target must be
// origin-form and the Host field must name the tunnel's authority; CONNECT is refused.
Result<HttpRequestHead> checkRequestHead(const RawHead &raw, const std::optional<Authority> &tunnel = {});

} // namespace Cordon::Network
