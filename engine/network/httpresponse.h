// SPDX-License-Identifier: MIT
// Finds where an upstream's response ends, so that a keep-alive connection can carry the next request. The
// response bytes are relayed to the client as they came; libhttp-parser only observes them.
#pragma once

#include "core/result.h"

#include <QByteArrayView>

#include <memory>

namespace Cordon::Network {

class HttpResponseFramer
{
public:
    // requestMethod decides whether the response has a body (HEAD: never).
    explicit HttpResponseFramer(QByteArrayView requestMethod);
    ~HttpResponseFramer();
    HttpResponseFramer(const HttpResponseFramer &) = delete;
    HttpResponseFramer &operator=(const HttpResponseFramer &) = delete;

    // Observes upstream bytes; returns how many belong to this response. Interim 1xx responses are part of
    // it; it is complete after the final response's body. Bytes after that are not consumed: an upstream that
    // sends them is broken or hostile.
    qsizetype feed(QByteArrayView data);
    // The upstream closed: completes a response whose body runs to the end of the connection, fails others.
    void finish();

    bool isComplete() const { return m_complete; }
    bool hasFailed() const { return m_failed; }
    // network.bad_response with what libhttp-parser reported.
    const Error &error() const { return m_error; }
    // The final status code, once its head has been seen; 0 before.
    int statusCode() const { return m_status; }
    // The upstream keeps the connection open after this response (not close-delimited, no "Connection:
    // close").
    bool keepAlive() const { return m_keepAlive; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    bool m_complete = false;
    bool m_failed = false;
    Error m_error;
    int m_status = 0;
    bool m_keepAlive = false;
};

} // namespace Cordon::Network
