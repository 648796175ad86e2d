// SPDX-License-Identifier: MIT
// The hostile upstream of the credentials.domain_secret row: an HTTPS server on the host's loopback that
// hands back the Authorization header it received, as an error page or an echo service would. It answers
// /raw (as received), /base64, /hex (the whole header value encoded) and /split (chunked in 4096-byte chunks
// with the value across a chunk boundary, as Go's net/http frames a body), and records what each request
// carried, so that the row can show the proxy really sent the key before it looks at what came back.
//
// It runs on a thread of its own: the audit's rows block in synchronous daemon calls while the sandbox's
// requests arrive.
#pragma once

#include "auditrunner/loopbackcertificate.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QThread>

#include <memory>

namespace Cordon::Audit {

class EchoUpstream final
{
public:
    static constexpr int ChunkBytes = 4096;
    // The paths it echoes on, in the order the row asks them.
    static const QList<QByteArray> &paths();

    struct Request
    {
        QByteArray path;
        QByteArray authorization; // the header's value as received; empty when there was none
    };

    EchoUpstream();
    ~EchoUpstream();
    EchoUpstream(const EchoUpstream &) = delete;
    EchoUpstream &operator=(const EchoUpstream &) = delete;

    // Listens on 127.0.0.1 with `identity`; the port. audit.echo_upstream when it cannot.
    Result<quint16> start(const LoopbackCertificate &identity);
    // Every request answered so far, oldest first.
    QList<Request> requests() const;

    // The body it answers `path` with for `authorization` (before framing): what the sandbox must not get
    // back unmasked.
    static QByteArray body(const QByteArray &path, const QByteArray &authorization);

    struct Log
    {
        mutable QMutex mutex;
        QList<Request> requests;
    };

private:
    QThread m_thread; // the server lives on it, and is deleted when it finishes
    std::shared_ptr<Log> m_log;
};

} // namespace Cordon::Audit
