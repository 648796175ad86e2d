// SPDX-License-Identifier: MIT
// A response inside TLS the proxy terminated for domain secrets, rewritten on its way to the sandbox so that
// no value the proxy holds reaches it (docs/secrets.md, "Domain secrets"). An upstream that quotes the key it
// was sent (an error message, an echo service) would otherwise hand the value to the program that must only
// hold a placeholder. The head is parsed and written again; the body is decoded from its framing (chunked,
// Content-Length, or to the end of the connection, as HTTP/1.0 servers send it); in the head, the body and
// the trailers every form the output masker knows (raw, base64, hex, percent- and JSON-encoded ...) becomes
// as many '*' as it has bytes, across reads and chunk boundaries. A chunked body is chunked again with sizes
// of its own; any other body keeps its length, so its Content-Length stays true.
//
// A compressed body (a Content-Encoding other than identity) cannot be looked into: when the request
// carried a value and the policy did not allow it for the domain, the response is refused before anything
// of it is passed on.
#pragma once

#include "sandbox/secrets/secretmasker.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <memory>

namespace Cordon::Network {

class ResponseScrubber
{
public:
    // `masker` marks with Mark::SameLength; requestMethod decides whether the response has a body (HEAD:
    // never); refuseCompressed: the request carried a value the policy did not allow compressed answers for.
    ResponseScrubber(Secrets::SecretMasker masker, QByteArrayView requestMethod, bool refuseCompressed);
    ~ResponseScrubber();
    ResponseScrubber(const ResponseScrubber &) = delete;
    ResponseScrubber &operator=(const ResponseScrubber &) = delete;

    // Bytes of this response as the upstream sent them (HttpResponseFramer counts where it ends); returns
    // what may go to the client now.
    QByteArray feed(QByteArrayView data);
    // The upstream closed the connection: what a body that runs to its end still held back.
    QByteArray finish();

    // Not empty once the response may not pass (nothing of it was returned): why, for the program and the
    // ledger.
    const QString &refusal() const { return m_refusal; }
    // The response could not be parsed (the framer reports why).
    bool hasFailed() const { return m_failed; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    QString m_refusal;
    bool m_failed = false;
};

} // namespace Cordon::Network
